import { z } from "zod";
import { lazy } from "../lazy.js";
import { crossFieldRules, echoOnly } from "./jsonRules.js";

/**
 * Building blocks shared by every record and body schema.
 *
 * Response records are parsed with loose objects (extra fields the real API may add are kept); request bodies are
 * strict objects, so an unknown field is a 400 naming its path.
 */

export type ObjectMode = "strict" | "loose";

/** `z.strictObject` for bodies, `z.looseObject` for responses. */
export function object<T extends z.core.$ZodLooseShape>(mode: ObjectMode, shape: T) {
  return mode === "strict" ? z.strictObject(shape) : z.looseObject(shape);
}

export const NAME_PATTERN = /^[a-z][-a-z0-9]*[a-z0-9]$/;
export const NAME_MAX = 64;
export const DESCRIPTION_MAX = 250;
export const TAGS_MAX = 50;
/** Longest tag key and string tag value: not documented by the API; chosen so that tags stay small (see docs/limits.md). */
export const TAG_KEY_MAX = 256;
export const TAG_VALUE_MAX = 1024;

export const name = lazy(() =>
  z
    .string()
    .max(NAME_MAX, `must be at most ${NAME_MAX} characters`)
    .regex(
      NAME_PATTERN,
      "must start with a lowercase letter, contain only lowercase letters, digits and '-', and end with a letter or digit (at least 2 characters)",
    )
    .describe(`Name, unique within its scope: ${NAME_PATTERN.source}, at most ${NAME_MAX} characters.`),
);

export const description = lazy(() =>
  z
    .string()
    .max(DESCRIPTION_MAX, `must be at most ${DESCRIPTION_MAX} characters`)
    .describe(`Free-form description, at most ${DESCRIPTION_MAX} characters; defaults to the name.`),
);

export const tagValue = lazy(() =>
  z
    .union(
      [z.string().max(TAG_VALUE_MAX, `must be at most ${TAG_VALUE_MAX} characters`), z.number(), z.boolean(), z.null()],
      { error: "must be a string, number, boolean or null" },
    )
    .describe(`Tag value: string (at most ${TAG_VALUE_MAX} characters), number, boolean or null.`),
);

/** A tag key as a request may set it: not empty, at most `TAG_KEY_MAX` characters. */
export const tagKey = lazy(() =>
  z
    .string()
    .min(1, "tag keys must not be empty")
    .max(TAG_KEY_MAX, `tag keys must be at most ${TAG_KEY_MAX} characters`),
);

/** Tags of a record or of a create body: at most 50 keys. */
export const tags = lazy(() =>
  z
    .record(tagKey(), tagValue())
    .refine((value) => Object.keys(value).length <= TAGS_MAX, { message: `at most ${TAGS_MAX} tags are allowed` })
    .describe(`Key/value tags, at most ${TAGS_MAX}. Keys under 'cpln/' are set by the server.`),
);

/** Tags as returned by the server (no count check: the server may add its own `cpln/` tags). */
export const tagsOutput = lazy(() =>
  z
    .record(
      z.string(),
      z
        .union([z.string(), z.number(), z.boolean(), z.null()], { error: "must be a string, number, boolean or null" })
        .describe("Tag value: string, number, boolean or null."),
    )
    .describe("Key/value tags. Keys under 'cpln/' are set by the server."),
);

export const linkSchema = lazy(() =>
  z
    .looseObject({
      rel: z.string().describe("Relation: self, org, gvc, next, ..."),
      href: z.string().describe("Path of the linked object, e.g. /org/acme/gvc/main/volumeset/data."),
    })
    .describe("A link to a related object or page."),
);

export const links = lazy(() => z.array(linkSchema()).describe("Links: self, org, and gvc for gvc-scoped kinds."));

export const timestamp = lazy(() => z.iso.datetime({ offset: true }).describe("ISO 8601 timestamp."));

/** Fields every record carries, in the API's order. */
export function recordShape<K extends string>(kind: K) {
  return {
    kind: z.literal(kind).describe(`Always '${kind}'.`),
    id: z.uuid().describe("Unique id of the object (UUID)."),
    name: z.string().describe("Name of the object, unique within its scope."),
    description: z.string().optional().describe("Description; defaults to the name."),
    version: z
      .number()
      .int()
      .min(0)
      .describe("Incremented on every change; send it back in a PATCH to detect conflicts."),
    tags: tagsOutput().optional(),
    created: timestamp().describe("When the object was created."),
    lastModified: timestamp().describe("When the object last changed."),
    links: links(),
  };
}

/**
 * Read-only record fields a PATCH body may carry (clients often send back what they read). The server checks that
 * `version` is current (409 otherwise) and ignores the rest when it equals the stored value.
 */
export function readOnlyPatchShape() {
  return {
    version: z.number().int().min(0).optional().describe("Current version; a stale value is rejected with 409."),
    id: echoOnly(z.string().optional().describe("Read-only; must match the stored id.")),
    kind: echoOnly(z.string().optional().describe("Read-only.")),
    name: echoOnly(z.string().optional().describe("Read-only; renaming is not supported.")),
    created: echoOnly(z.unknown().optional().describe("Read-only; ignored (any value).")),
    lastModified: echoOnly(z.unknown().optional().describe("Read-only; ignored (any value).")),
    links: echoOnly(z.unknown().optional().describe("Read-only; ignored (any value).")),
    status: echoOnly(z.unknown().optional().describe("Read-only; ignored (any value).")),
  };
}

/** `{kind:'list', itemKind, items, links}` — the envelope of every list endpoint. */
export function listResponse<T extends z.ZodType>(item: T) {
  return z
    .looseObject({
      kind: z.literal("list").describe("Always 'list'."),
      itemKind: z.string().describe("Kind of the items."),
      items: z.array(item).describe("The objects the caller may view."),
      links: links().describe("self, and next when there are more pages."),
    })
    .describe("A list of objects.");
}

/** How one field of an object behaves in a PATCH body (see `patchObject`). */
export interface PatchField {
  /** The field's full value: used by `$replace/<f>` and, unless `merge` is given, by the plain field. */
  value: z.ZodType;
  /** The plain field's merge form for objects (a nested patch object or a record of nullable values). */
  merge?: z.ZodType;
  /** The object always has the field: a patch cannot remove it (no null, not in `$drop`). */
  required?: boolean;
  /** Keyed-array directives (`$append/`, `$drop/`, `$retain/`, `$patch/`) for array fields. */
  array?: { item: z.ZodType; key: z.ZodType; patchItem?: z.ZodType; keyDescription: string };
}

/**
 * A strict PATCH object for one object level: each field merges (`null` removes it), `$replace/<f>` replaces it,
 * `$drop` removes fields, and array fields get `$append/`, `$drop/`, `$retain/` and (for object items) `$patch/`.
 * `extra` adds fields that are not patchable the same way (read-only fields, key fields of `$patch/` items).
 */
export function patchObject(
  fields: Record<string, PatchField>,
  extra: Record<string, z.ZodType> = {},
  droppable: readonly string[] = Object.keys(fields).filter((field) => fields[field]?.required !== true),
) {
  const shape: Record<string, z.ZodType> = {};
  if (droppable.length > 0) {
    shape["$drop"] = z
      .array(z.enum(droppable as [string, ...string[]]))
      .optional()
      .describe(`Fields to remove: ${droppable.join(", ")}.`);
  }
  for (const [field, spec] of Object.entries(fields)) {
    const description = spec.value.description ?? field;
    if (spec.required) {
      shape[field] = (spec.merge ?? spec.value)
        .optional()
        .describe(`${description} Objects merge; arrays and scalars replace. Required: it cannot be removed.`);
      shape[`$replace/${field}`] = spec.value.optional().describe(`Replaces ${field} wholesale.`);
    } else {
      shape[field] = (spec.merge ?? spec.value)
        .nullable()
        .optional()
        .describe(`${description} Objects merge; null removes the field; arrays and scalars replace.`);
      shape[`$replace/${field}`] = spec.value
        .nullable()
        .optional()
        .describe(`Replaces ${field} wholesale; null removes it.`);
    }
    if (spec.array) {
      const { item, key, patchItem, keyDescription } = spec.array;
      shape[`$append/${field}`] = z
        .array(item)
        .optional()
        .describe(`Items appended to ${field}; an item whose key (${keyDescription}) already exists is rejected.`);
      shape[`$drop/${field}`] = z
        .array(key)
        .optional()
        .describe(`Keys (${keyDescription}) of the ${field} items to remove.`);
      shape[`$retain/${field}`] = z
        .array(key)
        .optional()
        .describe(`Keys (${keyDescription}) of the only ${field} items to keep.`);
      if (patchItem) {
        shape[`$patch/${field}`] = z
          .array(patchItem)
          .optional()
          .describe(
            `Partial ${field} items merged into the item with the same key (${keyDescription}); appended when none matches.`,
          );
      }
    }
  }
  for (const [field, schema] of Object.entries(extra)) shape[field] = schema;
  return z.strictObject(shape);
}

/** What a PUT body needs beyond its kind's PATCH object (see `putObject`). */
export interface PutFields {
  /** Fields every object has that a PUT may not leave out: required, and never null. */
  required: readonly string[];
  /** Fields a PUT may leave out for the value a create without them gets (the others left out are removed). */
  defaulted: readonly string[];
}

/**
 * The PUT body of a kind, from its PATCH object (`patchObject`) the way the server applies a PUT: each field takes
 * its `$replace/<f>` value (the whole value), the read-only fields a client may echo stay, the other directives go.
 * Descriptions come from each field's own value schema, with what leaving the field out does.
 */
export function putObject(patch: z.ZodObject, { required, defaulted }: PutFields) {
  const shape = patch.shape as Record<string, z.ZodType>;
  const whole = (field: string): z.ZodType => {
    // `$replace/<f>` is the value, optional, and nullable unless the field is required in a PATCH.
    const replace = shape[`$replace/${field}`] as z.ZodOptional<z.ZodType>;
    const inner = replace.unwrap();
    const value = inner instanceof z.ZodNullable ? (inner.unwrap() as z.ZodType) : inner;
    const description = value.description ?? field;
    if (required.includes(field)) return value.describe(`${description} Required.`);
    return replace.describe(
      defaulted.includes(field)
        ? `${description} Left out: the value a create without it gets.`
        : `${description} Left out: removed (description and tags get their create defaults).`,
    );
  };
  const fields: Record<string, z.ZodType> = {};
  for (const [key, schema] of Object.entries(shape)) {
    if (!key.startsWith("$")) fields[key] = `$replace/${key}` in shape ? whole(key) : schema;
  }
  for (const key of Object.keys(shape)) {
    const field = key.slice("$replace/".length);
    if (key.startsWith("$replace/") && !(field in fields)) fields[field] = whole(field);
  }
  const body = z
    .strictObject(fields)
    .describe(
      "The whole writable object: fields left out are removed; read-only fields (version, id, kind, links, ...) may " +
        "be echoed and are ignored when they match (one that does not, or a stale version, is a 409).",
    );
  // The PATCH object's own rules (across its fields) hold for the whole object a PUT sends.
  const rules = crossFieldRules().get(patch);
  if (rules !== undefined) crossFieldRules().add(body, rules);
  return body;
}

/** Patch fields common to every kind: description and tags. */
export function describedTaggedPatchFields(): Record<string, PatchField> {
  return {
    description: { value: description() },
    tags: {
      value: tags(),
      merge: z
        .record(tagKey(), tagValue())
        .describe(`Tags to set; a null value removes that tag. The record keeps at most ${TAGS_MAX}.`),
    },
  };
}

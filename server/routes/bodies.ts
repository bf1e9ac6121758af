/**
 * The JSON Schemas of a kind's write bodies as the server accepts them (PATCH, PUT, a create's manifest, a collection
 * PUT), and the rules of writes to existing objects that JSON Schema cannot state (`x-cpln-rules`).
 */
import { z } from "zod";
import type { Kind } from "../../api/kinds/index.js";
import type { DocumentedRule } from "../../api/schemas/jsonRules.js";
import { putObject, type PutFields } from "../../api/schemas/common.js";
import { jsonSchemaOf, type JsonSchema } from "./route.js";

/** A value's schema without its `null` alternative (`anyOf: [X, {type: null}]` → X). */
export function notNull(schema: JsonSchema, description: string): JsonSchema {
  const anyOf = schema["anyOf"] as JsonSchema[] | undefined;
  if (!anyOf) return { ...schema, description };
  const rest = anyOf.filter((s) => s["type"] !== "null");
  return rest.length === 1 ? { ...rest[0], description } : { ...schema, anyOf: rest, description };
}

/** A PATCH or PUT body whose echoed `kind` must be the path's (`const`), as a create's must: a 400 otherwise. */
export function kindPinned(body: JsonSchema, kind: Kind): JsonSchema {
  const properties = (body["properties"] ?? {}) as Record<string, JsonSchema>;
  if (properties["kind"] === undefined) return body;
  const pinned = { const: kind, readOnly: true, description: "The kind (read-only; must match the path)." };
  return { ...body, properties: { ...properties, kind: pinned } };
}

/** The PATCH body of a kind: a field the object always has cannot be removed (no null, not in `$drop`). */
export function patchBodyOf(patch: JsonSchema, required: readonly string[]): JsonSchema {
  if (required.length === 0) return patch;
  const properties = { ...((patch["properties"] ?? {}) as Record<string, JsonSchema>) };
  for (const field of required) {
    const note = "Required: it cannot be removed (null is refused).";
    for (const key of [field, `$replace/${field}`]) {
      const schema = properties[key];
      if (schema) properties[key] = notNull(schema, `${String(schema["description"] ?? key)} ${note}`);
    }
  }
  const drop = properties["$drop"];
  const items = drop?.["items"] as JsonSchema | undefined;
  if (drop && Array.isArray(items?.["enum"])) {
    const allowed = (items["enum"] as string[]).filter((f) => !required.includes(f));
    if (allowed.length === 0) delete properties["$drop"];
    else properties["$drop"] = { ...drop, items: { ...items, enum: allowed } };
  }
  return { ...patch, properties };
}

/**
 * The PUT body of a kind: its zod form (`putObject`, beside the PATCH object it comes from) as JSON Schema, its
 * echoed `kind` pinned to the path's.
 */
export function putBodyOf(patch: z.ZodType, kind: Kind, fields: PutFields): JsonSchema {
  if (!(patch instanceof z.ZodObject)) throw new Error(`the PATCH body of ${kind} is not an object schema`);
  return kindPinned(jsonSchemaOf(putObject(patch, fields), "input"), kind);
}

/**
 * A create body as the server accepts it: the kind's create schema plus the record's read-only fields, which a
 * manifest or a record as GET returned it carries and every write ignores (a `kind` that contradicts the path is a 400).
 */
export function manifestOf(create: JsonSchema, kind: Kind, scoped: boolean): JsonSchema {
  const properties = { ...((create["properties"] ?? {}) as Record<string, JsonSchema>) };
  // `readOnly: true`: the server sets these; tools that build requests from the document leave them out.
  const ignored = (what: string): JsonSchema => ({ readOnly: true, description: `Read-only: ${what}` });
  const readOnly: Record<string, JsonSchema> = {
    kind: { const: kind, readOnly: true, description: "The kind (read-only; must match the path)." },
    id: ignored("ignored (any value)."),
    version: {
      type: "integer",
      minimum: 0,
      readOnly: true,
      description: "Read-only: ignored by a create; when the object exists it must be current (409 otherwise).",
    },
    created: ignored("ignored (any value)."),
    lastModified: ignored("ignored (any value)."),
    links: ignored("ignored (any value)."),
    status: ignored("ignored (any value)."),
    ...(scoped ? { gvc: ignored("the path names the gvc; ignored (any value).") } : {}),
  };
  for (const [field, schema] of Object.entries(readOnly)) if (!(field in properties)) properties[field] = schema;
  return { ...create, properties };
}

/**
 * The body of a PUT to a collection that creates nothing (`cpln apply` of a kind the API does not create): the
 * object's PUT body plus the field that names the object it replaces, which the server requires.
 */
export function keyedPutBodyOf(put: JsonSchema, keyField: string, description: string): JsonSchema {
  const properties = { ...((put["properties"] ?? {}) as Record<string, JsonSchema>) };
  // `x-cpln-names-object`: the value names an existing object (a 404 answers one that does not exist).
  properties[keyField] = { type: "string", minLength: 1, description, "x-cpln-names-object": true };
  const required = [...new Set([...((put["required"] ?? []) as string[]), keyField])];
  return { ...put, properties, required };
}

/** A key starting with `$` is a patch directive in PATCH and PUT bodies (a PUT runs as the equivalent PATCH). */
const directiveKeys: DocumentedRule = {
  rule:
    "Keys starting with '$' are patch directives: free-form maps (tags, data, add-ons, ...) in PATCH and PUT bodies " +
    "cannot hold such keys.",
  issue:
    /^(directives apply only in objects that merge \(plain object fields, \$patch\/ items\), not inside a value that replaces or is appended|unknown directive ".*": use .*)$/,
};

/** After a PATCH the object must still be whole: nested objects keep (or, created by the merge, get) what they need. */
const mergeCreates: DocumentedRule = {
  rule:
    "After the merge the object must still be whole (the schemas of the `$replace/` forms and array items): a merge " +
    "into an object field the object lacks creates it, and a `$patch/<array>` item that matches none is appended, so " +
    "they must set every field that object requires; and a nested field such an object requires cannot be removed. " +
    "The stored object decides whether a body breaks this, so it is a 409 (a conflict with the stored object, RFC " +
    "5789 §2.2), as is a result past the stored limits (at most 50 tags).",
  issue: /^is required$/,
};

/** Keyed-array directives compare with the stored items. */
const keyedItems: DocumentedRule = {
  rule:
    "`$append/<array>` items must have keys the array does not hold yet, and a `$patch/<array>` item must not change " +
    "its key to one another item has (409: a conflict with the array as stored).",
  issue: /^(an item with key ".*" already exists in ".*"|the patched item's key ".*" duplicates another item of ".*")$/,
};

/**
 * Rules of the writes to existing objects of a kind: directive keys, the fields that never change, and (PATCH)
 * merges that create an object field and keyed-array directives.
 */
export function writeRules(immutable: readonly string[], method: "PATCH" | "PUT"): DocumentedRule[] {
  return [
    directiveKeys,
    ...(method === "PATCH" ? [mergeCreates, keyedItems] : []),
    ...(immutable.length > 0
      ? [
          {
            rule: `${immutable.join(", ")} cannot change after the object is created: send the current value or leave it as it is (409 otherwise: a conflict with the stored object).`,
            issue: /^is immutable: it cannot change after the object is created$/,
          },
        ]
      : []),
  ];
}

/**
 * The resource of a kind whose declaration says all there is to managing it (`resource` in `api/kinds/<kind>.ts`):
 * the args are the create body with `spec`'s fields flat (as @pulumiverse/cpln writes them) plus `org`, `adopt` and,
 * for a gvc-scoped kind, `gvc`; the outputs add the record's server fields. A change of an `immutable` field, the
 * name, the org or the gvc replaces; every other change is one minimal PATCH (`buildPatch` under the kind's array
 * keys). Nothing here names a kind: a kind with behaviour beyond this has a resource file of its own.
 */
import { z } from "zod";
import { patchRules as allPatchRules, revealEndpointOf, type KindDescriptor } from "../../api/kinds/index.js";
import type { ResourceDeclaration } from "../../api/kinds/types.js";
import { lazy } from "../../api/lazy.js";
import { normalizeLink } from "../../api/links.js";
import { parseOnce } from "../../api/parseOnce.js";
import { name as nameSchema } from "../../api/schemas/common.js";
import { isCplnApiError } from "../client/errors.js";
import { recordMeta } from "./requests.js";
import {
  namedApiBody,
  namedFieldRules,
  namedInputFields,
  namedKindLifecycle,
  namedRecordOutputs,
  recordOutputFields,
} from "./common.js";
import type { AnyResourceDefinition, FieldRule, Props, ResourceContext } from "./types.js";

/** Record fields every named kind has, which `namedInputFields` and `recordOutputFields` already cover. */
const COMMON_RECORD_FIELDS = new Set([
  "kind",
  "id",
  "name",
  "description",
  "version",
  "tags",
  "created",
  "lastModified",
  "links",
]);
/** Args every declared resource has besides the kind's own. */
const RESERVED_ARGS = new Set(["name", "description", "tags", "org", "adopt", "gvc"]);

function shapeOf(schema: z.ZodType): Record<string, z.ZodType> {
  let inner: z.ZodType = schema;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable) inner = inner.unwrap() as z.ZodType;
  if (!(inner instanceof z.ZodObject)) throw new Error("a declared resource's create body must be a zod object");
  return inner.shape as Record<string, z.ZodType>;
}

/** Where each of the kind's own args sits in the API body: top level, or in `spec`. */
interface ArgLayout {
  /** arg → `spec` when it is one of spec's fields, else top level. */
  place: ReadonlyMap<string, "top" | "spec">;
  /** The zod schema of each arg, from the create body. */
  schemas: Readonly<Record<string, z.ZodType>>;
}

function argLayout(kind: string, create: z.ZodType): ArgLayout {
  const place = new Map<string, "top" | "spec">();
  const schemas: Record<string, z.ZodType> = {};
  for (const [field, schema] of Object.entries(shapeOf(create))) {
    if (field === "name" || field === "description" || field === "tags") continue;
    if (field === "spec") {
      for (const [specField, specSchema] of Object.entries(shapeOf(schema))) {
        if (RESERVED_ARGS.has(specField) || place.has(specField)) {
          throw new Error(`${kind}: spec.${specField} would shadow another arg of the resource`);
        }
        place.set(specField, "spec");
        schemas[specField] = specSchema.optional();
      }
      continue;
    }
    if (RESERVED_ARGS.has(field) || place.has(field)) throw new Error(`${kind}: ${field} would shadow another arg`);
    place.set(field, "top");
    schemas[field] = schema;
  }
  return { place, schemas };
}

/** The API body of the kind's own args (`spec` gathered), `undefined`s left out. */
function ownBody(layout: ArgLayout, values: Props): Props {
  const body: Props = {};
  const spec: Props = {};
  for (const [field, where] of layout.place) {
    const value = values[field];
    if (value === undefined) continue;
    if (where === "spec") spec[field] = value;
    else body[field] = value;
  }
  if (Object.keys(spec).length > 0) body.spec = spec;
  return body;
}

/** The API's link fields: named `<x>Link` or `<x>Links` at any depth (as server/domain/orgLinks.ts reads them). */
const LINK_FIELD = /^[A-Za-z0-9]*Links?$/;

/**
 * Relative links (`//location/x`) in link fields in the full form the server stores (`/org/<org>/location/x`), so a
 * program may write either and diff compares like with like.
 */
function fullLinks(org: string, value: unknown, inLinkField = false): unknown {
  if (typeof value === "string") return inLinkField ? normalizeLink(org, value) : value;
  if (Array.isArray(value)) return value.map((item) => fullLinks(org, item, inLinkField));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => [key, fullLinks(org, child, LINK_FIELD.test(key))]),
    );
  }
  return value;
}

/** The kind's own args from an API body (`spec` spread). */
function ownArgs(layout: ArgLayout, body: Props): Props {
  const spec = (body.spec ?? {}) as Props;
  const args: Props = {};
  for (const [field, where] of layout.place) {
    const value = where === "spec" ? spec[field] : body[field];
    if (value !== undefined) args[field] = value;
  }
  return args;
}

/** The create body a descriptor's `schemas.create` accepts, or `unknown` when its type was not kept. */
type CreateBodyOf<D> = D extends { readonly schemas: { readonly create: () => infer S extends z.ZodType } }
  ? z.input<S>
  : unknown;

/**
 * The args of a declared kind's resource as a type, laid out as `argLayout` and `inputs()` lay them out: the create
 * body's own fields, `spec`'s fields flat and optional, `gvc` for a gvc-scoped kind, and the named fields (`name`
 * required when the resource does not autoname). `unknown` when the descriptor's type does not keep its create
 * schema's (write it `{...} satisfies KindDescriptor<"x">`). Read by the SDK's compile-time check
 * (test/provider/sdkArgs.typecheck.ts), never at run time.
 */
export type DeclaredInputs<D> =
  unknown extends CreateBodyOf<D>
    ? unknown
    : Omit<CreateBodyOf<D>, "name" | "description" | "tags" | "spec"> &
        (CreateBodyOf<D> extends { spec?: infer Spec } ? Partial<NonNullable<Spec>> : object) &
        (D extends { readonly scope: "gvc" } ? { gvc: string } : object) &
        Omit<z.input<z.ZodObject<ReturnType<typeof namedInputFields>>>, "name"> &
        (D extends { readonly resource: { readonly autoname: false } } ? { name: string } : { name?: string });

/** The resource definition of a declared kind (`descriptor.resource` set, `schemas.create` present). */
export function declaredDefinition(descriptor: KindDescriptor): AnyResourceDefinition {
  const declaration: ResourceDeclaration | undefined = descriptor.resource;
  const createSchema = descriptor.schemas.create;
  if (declaration === undefined || createSchema === undefined) {
    throw new Error(`${descriptor.kind} declares no resource, or is not created through the API`);
  }
  const kind = descriptor.kind;
  const noun = kind;
  const gvcScoped = descriptor.scope === "gvc";
  const layout = lazy(() => argLayout(kind, createSchema()));
  const selfLinkForm = gvcScoped ? `/org/<org>/gvc/<gvc>/${kind}/<name>` : `/org/<org>/${kind}/<name>`;

  const autoname = declaration.autoname !== false;
  const lifecycle = namedKindLifecycle<Props & { name?: string }, Props & { selfLink: string }>(
    kind,
    () => definition,
    gvcScoped ? { gvc: (values) => String(values.gvc) } : {},
  );
  const inputs = lazy(() => {
    const named = namedInputFields(noun);
    // The kind's own name rule (a domain's is a DNS name); the common one otherwise.
    const rule = shapeOf(createSchema()).name ?? nameSchema();
    const nameArg = autoname
      ? rule.optional().describe(named.name.description ?? "")
      : rule.describe(`Name of the ${noun}. Changing it replaces the ${noun}.`);
    return z.strictObject({
      ...layout().schemas,
      ...(gvcScoped
        ? { gvc: nameSchema().describe(`Name of the gvc the ${noun} lives in. Changing it replaces it.`) }
        : {}),
      ...named,
      name: nameArg,
    });
  });
  /** Record fields beyond the create body and the common ones (`status`, `alias`, ...), as outputs. */
  const serverFields = lazy(() =>
    Object.entries(shapeOf(descriptor.schemas.record())).filter(
      ([field]) => !COMMON_RECORD_FIELDS.has(field) && field !== "spec" && !layout().place.has(field),
    ),
  );
  const outputs = lazy(() =>
    inputs().extend({ ...recordOutputFields(noun, selfLinkForm), ...Object.fromEntries(serverFields()) }),
  );

  const immutable = new Set(descriptor.immutable ?? []);
  const fieldRule = (field: string, where: "top" | "spec"): FieldRule => {
    const apiPath = where === "spec" ? `spec.${field}` : field;
    return {
      ...(immutable.has(apiPath) ? { replace: true } : {}),
      ...(where === "spec" ? { apiPath } : {}),
    };
  };
  let fields: Record<string, FieldRule> | undefined;
  const fieldsOf = (): Record<string, FieldRule> => {
    fields ??= {
      ...Object.fromEntries([...layout().place].map(([field, where]) => [field, fieldRule(field, where)])),
      ...(gvcScoped ? { gvc: { replace: true } } : {}),
      ...namedFieldRules,
    };
    return fields;
  };

  const definition: AnyResourceDefinition = {
    typeName: declaration.typeName as AnyResourceDefinition["typeName"],
    kind,
    description: declaration.description,
    inputs: inputs as AnyResourceDefinition["inputs"],
    outputs: outputs as AnyResourceDefinition["outputs"],
    get fields() {
      return fieldsOf();
    },
    patchRules: () => allPatchRules[kind] ?? { arrays: {} },
    autoname,
    ...(declaration.secrets !== undefined ? { secretOutputs: declaration.secrets } : {}),

    toApi: (values) => namedApiBody(values, ownBody(layout(), values)),
    fromApi(record: unknown, prior: Props) {
      const parsed = parseOnce(descriptor.schemas.record(), record) as Parameters<typeof recordMeta>[0] &
        Parameters<typeof namedRecordOutputs>[0] &
        Props;
      const meta = recordMeta(parsed, "cpln/");
      const outs: Props = {
        ...ownArgs(layout(), parsed),
        ...(gvcScoped ? { gvc: meta.gvc ?? "" } : {}),
        ...namedRecordOutputs(parsed, meta),
      };
      for (const [field] of serverFields()) if (parsed[field] !== undefined) outs[field] = parsed[field];
      // Secret args the API never returns (reveal-only) keep the value the program gave.
      for (const field of declaration.secrets ?? [])
        if (outs[field] === undefined && prior[field] !== undefined) outs[field] = prior[field];
      return outs;
    },

    // check: the server's create defaults filled in (so that an omitted default is no change), description = name.
    defaults: (values) => ({ description: values.name }),
    contractIssues: () => [],
    normalize(values, org) {
      const own = fullLinks(org, ownBody(layout(), values)) as Props;
      const filled = descriptor.defaults === undefined ? own : descriptor.defaults(own);
      return { ...values, ...ownArgs(layout(), filled) };
    },

    ...lifecycle,
    ...(revealEndpointOf(descriptor) !== undefined
      ? { read: (ctx, id, props) => readRevealed(ctx, id, props, definition, lifecycle.read) }
      : {}),
  };
  return definition;
}

/**
 * Read (refresh, import) of a kind with reveal-only fields: one GET of `-reveal` (as terraform-provider-cpln v1.2.31
 * reads every secret, internal/provider/client/secret.go GetSecret), so the state holds what the API stores (a
 * secret's data changed elsewhere shows as drift; an import gets the data its inputs need). Without `reveal`
 * on the object (403) it is the plain GET, and those fields keep the state's value.
 */
async function readRevealed(
  ctx: ResourceContext,
  id: string,
  props: Props,
  definition: AnyResourceDefinition,
  plainRead: AnyResourceDefinition["read"],
): Promise<Props | undefined> {
  let record: unknown;
  try {
    record = await ctx.client.getByLink(`${id}/-reveal`);
  } catch (error) {
    if (isCplnApiError(error) && error.status === 403) return plainRead(ctx, id, props);
    throw error;
  }
  return record === undefined ? undefined : definition.fromApi(record, props);
}

/** The definitions of every kind that declares a resource, by type name. */
export function declaredDefinitions(descriptors: Iterable<KindDescriptor>): Record<string, AnyResourceDefinition> {
  const out: Record<string, AnyResourceDefinition> = {};
  for (const descriptor of descriptors) {
    if (descriptor.resource !== undefined) out[descriptor.resource.typeName] = declaredDefinition(descriptor);
  }
  return out;
}

/**
 * A resource of a Pulumi package schema as a flat list of property paths with a short type label, so that two
 * packages' resources can be compared path by path: `autoscaling.predictive.lookbackHours`, `bindings[].permissions`,
 * `customEncryption.regions{}.keyId`. Works on any package schema (this project's and pulumiverse's alike).
 */

export interface SchemaTypeSpec {
  type?: string;
  $ref?: string;
  items?: SchemaTypeSpec;
  additionalProperties?: SchemaTypeSpec;
  oneOf?: SchemaTypeSpec[];
  secret?: boolean;
}

interface ObjectTypeSpec {
  type?: string;
  properties?: Record<string, SchemaTypeSpec>;
  required?: string[];
  enum?: unknown[];
}

interface ResourceSpec {
  inputProperties?: Record<string, SchemaTypeSpec>;
  properties?: Record<string, SchemaTypeSpec>;
  requiredInputs?: string[];
}

export interface PackageSchemaLike {
  resources: Record<string, ResourceSpec>;
  types?: Record<string, ObjectTypeSpec>;
}

export interface FlatProperty {
  /** `string`, `integer`, `number`, `boolean`, `any`, `object`, `string[]`, `object[]`, `map<string>`, `map<object>`. */
  type: string;
  /** An argument (input) of the resource, not only an output. */
  input: boolean;
  /** Required where it appears (a required argument, or a required field of its object). */
  required: boolean;
  secret: boolean;
}

export type FlatResource = Record<string, FlatProperty>;

function refToken(ref: string): string | undefined {
  return ref.startsWith("#/types/") ? ref.slice("#/types/".length) : undefined;
}

/** The object type a spec names (directly), if it is one with properties. */
function objectType(spec: SchemaTypeSpec, schema: PackageSchemaLike): ObjectTypeSpec | undefined {
  const token = spec.$ref === undefined ? undefined : refToken(spec.$ref);
  const target = token === undefined ? undefined : schema.types?.[token];
  return target?.properties !== undefined ? target : undefined;
}

/** The short label of a type; an enum counts as its underlying type (the values are compared elsewhere). */
export function typeLabel(spec: SchemaTypeSpec, schema: PackageSchemaLike): string {
  if (spec.$ref === "pulumi.json#/Any") return "any";
  if (spec.$ref !== undefined) {
    const token = refToken(spec.$ref);
    const target = token === undefined ? undefined : schema.types?.[token];
    if (target?.properties !== undefined) return "object";
    if (target?.type !== undefined) return target.type;
  }
  if (spec.oneOf !== undefined) return spec.oneOf.map((item) => typeLabel(item, schema)).join("|");
  if (spec.type === "array") return `${spec.items ? typeLabel(spec.items, schema) : "any"}[]`;
  if (spec.type === "object") {
    return spec.additionalProperties ? `map<${typeLabel(spec.additionalProperties, schema)}>` : "object";
  }
  return spec.type ?? "any";
}

function flattenInto(
  out: FlatResource,
  path: string,
  spec: SchemaTypeSpec,
  flags: { input: boolean; required: boolean },
  schema: PackageSchemaLike,
  seen: ReadonlySet<string>,
): void {
  out[path] = { type: typeLabel(spec, schema), ...flags, secret: spec.secret === true };
  // The element of an array, the value of a map, or the object itself.
  const [inner, suffix] =
    spec.type === "array" && spec.items
      ? [spec.items, "[]"]
      : spec.type === "object" && spec.additionalProperties
        ? [spec.additionalProperties, "{}"]
        : [spec, ""];
  const target = objectType(inner, schema);
  if (target === undefined || inner.$ref === undefined || seen.has(inner.$ref)) return;
  const nested = new Set([...seen, inner.$ref]);
  for (const [key, child] of Object.entries(target.properties ?? {})) {
    const required = (target.required ?? []).includes(key);
    flattenInto(out, `${path}${suffix}.${key}`, child, { input: flags.input, required }, schema, nested);
  }
}

/** Every property path of a resource: its arguments (input) and its output-only properties. */
export function flattenResource(schema: PackageSchemaLike, token: string): FlatResource {
  const resource = schema.resources[token];
  if (resource === undefined) throw new Error(`the schema has no resource ${token}`);
  const out: FlatResource = {};
  const inputs = resource.inputProperties ?? {};
  for (const [key, spec] of Object.entries(inputs)) {
    const required = (resource.requiredInputs ?? []).includes(key);
    flattenInto(out, key, spec, { input: true, required }, schema, new Set());
  }
  for (const [key, spec] of Object.entries(resource.properties ?? {})) {
    if (key in inputs) continue;
    flattenInto(out, key, spec, { input: false, required: false }, schema, new Set());
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

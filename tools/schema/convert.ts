/**
 * JSON Schema (as produced by zod 4's `z.toJSONSchema`) → Pulumi package-schema property specs.
 *
 * Nested objects become named object types (`cpln:index:<Owner><Path>`) collected in `types`; string enums become
 * enum types; unions become Pulumi union types; anything unrepresentable becomes `pulumi.json#/Any`.
 */

/** The subset of JSON Schema 2020-12 that zod emits. */
export interface JsonSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema | JsonSchema[];
  prefixItems?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
}

/** A Pulumi type reference (typeSpec). */
export interface TypeSpec {
  type?: string;
  items?: TypeSpec;
  additionalProperties?: TypeSpec;
  $ref?: string;
  oneOf?: TypeSpec[];
}

/** A Pulumi property (propertySpec). */
export interface PropertySpec extends TypeSpec {
  description?: string;
  default?: string | number | boolean;
  defaultInfo?: { environment: string[] };
  secret?: boolean;
  replaceOnChanges?: boolean;
  willReplaceOnChanges?: boolean;
}

export interface ObjectTypeSpec {
  type: "object";
  description?: string;
  properties: Record<string, PropertySpec>;
  required?: string[];
}

export interface EnumTypeSpec {
  type: "string" | "number" | "integer" | "boolean";
  description?: string;
  enum: { value: string | number | boolean; name?: string }[];
}

export type ComplexTypeSpec = ObjectTypeSpec | EnumTypeSpec;

export const ANY_REF = "pulumi.json#/Any";

/** The words that spell an enum value's symbols: `!=` → `NotEqual`, `=~` → `EqualTilde`, `!exists` → `NotExists`. */
const symbolWords: Record<string, string> = {
  "=": "Equal",
  "!": "Not",
  ">": "Greater",
  "<": "Less",
  "~": "Tilde",
  "*": "Asterisk",
};

/**
 * The `name` an enum value needs, if any: Pulumi's SDK generators turn a value into a member name
 * (github.com/pulumi/pulumi pkg/codegen/python/utilities.go makeSafeEnumName, pkg/codegen/go/gen.go), and refuse a
 * value that is a lone symbol (`=`: "enum name = is not a valid identifier") or collapse several symbol values into
 * one name. A string value that is not already a word gets a name with each symbol spelled out; other values none.
 */
export function enumValueName(value: string | number | boolean): string | undefined {
  if (typeof value !== "string" || /^[A-Za-z][A-Za-z0-9_-]*$/.test(value)) return undefined;
  const words = value.split(/([=!><~*])/).map((part) => symbolWords[part] ?? part);
  const name = pascal(words.join("-"));
  if (!/^[A-Za-z]/.test(name)) throw new Error(`enum value ${JSON.stringify(value)} has no name an SDK can use`);
  return name;
}

/** `autoscaling` → `Autoscaling`, `mount-options` → `MountOptions`. */
export function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("");
}

/** The type-name path of an array's items or a map's values: `locations` → `location`, `data` → `dataItem`. */
function elementPath(path: string[], suffix: string): string[] {
  const last = path[path.length - 1] ?? "";
  const singular = /[^s]s$/.test(last) ? last.slice(0, -1) : `${last}${suffix}`;
  return [...path.slice(0, -1), singular];
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

function equalJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

interface TypeEntry {
  spec: ComplexTypeSpec;
  placeholder: string;
  /** The names the converter proposed for this type (one per place it occurs), with their fallback suffix. */
  names: { name: string; suffix: string }[];
}

function pascalWords(name: string): string[] {
  return name.match(/[A-Z][a-z0-9]*/g) ?? [name];
}

/** `GetPolicyResultLink` + `GetQuotaResultLink` → `ResultLink`; undefined when the names share no trailing word. */
function commonSuffix(names: readonly string[]): string | undefined {
  const split = names.map(pascalWords);
  const shortest = Math.min(...split.map((words) => words.length));
  let count = 0;
  while (count < shortest && new Set(split.map((words) => words[words.length - 1 - count])).size === 1) count++;
  return count === 0 ? undefined : split[0]!.slice(split[0]!.length - count).join("");
}

/**
 * Types collected while converting. Structurally equal types are stored once: a type used in one place keeps the name
 * of that place (`VolumeSetAutoscaling`); a type shared by several places is named after what their names have in
 * common (`Link`, `SpecTerm`). Refs are placeholders until `finalize` has chosen every name.
 */
export class TypeCollector {
  private readonly entries = new Map<string, TypeEntry>();

  /** `reserved`: names types must not take (the resources' own: a type and a resource never share a token). */
  constructor(
    readonly packageName: string,
    private readonly reserved: readonly string[] = [],
  ) {}

  token(name: string): string {
    return `${this.packageName}:index:${name}`;
  }

  /** Registers `spec` (proposed name `name`; `name + suffix` if that name is taken) and returns its ref. */
  add(name: string, spec: ComplexTypeSpec, suffix: string): string {
    const key = JSON.stringify(sortKeys(spec));
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { spec, placeholder: `#/types/@@type${this.entries.size}@@`, names: [] };
      this.entries.set(key, entry);
    }
    if (!entry.names.some((proposed) => proposed.name === name)) entry.names.push({ name, suffix });
    return entry.placeholder;
  }

  /** Chooses the names, then returns `document` and the types with every placeholder ref replaced by its token. */
  finalize<T>(document: T): { document: T; types: Record<string, ComplexTypeSpec> } {
    const chosen = new Map<string, string>();
    // `Provider` is the root module's provider resource: no type may take its token (pulumi/pulumi pkg/codegen/schema
    // binder: "provider is a reserved word for the root module").
    const taken = new Set<string>([...this.reserved, "Provider"]);
    // Types used in one place first: they keep the name of that place.
    const ordered = [...this.entries.values()].sort(
      (a, b) => a.names.length - b.names.length || a.names[0]!.name.localeCompare(b.names[0]!.name),
    );
    for (const entry of ordered) {
      const names = entry.names
        .map((proposed) => proposed.name)
        .sort((a, b) => a.length - b.length || a.localeCompare(b));
      const shared = entry.names.length > 1 ? commonSuffix(names) : undefined;
      const candidates = [
        ...(shared ? [shared] : []),
        ...names,
        ...entry.names.map((proposed) => `${proposed.name}${proposed.suffix}`),
      ];
      let name = candidates.find((candidate) => !taken.has(candidate));
      for (let n = 2; name === undefined; n++) if (!taken.has(`${names[0]}${n}`)) name = `${names[0]}${n}`;
      taken.add(name);
      chosen.set(entry.placeholder, `#/types/${this.token(name)}`);
    }
    const replace = (text: string): string =>
      text.replace(/#\/types\/@@type\d+@@/g, (placeholder) => chosen.get(placeholder)!);
    const types: Record<string, ComplexTypeSpec> = {};
    for (const entry of this.entries.values()) {
      const ref = chosen.get(entry.placeholder)!;
      types[ref.slice("#/types/".length)] = JSON.parse(replace(JSON.stringify(entry.spec))) as ComplexTypeSpec;
    }
    return { document: JSON.parse(replace(JSON.stringify(document))) as T, types };
  }
}

export interface ConvertContext {
  collector: TypeCollector;
  /** Root document, for `$ref: "#/$defs/..."` and `$ref: "#"`. */
  root: JsonSchema;
  /** Appended to a type name that is taken by a different definition (`Output` for output shapes). */
  suffix: string;
}

function resolveRef(ref: string, root: JsonSchema): JsonSchema {
  if (ref === "#") return root;
  const match = /^#\/\$defs\/(.+)$/.exec(ref);
  const target = match ? root.$defs?.[decodeURIComponent(match[1]!)] : undefined;
  if (!target) throw new Error(`gen-schema: unresolvable $ref ${ref}`);
  return target;
}

/** Drops the `null` alternative: optional-or-null fields are optional properties in Pulumi. */
function withoutNull(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== "null");
    return { ...schema, type: types.length === 1 ? types[0]! : types };
  }
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    const rest = alternatives.filter((alt) => alt.type !== "null");
    if (rest.length === 1) {
      const { anyOf: _a, oneOf: _o, ...outer } = schema;
      return { ...rest[0]!, ...outer, description: schema.description ?? rest[0]!.description };
    }
    if (rest.length !== alternatives.length) return { ...schema, anyOf: rest, oneOf: undefined };
  }
  return schema;
}

/** Converts one JSON Schema node at `path` (type-name parts) to a Pulumi typeSpec, registering nested types. */
export function convertType(input: JsonSchema, path: string[], ctx: ConvertContext): TypeSpec {
  let schema = input;
  if (schema.$ref) schema = { ...resolveRef(schema.$ref, ctx.root), description: schema.description };
  if (schema.allOf && schema.allOf.length === 1) schema = { ...schema.allOf[0]!, description: schema.description };
  schema = withoutNull(schema);

  if (Array.isArray(schema.type)) {
    const alternatives = schema.type.map((type) => convertType({ type }, path, ctx));
    return alternatives.length === 1 ? alternatives[0]! : { oneOf: alternatives };
  }
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    const converted: TypeSpec[] = [];
    alternatives.forEach((alt, index) => {
      const spec = convertType(alt, [...path, `Variant${index + 1}`], ctx);
      if (!converted.some((seen) => equalJson(seen, spec))) converted.push(spec);
    });
    // An output's object member goes first: the Python SDK reads a two-member `Union[T, Mapping[str, Any]]` as its own
    // `InputType[T]` (pulumi sdk/python/lib/pulumi/_types.py `unwrap_type`), so a string-or-map output such as a
    // secret's `data` was typed `str` and failed on every dictionary ("expected a value of type str but got dict").
    if (ctx.suffix === "Output") converted.sort((a, b) => Number(b.type === "object") - Number(a.type === "object"));
    return converted.length === 1 ? converted[0]! : { oneOf: converted };
  }
  // A single value (`const`, or an enum of one) is never a property `const`: Pulumi's SDK generators fill a const
  // input in as a fixed value on every object (the Python SDK set `target = 'all'` on every Policy, which then
  // applied to all objects of its kind). An input takes an enum of one value, what the API document states, which
  // an SDK sends only when the program sets it; an output (`kind: "quota"`) is its plain type.
  const single = schema.const !== undefined ? [schema.const] : schema.enum?.length === 1 ? schema.enum : undefined;
  if (single && ctx.suffix === "Output" && isScalar(single[0])) {
    const value = single[0];
    return { type: typeof value === "number" ? "number" : typeof value === "boolean" ? "boolean" : "string" };
  }
  const values = single ?? schema.enum;
  if (values && values.length > 0 && values.every(isScalar)) {
    const type = typeof values[0] === "string" ? "string" : typeof values[0] === "boolean" ? "boolean" : "number";
    const spec: EnumTypeSpec = {
      type,
      enum: values.map((value) => {
        const name = enumValueName(value);
        return name === undefined ? { value } : { name, value };
      }),
    };
    if (schema.description) spec.description = schema.description;
    return { type, $ref: ctx.collector.add(pascal(path.join("-")), spec, ctx.suffix) };
  }
  switch (schema.type) {
    case "string":
    case "number":
    case "integer":
    case "boolean":
      return { type: schema.type };
    case "array": {
      const items = Array.isArray(schema.items) ? undefined : schema.items;
      return { type: "array", items: items ? convertType(items, elementPath(path, "Item"), ctx) : { $ref: ANY_REF } };
    }
    case "object": {
      if (schema.properties && Object.keys(schema.properties).length > 0) {
        const spec = convertObject(schema, path, ctx);
        return { type: "object", $ref: ctx.collector.add(pascal(path.join("-")), spec, ctx.suffix) };
      }
      const values = schema.additionalProperties;
      if (values && typeof values === "object") {
        return { type: "object", additionalProperties: convertType(values, elementPath(path, "Value"), ctx) };
      }
      return { type: "object", additionalProperties: { $ref: ANY_REF } };
    }
    default:
      return { $ref: ANY_REF };
  }
}

/** A property: its type plus description. */
export function convertProperty(schema: JsonSchema, path: string[], ctx: ConvertContext): PropertySpec {
  const spec: PropertySpec = { ...convertType(schema, path, ctx) };
  const resolved = schema.$ref ? resolveRef(schema.$ref, ctx.root) : schema;
  const description = schema.description ?? resolved.description;
  if (description) spec.description = description;
  // No `const` and no `default`: a generated SDK would send either on every object, whatever the program wrote.
  return spec;
}

/** An object node → an objectTypeSpec (properties sorted, required sorted). */
export function convertObject(schema: JsonSchema, path: string[], ctx: ConvertContext): ObjectTypeSpec {
  const properties: Record<string, PropertySpec> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    properties[name] = convertProperty(property, [...path, name], ctx);
  }
  const spec: ObjectTypeSpec = { type: "object", properties };
  if (schema.description) spec.description = schema.description;
  const required = (schema.required ?? []).filter((name) => name in properties).sort();
  if (required.length > 0) spec.required = required;
  return spec;
}

/** Recursively sorts object keys, so the serialized schema does not depend on declaration order. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
    return sorted;
  }
  return value;
}

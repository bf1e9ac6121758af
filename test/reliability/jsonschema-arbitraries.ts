/**
 * fast-check arbitraries derived from JSON Schema (draft 2020-12), for a fuzzer that knows nothing but a document.
 *
 * `validValues(schema)` generates values meant to satisfy the schema; `invalidValues(schema)` generates values that
 * break exactly one rule somewhere inside it, each with the rule and the JSON path it breaks. Both are generic: they
 * read keywords only (type, const, enum, properties, required, additionalProperties, propertyNames, items,
 * prefixItems, min/maxItems, uniqueItems, min/maxProperties, minimum, maximum, exclusive bounds, multipleOf,
 * min/maxLength, pattern, format, anyOf, oneOf, allOf, if/then/else, $ref) and never a field name.
 *
 * Generation is sound for the common keywords and best-effort where JSON Schema is not constructive (oneOf
 * exclusivity, if/else, patterns combined with lengths): callers that need certainty check the result with a real
 * validator (the fuzzer filters with ajv), and the unit tests measure how often the generator is right.
 */
import fc from "fast-check";

export type Schema = boolean | SchemaObject;
export interface SchemaObject {
  [keyword: string]: unknown;
}

export interface GenOptions {
  /** Resolves a `$ref` (e.g. `#/components/schemas/Gvc`) to its schema. */
  resolve?: (ref: string) => Schema;
  /** Nesting depth below which optional properties and array items are still generated (default 4). */
  maxDepth?: number;
  /** Largest array length generated when the schema sets none (default 3). */
  maxItems?: number;
  /** Longest string generated when the schema sets no maxLength (default 24). */
  maxLength?: number;
  /**
   * Leave out properties marked `readOnly: true` (what a client sends in a request body, per OpenAPI) — and
   * `writeOnly: true` ones with "writeOnly" (what a server answers). Default: keep both.
   */
  omit?: "readOnly" | "writeOnly";
}

/** A value that breaks one rule of a schema. */
export interface Violation {
  value: unknown;
  /** The broken rule, e.g. `maxLength 64`, `required name`, `additionalProperties false`. */
  rule: string;
  /** JSON path of the offending value ('' for the root). */
  path: string;
}

interface Ctx {
  resolve: (ref: string) => Schema;
  maxDepth: number;
  maxItems: number;
  maxLength: number;
  omit: "readOnly" | "writeOnly" | undefined;
  depth: number;
  /** $refs being expanded (recursion guard). */
  refs: readonly string[];
}

const JSON_TYPES = ["null", "boolean", "integer", "number", "string", "array", "object"] as const;
type JsonType = (typeof JSON_TYPES)[number];

function context(options: GenOptions): Ctx {
  return {
    resolve:
      options.resolve ??
      ((ref) => {
        throw new Error(`no resolver for $ref ${ref}`);
      }),
    maxDepth: options.maxDepth ?? 4,
    maxItems: options.maxItems ?? 3,
    maxLength: options.maxLength ?? 24,
    omit: options.omit,
    depth: 0,
    refs: [],
  };
}

const isObject = (v: unknown): v is SchemaObject => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);
const schemaList = (v: unknown): Schema[] => (Array.isArray(v) ? (v as Schema[]) : []);

/** Builds an object from entries without invoking setters (a `__proto__` key stays a key). */
function fromEntries(entries: [string, unknown][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries)
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

/** Replaces `$ref` at the top of a schema by its target (merged with sibling keywords). */
function deref(schema: Schema, ctx: Ctx): { schema: Schema; ctx: Ctx } {
  let current = schema;
  let c = ctx;
  while (isObject(current) && typeof current["$ref"] === "string") {
    const ref = current["$ref"];
    if (c.refs.filter((r) => r === ref).length >= 1) return { schema: baseCase(c.resolve(ref)), ctx: c };
    const { $ref: _ignored, ...rest } = current;
    const target = c.resolve(ref);
    c = { ...c, refs: [...c.refs, ref] };
    current = Object.keys(rest).length === 0 ? target : merge(target, rest);
  }
  return { schema: current, ctx: c };
}

/**
 * Where a recursive schema (e.g. any JSON value) has recursed enough: its first `anyOf` branch that refers to nothing
 * (a JSON value's scalars), or false when it has none.
 */
function baseCase(target: Schema): Schema {
  if (!isObject(target) || !Array.isArray(target["anyOf"])) return false;
  const leaf = (target["anyOf"] as Schema[]).find((b) => !JSON.stringify(b).includes('"$ref"'));
  return leaf ?? false;
}

/** The types a schema admits (explicit `type`, or inferred from its keywords). */
function typesOf(schema: SchemaObject): JsonType[] {
  const t = schema["type"];
  if (typeof t === "string") return [t as JsonType];
  if (Array.isArray(t)) return t as JsonType[];
  if ("const" in schema) return [typeOfValue(schema["const"])];
  if (Array.isArray(schema["enum"])) return [...new Set((schema["enum"] as unknown[]).map(typeOfValue))];
  const inferred: JsonType[] = [];
  if (["properties", "required", "additionalProperties", "propertyNames", "minProperties"].some((k) => k in schema))
    inferred.push("object");
  if (["items", "prefixItems", "minItems", "maxItems", "uniqueItems"].some((k) => k in schema)) inferred.push("array");
  if (["pattern", "minLength", "maxLength", "format"].some((k) => k in schema)) inferred.push("string");
  if (["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"].some((k) => k in schema))
    inferred.push("number");
  return inferred;
}

function typeOfValue(v: unknown): JsonType {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v as JsonType;
}

/**
 * Conjunction of two schemas, shallow and best-effort: properties merge key by key, `required` unites, bounds take
 * the stricter, `type` intersects, `additionalProperties: false` wins. Used for allOf, if/then and anyOf branches.
 */
export function merge(a: Schema, b: Schema): Schema {
  if (a === false || b === false) return false;
  if (a === true) return b;
  if (b === true) return a;
  const out: SchemaObject = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const mine = out[key];
    if (mine === undefined) {
      out[key] = value;
      continue;
    }
    if (JSON.stringify(mine) === JSON.stringify(value)) continue;
    switch (key) {
      case "properties": {
        const props: Record<string, Schema> = { ...(mine as Record<string, Schema>) };
        for (const [name, sub] of Object.entries(value as Record<string, Schema>))
          props[name] = props[name] === undefined ? sub : merge(props[name], sub);
        out[key] = props;
        break;
      }
      case "required":
        out[key] = [...new Set([...(mine as string[]), ...(value as string[])])];
        break;
      case "type": {
        const left = Array.isArray(mine) ? (mine as string[]) : [mine as string];
        const right = Array.isArray(value) ? (value as string[]) : [value as string];
        const both = left.filter(
          (t) =>
            right.includes(t) ||
            (t === "integer" && right.includes("number")) ||
            (t === "number" && right.includes("integer")),
        );
        out[key] = both.map((t) =>
          t === "number" && (left.includes("integer") || right.includes("integer")) ? "integer" : t,
        );
        break;
      }
      case "minimum":
      case "exclusiveMinimum":
      case "minLength":
      case "minItems":
      case "minProperties":
        out[key] = Math.max(mine as number, value as number);
        break;
      case "maximum":
      case "exclusiveMaximum":
      case "maxLength":
      case "maxItems":
      case "maxProperties":
        out[key] = Math.min(mine as number, value as number);
        break;
      case "additionalProperties":
      case "items":
      case "propertyNames":
        out[key] = merge(mine as Schema, value as Schema);
        break;
      case "allOf":
        out[key] = [...(mine as Schema[]), ...(value as Schema[])];
        break;
      case "enum":
        out[key] = (mine as unknown[]).filter((m) =>
          (value as unknown[]).some((v) => JSON.stringify(v) === JSON.stringify(m)),
        );
        break;
      case "description":
        break;
      case "const":
        return false;
      default:
        // Two different constraints under one keyword (pattern, not, anyOf, ...): the generator follows the first;
        // the second is kept for the record only (callers that need certainty validate the result).
        out["x-also"] = [...schemaList(out["x-also"]), { [key]: value }];
    }
  }
  return out;
}

/** Removes combinators and conditionals, folding allOf and if/then(/else) into the schema (one branch chosen). */
function flatten(schema: SchemaObject, ctx: Ctx): fc.Arbitrary<Schema> {
  const { allOf, anyOf, oneOf, if: ifSchema, then: thenSchema, else: elseSchema, ...base } = schema;
  let result: fc.Arbitrary<Schema> = fc.constant<Schema>(base);
  for (const part of schemaList(allOf)) {
    const resolved = deref(part, ctx).schema;
    result = result.chain((s) =>
      isObject(resolved) && hasCombinators(resolved)
        ? flatten(resolved, ctx).map((r) => merge(s, r))
        : fc.constant(merge(s, resolved)),
    );
  }
  const branches = [...schemaList(anyOf), ...schemaList(oneOf)];
  if (branches.length > 0) {
    result = result.chain((s) =>
      fc.oneof(
        ...branches.map((branch) => {
          const resolved = deref(branch, ctx).schema;
          const merged = merge(s, resolved);
          return isObject(merged) && hasCombinators(merged) ? flatten(merged, ctx) : fc.constant(merged);
        }),
      ),
    );
  }
  if (ifSchema !== undefined) {
    const whenTrue = merge(merge(base, ifSchema as Schema), (thenSchema as Schema | undefined) ?? true);
    const whenFalse = merge(base, (elseSchema as Schema | undefined) ?? true);
    result = result.chain((s) =>
      fc
        .constantFrom(whenTrue, whenFalse)
        .map((branch) => merge(s, branch))
        .chain((m) => (isObject(m) && hasCombinators(m) ? flatten(m, ctx) : fc.constant(m))),
    );
  }
  return result;
}

function hasCombinators(schema: SchemaObject): boolean {
  return ["allOf", "anyOf", "oneOf", "if"].some((k) => k in schema);
}

// ---- valid values ---------------------------------------------------------------------------------------------------

/** Values meant to satisfy `schema`. */
export function validValues(schema: Schema, options: GenOptions = {}): fc.Arbitrary<unknown> {
  return valid(schema, context(options));
}

function valid(input: Schema, outer: Ctx): fc.Arbitrary<unknown> {
  const { schema, ctx } = deref(input, outer);
  if (schema === true) return anyJson(ctx);
  if (schema === false) throw new Error("no value satisfies the schema false");
  if (hasCombinators(schema)) return flatten(schema, ctx).chain((flat) => valid(flat, ctx));
  if ("const" in schema) return fc.constant(schema["const"]);
  if (Array.isArray(schema["enum"])) {
    const options = schema["enum"] as unknown[];
    if (options.length === 0) throw new Error("no value satisfies an empty enum");
    return fc.constantFrom(...options);
  }
  const types = typesOf(schema);
  const values = types.length === 0 ? anyJson(ctx) : fc.oneof(...types.map((type) => validOfType(type, schema, ctx)));
  // `not` is honoured where it names values (const / enum); other forms are left to the caller's validator.
  const not = schema["not"];
  if (!isObject(not)) return values;
  const excluded = new Set(
    [...("const" in not ? [not["const"]] : []), ...(Array.isArray(not["enum"]) ? not["enum"] : [])].map((v) =>
      JSON.stringify(v),
    ),
  );
  return excluded.size === 0 ? values : values.filter((v) => !excluded.has(JSON.stringify(v)));
}

function anyJson(ctx: Ctx): fc.Arbitrary<unknown> {
  return fc.jsonValue({ maxDepth: Math.max(0, Math.min(2, ctx.maxDepth - ctx.depth)) });
}

function validOfType(type: JsonType, schema: SchemaObject, ctx: Ctx): fc.Arbitrary<unknown> {
  switch (type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return integers(schema);
    case "number":
      return numbers(schema);
    case "string":
      return strings(schema, ctx);
    case "array":
      return arrays(schema, ctx);
    case "object":
      return objects(schema, ctx);
  }
}

function bounds(schema: SchemaObject): { min: number; max: number; minExcluded: boolean; maxExcluded: boolean } {
  let min = -1e9;
  let max = 1e9;
  let minExcluded = false;
  let maxExcluded = false;
  const minimum = num(schema["minimum"]);
  const maximum = num(schema["maximum"]);
  const exMin = num(schema["exclusiveMinimum"]);
  const exMax = num(schema["exclusiveMaximum"]);
  if (minimum !== undefined) min = minimum;
  if (exMin !== undefined && exMin >= min) [min, minExcluded] = [exMin, true];
  if (maximum !== undefined) max = maximum;
  if (exMax !== undefined && exMax <= max) [max, maxExcluded] = [exMax, true];
  if (minimum === undefined && exMin === undefined && max < min) min = max - 1e9;
  if (maximum === undefined && exMax === undefined && max < min) max = min + 1e9;
  return { min, max, minExcluded, maxExcluded };
}

function integers(schema: SchemaObject): fc.Arbitrary<number> {
  const b = bounds(schema);
  const min = b.minExcluded ? Math.floor(b.min) + 1 : Math.ceil(b.min);
  const max = b.maxExcluded ? Math.ceil(b.max) - 1 : Math.floor(b.max);
  const multipleOf = num(schema["multipleOf"]);
  const base =
    min >= -0x80000000 && max <= 0x7fffffff
      ? fc.integer({ min, max })
      : fc
          .bigInt(BigInt(Math.max(min, Number.MIN_SAFE_INTEGER)), BigInt(Math.min(max, Number.MAX_SAFE_INTEGER)))
          .map(Number);
  // Edges are where servers go wrong; weight them in.
  const edged = fc.oneof({ arbitrary: base, weight: 4 }, { arbitrary: fc.constantFrom(min, max), weight: 1 });
  if (multipleOf !== undefined && Number.isInteger(multipleOf) && multipleOf > 0) {
    const lo = Math.ceil(min / multipleOf);
    const hi = Math.floor(max / multipleOf);
    return fc.integer({ min: lo, max: hi }).map((k) => k * multipleOf);
  }
  return edged;
}

function numbers(schema: SchemaObject): fc.Arbitrary<number> {
  const b = bounds(schema);
  const multipleOf = num(schema["multipleOf"]);
  if (multipleOf !== undefined) return integers({ ...schema, type: "integer" });
  const doubles = fc.double({
    min: b.min,
    max: b.max,
    minExcluded: b.minExcluded,
    maxExcluded: b.maxExcluded,
    noNaN: true,
    noDefaultInfinity: true,
  });
  const lo = b.minExcluded ? Math.floor(b.min) + 1 : Math.ceil(b.min);
  const hi = b.maxExcluded ? Math.ceil(b.max) - 1 : Math.floor(b.max);
  return lo <= hi ? fc.oneof(doubles, integers(schema)) : doubles;
}

/** Strings of a format, as ajv-formats checks them. */
function formatted(format: string): fc.Arbitrary<string> | undefined {
  switch (format) {
    case "uuid":
      return fc.uuid();
    case "date-time":
      return fc
        .date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2999-12-31T23:59:59Z"), noInvalidDate: true })
        .map((d) => d.toISOString());
    case "date":
      return fc
        .date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2999-12-31T23:59:59Z"), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10));
    case "email":
      return fc.emailAddress();
    case "uri":
      return fc.webUrl();
    case "ipv4":
      return fc.ipV4();
    case "regex":
      // Plain fragments joined: valid ECMAScript (what ajv-formats checks) and RE2 alike.
      return fc
        .array(fc.constantFrom("a", "b.", "[a-z]", "x*", "(b|c)", "\\d+", "^", "$", "z{1,3}"), { maxLength: 4 })
        .map((parts) => parts.join(""));
    default:
      return undefined;
  }
}

/** Length in code points, as JSON Schema counts it. */
export const codePoints = (s: string): number => [...s].length;

function strings(schema: SchemaObject, ctx: Ctx): fc.Arbitrary<string> {
  const minLength = num(schema["minLength"]) ?? 0;
  const declaredMax = num(schema["maxLength"]);
  const maxLength = declaredMax ?? Math.max(minLength, ctx.maxLength);
  const fits = (s: string) => codePoints(s) >= minLength && codePoints(s) <= (declaredMax ?? Infinity);
  const format = typeof schema["format"] === "string" ? formatted(schema["format"]) : undefined;
  if (typeof schema["pattern"] === "string") {
    const pattern = new RegExp(schema["pattern"], "u");
    const source = format ?? fc.stringMatching(pattern, { size: "small" });
    return source.filter((s) => pattern.test(s) && fits(s));
  }
  if (format) return format.filter(fits);
  const texts = [
    fc.string({ minLength, maxLength, unit: "grapheme-ascii" }),
    fc.string({ minLength, maxLength, unit: "grapheme" }),
  ];
  // The longest allowed string, in single-unit and in astral characters (JSON Schema counts code points).
  if (maxLength > minLength && maxLength <= 10_000)
    texts.push(fc.constantFrom("x".repeat(maxLength), "\u{1F600}".repeat(maxLength)));
  return fc.oneof(...texts).filter(fits);
}

function arrays(schema: SchemaObject, ctx: Ctx): fc.Arbitrary<unknown[]> {
  const inner = { ...ctx, depth: ctx.depth + 1 };
  const prefix = schemaList(schema["prefixItems"]);
  const minItems = num(schema["minItems"]) ?? 0;
  const deep = ctx.depth >= ctx.maxDepth;
  const maxItems = Math.max(
    minItems,
    Math.min(num(schema["maxItems"]) ?? ctx.maxItems, deep ? minItems : ctx.maxItems),
  );
  const itemSchema = (schema["items"] as Schema | undefined) ?? true;
  const rest = Math.max(0, minItems - prefix.length);
  const restMax = Math.max(rest, maxItems - prefix.length);
  const prefixArb = fc.tuple(...prefix.map((p) => valid(p, inner)));
  if (itemSchema === false) return prefixArb;
  const item = safeValid(itemSchema, inner);
  // No item can be built (a recursion cut short): only the shortest array is possible.
  if (item === undefined) {
    if (rest > 0) throw new Error("no value satisfies the array's items");
    return prefixArb;
  }
  const tail =
    schema["uniqueItems"] === true
      ? fc.uniqueArray(item, { minLength: rest, maxLength: restMax, selector: (v) => JSON.stringify(v) })
      : fc.array(item, { minLength: rest, maxLength: restMax });
  return fc.tuple(prefixArb, tail).map(([p, t]) => [...p, ...t]);
}

/** Property names an object's extra keys are drawn from. */
function keyNames(schema: SchemaObject, ctx: Ctx): fc.Arbitrary<string> {
  const names = schema["propertyNames"];
  if (names === undefined || !isObject(names)) return fc.string({ minLength: 1, maxLength: 12 });
  // `not` (keys an object may not hold, e.g. __proto__): generate from the rest, then leave those out.
  const { not, ...rest } = names as SchemaObject;
  const base =
    Object.keys(rest).length === 0
      ? fc.string({ minLength: 1, maxLength: 12 })
      : valid(rest, ctx).filter((k): k is string => typeof k === "string");
  return not === undefined ? base : base.filter((k) => !keyMatches(not as Schema, k));
}

/** Whether a key matches a `propertyNames` rule made of const, pattern and anyOf (what the document uses). */
function keyMatches(rule: Schema, key: string): boolean {
  if (typeof rule === "boolean") return rule;
  if ("const" in rule && rule["const"] !== key) return false;
  if (typeof rule["pattern"] === "string" && !new RegExp(rule["pattern"], "u").test(key)) return false;
  if (Array.isArray(rule["anyOf"]) && !(rule["anyOf"] as Schema[]).some((r) => keyMatches(r, key))) return false;
  return true;
}

function objects(schema: SchemaObject, ctx: Ctx): fc.Arbitrary<Record<string, unknown>> {
  const inner = { ...ctx, depth: ctx.depth + 1 };
  const deep = ctx.depth >= ctx.maxDepth;
  const properties = isObject(schema["properties"]) ? (schema["properties"] as Record<string, Schema>) : {};
  const required = new Set(Array.isArray(schema["required"]) ? (schema["required"] as string[]) : []);
  const omitted = (sub: Schema) => {
    const target = deref(sub, ctx).schema;
    return ctx.omit !== undefined && isObject(target) && target[ctx.omit] === true;
  };
  const known = Object.entries(properties).filter(
    ([name, sub]) => sub !== false && (!deep || required.has(name)) && !(omitted(sub) && !required.has(name)),
  );
  const entry = ([name, sub]: [string, Schema]): fc.Arbitrary<[string, unknown][]> => {
    if (required.has(name)) return valid(sub, inner).map((v): [string, unknown][] => [[name, v]]);
    const value = safeValid(sub, inner);
    if (value === undefined) return fc.constant([]);
    return fc
      .option(value, { nil: undefined, freq: 2 })
      .map((v): [string, unknown][] => (v === undefined ? [] : [[name, v]]));
  };
  const fixed = fc.tuple(...known.map(entry)).map((parts) => parts.flat());
  // Required names without a property schema take any value.
  const bare = [...required]
    .filter((name) => !Object.hasOwn(properties, name))
    .map((name) => anyJson(inner).map((v): [string, unknown] => [name, v]));
  const additional = schema["additionalProperties"];
  const minProperties = num(schema["minProperties"]) ?? 0;
  const maxProperties = num(schema["maxProperties"]);
  // Extra keys only where the schema speaks of them (a free-form map), not where it is silent.
  const extraSchema = additional === undefined || additional === false ? undefined : (additional as Schema);
  const extraMax = extraSchema === undefined || deep ? 0 : Math.min(3, maxProperties ?? 3);
  const extras =
    extraSchema === undefined || extraMax === 0
      ? fc.constant<[string, unknown][]>([])
      : fc.uniqueArray(fc.tuple(keyNames(schema, inner), valid(extraSchema, inner)), {
          minLength: Math.min(minProperties, extraMax),
          maxLength: extraMax,
          selector: ([k]) => k,
        });
  return fc
    .tuple(fixed, fc.tuple(...bare), extras)
    .map(([f, b, e]) => {
      const taken = new Set([...f, ...b].map(([k]) => k));
      const all = [...f, ...b, ...e.filter(([k]) => !taken.has(k) && !Object.hasOwn(properties, k))];
      return fromEntries(maxProperties === undefined ? all : all.slice(0, maxProperties));
    })
    .filter((o) => Object.keys(o).length >= minProperties);
}

// ---- invalid values -------------------------------------------------------------------------------------------------

/** Values that break one rule of `schema`; undefined when the schema admits every value (nothing to break). */
export function invalidValues(schema: Schema, options: GenOptions = {}): fc.Arbitrary<Violation> | undefined {
  return invalid(schema, context(options), "");
}

const join = (path: string, key: string | number) => (path === "" ? String(key) : `${path}.${key}`);

/**
 * `unionTypes`: the types a sibling branch of a union admits (anyOf/oneOf): a value of one of them breaks no rule of
 * the union, so no type violation of those types is generated (filtering them out afterwards could reject every value
 * of a branch, and a fast-check filter that never passes never returns).
 */
function invalid(
  input: Schema,
  outer: Ctx,
  path: string,
  unionTypes: readonly JsonType[] = [],
): fc.Arbitrary<Violation> | undefined {
  const { schema, ctx } = deref(input, outer);
  if (schema === true) return undefined;
  if (schema === false) return anyJson(ctx).map((value) => ({ value, rule: "false", path }));
  const out: fc.Arbitrary<Violation>[] = [];
  const at = (rule: string, arb: fc.Arbitrary<unknown>) => out.push(arb.map((value) => ({ value, rule, path })));
  const types = typesOf(schema);
  const branches = [...schemaList(schema["anyOf"]), ...schemaList(schema["oneOf"])].map((b) => deref(b, ctx).schema);
  const branchTypes = branches.flatMap((b) => (b === true ? [...JSON_TYPES] : b === false ? [] : typesOf(b)));
  const admitted = types.length > 0 ? types : branches.length > 0 && branchTypes.length > 0 ? branchTypes : [];
  if (admitted.length > 0) {
    const allowed = [...admitted, ...unionTypes];
    const others = JSON_TYPES.filter((t) => !allowed.includes(t) && !(t === "integer" && allowed.includes("number")));
    const sample: Record<JsonType, fc.Arbitrary<unknown>> = {
      null: fc.constant(null),
      boolean: fc.boolean(),
      integer: fc.integer(),
      number: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d)),
      string: fc.string({ maxLength: 8 }),
      array: fc.array(fc.integer(), { maxLength: 2 }),
      object: fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }),
    };
    if (others.length > 0) at(`type ${admitted.join("|")}`, fc.oneof(...others.map((t) => sample[t])));
  }
  if ("const" in schema) at(`const ${JSON.stringify(schema["const"])}`, notOneOf([schema["const"]]));
  if (Array.isArray(schema["enum"])) at("enum", notOneOf(schema["enum"] as unknown[]));
  for (const branch of branches) {
    const nested = invalid(branch, ctx, path, admitted);
    // A value of a type another branch admits is no violation of the union.
    if (nested)
      out.push(
        nested.filter(
          (v) =>
            v.path !== path ||
            !v.rule.startsWith("type ") ||
            !admitted.some((t) => t === typeOfValue(v.value) || (t === "number" && typeOfValue(v.value) === "integer")),
        ),
      );
  }
  for (const part of schemaList(schema["allOf"])) {
    const nested = invalid(part, ctx, path);
    if (nested) out.push(nested);
  }
  if (schema["if"] !== undefined && schema["then"] !== undefined) {
    // Satisfy `if`, break `then`.
    const thenBroken = invalid(merge(schema["then"] as Schema, true), ctx, path);
    if (thenBroken) {
      const base = { ...schema };
      delete base["if"];
      delete base["then"];
      delete base["else"];
      try {
        const shaped = valid(merge(base, schema["if"] as Schema), ctx);
        out.push(
          fc.tuple(shaped, thenBroken).map(([good, bad]) => ({
            value:
              isObject(good) && isObject(bad.value)
                ? fromEntries([...Object.entries(good), ...Object.entries(bad.value)])
                : bad.value,
            rule: `if/then ${bad.rule}`,
            path: bad.path,
          })),
        );
      } catch {
        /* an unsatisfiable branch has nothing to break */
      }
    }
  }
  for (const type of types) {
    if (type === "string") stringViolations(schema, at);
    if (type === "integer" || type === "number") numberViolations(schema, type, at);
    if (type === "array") out.push(...arrayViolations(schema, ctx, path));
    if (type === "object") out.push(...objectViolations(schema, ctx, path));
  }
  return out.length === 0 ? undefined : fc.oneof(...out);
}

function notOneOf(values: unknown[]): fc.Arbitrary<unknown> {
  const seen = new Set(values.map((v) => JSON.stringify(v)));
  const near = values.flatMap((v): unknown[] =>
    typeof v === "string" ? [v.toUpperCase(), `${v}x`, ` ${v}`, ""] : typeof v === "number" ? [v + 1, -v - 1] : [],
  );
  return fc
    .oneof(fc.constantFrom<unknown>(...(near.length > 0 ? near : ["?"])), fc.jsonValue({ maxDepth: 1 }))
    .filter((v) => !seen.has(JSON.stringify(v)));
}

function stringViolations(schema: SchemaObject, at: (rule: string, arb: fc.Arbitrary<unknown>) => void): void {
  const minLength = num(schema["minLength"]);
  const maxLength = num(schema["maxLength"]);
  if (maxLength !== undefined)
    at(
      `maxLength ${maxLength}`,
      fc
        .integer({ min: maxLength + 1, max: maxLength + 1 + Math.min(maxLength, 1000) })
        .chain((n) => fc.constantFrom("a".repeat(n), "x".repeat(n - 1) + "1", "\u00e9".repeat(n))),
    );
  if (minLength !== undefined && minLength > 0)
    at(
      `minLength ${minLength}`,
      fc.string({ maxLength: minLength - 1, unit: "grapheme-ascii" }).filter((s) => codePoints(s) < minLength),
    );
  if (typeof schema["pattern"] === "string") {
    const pattern = new RegExp(schema["pattern"], "u");
    at(
      `pattern ${schema["pattern"]}`,
      fc
        .oneof(
          fc.string({ minLength: 1, maxLength: Math.min(maxLength ?? 16, 16) }),
          fc.constantFrom("A", "-", " ", "a_b", "../x", "0", "a b"),
          fc.stringMatching(pattern, { size: "xsmall" }).map((s) => `${s}!`),
          fc.stringMatching(pattern, { size: "xsmall" }).map((s) => ` ${s}`),
        )
        .filter(
          (s) => !pattern.test(s) && codePoints(s) >= (minLength ?? 0) && codePoints(s) <= (maxLength ?? Infinity),
        ),
    );
  }
  if (schema["format"] === "uuid")
    at("format uuid", fc.constantFrom("not-a-uuid", "1234", "g0000000-0000-4000-8000-000000000000"));
  if (schema["format"] === "date-time")
    at("format date-time", fc.constantFrom("yesterday", "2024-13-01T00:00:00Z", "1/2/2024"));
  if (schema["format"] === "email") at("format email", fc.constantFrom("no-at-sign", "@x.com", "a@"));
}

function numberViolations(
  schema: SchemaObject,
  type: JsonType,
  at: (rule: string, arb: fc.Arbitrary<unknown>) => void,
): void {
  const minimum = num(schema["minimum"]);
  const maximum = num(schema["maximum"]);
  const exMin = num(schema["exclusiveMinimum"]);
  const exMax = num(schema["exclusiveMaximum"]);
  const step = type === "integer" ? 1 : 0.5;
  if (minimum !== undefined && minimum > -Number.MAX_SAFE_INTEGER)
    at(
      `minimum ${minimum}`,
      fc.integer({ min: 1, max: 1000 }).map((d) => minimum - (d === 1 ? step : d)),
    );
  if (maximum !== undefined && maximum < Number.MAX_SAFE_INTEGER)
    at(
      `maximum ${maximum}`,
      fc.integer({ min: 1, max: 1000 }).map((d) => maximum + (d === 1 ? step : d)),
    );
  if (exMin !== undefined) at(`exclusiveMinimum ${exMin}`, fc.constantFrom(exMin, exMin - step));
  if (exMax !== undefined) at(`exclusiveMaximum ${exMax}`, fc.constantFrom(exMax, exMax + step));
  if (type === "integer") {
    const lo = minimum ?? exMin ?? 0;
    const hi = maximum ?? exMax ?? lo + 100;
    if (hi - lo >= 2) at("type integer", fc.constantFrom(lo + 0.5, lo + 1.25));
  }
  const multipleOf = num(schema["multipleOf"]);
  if (multipleOf !== undefined)
    at(`multipleOf ${multipleOf}`, fc.constant((minimum ?? 0) + multipleOf / 2 + (type === "integer" ? 0 : 0.01)));
}

function arrayViolations(schema: SchemaObject, ctx: Ctx, path: string): fc.Arbitrary<Violation>[] {
  const out: fc.Arbitrary<Violation>[] = [];
  const inner = { ...ctx, depth: ctx.depth + 1 };
  const itemSchema = (schema["items"] as Schema | undefined) ?? true;
  const minItems = num(schema["minItems"]) ?? 0;
  const maxItems = num(schema["maxItems"]);
  const canBuild = itemSchema !== false;
  const item = canBuild ? safeValid(itemSchema, inner) : undefined;
  if (item && maxItems !== undefined && maxItems < 1000)
    out.push(
      fc
        .array(item, { minLength: maxItems + 1, maxLength: maxItems + 2 })
        .map((value) => ({ value, rule: `maxItems ${maxItems}`, path })),
    );
  if (item && minItems > 0)
    out.push(
      fc.array(item, { maxLength: minItems - 1 }).map((value) => ({ value, rule: `minItems ${minItems}`, path })),
    );
  if (item && schema["uniqueItems"] === true) out.push(item.map((v) => ({ value: [v, v], rule: "uniqueItems", path })));
  if (ctx.depth < ctx.maxDepth && itemSchema !== true) {
    const bad = invalid(itemSchema, inner, join(path, 0));
    if (bad) {
      const before = item ? fc.array(item, { maxLength: Math.max(0, (maxItems ?? 2) - 1) }) : fc.constant([]);
      out.push(
        fc.tuple(before, bad).map(([good, b]) => ({
          value: [b.value, ...good],
          rule: b.rule,
          path: b.path,
        })),
      );
    }
  }
  return out;
}

function safeValid(schema: Schema, ctx: Ctx): fc.Arbitrary<unknown> | undefined {
  try {
    return valid(schema, ctx);
  } catch {
    return undefined;
  }
}

function objectViolations(schema: SchemaObject, ctx: Ctx, path: string): fc.Arbitrary<Violation>[] {
  const out: fc.Arbitrary<Violation>[] = [];
  const inner = { ...ctx, depth: ctx.depth + 1 };
  const { anyOf: _a, oneOf: _o, allOf: _l, if: _i, then: _t, else: _e, ...plain } = schema;
  const base = safeValid(plain, ctx) as fc.Arbitrary<Record<string, unknown>> | undefined;
  if (!base) return out;
  const properties = isObject(schema["properties"]) ? (schema["properties"] as Record<string, Schema>) : {};
  const required = Array.isArray(schema["required"]) ? (schema["required"] as string[]) : [];
  for (const name of required)
    out.push(
      base.map((o) => ({
        value: fromEntries(Object.entries(o).filter(([k]) => k !== name)),
        rule: `required ${name}`,
        path: join(path, name),
      })),
    );
  const additional = schema["additionalProperties"];
  if (additional === false) {
    const extraKey = fc
      .oneof(
        fc.constantFrom("extra", "__proto__", "constructor", "$unknown", "Name"),
        fc.string({ minLength: 1, maxLength: 8 }),
      )
      .filter((k) => !Object.hasOwn(properties, k));
    out.push(
      fc.tuple(base, extraKey, fc.jsonValue({ maxDepth: 1 })).map(([o, k, v]) => ({
        value: fromEntries([...Object.entries(o), [k, v]]),
        rule: "additionalProperties false",
        path: join(path, k),
      })),
    );
  }
  const names = schema["propertyNames"];
  const nameRules = isObject(names)
    ? ["pattern", "minLength", "maxLength", "enum", "const", "format"].filter((k) => k in names)
    : [];
  if (names !== undefined && additional !== false && nameRules.length > 0) {
    const badName = invalid({ ...(names as SchemaObject), type: "string" }, inner, path);
    if (badName)
      out.push(
        fc
          .tuple(
            base,
            badName.filter((b) => typeof b.value === "string"),
          )
          .map(([o, b]) => ({
            value: fromEntries([...Object.entries(o), [b.value as string, null]]),
            rule: `propertyNames ${b.rule}`,
            path: join(path, String(b.value)),
          })),
      );
  }
  const maxProperties = num(schema["maxProperties"]);
  if (maxProperties !== undefined && additional !== false && maxProperties < 1000) {
    const extraValue =
      additional === undefined || additional === true ? fc.constant(null) : safeValid(additional as Schema, inner);
    if (extraValue)
      out.push(
        fc
          .uniqueArray(fc.tuple(keyNames(schema, inner), extraValue), {
            minLength: maxProperties + 1,
            maxLength: maxProperties + 1,
            selector: ([k]) => k,
          })
          .map((entries) => ({ value: fromEntries(entries), rule: `maxProperties ${maxProperties}`, path })),
      );
  }
  if (ctx.depth < ctx.maxDepth) {
    for (const [name, sub] of Object.entries(properties)) {
      const bad = invalid(sub, inner, join(path, name));
      if (!bad) continue;
      out.push(
        fc.tuple(base, bad).map(([o, b]) => ({
          value: fromEntries([...Object.entries(o).filter(([k]) => k !== name), [name, b.value]]),
          rule: b.rule,
          path: b.path,
        })),
      );
    }
    if (isObject(additional) && Object.keys(additional).length > 0) {
      const bad = invalid(additional, inner, join(path, "*"));
      if (bad)
        out.push(
          fc.tuple(base, keyNames(schema, inner), bad).map(([o, k, b]) => ({
            value: fromEntries([...Object.entries(o).filter(([key]) => key !== k), [k, b.value]]),
            rule: b.rule,
            path: join(path, k),
          })),
        );
    }
  }
  return out;
}

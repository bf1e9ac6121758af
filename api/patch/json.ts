import type { Json, JsonObject } from "./jsonValue.js";
import { arrayRule, type PatchRules } from "./rules.js";

export type { Json, JsonObject } from "./jsonValue.js";

export function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The object's own field, never an inherited one (a body may name `__proto__` or `constructor`). */
export function own(object: JsonObject, field: string): Json | undefined {
  return Object.hasOwn(object, field) ? object[field] : undefined;
}

/** Sets an own field; plain assignment to `__proto__` would change the prototype instead. */
export function put(object: JsonObject, field: string, value: Json): void {
  if (field === "__proto__")
    Object.defineProperty(object, field, { value, enumerable: true, writable: true, configurable: true });
  else object[field] = value;
}

/** A deep copy of a JSON value (a plain walk: several times cheaper than `structuredClone` for record-sized values). */
export function copyJson(value: Json): Json {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(copyJson);
  const copy: JsonObject = {};
  for (const key of Object.keys(value)) put(copy, key, copyJson(value[key] as Json));
  return copy;
}

/** The listed fields that the object holds. */
export function pick(object: JsonObject, fields: readonly string[]): JsonObject {
  const picked: JsonObject = {};
  for (const field of fields) {
    const value = own(object, field);
    if (value !== undefined) put(picked, field, value);
  }
  return picked;
}

/** Joins a field path: `join("targetQuery", "spec")` → `targetQuery.spec`. */
export function join(path: string, field: string): string {
  return path ? `${path}.${field}` : field;
}

/** Fields holding a value: a field set to `null` counts as absent, as in a merge patch. */
export function presentFields(object: JsonObject): string[] {
  return Object.keys(object).filter((field) => object[field] !== null);
}

/**
 * Deep equality as the API sees it: a `null` field equals an absent one, and arrays the rules call unordered
 * (sets such as `bindings` or `principalLinks`) are compared as multisets. `path` is the field path of `a`
 * and `b` without indexes (`bindings.principalLinks`), used to look up array rules.
 */
export function equalUnder(a: Json, b: Json, rules: PatchRules, path = ""): boolean {
  // The same value (a patched record shares the fields a patch leaves alone): equal without a walk.
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    const equal = (x: Json, y: Json) => equalUnder(x, y, rules, path);
    return arrayRule(rules, path).ordered ? a.every((x, i) => equal(x, b[i] as Json)) : sameMultiset(a, b, equal);
  }
  if (isObject(a) || isObject(b)) {
    if (!isObject(a) || !isObject(b)) return false;
    const fields = presentFields(a);
    if (fields.length !== presentFields(b).length) return false;
    return fields.every((field) => {
      const other = own(b, field);
      return other !== undefined && other !== null && equalUnder(a[field] as Json, other, rules, join(path, field));
    });
  }
  return a === b;
}

/** Same items, any order, same multiplicities (equality is an equivalence, so greedy matching is exact). */
function sameMultiset(a: Json[], b: Json[], equal: (x: Json, y: Json) => boolean): boolean {
  const unmatched = [...b];
  for (const item of a) {
    const i = unmatched.findIndex((candidate) => equal(item, candidate));
    if (i < 0) return false;
    unmatched.splice(i, 1);
  }
  return true;
}

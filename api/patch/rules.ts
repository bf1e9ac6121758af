import type { Json } from "./jsonValue.js";

/** How the items of one array are named and compared. */
export interface ArrayRule {
  /** The item's key, or undefined when the item cannot be keyed. Keys name items in `$drop/`, `$retain/`,
   * `$patch/` and `$append/`. */
  key: (item: Json) => string | undefined;
  /** The fields a `$patch/` partial carries to name its item (its key is `key` of just these fields). */
  keyFields: readonly string[];
  /** false: the array is a set (or multiset) — order does not matter for equality or for building patches. */
  ordered: boolean;
}

/** Array rules of one kind (its descriptor's `patchRules`), by field path without indexes (`bindings`, `bindings.principalLinks`,
 * `targetQuery.spec.terms`). Arrays not listed use `defaultArrayRule`. */
export interface PatchRules {
  arrays: Readonly<Record<string, ArrayRule>>;
}

function field(item: Json, name: string): Json | undefined {
  return typeof item === "object" && item !== null && !Array.isArray(item) && Object.hasOwn(item, name)
    ? item[name]
    : undefined;
}

/** Scalars key by value (`80` and `"80"` share a key). */
export function valueKey(item: Json): string | undefined {
  if (typeof item === "string") return item;
  if (item === null || typeof item === "number" || typeof item === "boolean") return String(item);
  return undefined;
}

export function nameKey(item: Json): string | undefined {
  const name = field(item, "name");
  return typeof name === "string" ? name : undefined;
}

/** A policy binding is named by its permission set: sorted, joined with "," (`"edit,view"`). */
export function permissionSetKey(item: Json): string | undefined {
  const permissions = field(item, "permissions");
  if (!Array.isArray(permissions) || !permissions.every((p) => typeof p === "string")) return undefined;
  return [...new Set(permissions as string[])].sort().join(",");
}

/** A query term is named by its selector: `property:<p>`, `rel:<r>` or `tag:<t>`. */
export function termKey(item: Json): string | undefined {
  for (const selector of ["property", "rel", "tag"]) {
    const value = field(item, selector);
    if (typeof value === "string") return `${selector}:${value}`;
  }
  return undefined;
}

/** Arrays without a rule: scalars key by value, objects by `name`; order matters. */
export const defaultArrayRule: ArrayRule = {
  key: (item) => valueKey(item) ?? nameKey(item),
  keyFields: ["name"],
  ordered: true,
};

/** A set of scalars (links, permissions). */
export const valueSet: ArrayRule = { key: valueKey, keyFields: [], ordered: false };
export const namedSet: ArrayRule = { key: nameKey, keyFields: ["name"], ordered: false };
export const bindingSet: ArrayRule = { key: permissionSetKey, keyFields: ["permissions"], ordered: false };
export const queryTerms: ArrayRule = { key: termKey, keyFields: ["property", "rel", "tag"], ordered: true };

export function arrayRule(rules: PatchRules, path: string): ArrayRule {
  return (Object.hasOwn(rules.arrays, path) ? rules.arrays[path] : undefined) ?? defaultArrayRule;
}

/**
 * PATCH directives (DESIGN §3), one implementation for both sides: the server applies bodies with `applyPatch`,
 * the provider builds them with `buildPatch`, and both compare records with `equalUnder`. Per-kind facts (how
 * each array is keyed, which arrays are sets) live in each kind's descriptor (`api/kinds/<kind>.ts`, `patchRules`).
 *
 * Choices where the design is silent:
 * - A field holding `null` counts as absent (merge-patch semantics), in `equalUnder` and in `buildPatch`.
 * - `buildPatch` removes one field with `field: null` and two or more with `$drop: [...]`.
 * - Arrays not in a kind's table are ordered; for them `buildPatch` uses directives only when the desired order
 *   is the old order minus dropped items, with new items at the end (patched items keep their place).
 * - `$append/` refuses an item whose key exists; items that have no key (unnamed objects) are appended unchecked.
 * - `$patch/` upserts: a partial matching no item is applied to an empty item and appended.
 * - `$drop/` and `$retain/` take keys as strings (a binding's is its sorted permissions: `"edit,view"`), or scalars
 *   for arrays keyed by value. An array directive never creates an empty array on an absent field.
 * - Directives are read in objects that merge (plain object fields, `$patch/` items); inside a value that
 *   replaces or is appended they are refused, since they would be stored as fields.
 */
export { applyPatch } from "./apply.js";
export { buildPatch } from "./build.js";
export { describePatch, formatPatchChange, type PatchChange } from "./describe.js";
export { PatchError } from "./errors.js";
export { equalUnder, isObject, type Json, type JsonObject } from "./json.js";
export {
  arrayRule,
  bindingSet,
  defaultArrayRule,
  namedSet,
  nameKey,
  permissionSetKey,
  queryTerms,
  termKey,
  valueKey,
  valueSet,
  type ArrayRule,
  type PatchRules,
} from "./rules.js";

export { applyPatch } from "./apply.js";
export { buildPatch } from "./build.js";
export { PatchError } from "./errors.js";
export { equalUnder, isObject, type Json, type JsonObject } from "./json.js";
export {
  arrayRule,
  bindingSet,
  defaultArrayRule,
  namedSet,
  nameKey,
  patchRules,
  permissionSetKey,
  queryTerms,
  termKey,
  valueKey,
  valueSet,
  type ArrayRule,
  type PatchRules,
} from "./rules.js";

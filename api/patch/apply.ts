import { PatchError } from "./errors.js";
import { copyJson, isObject, join, own, pick, put, type Json, type JsonObject } from "./json.js";
import { arrayRule, type ArrayRule, type PatchRules } from "./rules.js";

/** The steps of one object level, in the order they apply (DESIGN §3). */
const STEPS = ["dropFields", "replace", "merge", "dropItems", "retainItems", "patchItems", "appendItems"] as const;
type Step = (typeof STEPS)[number];

const PREFIXED_DIRECTIVES = new Map<string, Step>([
  ["$replace/", "replace"],
  ["$drop/", "dropItems"],
  ["$retain/", "retainItems"],
  ["$patch/", "patchItems"],
  ["$append/", "appendItems"],
]);

/** One entry of a patch object: a plain field or a directive, with where it sits. */
interface Entry {
  step: Step;
  field: string;
  value: Json;
  /** Path of the entry in the patch body, for errors. */
  at: string;
}

/** Where an object sits: its field path in the record (for array rules) and in the patch body (for errors). */
interface Level {
  rules: PatchRules;
  fieldPath: string;
  at: string;
}

export interface ApplyOptions {
  /**
   * The result keeps the record's own values of the top-level fields the patch does not name, instead of copies
   * (for a record that is never mutated, e.g. a frozen stored one): cheaper, and an unchanged field stays the same
   * value, which tells a caller it needs no second check.
   */
  shareUntouched?: boolean;
}

/**
 * Applies a PATCH body (plain merge fields and `$` directives, at any object level) to a record.
 * Returns a new object; neither input is mutated. Throws PatchError naming the path of a bad directive.
 */
export function applyPatch(
  record: JsonObject,
  patch: JsonObject,
  rules: PatchRules,
  options: ApplyOptions = {},
): JsonObject {
  if (!isObject(patch)) throw new PatchError("", "a patch body must be a JSON object");
  // Work on copies so the steps can edit in place and nothing in the result aliases either input (but the fields
  // the patch leaves alone, with `shareUntouched`: the steps only edit what the patch names, and `$drop` only
  // removes top-level keys of the copy).
  const result = options.shareUntouched ? copyNamedFields(record, patch) : (copyJson(record) as JsonObject);
  mergeObject(result, copyJson(patch) as JsonObject, { rules, fieldPath: "", at: "" });
  return result;
}

/** A shallow copy of `record` in which the top-level fields `patch` names (plainly or by a directive) are deep copies. */
function copyNamedFields(record: JsonObject, patch: JsonObject): JsonObject {
  const result: JsonObject = { ...record };
  for (const key of Object.keys(patch)) {
    const field = key.startsWith("$") ? key.slice(key.indexOf("/") + 1) : key;
    if (field !== "" && Object.hasOwn(result, field)) result[field] = copyJson(result[field] as Json);
  }
  return result;
}

function mergeObject(target: JsonObject, patch: JsonObject, level: Level): void {
  const entries = Object.keys(patch).map((key) => parseEntry(key, patch[key] as Json, level));
  entries.sort((a, b) => STEPS.indexOf(a.step) - STEPS.indexOf(b.step)); // stable: patch order within a step
  for (const entry of entries) applyEntry(target, entry, level);
}

function parseEntry(key: string, value: Json, level: Level): Entry {
  const at = join(level.at, key);
  if (!key.startsWith("$")) return { step: "merge", field: key, value, at };
  if (key === "$drop") return { step: "dropFields", field: "", value, at };
  const slash = key.indexOf("/");
  const step = slash > 0 ? PREFIXED_DIRECTIVES.get(key.slice(0, slash + 1)) : undefined;
  const field = key.slice(slash + 1);
  if (!step || !field) {
    throw new PatchError(
      at,
      `unknown directive "${key}": use $drop, $replace/<field>, $drop/<array>, $retain/<array>, $patch/<array> or $append/<array>`,
    );
  }
  return { step, field, value, at };
}

function applyEntry(target: JsonObject, entry: Entry, level: Level): void {
  const { field, value, at } = entry;
  switch (entry.step) {
    case "dropFields":
      if (!Array.isArray(value) || !value.every((f) => typeof f === "string")) {
        throw new PatchError(at, "must be an array of field names (strings)");
      }
      for (const name of value as string[]) delete target[name];
      return;
    case "replace":
      assertNoDirectives(value, at);
      if (value === null) delete target[field];
      else put(target, field, value);
      return;
    case "merge":
      mergeField(target, field, value, { ...level, fieldPath: join(level.fieldPath, field), at });
      return;
    default:
      applyArrayDirective(target, entry, level);
  }
}

/** Plain field: objects deep-merge (and may hold directives), `null` removes, anything else replaces. */
function mergeField(target: JsonObject, field: string, value: Json, inner: Level): void {
  if (value === null) {
    delete target[field];
  } else if (isObject(value)) {
    let base = own(target, field);
    if (!isObject(base)) put(target, field, (base = {}));
    mergeObject(base, value, inner);
  } else {
    assertNoDirectives(value, inner.at);
    put(target, field, value);
  }
}

/** Values that replace (plain arrays, `$replace/` values, `$append/` items) are stored as given: a directive
 * inside one would end up as a field of the record, so it is refused rather than silently kept. */
function assertNoDirectives(value: Json, at: string): void {
  if (Array.isArray(value)) value.forEach((item, i) => assertNoDirectives(item, `${at}[${i}]`));
  else if (isObject(value)) {
    for (const key of Object.keys(value)) {
      const inner = join(at, key);
      if (key.startsWith("$")) {
        throw new PatchError(
          inner,
          "directives apply only in objects that merge (plain object fields, $patch/ items), not inside a value that replaces or is appended",
        );
      }
      assertNoDirectives(value[key] as Json, inner);
    }
  }
}

function applyArrayDirective(target: JsonObject, entry: Entry, level: Level): void {
  const current = own(target, entry.field) ?? null;
  if (current !== null && !Array.isArray(current)) {
    throw new PatchError(entry.at, `"${entry.field}" is not an array, so it takes no array directive`);
  }
  const fieldPath = join(level.fieldPath, entry.field);
  const array = { items: current ?? [], rule: arrayRule(level.rules, fieldPath), fieldPath, at: entry.at };
  let items: Json[];
  switch (entry.step) {
    case "dropItems":
    case "retainItems": {
      const keys = keyList(entry.value, array);
      const keep = entry.step === "retainItems";
      const existing = itemKeys(array);
      items = array.items.filter((_, i) => keys.has(existing[i] as string) === keep);
      break;
    }
    case "patchItems":
      items = patchItems(itemList(entry.value, array), array, level.rules);
      break;
    default:
      items = appendItems(itemList(entry.value, array), array);
  }
  // An absent array stays absent unless items were added.
  if (current !== null || items.length > 0) put(target, entry.field, items);
}

interface TargetArray {
  items: Json[];
  rule: ArrayRule;
  fieldPath: string;
  at: string;
}

/** Keys of the existing items; a keyed directive needs every item to have one. */
function itemKeys(array: TargetArray): string[] {
  return array.items.map((item, i) => {
    const key = array.rule.key(item);
    if (key === undefined) {
      throw new PatchError(
        array.at,
        `item ${i} of "${array.fieldPath}" has no key: the array has no key rule and the item no "name"`,
      );
    }
    return key;
  });
}

/** `$drop/` and `$retain/` name items by key; scalars are accepted for arrays keyed by value. */
function keyList(value: Json, array: TargetArray): Set<string> {
  const keys = Array.isArray(value)
    ? value.map((token) => (typeof token === "string" ? token : array.rule.key(token)))
    : [];
  if (!Array.isArray(value) || keys.some((key, i) => key === undefined || typeof value[i] === "object")) {
    throw new PatchError(array.at, "must be an array of item keys (strings)");
  }
  return new Set(keys as string[]);
}

function itemList(value: Json, array: TargetArray): Json[] {
  if (!Array.isArray(value)) throw new PatchError(array.at, "must be an array of items");
  return value;
}

/**
 * Merges each partial into the item with the same key (a partial may hold directives); no match → appended. Items
 * are found through a map from key to positions, so a patch of m partials over n items costs O(n + m), not O(n × m).
 */
function patchItems(partials: Json[], array: TargetArray, rules: PatchRules): Json[] {
  const items = [...array.items];
  const { rule } = array;
  // Every existing item must have a key for a partial to find its item.
  const positions = new Map<string, number[]>();
  const place = (key: string, index: number) => {
    const list = positions.get(key);
    if (list) list.push(index);
    else positions.set(key, [index]);
  };
  itemKeys(array).forEach(place);
  partials.forEach((partial, p) => {
    const at = `${array.at}[${p}]`;
    const key = isObject(partial) ? rule.key(pick(partial, rule.keyFields)) : rule.key(partial);
    if (key === undefined) {
      const names = rule.keyFields.length > 0 ? `its key field (${rule.keyFields.join(" | ")})` : "a key";
      throw new PatchError(at, `a $patch item must carry ${names}`);
    }
    let index = positions.get(key)?.[0];
    if (index === undefined) {
      index = items.push(null) - 1;
      place(key, index);
    }
    if (isObject(partial)) {
      const base = isObject(items[index]) ? (items[index] as JsonObject) : {};
      mergeObject(base, partial, { rules, fieldPath: array.fieldPath, at });
      items[index] = base;
    } else {
      items[index] = partial;
    }
    const newKey = rule.key(items[index] as Json);
    if (newKey === undefined) throw new PatchError(at, `the patched item lost its key`);
    if (newKey !== key) {
      const old = (positions.get(key) ?? []).filter((i) => i !== index);
      if (old.length > 0) positions.set(key, old);
      else positions.delete(key);
      place(newKey, index);
    }
    if ((positions.get(newKey) ?? []).some((i) => i !== index)) {
      throw new PatchError(at, `the patched item's key "${newKey}" duplicates another item of "${array.fieldPath}"`, {
        conflict: true,
      });
    }
  });
  return items;
}

/** Appends items; an item whose key is already present is refused (items without a key are not checked). */
function appendItems(additions: Json[], array: TargetArray): Json[] {
  const keys = new Set(array.items.map(array.rule.key));
  additions.forEach((item, i) => {
    assertNoDirectives(item, `${array.at}[${i}]`);
    const key = array.rule.key(item);
    if (key === undefined) return;
    if (keys.has(key))
      throw new PatchError(`${array.at}[${i}]`, `an item with key "${key}" already exists in "${array.fieldPath}"`, {
        conflict: true,
      });
    keys.add(key);
  });
  return [...array.items, ...additions];
}

import {
  copyJson,
  equalUnder,
  isObject,
  join,
  own,
  pick,
  presentFields,
  put,
  type Json,
  type JsonObject,
} from "./json.js";
import { arrayRule, type PatchRules } from "./rules.js";

/**
 * The smallest PATCH body that turns `old` into `desired` (equal under `equalUnder`), preferring item
 * directives over whole-array replacement so that concurrent edits to items it does not touch survive.
 *
 * - Removed fields: one → `field: null`; two or more → `$drop: [fields]` (never longer than the nulls).
 *   A field set to `null` in either input counts as absent.
 * - Objects recurse into a nested body. Scalars and mismatched types are sent as plain values.
 * - Arrays (keyed by their rule): `$drop/` removed keys, `$patch/` changed items (their key fields plus a
 *   nested body), `$append/` new items. A plain replacement is sent instead when items lack distinct keys,
 *   or when the array is ordered and old-minus-dropped-then-appended is not the desired order.
 * Field names starting with "$" are reserved for directives and cannot be built.
 */
export function buildPatch(old: JsonObject, desired: JsonObject, rules: PatchRules): JsonObject {
  return copyJson(diffObject(old, desired, rules, "")) as JsonObject;
}

function diffObject(old: JsonObject, desired: JsonObject, rules: PatchRules, path: string): JsonObject {
  const body: JsonObject = {};
  const removed = presentFields(old).filter((field) => (own(desired, field) ?? null) === null);
  if (removed.length === 1) put(body, removed[0] as string, null);
  else if (removed.length > 1) body.$drop = removed;

  for (const field of presentFields(desired)) {
    const want = desired[field] as Json;
    const have = own(old, field) ?? null;
    const fieldPath = join(path, field);
    if (have === null) put(body, field, want);
    else if (equalUnder(have, want, rules, fieldPath)) continue;
    else if (isObject(have) && isObject(want)) put(body, field, diffObject(have, want, rules, fieldPath));
    else if (Array.isArray(have) && Array.isArray(want)) {
      for (const [key, value] of diffArray(have, want, rules, fieldPath, field)) put(body, key, value);
    } else put(body, field, want);
  }
  return body;
}

function diffArray(have: Json[], want: Json[], rules: PatchRules, path: string, field: string): [string, Json][] {
  const replace: [string, Json][] = [[field, want]];
  const rule = arrayRule(rules, path);
  const haveKeys = have.map(rule.key);
  const wantKeys = want.map(rule.key);
  if (!distinct(haveKeys) || !distinct(wantKeys)) return replace;
  const haveIndex = new Map(haveKeys.map((key, i) => [key as string, i]));
  const wanted = new Set(wantKeys);
  const dropped = (haveKeys as string[]).filter((key) => !wanted.has(key));
  const added = want.filter((_, i) => !haveIndex.has(wantKeys[i] as string));

  // Directives keep surviving items in place and append new ones at the end.
  if (rule.ordered) {
    const reached = [
      ...haveKeys.filter((key) => wanted.has(key)),
      ...wantKeys.filter((key) => !haveIndex.has(key as string)),
    ];
    if (reached.some((key, i) => key !== wantKeys[i])) return replace;
  }

  const partials: Json[] = [];
  for (const [i, item] of want.entries()) {
    const j = haveIndex.get(wantKeys[i] as string);
    if (j === undefined) continue;
    const before = have[j] as Json;
    if (equalUnder(before, item, rules, path)) continue;
    if (!isObject(before) || !isObject(item)) return replace;
    partials.push({ ...pick(item, rule.keyFields), ...diffObject(before, item, rules, path) });
  }

  const directives: [string, Json][] = [];
  if (dropped.length > 0) directives.push([`$drop/${field}`, dropped]);
  if (partials.length > 0) directives.push([`$patch/${field}`, partials]);
  if (added.length > 0) directives.push([`$append/${field}`, added]);
  return directives;
}

function distinct(keys: (string | undefined)[]): boolean {
  return !keys.includes(undefined) && new Set(keys).size === keys.length;
}

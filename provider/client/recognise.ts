/**
 * Recognising writes whose outcome is unknown (the connection was cut, or a gateway answered 502/503/504 after the
 * request may have reached the service). Generic: nothing here names a kind or a field; per-kind array key rules
 * come from the kind descriptors' `patchRules`.
 */
import { normalizeLink } from "../../api/links.js";
import {
  applyPatch,
  arrayRule,
  equalUnder,
  type Json,
  type JsonObject,
  type PatchRules,
} from "../../api/patch/index.js";
import { patchRules } from "../../api/kinds/index.js";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * True when every field of `sent` is present in `record` with the same value: objects recursively (extra keys in the
 * record — server defaults, ids, server-added `cpln/` tags — are allowed), arrays item by item in any order with the
 * same length, scalars equal. A relative link the client sent (`//group/x`) matches the full link the server stores
 * (`/org/<org>/group/x`). A `null` or absent field sent matches an absent or null field.
 */
export function deepContains(sent: unknown, record: unknown, org: string): boolean {
  if (sent === undefined) return true;
  if (sent === null) return record === null || record === undefined;
  if (typeof sent === "string") {
    return record === sent || (sent.startsWith("//") && record === normalizeLink(org, sent));
  }
  if (Array.isArray(sent)) {
    if (!Array.isArray(record) || record.length !== sent.length) return false;
    const unmatched = [...record];
    return sent.every((item) => {
      const at = unmatched.findIndex((candidate) => deepContains(item, candidate, org));
      if (at < 0) return false;
      unmatched.splice(at, 1);
      return true;
    });
  }
  if (isPlainObject(sent)) {
    if (!isPlainObject(record)) return false;
    return Object.entries(sent).every(([key, value]) => deepContains(value, record[key], org));
  }
  return Object.is(sent, record);
}

/** True when a `$append/<array>` directive appears anywhere in the patch body (at any depth, inside arrays too). */
export function hasAppendDirective(body: unknown): boolean {
  if (Array.isArray(body)) return body.some(hasAppendDirective);
  if (!isPlainObject(body)) return false;
  return Object.entries(body).some(([key, value]) => key.startsWith("$append/") || hasAppendDirective(value));
}

export interface ReducedPatch {
  /** The patch without the `$append/` items the object already holds (directives left empty are removed). */
  patch: JsonObject;
  /** Applying `patch` to the object would leave it as it is: the earlier attempt was applied. */
  changesNothing: boolean;
}

/**
 * After an ambiguous failure of a PATCH carrying `$append/`, reads what is left to do against the object as it is
 * now: appended items whose key (the array's rule in `patchRules[kind]`) is already present are dropped, at every
 * level (`$patch/` partials are matched to their item by key, plain object fields to the same field). Returns
 * undefined when the kind has no rules or the inputs are not objects.
 */
export function reduceAppendPatch(
  kind: string,
  org: string,
  patch: unknown,
  current: unknown,
): ReducedPatch | undefined {
  const rules = Object.hasOwn(patchRules, kind) ? patchRules[kind] : undefined;
  if (rules === undefined || !isPlainObject(patch) || !isPlainObject(current)) return undefined;
  const record = current as JsonObject;
  const reduced = reduceLevel(patch as JsonObject, record, { rules, org }, "");
  let changesNothing: boolean;
  try {
    changesNothing = equalUnder(applyPatch(record, reduced, rules), record, rules);
  } catch {
    // The server is the judge of a patch the engine refuses; send it and report its answer.
    changesNothing = false;
  }
  return { patch: reduced, changesNothing };
}

interface Reduction {
  rules: PatchRules;
  org: string;
}

/** An item as the server stores it, for key comparison: relative links (`//group/x`) made full. */
function stored(item: Json, org: string): Json {
  if (typeof item === "string") return item.startsWith("//") ? normalizeLink(org, item) : item;
  if (Array.isArray(item)) return item.map((entry) => stored(entry, org));
  if (isPlainObject(item)) {
    const copy: JsonObject = {};
    for (const [key, value] of Object.entries(item)) setField(copy, key, stored(value as Json, org));
    return copy;
  }
  return item;
}

function reduceLevel(
  patch: JsonObject,
  record: JsonObject | undefined,
  reduction: Reduction,
  path: string,
): JsonObject {
  const { rules, org } = reduction;
  const reduced: JsonObject = {};
  for (const [key, value] of Object.entries(patch)) {
    const slash = key.indexOf("/");
    const directive = key.startsWith("$") && slash > 0 ? key.slice(0, slash + 1) : undefined;
    const field = directive === undefined ? key : key.slice(slash + 1);
    const existing = record === undefined ? undefined : fieldOf(record, field);
    if (directive === "$append/" && Array.isArray(value)) {
      const rule = arrayRule(rules, joinPath(path, field));
      const present = new Set(Array.isArray(existing) ? existing.map(rule.key) : []);
      const missing = value.filter((item) => {
        const itemKey = rule.key(stored(item, org));
        return itemKey === undefined || !present.has(itemKey);
      });
      if (missing.length > 0) setField(reduced, key, missing);
    } else if (directive === "$patch/" && Array.isArray(value)) {
      const rule = arrayRule(rules, joinPath(path, field));
      const items = Array.isArray(existing) ? existing : [];
      setField(
        reduced,
        key,
        value.map((partial) => {
          if (!isPlainObject(partial)) return partial;
          const partialKey = rule.key(stored(pickFields(partial as JsonObject, rule.keyFields), org));
          const match = partialKey === undefined ? undefined : items.find((item) => rule.key(item) === partialKey);
          return reduceLevel(
            partial as JsonObject,
            isPlainObject(match) ? (match as JsonObject) : undefined,
            reduction,
            joinPath(path, field),
          );
        }),
      );
    } else if (directive === undefined && !key.startsWith("$") && isPlainObject(value)) {
      setField(
        reduced,
        key,
        reduceLevel(
          value as JsonObject,
          isPlainObject(existing) ? (existing as JsonObject) : undefined,
          reduction,
          joinPath(path, key),
        ),
      );
    } else {
      setField(reduced, key, value);
    }
  }
  return reduced;
}

function joinPath(path: string, field: string): string {
  return path === "" ? field : `${path}.${field}`;
}

function fieldOf(object: JsonObject, field: string): Json | undefined {
  return Object.hasOwn(object, field) ? object[field] : undefined;
}

function setField(object: JsonObject, field: string, value: Json): void {
  Object.defineProperty(object, field, { value, enumerable: true, writable: true, configurable: true });
}

function pickFields(object: JsonObject, fields: readonly string[]): JsonObject {
  const picked: JsonObject = {};
  for (const field of fields) {
    const value = fieldOf(object, field);
    if (value !== undefined) setField(picked, field, value);
  }
  return picked;
}

import { kinds, type Kind } from "../../api/kinds/index.js";
import { freezeWithJson } from "../json.js";
import type { JsonObject } from "../store/store.js";

/** A stored (frozen) record → the record as callers see it, made once per stored version. */
const presented = new WeakMap<object, JsonObject>();

/**
 * A record as it is returned to a caller: without the kind's reveal-only fields (`KindDescriptor.revealOnly`, a
 * secret's `data`), which only the kind's own endpoint returns. The record itself when the kind has none. A frozen
 * record's copy is frozen with its JSON text, so lists reuse it as they reuse stored texts.
 */
export function presentRecord(kind: Kind, doc: JsonObject): JsonObject {
  const hidden = kinds[kind].revealOnly;
  if (hidden === undefined || !hidden.some((field) => Object.hasOwn(doc, field))) return doc;
  const known = presented.get(doc);
  if (known !== undefined) return known;
  const out: JsonObject = {};
  for (const [field, value] of Object.entries(doc)) if (!hidden.includes(field)) out[field] = value;
  if (Object.isFrozen(doc)) {
    freezeWithJson(out, JSON.stringify(out), doc);
    presented.set(doc, out);
  }
  return out;
}

/**
 * The top-level body fields whose values are reveal-only in the kind's writes (`data`, `$replace/data`): request logs
 * keep them as `[redacted]`.
 */
export function revealOnlyBodyFields(kind: Kind): readonly string[] {
  const hidden = kinds[kind].revealOnly ?? [];
  return hidden.flatMap((field) => [field, `$replace/${field}`]);
}

import { compareForSort } from "../../api/query.js";
import { badRequest } from "../errors.js";
import type { JsonObject, JsonValue } from "../store/store.js";
import { isObject } from "./common.js";

/**
 * The position of an item in a paged answer: its scope and name (storage order), and for a sorted query the value
 * of its sort key. A page starts after the item its cursor names, whether or not that item still exists.
 */
export interface Cursor {
  scope: string;
  name: string;
  /** The sort key's value (null when the item has none); absent for unsorted answers. */
  key?: JsonValue;
}

type CursorDocument = { list: Cursor } | { query: JsonObject; after: Cursor };

export function encodeCursor(doc: CursorDocument): string {
  return Buffer.from(JSON.stringify(doc), "utf8").toString("base64url");
}

function invalid(): never {
  throw badRequest([{ path: "cursor", message: "is not a cursor this server issued (take it from a next link)" }]);
}

function asCursor(value: unknown): Cursor {
  if (!isObject(value as JsonObject)) invalid();
  const { scope, name, key } = value as Record<string, unknown>;
  if (typeof scope !== "string" || typeof name !== "string") invalid();
  return key === undefined ? { scope, name } : { scope, name, key: key as JsonValue };
}

export function decodeCursor(text: string, shape: "list"): Cursor;
export function decodeCursor(text: string, shape: "query"): { query: JsonObject; after: Cursor };
export function decodeCursor(text: string, shape: "list" | "query"): Cursor | { query: JsonObject; after: Cursor } {
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    invalid();
  }
  if (!isObject(doc as JsonObject)) invalid();
  const record = doc as Record<string, unknown>;
  if (shape === "list") return asCursor(record["list"]);
  if (!isObject(record["query"] as JsonObject)) invalid();
  return { query: record["query"] as JsonObject, after: asCursor(record["after"]) };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The order of a paged answer: the sort key (when sorted; missing values last in either direction, as `runQuery`
 * sorts), then scope, then name. `items` must already be in this order.
 */
export function compareCursors(a: Cursor, b: Cursor, direction: 1 | -1): number {
  if (a.key !== undefined || b.key !== undefined) {
    const missingA = a.key === undefined || a.key === null;
    const missingB = b.key === undefined || b.key === null;
    const byKey = missingA || missingB ? compareForSort(a.key, b.key) : direction * compareForSort(a.key, b.key);
    if (byKey !== 0) return byKey;
  }
  return compareText(a.scope, b.scope) || compareText(a.name, b.name);
}

/**
 * The page of `items` (sorted in cursor order) that follows `after`: at most `size` items, and the cursor of its
 * last item when more items follow.
 */
export function pageAfter<T>(
  items: readonly T[],
  after: Cursor | undefined,
  size: number,
  cursorOf: (item: T) => Cursor,
  direction: 1 | -1 = 1,
): { items: T[]; next: Cursor | undefined } {
  let start = 0;
  if (after !== undefined) {
    // Binary search for the first item after the cursor.
    let low = 0;
    let high = items.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (compareCursors(cursorOf(items[mid] as T), after, direction) <= 0) low = mid + 1;
      else high = mid;
    }
    start = low;
  }
  const page = items.slice(start, start + size);
  const more = start + size < items.length;
  return { items: page, next: more && page.length > 0 ? cursorOf(page[page.length - 1] as T) : undefined };
}

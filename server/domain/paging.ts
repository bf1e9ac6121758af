import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { compareForSort } from "../../api/query.js";
import { badRequest } from "../errors.js";
import { MAX_JSON_DEPTH, nestsDeeperThan, reservedKeyPath } from "../json.js";
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

/**
 * The cursors of `next` links. A list cursor is only a position (scope and name in storage order), so any value is
 * one: the base64url of `scope NUL name`, decoded leniently (every string of base64url characters names some
 * position; a page starts after it). A query cursor also carries the query, so it is signed: `payload.signature`,
 * the payload the base64url JSON `{query, after}`, the signature its HMAC-SHA256 under a secret drawn when the server
 * starts. A cursor the server did not sign is refused before its payload is parsed, and a signed payload is still
 * held to the body rules (nesting depth, reserved keys) before use.
 */
export class CursorCodec {
  private readonly secret: Buffer;

  constructor(secret: Buffer = randomBytes(32)) {
    this.secret = secret;
  }

  list(position: Cursor): string {
    return Buffer.from(`${position.scope}\u0000${position.name}`, "utf8").toString("base64url");
  }

  /** The position `text` names: any text is one (see the class comment). */
  readList(text: string): Cursor {
    if (text.length > MAX_LIST_CURSOR || !LIST_CURSOR_PATTERN.test(text)) {
      throw badRequest([
        {
          path: "cursor",
          message: `must be base64url characters (A-Z, a-z, 0-9, '-', '_'), at most ${MAX_LIST_CURSOR} (take it from a next link)`,
        },
      ]);
    }
    const decoded = Buffer.from(text, "base64url").toString("utf8");
    const split = decoded.indexOf("\u0000");
    return split < 0
      ? { scope: "", name: decoded }
      : { scope: decoded.slice(0, split), name: decoded.slice(split + 1) };
  }

  query(query: JsonObject, after: Cursor): string {
    const payload = Buffer.from(JSON.stringify({ query, after }), "utf8").toString("base64url");
    return `${payload}.${this.sign(payload)}`;
  }

  readQuery(text: string): { query: JsonObject; after: Cursor } {
    const dot = text.indexOf(".");
    if (dot <= 0 || !QUERY_CURSOR_PATTERN.test(text)) invalid();
    const payload = text.slice(0, dot);
    const given = Buffer.from(text.slice(dot + 1), "base64url");
    const expected = Buffer.from(this.sign(payload), "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) invalid();
    const json = Buffer.from(payload, "base64url").toString("utf8");
    if (nestsDeeperThan(json, MAX_JSON_DEPTH)) invalid();
    let doc: unknown;
    try {
      doc = JSON.parse(json);
    } catch {
      invalid();
    }
    if (!isObject(doc as JsonObject) || reservedKeyPath(doc) !== undefined) invalid();
    const record = doc as Record<string, unknown>;
    if (!isObject(record["query"] as JsonObject)) invalid();
    return { query: record["query"] as JsonObject, after: asCursor(record["after"]) };
  }

  private sign(payload: string): string {
    return createHmac("sha256", this.secret).update(payload).digest("base64url");
  }
}

/** Longest list cursor (a scope and a name of a few hundred characters at most, base64url). */
export const MAX_LIST_CURSOR = 1024;
/** Every list cursor: base64url characters (each such string names a position). */
export const LIST_CURSOR_PATTERN = /^[A-Za-z0-9_-]*$/;
/** A query cursor: base64url payload, a dot, and the 43-character base64url HMAC-SHA256. */
export const QUERY_CURSOR_PATTERN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/;

function invalid(): never {
  throw badRequest([{ path: "cursor", message: "is not a cursor this server issued (take it from a next link)" }]);
}

function asCursor(value: unknown): Cursor {
  if (!isObject(value as JsonObject)) invalid();
  const { scope, name, key } = value as Record<string, unknown>;
  if (typeof scope !== "string" || typeof name !== "string") invalid();
  return key === undefined ? { scope, name } : { scope, name, key: key as JsonValue };
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

import { compareForSort } from "../../api/query.js";
import { badRequest } from "../errors.js";
import { MAX_JSON_DEPTH, nestsDeeperThan, reservedKeyPathInText } from "../json.js";
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
 * The cursors of `next` links, designed so that every value the OpenAPI document allows is one the server accepts
 * (Schemathesis' `positive_data_acceptance`), while anything else is a 400 naming `cursor`:
 *
 * - A list cursor is only a position (scope and name in storage order), so any value is one: the base64url of
 *   `scope NUL name`, decoded leniently (every string of base64url characters names some position; a page starts
 *   after it).
 * - A query cursor (`GET .../-query?cursor=`) is the JSON `{query, after}`: the query as a POST to `-query` takes it
 *   and the position after which the page starts. The document describes it exactly (a `content: application/json`
 *   parameter), so nothing is secret or signed: a client that edits it has only asked another query, which is held
 *   to every rule of a POST body (nesting depth, reserved keys, then the query's own schema and limits); a position
 *   that names no item is still a position.
 */
export class CursorCodec {
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

  /** The cursor text of a query's next page (the caller URL-encodes it). */
  query(query: JsonObject, after: Cursor): string {
    const key = after.key;
    // The document allows scalar sort keys: an object or array key travels as its JSON text, which sorts the same
    // (`compareForSort` compares such values by that text).
    const position =
      key === undefined
        ? { scope: after.scope, name: after.name }
        : { scope: after.scope, name: after.name, key: isScalar(key) ? key : JSON.stringify(key) };
    return JSON.stringify({ query, after: position });
  }

  readQuery(text: string): { query: JsonObject; after: Cursor } {
    if (text.length > MAX_QUERY_CURSOR) invalid(`is longer than ${MAX_QUERY_CURSOR} characters`);
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) invalid(`nests deeper than ${MAX_JSON_DEPTH} levels`);
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      invalid("is not JSON");
    }
    if (!isObject(doc as JsonObject)) invalid("must be a JSON object {query, after}");
    const reserved = reservedKeyPathInText(text, doc);
    if (reserved !== undefined) invalid(`holds a reserved key at ${reserved} (__proto__, constructor.prototype)`);
    const record = doc as Record<string, unknown>;
    for (const field of Object.keys(record)) {
      if (field !== "query" && field !== "after") invalid(`has the unknown field "${field}" (only query and after)`);
    }
    const query = record["query"] ?? {};
    if (!isObject(query as JsonObject)) invalid("query must be an object (the body of a POST to -query)");
    return { query: query as JsonObject, after: asCursor(record["after"]) };
  }
}

/** Longest list cursor (a scope and a name of a few hundred characters at most, base64url). */
export const MAX_LIST_CURSOR = 1024;
/** Every list cursor: base64url characters (each such string names a position). */
export const LIST_CURSOR_PATTERN = /^[A-Za-z0-9_-]*$/;
/** Longest query cursor (JSON text): Node refuses request heads over 16 KiB anyway. */
export const MAX_QUERY_CURSOR = 16_000;
/**
 * Longest scope or name of a query cursor's position, in code points: names are at most 253 characters (an email),
 * and two maximal positions percent-encoded (12 bytes a code point at worst) stay far below Node's 16 KiB head limit.
 */
export const MAX_POSITION_TEXT = 256;

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function isScalar(value: JsonValue): boolean {
  return value === null || typeof value !== "object";
}

function invalid(rule: string): never {
  throw badRequest([{ path: "cursor", message: `${rule} (take the URL from a next link, or POST the query)` }]);
}

function asCursor(value: unknown): Cursor {
  if (!isObject(value as JsonObject)) invalid("after must be an object {scope, name, key?}");
  const record = value as Record<string, unknown>;
  for (const field of Object.keys(record)) {
    if (field !== "scope" && field !== "name" && field !== "key") {
      invalid(`after has the unknown field "${field}" (only scope, name and key)`);
    }
  }
  const { scope, name, key } = record;
  if (typeof scope !== "string" || typeof name !== "string") invalid("after.scope and after.name must be strings");
  // Counted in code points, as JSON Schema's maxLength counts (String.length counts UTF-16 units).
  if (codePoints(scope) > MAX_POSITION_TEXT || codePoints(name) > MAX_POSITION_TEXT) {
    invalid(`after.scope and after.name are at most ${MAX_POSITION_TEXT} characters`);
  }
  if (key !== undefined && key !== null && typeof key === "object") {
    invalid("after.key must be a string, number, boolean or null");
  }
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
 * Most bytes of items (their JSON, UTF-8) one list or query page holds: a page ends before the item that would take
 * it past this, though it always holds one item (a record is at most `MAX_RECORD_BYTES`, a quarter of this). Pages
 * of typical records (0.5-2 KB) reach the item count first; a kind of large records is answered in several small
 * pages instead of one answer of tens of MiB built while everything else waits (issue 39: 47 MiB in 3 s).
 */
export const MAX_PAGE_BYTES = 2 * 1024 * 1024;

/** How a page is bounded: at most `items` items, and at most `bytes` of their sizes (`sizeOf`, in bytes). */
export interface PageBounds<T> {
  items: number;
  bytes?: number;
  sizeOf?: (item: T) => number;
}

/**
 * The page of `items` (sorted in cursor order) that follows `after`: at most `bounds.items` items and, with a size,
 * at most `bounds.bytes` bytes of them (at least one item), and the cursor of its last item when more items follow.
 */
export function pageAfter<T>(
  items: readonly T[],
  after: Cursor | undefined,
  bounds: number | PageBounds<T>,
  cursorOf: (item: T) => Cursor,
  direction: 1 | -1 = 1,
): { items: T[]; next: Cursor | undefined } {
  const { items: size, bytes: maxBytes, sizeOf } = typeof bounds === "number" ? { items: bounds } : bounds;
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
  let end = Math.min(items.length, start + size);
  if (maxBytes !== undefined && sizeOf !== undefined) {
    let bytes = 0;
    for (let i = start; i < end; i++) {
      bytes += sizeOf(items[i] as T);
      if (bytes > maxBytes && i > start) {
        end = i;
        break;
      }
    }
  }
  const page = items.slice(start, end);
  const more = end < items.length;
  return { items: page, next: more && page.length > 0 ? cursorOf(page[page.length - 1] as T) : undefined };
}

/** What `PageMemo` holds at most: the bytes of its pages' items as JSON, about what their encoded answers hold. */
const PAGE_MEMO_BYTES = 32 * 1024 * 1024;

/**
 * Answered pages by key, for answering an unchanged list asked again with the same frozen page: the caller stores
 * with each page what it was valid for and checks that on reading. Held within `maxBytes` of item JSON: a page larger
 * than an eighth of it is not kept, and past the bound the memo starts over.
 */
export class PageMemo<T> {
  private readonly entries = new Map<string, { value: T; bytes: number }>();
  private bytes = 0;

  constructor(private readonly maxBytes: number = PAGE_MEMO_BYTES) {}

  get(key: string): T | undefined {
    return this.entries.get(key)?.value;
  }

  /** Keeps `value` under `key`; `bytes` is what keeping it costs (its items' JSON). */
  remember(key: string, value: T, bytes: number): void {
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.bytes -= previous.bytes;
    }
    if (bytes > this.maxBytes / 8) return;
    if (this.bytes + bytes > this.maxBytes) {
      this.entries.clear();
      this.bytes = 0;
    }
    this.entries.set(key, { value, bytes });
    this.bytes += bytes;
  }
}

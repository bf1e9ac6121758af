import { normalizeLink } from "../../api/links.js";
import type { JsonObject, JsonValue } from "../store/store.js";

export function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Copies the listed fields of `body` that are present. */
export function pick(body: JsonObject, fields: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const field of fields) if (body[field] !== undefined) out[field] = body[field] as JsonValue;
  return out;
}

/** The API stores and returns full links (`/org/o/group/g`) whatever form (`//group/g`) the client sent. */
export function fullLinks(org: string, value: JsonValue | undefined): JsonValue | undefined {
  if (!Array.isArray(value)) return value;
  return value.map((v) => (typeof v === "string" ? normalizeLink(org, v) : v));
}

const LINK_DIRECTIVES = ["$drop/", "$retain/", "$append/", "$patch/"] as const;

/** An item of a link array: a link, or an object keyed by a link field (`{locationLink, ...}`), in full form. */
function fullLinkItem(org: string, item: JsonValue): JsonValue {
  if (typeof item === "string") return normalizeLink(org, item);
  if (!isObject(item)) return item;
  const out: JsonObject = { ...item };
  for (const [key, value] of Object.entries(item)) {
    if (key.endsWith("Link") && typeof value === "string") out[key] = normalizeLink(org, value);
  }
  return out;
}

/**
 * The patch with the items of every `$drop/`, `$retain/`, `$append/` and `$patch/` directive on one of `fields` (at
 * any object level, `$patch/` partials included) in full link form, so a directive naming `//group/x` matches the
 * stored `/org/o/group/x` (and `{locationLink: "//location/x"}` the item keyed `/org/o/location/x`).
 */
export function fullLinksInDirectives(org: string, patch: JsonValue, fields: readonly string[]): JsonValue {
  if (Array.isArray(patch)) return patch.map((item) => fullLinksInDirectives(org, item, fields));
  if (!isObject(patch)) return patch;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(patch)) {
    const directive = LINK_DIRECTIVES.find((prefix) => key.startsWith(prefix));
    out[key] =
      directive !== undefined && fields.includes(key.slice(directive.length))
        ? Array.isArray(value)
          ? value.map((item) => fullLinkItem(org, item))
          : value
        : fullLinksInDirectives(org, value, fields);
  }
  return out;
}

let isoSecond = Number.NaN;
let isoPrefix: string | undefined;

/**
 * The current time as an ISO 8601 string (UTC, milliseconds), as `toISOString` writes it. The text up to the second
 * is formatted once per second and the milliseconds appended: `toISOString` costs about a microsecond here, and a
 * write takes the time once.
 */
export function nowIso(): string {
  const ms = Date.now();
  const millis = ((ms % 1000) + 1000) % 1000;
  const second = ms - millis;
  if (second !== isoSecond) {
    isoSecond = second;
    const text = new Date(second).toISOString();
    // `YYYY-MM-DDTHH:MM:SS.`; years outside 0000–9999 take another form, written whole.
    isoPrefix = text.length === 24 ? text.slice(0, 20) : undefined;
  }
  if (isoPrefix === undefined) return new Date(ms).toISOString();
  return `${isoPrefix}${millis < 10 ? "00" : millis < 100 ? "0" : ""}${millis}Z`;
}

/** Message for objects the platform owns. */
export function builtinMessage(kind: string, name: JsonValue | undefined, action: "edited" | "deleted"): string {
  return `The builtin ${kind} ${String(name)} cannot be ${action}`;
}

export function isBuiltin(record: JsonObject): boolean {
  return record["origin"] === "builtin";
}

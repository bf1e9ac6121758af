/**
 * The record service's field helpers: which fields a write ignores or checks, dotted field paths, and the record
 * schema's check of only what a patch changed. Plain functions of the body and the records; no store, no rules table.
 */
import { z } from "zod";
import { issuesFromZod, type Issue } from "../../api/errors.js";
import { kinds, type Kind } from "../../api/kinds/index.js";
import { equalUnder } from "../../api/patch/index.js";
import { badRequest } from "../errors.js";
import { jsonEqual } from "../json.js";
import type { JsonObject, JsonValue, StoredRecord } from "../store/store.js";
/** Fields every record carries that only the server sets. */
export const SERVER_FIELDS = ["kind", "id", "name", "version", "created", "lastModified", "links"] as const;
/** Read-only fields a PATCH body may echo back; checked (version, id, name, kind) and then removed. */
export const ECHOED_FIELDS = ["version", "id", "kind", "name", "created", "lastModified", "links", "status"] as const;

/**
 * Read-only fields of a record that any write body may carry (manifests, records as `GET` returned them): a create
 * ignores them, a PATCH or PUT checks `version` (and `id`/`name` on an item) and ignores the rest. gvc-scoped kinds
 * also accept `gvc` (the path names the gvc).
 */
export const READ_ONLY_INPUT = ["kind", "id", "version", "created", "lastModified", "links", "status"] as const;

export const isEchoedField = (field: string): boolean => (ECHOED_FIELDS as readonly string[]).includes(field);
export const isReadOnlyInput = (field: string): boolean => (READ_ONLY_INPUT as readonly string[]).includes(field);

export const PATCH_ATTEMPTS = 5;

export const REPLACE = "$replace/";

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function requireObject(body: unknown, what: string): JsonObject {
  if (!isObject(body)) throw badRequest([{ path: "", message: `${what} must be a JSON object` }]);
  return body;
}

/** A `kind` contradicting the path is a 400 on every write: every body's schema in the document says `const`. */
export function checkKindField(kind: Kind, body: JsonObject): void {
  const value = body["kind"];
  if (value !== undefined && value !== kind) {
    throw badRequest([{ path: "kind", message: `is ${JSON.stringify(value)} but this path is for ${kind} objects` }]);
  }
}

/** A body's `version`, when present, is a non-negative integer (a create ignores it, other writes compare it). */
export function checkVersionField(body: JsonObject): void {
  const value = body["version"];
  if (value !== undefined && !(typeof value === "number" && Number.isInteger(value) && value >= 0)) {
    throw badRequest([{ path: "version", message: "must be a non-negative integer (the version read)" }]);
  }
}

/** The body without the fields a write ignores: every read-only field, and `gvc` on gvc-scoped kinds. */
export function withoutReadOnly(kind: Kind, body: JsonObject, keep: readonly string[] = []): JsonObject {
  const gvcScoped = kinds[kind].scope === "gvc";
  const ignored = (field: string) =>
    (isReadOnlyInput(field) || (gvcScoped && field === "gvc")) && !keep.includes(field);
  const result: JsonObject = {};
  for (const [field, value] of Object.entries(body)) if (!ignored(field)) result[field] = value;
  return result;
}

/**
 * Whether a create body's `field` sets something the create would not set anyway: empty tags and a description equal
 * to the name are the defaults every new record gets (a manifest echoing them chooses nothing).
 */
export function setsField(body: JsonObject, field: string, name: string): boolean {
  const value = body[field];
  if (value === undefined || value === null) return false;
  if (field === "tags") return !(isObject(value) && Object.keys(value).length === 0);
  if (field === "description") return value !== name;
  return true;
}

/** A dotted field path (`spec.performanceClass`) split once into its segments. */
export interface FieldPath {
  path: string;
  segments: readonly string[];
}

export function fieldPaths(paths: readonly string[]): FieldPath[] {
  return paths.map((path) => ({ path, segments: path.split(".") }));
}

export function getPath(doc: JsonObject, path: FieldPath): JsonValue | undefined {
  let current: JsonValue | undefined = doc;
  for (const segment of path.segments) {
    if (!isObject(current)) return undefined;
    current = Object.hasOwn(current, segment) ? current[segment] : undefined;
  }
  return current;
}

export function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return equalUnder(a, b, { arrays: {} });
}

/** Whether `a` and `b` hold the same value at `path`: at once when they share the top-level field it lies in. */
export function sameAt(a: JsonObject, b: JsonObject, path: FieldPath): boolean {
  const top = path.segments[0] ?? "";
  if (Object.hasOwn(a, top) === Object.hasOwn(b, top) && a[top] === b[top]) return true;
  return sameJson(getPath(a, path), getPath(b, path));
}

/**
 * The record schema's issues with `doc`, checking only the top-level fields that differ from `previous` (a record
 * that satisfied the same schema): an unchanged field (the same value, as a patch keeps what it does not touch) was
 * valid and still is. Undefined when that does not hold for the schema — not a plain object schema, or one with
 * checks across fields — and the whole record must be parsed.
 */
export function changedFieldIssues(schema: z.ZodType, doc: JsonObject, previous: JsonObject): Issue[] | undefined {
  if (!(schema instanceof z.ZodObject)) return undefined;
  const def = schema._zod.def;
  if ((def.checks?.length ?? 0) > 0) return undefined;
  const shape = schema.shape as Record<string, z.ZodType>;
  const issues: Issue[] = [];
  const checkField = (key: string, field: z.ZodType) => {
    const parsed = field.safeParse(doc[key]);
    if (!parsed.success) issues.push(...issuesFromZod(parsed.error, [key]));
  };
  for (const key of Object.keys(shape)) {
    // Unchanged: the same value (a patch shares what it does not touch) or an equal one (a kind rebuilding a field).
    if (Object.hasOwn(doc, key) === Object.hasOwn(previous, key) && jsonEqual(doc[key], previous[key])) continue;
    checkField(key, shape[key] as z.ZodType);
  }
  // Fields outside the shape: a loose object (catchall unknown) or a stripping one (none) takes any; other catchalls
  // (a strict object's refusal of unknown keys) are left to the whole parse, which words its issues.
  const catchall = def.catchall as z.ZodType | undefined;
  if (catchall !== undefined && !(catchall instanceof z.ZodUnknown) && !(catchall instanceof z.ZodAny))
    return undefined;
  return issues;
}

/** `record` at `version` holding `doc`: a literal, not a spread of the (frozen) stored record. */
export function withDoc(record: StoredRecord, version: number, doc: JsonObject): StoredRecord {
  return { org: record.org, kind: record.kind, scope: record.scope, name: record.name, id: record.id, version, doc };
}

export function storedRecord(org: string, kind: Kind, scope: string, doc: JsonObject): StoredRecord {
  return {
    org,
    kind,
    scope,
    name: String(doc["name"]),
    id: String(doc["id"]),
    version: Number(doc["version"]),
    doc,
  };
}

import { issuesFromZod, type Issue } from "../../api/errors.js";
import { normalizeSpec, QueryError } from "../../api/query.js";
import { description, tags } from "../../api/schemas/common.js";
import type { QuerySpec } from "../../api/schemas/query.js";
import { jsonEqual } from "../json.js";
import type { JsonObject } from "../store/store.js";
import { isObject } from "./common.js";
import type { FieldRules } from "./rules.js";

/**
 * Largest stored record (its JSON, UTF-8): half the body limit, so that what `GET` returns can always be sent back
 * by `PUT` (with room for the links and server fields a client echoes), and a list page of 100 stays far below
 * what a client buffers comfortably.
 */
export const MAX_RECORD_BYTES = 512 * 1024;

/**
 * The per-body limits applied to a whole record, as it would be stored after a create, a PATCH merge or a PUT: tags
 * (count without the keys the server sets, key and value sizes), description, the queries it stores (terms and
 * patterns), and the record's size. Each issue names its field. Generic: the kind's rules say which tags are the
 * server's and which fields hold queries.
 */
export function storedLimitIssues(
  doc: JsonObject,
  rules: Pick<FieldRules, "serverTags" | "queryFields">,
  /** A stored record `doc` was derived from (it met these limits): fields equal to its own are not checked again. */
  previous?: JsonObject,
  /** `JSON.stringify(doc)`, when the caller has it. */
  text: string = JSON.stringify(doc),
): Issue[] {
  const issues: Issue[] = [];
  const unchanged = (field: string) => previous !== undefined && jsonEqual(doc[field], previous[field]);
  if (isObject(doc["tags"]) && !unchanged("tags")) {
    const own: JsonObject = { ...doc["tags"] };
    for (const key of rules.serverTags ?? []) delete own[key];
    const parsed = tags().safeParse(own);
    if (!parsed.success) issues.push(...issuesFromZod(parsed.error, ["tags"]));
  }
  // The description defaults to the name, which may be longer (a user's name is an email of up to 254 characters).
  if (typeof doc["description"] === "string" && doc["description"] !== doc["name"] && !unchanged("description")) {
    const parsed = description().safeParse(doc["description"]);
    if (!parsed.success) issues.push(...issuesFromZod(parsed.error, ["description"]));
  }
  for (const field of rules.queryFields ?? []) {
    const query = doc[field];
    if (!isObject(query) || unchanged(field)) continue;
    try {
      normalizeSpec(query["spec"] as unknown as QuerySpec | undefined, `${field}.spec.`);
    } catch (error) {
      if (!(error instanceof QueryError)) throw error;
      issues.push(...error.issues);
    }
  }
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_RECORD_BYTES) {
    const largest = Object.keys(doc)
      .map((key) => ({ key, size: Buffer.byteLength(JSON.stringify(doc[key]) ?? "", "utf8") }))
      .sort((a, b) => b.size - a.size)[0];
    issues.push({
      path: largest?.key ?? "",
      message:
        `the record would be ${bytes} bytes, more than the limit of ${MAX_RECORD_BYTES} ` +
        `(this field is the largest: ${largest?.size ?? 0} bytes)`,
    });
  }
  return issues;
}

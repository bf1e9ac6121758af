import { issuesFromZod } from "../../api/errors.js";
import type { Kind } from "../../api/kinds.js";
import { normalizeQuery, QueryError, runQuery } from "../../api/query.js";
import { queryDocument } from "../../api/schemas/query.js";
import { selfLinkOf } from "../auth/authz.js";
import { badRequest } from "../errors.js";
import type { JsonObject, JsonValue } from "../store/store.js";

/**
 * Validates a query document, evaluates it over `items` (already filtered to what the caller may view) and returns
 * the matches (or their self links with fetch `links`) with the query as evaluated, defaults filled.
 */
export function runQueryDocument(
  kind: Kind,
  body: JsonObject,
  items: JsonObject[],
): { items: JsonValue[]; query: JsonObject } {
  const parsed = queryDocument().safeParse(body);
  if (!parsed.success) throw badRequest(issuesFromZod(parsed.error));
  try {
    const query = normalizeQuery(parsed.data, kind);
    const found = runQuery(items, query.spec);
    return {
      items: query.fetch === "links" ? found.map(selfLinkOf) : found,
      query: query as unknown as JsonObject,
    };
  } catch (error) {
    if (error instanceof QueryError) throw badRequest(error.issues);
    throw error;
  }
}

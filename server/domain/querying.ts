import { issuesFromZod } from "../../api/errors.js";
import type { Kind } from "../../api/kinds/index.js";
import { normalizeQuery, QueryError, runQuery } from "../../api/query.js";
import { queryDocument } from "../../api/schemas/query.js";
import { badRequest } from "../errors.js";
import type { JsonObject } from "../store/store.js";

/**
 * Validates a query document and evaluates it over `items` (already filtered to what the caller may view, in
 * storage order). Returns every match in the query's order, the query as evaluated (defaults filled), and the sort
 * the order follows (the caller pages over it; `fetch: links` is applied to the page).
 */
export function runQueryDocument(
  kind: Kind,
  body: JsonObject,
  items: JsonObject[],
): { items: JsonObject[]; query: JsonObject; sortBy: string | undefined; direction: 1 | -1 } {
  const parsed = queryDocument().safeParse(body);
  if (!parsed.success) throw badRequest(issuesFromZod(parsed.error));
  try {
    const query = normalizeQuery(parsed.data, kind);
    const sort = query.spec.sort;
    return {
      items: runQuery(items, query.spec),
      query: query as unknown as JsonObject,
      sortBy: sort?.by,
      direction: sort?.order === "desc" ? -1 : 1,
    };
  } catch (error) {
    if (error instanceof QueryError) throw badRequest(error.issues);
    throw error;
  }
}

import { evaluateQuery, type NormalizedSpec } from "../../api/query.js";
import type { QuerySpec } from "../../api/schemas/query.js";
import type { JsonObject } from "../store/store.js";

/**
 * Whether a policy's `targetQuery` selects `doc`. A stored query the evaluator cannot run (an invalid regular
 * expression) selects nothing rather than failing every request of the org.
 */
export function targetQueryMatches(targetQuery: JsonObject, doc: JsonObject): boolean {
  const spec = targetQuery["spec"] as unknown as QuerySpec | NormalizedSpec | undefined;
  try {
    return evaluateQuery(spec, doc);
  } catch {
    return false;
  }
}

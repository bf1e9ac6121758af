import { evaluateQuery, type NormalizedSpec, type WorkBudget } from "../../api/query.js";
import type { QuerySpec } from "../../api/schemas/query.js";
import type { JsonObject } from "../store/store.js";

/**
 * Whether a stored query (a policy's `targetQuery`, a group's `memberQuery`) selects `doc`. A stored query the
 * evaluator cannot run (an invalid regular expression, or no work left in `budget`) selects nothing rather than
 * failing every request of the org: access fails closed, and no stored query can make a request take longer than
 * its budget allows.
 */
export function targetQueryMatches(targetQuery: JsonObject, doc: JsonObject, budget: WorkBudget): boolean {
  const spec = targetQuery["spec"] as unknown as QuerySpec | NormalizedSpec | undefined;
  try {
    return evaluateQuery(spec, doc, budget);
  } catch {
    return false;
  }
}

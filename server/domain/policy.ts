import { policyConflicts, policyIssues, type PolicyRules } from "../../api/schemas/policy.js";
import type { JsonObject, JsonValue } from "../store/store.js";
import { builtinMessage, fullLinks, isBuiltin, isObject, pick } from "./common.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindServerRules } from "./rules.js";

/** Stored policies hold full links (`/org/o/group/g`) in targetLinks and principalLinks. */
function normalize(org: string, doc: JsonObject): JsonObject {
  const out = { ...doc };
  if (out["targetLinks"] !== undefined) out["targetLinks"] = fullLinks(org, out["targetLinks"]) as JsonValue;
  if (Array.isArray(out["bindings"])) {
    out["bindings"] = out["bindings"].map((b) =>
      isObject(b) && b["principalLinks"] !== undefined
        ? { ...b, principalLinks: fullLinks(org, b["principalLinks"]) as JsonValue }
        : b,
    );
  }
  return out;
}

/**
 * Policies: targetKind is fixed at create; permissions must exist in the target kind's catalog; no two bindings
 * may share a permission set; builtin policies (superusers-<kind>, viewers-<kind>) cannot be edited or deleted.
 */
export const policyRules: KindServerRules = {
  kind: "policy",
  endpoints: {
    eventlog: eventlogEndpoint,
  },
  readOnly: ["origin"],
  immutable: ["targetKind"],
  preserved: [],
  quota: { name: "policies", perGvc: false },
  queryFields: ["targetQuery"],
  initialize(body, ctx) {
    return normalize(ctx.org, {
      origin: "default",
      ...pick(body, ["targetKind", "target", "targetLinks", "targetQuery", "bindings"]),
    });
  },
  afterPatch(_previous, next, ctx) {
    return normalize(ctx.org, next);
  },
  linkArrays: ["targetLinks", "principalLinks"],
  validate(record) {
    return policyIssues(record as unknown as PolicyRules);
  },
  // On an update targetKind is the stored one: a link, permission or query kind of another kind conflicts with it.
  conflicts(record) {
    return policyConflicts(record as unknown as PolicyRules);
  },
  editForbidden: (record) => (isBuiltin(record) ? builtinMessage("policy", record["name"], "edited") : undefined),
  deleteForbidden: (record) => (isBuiltin(record) ? builtinMessage("policy", record["name"], "deleted") : undefined),
};

import { bindingKey, policyConflicts, policyIssues, type PolicyRules } from "../../api/schemas/policyRules.js";
import type { JsonObject, JsonValue } from "../store/store.js";
import { builtinMessage, fullLinks, isBuiltin, isObject, pick } from "./common.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindServerRules } from "./rules.js";

/**
 * Stored policies hold full links (`/org/o/group/g`) in targetLinks and principalLinks, and one binding per permission
 * set: bindings with the same set are merged into the first (their principals joined), and a principal named twice
 * in a binding (in the same or in relative and full form) is kept once. JSON Schema cannot state "no two bindings
 * with the same set", so the server does not refuse what the document allows; nothing given is lost.
 */
function normalize(org: string, doc: JsonObject): JsonObject {
  const out = { ...doc };
  if (out["targetLinks"] !== undefined) out["targetLinks"] = fullLinks(org, out["targetLinks"]) as JsonValue;
  if (Array.isArray(out["bindings"])) out["bindings"] = mergedBindings(org, out["bindings"]);
  return out;
}

function mergedBindings(org: string, bindings: readonly JsonValue[]): JsonValue[] {
  const merged: JsonValue[] = [];
  const byKey = new Map<string, { principals: Set<string>; binding: JsonObject }>();
  for (const b of bindings) {
    if (!isObject(b) || !Array.isArray(b["permissions"]) || !Array.isArray(b["principalLinks"])) {
      merged.push(b);
      continue;
    }
    const permissions = b["permissions"].filter((p): p is string => typeof p === "string");
    const key = bindingKey([...new Set(permissions)]);
    const links = (fullLinks(org, b["principalLinks"]) as JsonValue[]).filter(
      (l): l is string => typeof l === "string",
    );
    const found = byKey.get(key);
    if (found) {
      for (const link of links) found.principals.add(link);
      found.binding["principalLinks"] = [...found.principals];
      continue;
    }
    const binding: JsonObject = { ...b, principalLinks: [...new Set(links)] };
    byKey.set(key, { principals: new Set(links), binding });
    merged.push(binding);
  }
  return merged;
}

/**
 * Policies: targetKind is fixed at create; permissions must exist in the target kind's catalog; bindings that share
 * a permission set are merged; builtin policies (superusers-<kind>, viewers-<kind>) cannot be edited or deleted.
 */
export const policyRules: KindServerRules = {
  kind: "policy",
  endpoints: {
    eventlog: eventlogEndpoint,
  },
  quota: { name: "policies", perGvc: false },
  fields: {
    readOnly: ["origin"],
    immutable: ["targetKind"],
    preserved: [],
    queryFields: ["targetQuery"],
    linkArrays: ["targetLinks", "principalLinks"],
  },
  lifecycle: {
    initialize(body, ctx) {
      return normalize(ctx.org, {
        origin: "default",
        ...pick(body, ["targetKind", "target", "targetLinks", "targetQuery", "bindings"]),
      });
    },
    afterPatch(_previous, next, ctx) {
      return normalize(ctx.org, next);
    },
    validate(record) {
      return policyIssues(record as unknown as PolicyRules);
    },
    // On an update targetKind is the stored one: a link, permission or query kind of another kind conflicts with it.
    conflicts(record) {
      return policyConflicts(record as unknown as PolicyRules);
    },
  },
  access: {
    editForbidden: (record) => (isBuiltin(record) ? builtinMessage("policy", record["name"], "edited") : undefined),
    deleteForbidden: (record) => (isBuiltin(record) ? builtinMessage("policy", record["name"], "deleted") : undefined),
  },
};

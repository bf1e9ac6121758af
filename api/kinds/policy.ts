import { catalogOf } from "./catalogs.js";
import { bindingSet, queryTerms, valueSet } from "../patch/rules.js";
import { policy, policyCreate, policyPatch } from "../schemas/policy.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindDescriptor } from "./types.js";

/** The contract of kind `policy`. */
export const policyKind = {
  kind: "policy",
  scope: "org",
  permissions: catalogOf("policy"),
  queryProperties: ["origin", "targetKind"],
  rels: [],
  endpoints: {
    eventlog: eventlogEndpoint,
  },
  schemas: {
    record: () => policy(),
    create: () => policyCreate(),
    patch: () => policyPatch(),
  },
  patchRules: {
    arrays: {
      targetLinks: valueSet,
      bindings: bindingSet,
      "bindings.permissions": valueSet,
      "bindings.principalLinks": valueSet,
      "targetQuery.spec.terms": queryTerms,
    },
  },
  addressing: { field: "name", by: "name" },
  examples: {
    create: (name) => ({
      name,
      targetKind: "group",
      targetLinks: ["//group/a"],
      bindings: [{ permissions: ["view"], principalLinks: ["//group/viewers"] }],
    }),
    patch: (marker) => ({
      description: `patched ${marker}`,
      tags: { example: marker },
      "$append/targetLinks": [`//group/${marker}`],
    }),
  },
} satisfies KindDescriptor<"policy">;

import { catalogOf } from "./catalogs.js";
import { queryTerms, valueSet } from "../patch/rules.js";
import { group, groupCreate, groupPatch } from "../schemas/group.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindDescriptor } from "./types.js";

/** The contract of kind `group`. */
export const groupKind = {
  kind: "group",
  scope: "org",
  permissions: catalogOf("group"),
  queryProperties: ["origin"],
  rels: [],
  endpoints: {
    eventlog: eventlogEndpoint,
  },
  schemas: {
    record: () => group(),
    create: () => groupCreate(),
    patch: () => groupPatch(),
  },
  patchRules: { arrays: { memberLinks: valueSet, "memberQuery.spec.terms": queryTerms } },
  addressing: { field: "name", by: "name" },
  examples: {
    create: (name) => ({ name, memberLinks: ["//user/someone@example.com"] }),
    patch: (marker) => ({
      description: `patched ${marker}`,
      tags: { example: marker },
      "$append/memberLinks": [`//user/${marker}@example.com`],
    }),
  },
} satisfies KindDescriptor<"group">;

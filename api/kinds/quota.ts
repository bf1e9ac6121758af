import { catalogOf } from "./catalogs.js";
import { quota, quotaPatch } from "../schemas/quota.js";
import type { KindDescriptor } from "./types.js";

/** The contract of kind `quota`. */
export const quotaKind = {
  kind: "quota",
  scope: "org",
  permissions: catalogOf("quota"),
  queryProperties: ["origin", "max", "current", "unit"],
  rels: [],
  schemas: {
    record: () => quota(),
    patch: () => quotaPatch(),
  },
  patchRules: { arrays: {} },
  addressing: { field: "id", by: "id" },
  examples: {
    // A quota has no tags; its max is the org's limit, not an example's to change.
    patch: (marker) => ({ description: `patched ${marker}` }),
  },
} satisfies KindDescriptor<"quota">;

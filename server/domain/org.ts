import { org, orgPatch } from "../../api/schemas/org.js";
import type { KindRules } from "./rules.js";

/** The org record (`/org/{org}`): seeded, never created or deleted through the API; description and tags change. */
export const orgRules: KindRules = {
  kind: "org",
  patchBody: orgPatch,
  record: org,
  readOnly: [],
  immutable: [],
  preserved: ["spec", "status"],
  initialize: () => ({ spec: {}, status: {} }),
};

import { pick } from "./common.js";
import type { KindServerRules } from "./rules.js";

/** Cloud accounts: the provider is fixed at create (read-only afterwards); `data` is free-form. */
export const cloudAccountRules: KindServerRules = {
  kind: "cloudaccount",
  readOnly: ["provider"],
  immutable: [],
  preserved: [],
  quota: { name: "cloudaccounts", perGvc: false },
  initialize: (body) => pick(body, ["provider", "data"]),
};

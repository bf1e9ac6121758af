import { cloudAccount, cloudAccountCreate, cloudAccountPatch } from "../../api/schemas/cloudAccount.js";
import { pick } from "./common.js";
import type { KindRules } from "./rules.js";

/** Cloud accounts: the provider is fixed at create (read-only afterwards); `data` is free-form. */
export const cloudAccountRules: KindRules = {
  kind: "cloudaccount",
  createBody: cloudAccountCreate,
  patchBody: cloudAccountPatch,
  record: cloudAccount,
  readOnly: ["provider"],
  immutable: [],
  preserved: [],
  quota: { name: "cloudaccounts", perGvc: false },
  initialize: (body) => pick(body, ["provider", "data"]),
};

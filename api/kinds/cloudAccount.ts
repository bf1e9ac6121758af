import { perm, withManage } from "./catalog.js";
import { cloudAccount, cloudAccountCreate, cloudAccountPatch } from "../schemas/cloudAccount.js";
import type { KindDescriptor } from "./types.js";

/** The contract of kind `cloudaccount`. */
export const cloudAccountKind: KindDescriptor = {
  kind: "cloudaccount",
  scope: "org",
  permissions: withManage([
    perm("browse", "Browse account contents", ["view"]),
    perm("create", "Create new cloud accounts"),
    perm("delete", "Delete existing cloud accounts"),
    perm("edit", "Modify existing cloud accounts", ["view", "browse"]),
    perm("view", "Read-only access"),
  ]),
  queryProperties: ["provider"],
  rels: [],
  schemas: {
    record: () => cloudAccount(),
    create: () => cloudAccountCreate(),
    patch: () => cloudAccountPatch(),
  },
  patchRules: { arrays: {} },
  addressing: { field: "name", by: "name" },
};

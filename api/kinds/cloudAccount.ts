import { catalogOf } from "./catalogs.js";
import { cloudAccount, cloudAccountCreate, cloudAccountPatch } from "../schemas/cloudAccount.js";
import type { KindDescriptor } from "./types.js";

/** The contract of kind `cloudaccount`. */
export const cloudAccountKind: KindDescriptor = {
  kind: "cloudaccount",
  scope: "org",
  permissions: catalogOf("cloudaccount"),
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

import { catalogOf } from "./catalogs.js";
import { user, userCreate, userPatch } from "../schemas/user.js";
import type { KindDescriptor } from "./types.js";

/** The contract of kind `user`. */
export const userKind: KindDescriptor = {
  kind: "user",
  scope: "org",
  permissions: catalogOf("user"),
  queryProperties: ["email", "idp"],
  rels: [],
  schemas: {
    record: () => user(),
    create: () => userCreate(),
    patch: () => userPatch(),
  },
  patchRules: { arrays: {} },
  addressing: { field: "email", by: "name" },
};

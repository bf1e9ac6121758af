import { perm, withManage } from "./catalog.js";
import { location, locationCreate, locationPatch } from "../schemas/location.js";
import type { KindDescriptor } from "./types.js";

/** The contract of kind `location`. */
export const locationKind: KindDescriptor = {
  kind: "location",
  scope: "org",
  permissions: withManage([
    perm("create", "Create new locations"),
    perm("delete", "Delete byok locations"),
    perm("edit", "Modify existing locations", ["view"]),
    perm("use", "Use this location for workload placement", ["view"]),
    perm("view", "Read-only access"),
  ]),
  queryProperties: ["origin", "provider", "region"],
  rels: [],
  schemas: {
    record: () => location(),
    create: () => locationCreate(),
    patch: () => locationPatch(),
  },
  patchRules: { arrays: {} },
  addressing: { field: "name", by: "name" },
};

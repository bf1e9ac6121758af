import { perm, withManage } from "./catalog.js";
import { org, orgPatch } from "../schemas/org.js";
import type { KindDescriptor } from "./types.js";

/** The contract of kind `org`. */
export const orgKind: KindDescriptor = {
  kind: "org",
  scope: "org",
  permissions: withManage([
    perm("edit", "Modify the org", ["view"]),
    perm("exec", "Execute commands", ["exec.echo"]),
    perm("exec.echo", "Echo (test command)"),
    perm("grafanaAdmin", "Administer Grafana"),
    perm("readLogs", "Read logs"),
    perm("readMetrics", "Read metrics"),
    perm("readUsage", "Read usage"),
    perm("view", "Read-only access"),
    perm("viewAccessReport", "View access reports"),
  ]),
  queryProperties: [],
  rels: [],
  singleton: true,
  schemas: {
    record: () => org(),
    patch: () => orgPatch(),
  },
  patchRules: { arrays: {} },
  addressing: { field: "name", by: "name" },
};

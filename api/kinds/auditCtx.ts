import { perm, withManage } from "./catalog.js";
import { auditCtx, auditCtxCreate, auditCtxPatch } from "../schemas/auditCtx.js";
import type { KindDescriptor } from "./types.js";

/** The contract of kind `auditctx`. */
export const auditCtxKind: KindDescriptor = {
  kind: "auditctx",
  scope: "org",
  // No `delete`: audit contexts cannot be deleted by any principal (reference §3.3, §9).
  permissions: withManage([
    perm("create", "Create new audit contexts"),
    perm("edit", "Modify existing audit contexts", ["view"]),
    perm("readAudit", "Read audit events", ["view"]),
    perm("view", "Read-only access"),
    perm("writeAudit", "Write audit events", ["view"]),
  ]),
  queryProperties: ["origin"],
  rels: [],
  schemas: {
    record: () => auditCtx(),
    create: () => auditCtxCreate(),
    patch: () => auditCtxPatch(),
  },
  patchRules: { arrays: {} },
  addressing: { field: "name", by: "name" },
};

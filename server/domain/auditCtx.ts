import { builtinMessage, isBuiltin } from "./common.js";
import type { KindServerRules } from "./rules.js";

/**
 * Audit contexts: custom ones can be deleted; the catalog has no `delete` permission, so DELETE needs `manage`
 * (which grants every permission of the kind). The builtin `cpln` context can be neither edited nor deleted.
 */
export const auditCtxRules: KindServerRules = {
  kind: "auditctx",
  readOnly: ["origin"],
  immutable: [],
  preserved: ["status"],
  deletePermission: "manage",
  initialize: () => ({ origin: "default", status: {} }),
  editForbidden: (record) =>
    isBuiltin(record) ? builtinMessage("audit context", record["name"], "edited") : undefined,
  deleteForbidden: (record) =>
    isBuiltin(record) ? builtinMessage("audit context", record["name"], "deleted") : undefined,
};

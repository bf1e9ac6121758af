import { builtinMessage, isBuiltin } from "./common.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindServerRules } from "./rules.js";

/**
 * Audit contexts cannot be deleted, builtin or not: the API document gives `DELETE /org/{org}/auditctx/{name}` only
 * the error shape, the catalog has no `delete`, the CLI's delete command is commented out and terraform-provider-cpln's
 * delete only forgets the context. A DELETE of a context the caller can view is a 403 saying so (a context the caller
 * cannot view is a 404, like a missing one); no permission changes that, so the refusal needs only `view`.
 * The builtin `cpln` context cannot be edited either.
 */
export const auditCtxRules: KindServerRules = {
  kind: "auditctx",
  endpoints: {
    eventlog: eventlogEndpoint,
  },
  quota: { name: "audit-contexts", perGvc: false },
  deletePermission: "view",
  fields: {
    readOnly: ["origin"],
    immutable: [],
    preserved: ["status"],
  },
  lifecycle: {
    initialize: () => ({ origin: "default", status: {} }),
  },
  access: {
    editForbidden: (record) =>
      isBuiltin(record) ? builtinMessage("audit context", record["name"], "edited") : undefined,
    deleteForbidden: (record) =>
      `Audit contexts cannot be deleted: ${String(record["name"])} stays (change its description or tags instead)`,
  },
};

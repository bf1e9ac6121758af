import { catalogOf } from "./catalogs.js";
import { auditCtx, auditCtxCreate, auditCtxPatch } from "../schemas/auditCtx.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindDescriptor } from "./types.js";

/** The contract of kind `auditctx`. */
export const auditCtxKind = {
  kind: "auditctx",
  scope: "org",
  permissions: catalogOf("auditctx"),
  queryProperties: ["origin"],
  rels: [],
  endpoints: {
    eventlog: eventlogEndpoint,
  },
  schemas: {
    record: () => auditCtx(),
    create: () => auditCtxCreate(),
    patch: () => auditCtxPatch(),
  },
  patchRules: { arrays: {} },
  addressing: { field: "name", by: "name" },
  // The API document gives DELETE only the error shape; no official client deletes one (docs/fidelity.md).
  deletable: false,
  examples: {
    create: (name) => ({ name, description: "an audit context" }),
    patch: (marker) => ({ description: `patched ${marker}`, tags: { example: marker } }),
  },
} satisfies KindDescriptor<"auditctx">;

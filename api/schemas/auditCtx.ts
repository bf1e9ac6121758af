import { echoOnly } from "./jsonRules.js";
import { z } from "zod";
import { lazy } from "../lazy.js";
import {
  description,
  describedTaggedPatchFields,
  name,
  patchObject,
  readOnlyPatchShape,
  recordShape,
  tags,
} from "./common.js";

export const auditCtxOrigins = ["default", "builtin"] as const;

export const auditCtx = lazy(() =>
  z
    .looseObject({
      ...recordShape("auditctx"),
      origin: z.enum(auditCtxOrigins).describe("builtin (the org's 'cpln' context) or default."),
      status: z.looseObject({}).optional().describe("Server-maintained state."),
    })
    .describe("A stream of audit events."),
);
export type AuditCtx = z.infer<ReturnType<typeof auditCtx>>;

export const auditCtxCreate = lazy(() =>
  z
    .strictObject({ name: name(), description: description().optional(), tags: tags().optional() })
    .describe("Body of POST /org/{org}/auditctx."),
);

export const auditCtxPatch = lazy(() =>
  patchObject(describedTaggedPatchFields(), {
    ...readOnlyPatchShape(),
    origin: echoOnly(z.enum(auditCtxOrigins).optional().describe("Read-only.")),
  }).describe("Body of PATCH /org/{org}/auditctx/{name}."),
);

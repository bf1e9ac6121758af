/**
 * AuditContext: a stream of audit events (`/org/{org}/auditctx/{name}`). The org's builtin context (`cpln`) can be
 * neither changed nor deleted, so check refuses to manage it (read it with `AuditContext.get`).
 */
import { z } from "zod";
import { parseOnce } from "../../api/parseOnce.js";
import { lazy } from "../../api/lazy.js";
import { patchRules as allPatchRules } from "../../api/kinds/index.js";
import { auditCtx as auditCtxRecord, auditCtxOrigins } from "../../api/schemas/auditCtx.js";
import { recordMeta } from "./requests.js";
import {
  namedApiBody,
  namedFieldRules,
  namedInputFields,
  namedKindLifecycle,
  namedRecordOutputs,
  recordOutputFields,
} from "./common.js";
import type {
  AnyResourceDefinition,
  FieldRules,
  InputIssue,
  Props,
  ResourceContext,
  ResourceDefinition,
} from "./types.js";

/** The name of every org's builtin audit context. */
export const BUILTIN_AUDIT_CONTEXT = "cpln";

// ---- input schema ---------------------------------------------------------------------------------------------------

export const auditContextInputs = lazy(() => z.strictObject({ ...namedInputFields("audit context") }));
export type AuditContextInputs = z.infer<ReturnType<typeof auditContextInputs>>;

export const auditContextOutputs = lazy(() =>
  auditContextInputs().extend({
    ...recordOutputFields("audit context", "/org/<org>/auditctx/<name>"),
    origin: z.enum(auditCtxOrigins).describe("default; the builtin cpln context cannot be changed or deleted."),
  }),
);
export type AuditContextOutputs = z.infer<ReturnType<typeof auditContextOutputs>>;

// ---- field rules ----------------------------------------------------------------------------------------------------

const fields: FieldRules<AuditContextInputs> = { ...namedFieldRules };

// ---- toApi / fromApi ------------------------------------------------------------------------------------------------

function toApi(inputs: Props) {
  return namedApiBody(inputs);
}

function fromApi(record: unknown): AuditContextOutputs {
  const parsed = parseOnce(auditCtxRecord(), record);
  const meta = recordMeta(parsed, "cpln/");
  return {
    ...namedRecordOutputs(parsed, meta),
    origin: parsed.origin,
  } as AuditContextOutputs;
}

/** Managing the builtin context would end in a DELETE the server refuses: say so before anything is sent. */
function builtinIssues(inputs: AuditContextInputs): InputIssue[] {
  if (inputs.name !== BUILTIN_AUDIT_CONTEXT) return [];
  return [
    {
      path: "name",
      message:
        `"${BUILTIN_AUDIT_CONTEXT}" is the org's builtin audit context: it can be neither changed nor deleted, so it ` +
        `cannot be a resource; read it with AuditContext.get("${BUILTIN_AUDIT_CONTEXT}", "/org/<org>/auditctx/${BUILTIN_AUDIT_CONTEXT}")`,
    },
  ];
}

// ---- the definition: check, diff (generic, from the tables above), create, read, update, delete ---------------------

export const auditContextDefinition = {
  typeName: "AuditContext",
  kind: "auditctx",
  description:
    "A Control Plane audit context: a stream of audit events. name and org cannot change in place; description and " +
    "tags are updated with one PATCH. The builtin cpln context cannot be managed (check refuses it); read it with .get.",
  inputs: auditContextInputs,
  outputs: auditContextOutputs,

  fields,
  patchRules: () => allPatchRules.auditctx ?? { arrays: {} },
  autoname: true,

  toApi,
  fromApi,

  // check
  defaults: (inputs) => ({ description: inputs.name }),
  contractIssues: builtinIssues,
  normalize: (inputs) => inputs,

  // create: one POST; with `adopt`, a 409 becomes a GET and (if anything differs) one PATCH. read: one GET. update:
  // one PATCH built by buildPatch, none when nothing managed changed.
  ...namedKindLifecycle<AuditContextInputs, AuditContextOutputs>(
    "auditctx",
    (): AnyResourceDefinition => auditContextDefinition,
  ),

  // delete: no request. Audit contexts cannot be deleted (the API refuses every DELETE; terraform-provider-cpln's
  // resource_audit_context.go only removes it from state): the context is forgotten, and the user is told.
  async delete(ctx: ResourceContext, id: string): Promise<void> {
    ctx.warn(
      `Audit contexts cannot be deleted: ${id} is only removed from the stack's state and stays in the org ` +
        "(import or adopt it to manage it again)",
    );
  },
} satisfies ResourceDefinition<AuditContextInputs, AuditContextOutputs>;

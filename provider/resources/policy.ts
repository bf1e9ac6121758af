/**
 * Policy: grants permissions on objects of one kind to principals (`/org/{org}/policy/{name}`). Updates touch only
 * the bindings that changed (`$patch/bindings` keyed by permission set) and add or remove links one by one
 * (`$append/`, `$drop/`), so principals another client adds to other bindings survive.
 */
import { z } from "zod";
import { lazy } from "../../api/lazy.js";
import { normalizeLink, selfLink } from "../../api/links.js";
import { patchRules as allPatchRules } from "../../api/kinds.js";
import {
  policy as policyRecord,
  policyCreate,
  policyIssues,
  policyOrigins,
  type PolicyRules,
} from "../../api/schemas/policy.js";
import {
  adoptExisting,
  deleteIgnoringMissing,
  jsonObject,
  managedBody,
  patchUpdate,
  readIgnoringMissing,
  recordMeta,
} from "./engine.js";
import { namedInputFields, recordOutputFields } from "./common.js";
import type { FieldRules, Props, ResourceContext, ResourceDefinition } from "./types.js";

// ---- input schema ---------------------------------------------------------------------------------------------------

export const policyInputs = lazy(() => {
  const body = policyCreate().shape;
  return z.strictObject({
    targetKind: body.targetKind,
    targetLinks: body.targetLinks,
    targetQuery: body.targetQuery,
    target: body.target,
    bindings: body.bindings,
    ...namedInputFields("policy"),
  });
});
export type PolicyInputs = z.infer<ReturnType<typeof policyInputs>>;

export const policyOutputs = lazy(() =>
  policyInputs().extend({
    targetKind: z.string().describe("Kind of the objects the policy applies to."),
    ...recordOutputFields("policy", "/org/<org>/policy/<name>"),
    origin: z.enum(policyOrigins).describe("default for policies created through the API; builtin ones are read-only."),
  }),
);
export type PolicyOutputs = z.infer<ReturnType<typeof policyOutputs>>;

// ---- field rules ----------------------------------------------------------------------------------------------------

const fields: FieldRules<PolicyInputs> = {
  targetKind: { replace: true },
  targetLinks: {},
  targetQuery: {},
  target: {},
  bindings: {},
  name: { replace: true },
  description: {},
  tags: { serverKeyPrefix: "cpln/" },
  org: { replace: true },
  adopt: { local: true },
};

// ---- toApi / fromApi ------------------------------------------------------------------------------------------------

function toApi(inputs: Props) {
  return jsonObject({
    name: inputs.name,
    description: inputs.description,
    tags: inputs.tags,
    targetKind: inputs.targetKind,
    targetLinks: inputs.targetLinks,
    targetQuery: inputs.targetQuery,
    target: inputs.target,
    bindings: inputs.bindings,
  });
}

function fromApi(record: unknown): PolicyOutputs {
  const parsed = policyRecord().parse(record);
  const meta = recordMeta(parsed, "cpln/");
  return {
    targetKind: parsed.targetKind,
    targetLinks: parsed.targetLinks,
    targetQuery: parsed.targetQuery,
    target: parsed.target,
    bindings: parsed.bindings,
    name: parsed.name,
    description: parsed.description ?? parsed.name,
    tags: meta.tags,
    serverTags: meta.serverTags,
    org: meta.org,
    cplnId: parsed.id,
    selfLink: meta.selfLink,
    version: parsed.version,
    created: parsed.created,
    lastModified: parsed.lastModified,
    origin: parsed.origin,
  } as PolicyOutputs;
}

/** The server stores full links (`/org/o/group/g`); the args may use the relative form (`//group/g`). */
function normalize(inputs: PolicyInputs, org: string): PolicyInputs {
  const full = (links: readonly string[] | undefined) => links?.map((href) => normalizeLink(org, href));
  return {
    ...inputs,
    ...(inputs.targetLinks !== undefined ? { targetLinks: full(inputs.targetLinks) } : {}),
    ...(inputs.bindings !== undefined
      ? { bindings: inputs.bindings.map((b) => ({ ...b, principalLinks: full(b.principalLinks) ?? [] })) }
      : {}),
  };
}

// ---- the definition: check, diff (generic, from the tables above), create, read, update, delete ---------------------

export const policyDefinition = {
  typeName: "Policy",
  kind: "policy",
  description:
    "A Control Plane policy: grants permissions on objects of one kind (all of them, listed links, or a query) to " +
    "groups, users, service accounts and identities. targetKind, name and org cannot change in place; an update is " +
    "one PATCH that touches only the bindings and links that changed.",
  inputs: policyInputs,
  outputs: policyOutputs,

  fields,
  patchRules: () => allPatchRules.policy ?? { arrays: {} },
  autoname: true,

  toApi,
  fromApi,

  // check
  defaults: (inputs) => ({ description: inputs.name }),
  contractIssues: (inputs) => policyIssues(inputs as PolicyRules),
  normalize,

  // create: one POST; with `adopt`, a 409 becomes a GET and (if anything differs) one PATCH.
  async create(ctx: ResourceContext, inputs: PolicyInputs): Promise<{ id: string; outs: PolicyOutputs }> {
    let record: unknown;
    try {
      record = await ctx.client.createPolicy(ctx.org, managedBody(policyDefinition, inputs));
    } catch (error) {
      const link = selfLink(ctx.org, "policy", String(inputs.name));
      record = await adoptExisting(policyDefinition, ctx, error, inputs, link);
    }
    const outs = fromApi(record);
    return { id: outs.selfLink, outs };
  },

  // read: one GET; undefined when it is gone.
  async read(ctx: ResourceContext, id: string): Promise<PolicyOutputs | undefined> {
    const record = await readIgnoringMissing(ctx, id);
    return record === undefined ? undefined : fromApi(record);
  },

  // update: one PATCH built by buildPatch, none when nothing managed changed.
  async update(ctx: ResourceContext, id: string, olds: PolicyOutputs, news: PolicyInputs): Promise<PolicyOutputs> {
    return patchUpdate(policyDefinition, ctx, id, olds, news);
  },

  // delete: one DELETE; 404 counts as deleted.
  async delete(ctx: ResourceContext, id: string): Promise<void> {
    await deleteIgnoringMissing(ctx, id);
  },
} satisfies ResourceDefinition<PolicyInputs, PolicyOutputs>;

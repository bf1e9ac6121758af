/**
 * ServiceAccount: a non-human principal that authenticates with keys (`/org/{org}/serviceaccount/{name}`). The
 * resource manages description and tags; its keys are ServiceAccountKey resources (or anyone's `-addKey`), and the
 * outputs list their names.
 */
import { z } from "zod";
import { lazy } from "../../api/lazy.js";
import { collectionPath, selfLink } from "../../api/links.js";
import { patchRules as allPatchRules } from "../../api/kinds.js";
import { serviceAccount as serviceAccountRecord, serviceAccountOrigins } from "../../api/schemas/serviceAccount.js";
import {
  createOrAdopt,
  deleteIgnoringMissing,
  jsonObject,
  patchUpdate,
  readIgnoringMissing,
  recordMeta,
} from "./engine.js";
import { namedInputFields, recordOutputFields } from "./common.js";
import type { FieldRules, Props, ResourceContext, ResourceDefinition } from "./types.js";

// ---- input schema ---------------------------------------------------------------------------------------------------

export const serviceAccountInputs = lazy(() => z.strictObject({ ...namedInputFields("service account") }));
export type ServiceAccountInputs = z.infer<ReturnType<typeof serviceAccountInputs>>;

export const serviceAccountOutputs = lazy(() =>
  serviceAccountInputs().extend({
    ...recordOutputFields("service account", "/org/<org>/serviceaccount/<name>"),
    origin: z.enum(serviceAccountOrigins).describe("default; the builtin controlplane account cannot be changed."),
    keyNames: z
      .array(z.string())
      .describe("Names of the account's keys (the text before the first '.'); the keys themselves are never read."),
  }),
);
export type ServiceAccountOutputs = z.infer<ReturnType<typeof serviceAccountOutputs>>;

// ---- field rules ----------------------------------------------------------------------------------------------------

const fields: FieldRules<ServiceAccountInputs> = {
  name: { replace: true },
  description: {},
  tags: { serverKeyPrefix: "cpln/" },
  org: { replace: true },
  adopt: { local: true },
};

// ---- toApi / fromApi ------------------------------------------------------------------------------------------------

function toApi(inputs: Props) {
  return jsonObject({ name: inputs.name, description: inputs.description, tags: inputs.tags });
}

function fromApi(record: unknown): ServiceAccountOutputs {
  const parsed = serviceAccountRecord().parse(record);
  const meta = recordMeta(parsed, "cpln/");
  return {
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
    keyNames: (parsed.keys ?? []).map((key) => key.name),
  } as ServiceAccountOutputs;
}

// ---- the definition: check, diff (generic, from the tables above), create, read, update, delete ---------------------

export const serviceAccountDefinition = {
  typeName: "ServiceAccount",
  kind: "serviceaccount",
  description:
    "A Control Plane service account: a non-human principal that authenticates with keys (see ServiceAccountKey). " +
    "name and org cannot change in place; description and tags are updated with one PATCH. keyNames lists its keys.",
  inputs: serviceAccountInputs,
  outputs: serviceAccountOutputs,

  fields,
  patchRules: () => allPatchRules.serviceaccount ?? { arrays: {} },
  autoname: true,

  toApi,
  fromApi,

  // check
  defaults: (inputs) => ({ description: inputs.name }),
  contractIssues: () => [],
  normalize: (inputs) => inputs,

  // create: one POST; with `adopt`, a 409 becomes a GET and (if anything differs) one PATCH.
  async create(
    ctx: ResourceContext,
    inputs: ServiceAccountInputs,
  ): Promise<{ id: string; outs: ServiceAccountOutputs }> {
    const link = selfLink(ctx.org, "serviceaccount", String(inputs.name));
    const collection = collectionPath(ctx.org, "serviceaccount");
    const record = await createOrAdopt(serviceAccountDefinition, ctx, inputs, collection, link);
    const outs = fromApi(record);
    return { id: outs.selfLink, outs };
  },

  // read: one GET; undefined when it is gone.
  async read(ctx: ResourceContext, id: string): Promise<ServiceAccountOutputs | undefined> {
    const record = await readIgnoringMissing(ctx, id);
    return record === undefined ? undefined : fromApi(record);
  },

  // update: one PATCH built by buildPatch, none when nothing managed changed (keys are never part of it).
  async update(
    ctx: ResourceContext,
    id: string,
    olds: ServiceAccountOutputs,
    news: ServiceAccountInputs,
  ): Promise<ServiceAccountOutputs> {
    return patchUpdate(serviceAccountDefinition, ctx, id, olds, news);
  },

  // delete: one DELETE (the server revokes its keys with it); 404 counts as deleted.
  async delete(ctx: ResourceContext, id: string): Promise<void> {
    await deleteIgnoringMissing(ctx, id);
  },
} satisfies ResourceDefinition<ServiceAccountInputs, ServiceAccountOutputs>;

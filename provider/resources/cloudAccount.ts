/**
 * CloudAccount: access to an account at a cloud provider (`/org/{org}/cloudaccount/{name}`). The provider is fixed
 * at create (a change replaces the cloud account); `data` is free-form, updated key by key.
 */
import { z } from "zod";
import { lazy } from "../../api/lazy.js";
import { collectionPath, selfLink } from "../../api/links.js";
import { patchRules as allPatchRules } from "../../api/kinds.js";
import { cloudAccount as cloudAccountRecord, cloudAccountCreate } from "../../api/schemas/cloudAccount.js";
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

export const cloudAccountInputs = lazy(() => {
  const body = cloudAccountCreate().shape;
  return z.strictObject({
    provider: body.provider.describe("Cloud provider: aws, azure, gcp or ngs. Changing it replaces the cloud account."),
    data: body.data,
    ...namedInputFields("cloud account"),
  });
});
export type CloudAccountInputs = z.infer<ReturnType<typeof cloudAccountInputs>>;

export const cloudAccountOutputs = lazy(() =>
  cloudAccountInputs().extend({ ...recordOutputFields("cloud account", "/org/<org>/cloudaccount/<name>") }),
);
export type CloudAccountOutputs = z.infer<ReturnType<typeof cloudAccountOutputs>>;

// ---- field rules ----------------------------------------------------------------------------------------------------

const fields: FieldRules<CloudAccountInputs> = {
  provider: { replace: true },
  data: {},
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
    provider: inputs.provider,
    data: inputs.data,
  });
}

function fromApi(record: unknown): CloudAccountOutputs {
  const parsed = cloudAccountRecord().parse(record);
  const meta = recordMeta(parsed, "cpln/");
  return {
    provider: parsed.provider,
    data: parsed.data,
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
  } as CloudAccountOutputs;
}

// ---- the definition: check, diff (generic, from the tables above), create, read, update, delete ---------------------

export const cloudAccountDefinition = {
  typeName: "CloudAccount",
  kind: "cloudaccount",
  description:
    "A Control Plane cloud account: access to an account at aws, azure, gcp or ngs, described by provider-specific " +
    "data. provider, name and org cannot change in place (a change replaces it); data, description and tags are " +
    "updated with one PATCH holding only what changed.",
  inputs: cloudAccountInputs,
  outputs: cloudAccountOutputs,

  fields,
  patchRules: () => allPatchRules.cloudaccount ?? { arrays: {} },
  autoname: true,

  toApi,
  fromApi,

  // check
  defaults: (inputs) => ({ description: inputs.name }),
  contractIssues: () => [],
  normalize: (inputs) => inputs,

  // create: one POST; with `adopt`, a 409 becomes a GET and (if anything differs) one PATCH.
  async create(ctx: ResourceContext, inputs: CloudAccountInputs): Promise<{ id: string; outs: CloudAccountOutputs }> {
    const link = selfLink(ctx.org, "cloudaccount", String(inputs.name));
    const collection = collectionPath(ctx.org, "cloudaccount");
    const record = await createOrAdopt(cloudAccountDefinition, ctx, inputs, collection, link);
    const outs = fromApi(record);
    return { id: outs.selfLink, outs };
  },

  // read: one GET; undefined when it is gone.
  async read(ctx: ResourceContext, id: string): Promise<CloudAccountOutputs | undefined> {
    const record = await readIgnoringMissing(ctx, id);
    return record === undefined ? undefined : fromApi(record);
  },

  // update: one PATCH built by buildPatch, none when nothing managed changed.
  async update(
    ctx: ResourceContext,
    id: string,
    olds: CloudAccountOutputs,
    news: CloudAccountInputs,
  ): Promise<CloudAccountOutputs> {
    return patchUpdate(cloudAccountDefinition, ctx, id, olds, news);
  },

  // delete: one DELETE; 404 counts as deleted.
  async delete(ctx: ResourceContext, id: string): Promise<void> {
    await deleteIgnoringMissing(ctx, id);
  },
} satisfies ResourceDefinition<CloudAccountInputs, CloudAccountOutputs>;

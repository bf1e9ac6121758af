/**
 * VolumeSet: a set of persistent volumes in a gvc (`/org/{org}/gvc/{gvc}/volumeset/{name}`). The spec fields are
 * flat in the resource args and nested under `spec` in the API.
 */
import { z } from "zod";
import { lazy } from "../../api/lazy.js";
import { selfLink } from "../../api/links.js";
import { patchRules as allPatchRules } from "../../api/kinds.js";
import {
  volumeSet as volumeSetRecord,
  volumeSetSpec,
  volumeSetSpecDefaults,
  volumeSetSpecIssues,
  volumeSetStatus,
  type VolumeSetSpec,
} from "../../api/schemas/volumeSet.js";
import {
  adoptExisting,
  deleteIgnoringMissing,
  jsonObject,
  managedBody,
  patchUpdate,
  readIgnoringMissing,
  recordMeta,
} from "./engine.js";
import { name } from "../../api/schemas/common.js";
import { namedInputFields, recordOutputFields } from "./common.js";
import type { FieldRules, Props, ResourceContext, ResourceDefinition } from "./types.js";

// ---- input schema ---------------------------------------------------------------------------------------------------

export const volumeSetInputs = lazy(() => {
  const spec = volumeSetSpec().shape;
  return z.strictObject({
    gvc: name().describe("Name of the gvc the volume set lives in. Changing it replaces the volume set."),
    initialCapacity: spec.initialCapacity,
    performanceClass: spec.performanceClass,
    fileSystemType: spec.fileSystemType,
    storageClassSuffix: spec.storageClassSuffix,
    customEncryption: spec.customEncryption,
    snapshots: spec.snapshots,
    autoscaling: spec.autoscaling,
    mountOptions: spec.mountOptions,
    ...namedInputFields("volume set"),
  });
});
export type VolumeSetInputs = z.infer<ReturnType<typeof volumeSetInputs>>;

export const volumeSetOutputs = lazy(() =>
  volumeSetInputs().extend({
    ...recordOutputFields("volume set", "/org/<org>/gvc/<gvc>/volumeset/<name>"),
    status: volumeSetStatus().describe("Server-maintained state: locations, volumes, workloads."),
  }),
);
export type VolumeSetOutputs = z.infer<ReturnType<typeof volumeSetOutputs>>;

// ---- field rules ----------------------------------------------------------------------------------------------------

const specFields = [
  "initialCapacity",
  "performanceClass",
  "fileSystemType",
  "storageClassSuffix",
  "customEncryption",
  "snapshots",
  "autoscaling",
  "mountOptions",
] as const;

const fields: FieldRules<VolumeSetInputs> = {
  gvc: { replace: true },
  initialCapacity: { apiPath: "spec.initialCapacity" },
  performanceClass: { replace: true, apiPath: "spec.performanceClass" },
  fileSystemType: { replace: true, apiPath: "spec.fileSystemType" },
  storageClassSuffix: { apiPath: "spec.storageClassSuffix" },
  customEncryption: { apiPath: "spec.customEncryption" },
  snapshots: { apiPath: "spec.snapshots" },
  autoscaling: { apiPath: "spec.autoscaling" },
  mountOptions: { apiPath: "spec.mountOptions" },
  name: { replace: true },
  description: {},
  tags: { serverKeyPrefix: "cpln/" },
  org: { replace: true },
  adopt: { local: true },
};

// ---- toApi / fromApi ------------------------------------------------------------------------------------------------

function specOf(inputs: Props): Props {
  const spec: Props = {};
  for (const field of specFields) if (inputs[field] !== undefined) spec[field] = inputs[field];
  return spec;
}

function toApi(inputs: Props) {
  return jsonObject({ name: inputs.name, description: inputs.description, tags: inputs.tags, spec: specOf(inputs) });
}

function fromApi(record: unknown): VolumeSetOutputs {
  const parsed = volumeSetRecord().parse(record);
  const meta = recordMeta(parsed, "cpln/");
  const spec: Props = parsed.spec;
  return {
    ...specOf(spec),
    gvc: meta.gvc ?? "",
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
    status: parsed.status ?? {},
  } as VolumeSetOutputs;
}

// ---- the definition: check, diff (generic, from the tables above), create, read, update, delete ---------------------

export const volumeSetDefinition = {
  typeName: "VolumeSet",
  kind: "volumeset",
  description:
    "A Control Plane volume set: persistent volumes for the workloads of one gvc. performanceClass, fileSystemType, " +
    "gvc, name and org cannot change in place (a change replaces the volume set); every other field is updated with " +
    "one PATCH holding only what changed.",
  inputs: volumeSetInputs,
  outputs: volumeSetOutputs,

  fields,
  patchRules: () => allPatchRules.volumeset ?? { arrays: {} },
  autoname: true,

  toApi,
  fromApi,

  // check
  defaults: (inputs) => ({
    description: inputs.name,
    ...volumeSetSpecDefaults({ performanceClass: inputs.performanceClass, fileSystemType: inputs.fileSystemType }),
  }),
  contractIssues: (inputs) => volumeSetSpecIssues(specOf(inputs) as VolumeSetSpec, ""),
  normalize: (inputs) => inputs,

  // create: one POST; with `adopt`, a 409 becomes a GET and (if anything differs) one PATCH.
  async create(ctx: ResourceContext, inputs: VolumeSetInputs): Promise<{ id: string; outs: VolumeSetOutputs }> {
    let record: unknown;
    try {
      record = await ctx.client.createVolumeSet(ctx.org, inputs.gvc, managedBody(volumeSetDefinition, inputs));
    } catch (error) {
      const link = selfLink(ctx.org, "volumeset", String(inputs.name), inputs.gvc);
      record = await adoptExisting(volumeSetDefinition, ctx, error, inputs, link);
    }
    const outs = fromApi(record);
    return { id: outs.selfLink, outs };
  },

  // read: one GET; undefined when it is gone.
  async read(ctx: ResourceContext, id: string): Promise<VolumeSetOutputs | undefined> {
    const record = await readIgnoringMissing(ctx, id);
    return record === undefined ? undefined : fromApi(record);
  },

  // update: one PATCH built by buildPatch, none when nothing managed changed.
  async update(
    ctx: ResourceContext,
    id: string,
    olds: VolumeSetOutputs,
    news: VolumeSetInputs,
  ): Promise<VolumeSetOutputs> {
    return patchUpdate(volumeSetDefinition, ctx, id, olds, news);
  },

  // delete: one DELETE; 404 counts as deleted.
  async delete(ctx: ResourceContext, id: string): Promise<void> {
    await deleteIgnoringMissing(ctx, id);
  },
} satisfies ResourceDefinition<VolumeSetInputs, VolumeSetOutputs>;

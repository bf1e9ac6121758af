/**
 * VolumeSet: a set of persistent volumes in a gvc (`/org/{org}/gvc/{gvc}/volumeset/{name}`). The spec fields are
 * flat in the resource args and nested under `spec` in the API.
 */
import { z } from "zod";
import { parseOnce } from "../../api/parseOnce.js";
import { lazy } from "../../api/lazy.js";
import { patchRules as allPatchRules } from "../../api/kinds/index.js";
import {
  volumeSet as volumeSetRecord,
  volumeSetSpec,
  volumeSetStatus,
  type VolumeSetSpec,
} from "../../api/schemas/volumeSet.js";
import { volumeSetSpecDefaults, volumeSetSpecIssues } from "../../api/schemas/volumeSetRules.js";
import { recordMeta } from "./requests.js";
import { name } from "../../api/schemas/common.js";
import {
  namedApiBody,
  namedFieldRules,
  namedInputFields,
  namedKindLifecycle,
  namedRecordOutputs,
  recordOutputFields,
} from "./common.js";
import type { AnyResourceDefinition, FieldRules, Props, ResourceDefinition } from "./types.js";

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
  ...namedFieldRules,
};

// ---- toApi / fromApi ------------------------------------------------------------------------------------------------

function specOf(inputs: Props): Props {
  const spec: Props = {};
  for (const field of specFields) if (inputs[field] !== undefined) spec[field] = inputs[field];
  return spec;
}

function toApi(inputs: Props) {
  return namedApiBody(inputs, { spec: specOf(inputs) });
}

function fromApi(record: unknown): VolumeSetOutputs {
  const parsed = parseOnce(volumeSetRecord(), record);
  const meta = recordMeta(parsed, "cpln/");
  const spec: Props = parsed.spec;
  return {
    ...specOf(spec),
    gvc: meta.gvc ?? "",
    ...namedRecordOutputs(parsed, meta),
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

  // create: one POST to the gvc's collection; with `adopt`, a 409 becomes a GET and (if anything differs) one PATCH.
  // read: one GET. update: one PATCH built by buildPatch, none when nothing managed changed. delete: one DELETE; 404
  // counts as deleted.
  ...namedKindLifecycle<VolumeSetInputs, VolumeSetOutputs>(
    "volumeset",
    (): AnyResourceDefinition => volumeSetDefinition,
    {
      gvc: (inputs) => inputs.gvc,
    },
  ),
} satisfies ResourceDefinition<VolumeSetInputs, VolumeSetOutputs>;

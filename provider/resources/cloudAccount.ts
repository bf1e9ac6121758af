/**
 * CloudAccount: access to an account at a cloud provider (`/org/{org}/cloudaccount/{name}`). The provider is fixed
 * at create (a change replaces the cloud account); `data` is free-form, updated key by key.
 */
import { z } from "zod";
import { parseOnce } from "../../api/parseOnce.js";
import { lazy } from "../../api/lazy.js";
import { patchRules as allPatchRules } from "../../api/kinds/index.js";
import { cloudAccount as cloudAccountRecord, cloudAccountCreate } from "../../api/schemas/cloudAccount.js";
import { recordMeta } from "./requests.js";
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
  ...namedFieldRules,
};

// ---- toApi / fromApi ------------------------------------------------------------------------------------------------

function toApi(inputs: Props) {
  return namedApiBody(inputs, { provider: inputs.provider, data: inputs.data });
}

function fromApi(record: unknown): CloudAccountOutputs {
  const parsed = parseOnce(cloudAccountRecord(), record);
  const meta = recordMeta(parsed, "cpln/");
  return {
    provider: parsed.provider,
    data: parsed.data,
    ...namedRecordOutputs(parsed, meta),
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

  // create: one POST; with `adopt`, a 409 becomes a GET and (if anything differs) one PATCH. read: one GET. update:
  // one PATCH built by buildPatch, none when nothing managed changed. delete: one DELETE; 404 counts as deleted.
  ...namedKindLifecycle<CloudAccountInputs, CloudAccountOutputs>(
    "cloudaccount",
    (): AnyResourceDefinition => cloudAccountDefinition,
  ),
} satisfies ResourceDefinition<CloudAccountInputs, CloudAccountOutputs>;

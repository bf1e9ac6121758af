/**
 * ServiceAccount: a non-human principal that authenticates with keys (`/org/{org}/serviceaccount/{name}`). The
 * resource manages description and tags; its keys are ServiceAccountKey resources (or anyone's `-addKey`). The
 * `keyNames` output lists the keys no ServiceAccountKey resource manages (those carry a marker tag, see
 * serviceAccountKey.ts): a key the stack adds itself is not drift, a key added with the CLI is.
 */
import { z } from "zod";
import { parseOnce } from "../../api/parseOnce.js";
import { lazy } from "../../api/lazy.js";
import { patchRules as allPatchRules } from "../../api/kinds/index.js";
import { serviceAccount as serviceAccountRecord, serviceAccountOrigins } from "../../api/schemas/serviceAccount.js";
import { recordMeta } from "./requests.js";
import { isKeyMarker, keyMarker } from "./serviceAccountKey.js";
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

export const serviceAccountInputs = lazy(() => z.strictObject({ ...namedInputFields("service account") }));
export type ServiceAccountInputs = z.infer<ReturnType<typeof serviceAccountInputs>>;

export const serviceAccountOutputs = lazy(() =>
  serviceAccountInputs().extend({
    ...recordOutputFields("service account", "/org/<org>/serviceaccount/<name>"),
    origin: z.enum(serviceAccountOrigins).describe("default; the builtin controlplane account cannot be changed."),
    keyNames: z
      .array(z.string())
      .describe(
        "Names of the account's keys that no ServiceAccountKey resource manages (added with the CLI, the console or " +
          "-addKey; the text before the first '.'); the keys themselves are never read.",
      ),
  }),
);
export type ServiceAccountOutputs = z.infer<ReturnType<typeof serviceAccountOutputs>>;

// ---- field rules ----------------------------------------------------------------------------------------------------

const fields: FieldRules<ServiceAccountInputs> = { ...namedFieldRules };

// ---- toApi / fromApi ------------------------------------------------------------------------------------------------

function toApi(inputs: Props) {
  return namedApiBody(inputs);
}

function fromApi(record: unknown): ServiceAccountOutputs {
  const parsed = parseOnce(serviceAccountRecord(), record);
  const recorded = recordMeta(parsed, "cpln/");
  // ServiceAccountKeys' markers come and go with their keys: not the account's own server tags, so never drift.
  const serverTags = Object.fromEntries(Object.entries(recorded.serverTags).filter(([tag]) => !isKeyMarker(tag)));
  const tags = parsed.tags ?? {};
  return {
    ...namedRecordOutputs(parsed, { ...recorded, serverTags }),
    origin: parsed.origin,
    keyNames: (parsed.keys ?? []).map((key) => key.name).filter((name) => !(keyMarker(name) in tags)),
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

  // create: one POST; with `adopt`, a 409 becomes a GET and (if anything differs) one PATCH. read: one GET. update:
  // one PATCH built by buildPatch, none when nothing managed changed (keys are never part of it). delete: one DELETE
  // (the server revokes its keys with it); 404 counts as deleted.
  ...namedKindLifecycle<ServiceAccountInputs, ServiceAccountOutputs>(
    "serviceaccount",
    (): AnyResourceDefinition => serviceAccountDefinition,
  ),
} satisfies ResourceDefinition<ServiceAccountInputs, ServiceAccountOutputs>;

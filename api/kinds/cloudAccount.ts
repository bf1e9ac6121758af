import { catalogOf } from "./catalogs.js";
import {
  cloudAccount,
  cloudAccountCreate,
  cloudAccountInstructions,
  cloudAccountPatch,
  cloudAccountProviders,
} from "../schemas/cloudAccount.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindDescriptor } from "./types.js";

/** The contract of kind `cloudaccount`. */
export const cloudAccountKind = {
  kind: "cloudaccount",
  scope: "org",
  permissions: catalogOf("cloudaccount"),
  queryProperties: ["provider"],
  rels: [],
  endpoints: {
    eventlog: eventlogEndpoint,
    instructions: {
      method: "GET",
      on: "collection",
      param: {
        name: "provider",
        description: "The cloud provider (aws, azure, gcp, ngs).",
        values: cloudAccountProviders,
      },
      summary:
        "How to set up an account of the provider for Control Plane (what `cpln cloudaccount create-* --how` prints)",
      description: "Needs `create` on cloud accounts. cpln-local's answer names no real Control Plane account.",
      response: {
        name: "CloudAccountInstructions",
        description: "Instructions",
        status: 200,
        schema: () => cloudAccountInstructions(),
      },
    },
  },
  schemas: {
    record: () => cloudAccount(),
    create: () => cloudAccountCreate(),
    patch: () => cloudAccountPatch(),
  },
  patchRules: { arrays: {} },
  addressing: { field: "name", by: "name" },
  dataSources: { get: "getCloudAccount" },
  examples: {
    create: (name) => ({ name, provider: "aws", data: { roleArn: "arn:aws:iam::123456789012:role/cpln" } }),
    patch: (marker) => ({ description: `patched ${marker}`, tags: { example: marker } }),
  },
} satisfies KindDescriptor<"cloudaccount">;

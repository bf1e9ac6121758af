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

export const cloudAccountProviders = ["aws", "azure", "gcp", "ngs"] as const;
export type CloudAccountProvider = (typeof cloudAccountProviders)[number];

function data() {
  return z
    .record(z.string(), z.unknown())
    .describe("Provider-specific data, e.g. {roleArn} for aws, {projectId} for gcp, {secretLink} for azure and ngs.");
}

export const cloudAccount = lazy(() =>
  z
    .looseObject({
      ...recordShape("cloudaccount"),
      provider: z.enum(cloudAccountProviders).describe("Cloud provider. Read-only."),
      data: data().optional(),
      status: z
        .looseObject({
          usable: z.boolean().optional().describe("Whether Control Plane can use the account."),
          lastChecked: z.string().optional().describe("When the account was last checked."),
          lastError: z.string().optional().describe("The error of the last check, if it failed."),
        })
        .optional()
        .describe("Server-maintained state: the result of the last check of the account."),
    })
    .describe("Access to an account at a cloud provider."),
);
export type CloudAccount = z.infer<ReturnType<typeof cloudAccount>>;

export const cloudAccountCreate = lazy(() =>
  z
    .strictObject({
      name: name(),
      description: description().optional(),
      tags: tags().optional(),
      provider: z.enum(cloudAccountProviders).describe("Cloud provider: aws, azure, gcp or ngs."),
      data: data().optional(),
    })
    .describe("Body of POST /org/{org}/cloudaccount."),
);

export const cloudAccountPatch = lazy(() =>
  patchObject(
    {
      ...describedTaggedPatchFields(),
      data: { value: data(), merge: z.record(z.string(), z.unknown()).describe("Data keys to set; null removes one.") },
    },
    {
      ...readOnlyPatchShape(),
      provider: echoOnly(z.enum(cloudAccountProviders).optional().describe("Read-only; must equal the current value.")),
    },
  ).describe("Body of PATCH /org/{org}/cloudaccount/{name}."),
);

/**
 * `GET /org/{org}/cloudaccount/-instructions/{provider}`: how to set up an account of the provider (`Instructions` of
 * controlplane-com/types-ts `src/interfaces/cloudaccount.ts`; the CLI prints `message` and `data.cli`).
 */
export const cloudAccountInstructions = lazy(() =>
  z
    .looseObject({
      message: z.string().describe("What to set up at the provider."),
      data: z
        .looseObject({
          cli: z
            .array(z.string())
            .optional()
            .describe("Shell commands of the provider's own CLI that set it up, in order (the CLI prints each)."),
        })
        .describe("Provider-specific values (`cli`: the commands)."),
    })
    .describe("How to set up a cloud account of a provider."),
);

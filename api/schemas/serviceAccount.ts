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
  timestamp,
} from "./common.js";

export const serviceAccountOrigins = ["default", "builtin"] as const;

export const serviceAccount = lazy(() =>
  z
    .looseObject({
      ...recordShape("serviceaccount"),
      origin: z.enum(serviceAccountOrigins).describe("builtin (controlplane) or default."),
      keys: z
        .array(
          z
            .looseObject({
              name: z.string().describe("Key name (the text before the first '.' of the key)."),
              created: timestamp().describe("When the key was added."),
              description: z.string().optional().describe("Description of the key."),
            })
            .describe("A key (the secret itself is shown only once, when it is added)."),
        )
        .optional()
        .describe("Keys of the service account."),
    })
    .describe("A non-human principal that authenticates with keys."),
);
export type ServiceAccount = z.infer<ReturnType<typeof serviceAccount>>;

export const serviceAccountCreate = lazy(() =>
  z
    .strictObject({ name: name(), description: description().optional(), tags: tags().optional() })
    .describe("Body of POST /org/{org}/serviceaccount."),
);

/** Body of PATCH /org/{org}/serviceaccount/{name}; `$drop/keys` revokes keys by name. */
export const serviceAccountPatch = lazy(() =>
  patchObject(describedTaggedPatchFields(), {
    ...readOnlyPatchShape(),
    "$drop/keys": z.array(z.string().min(1)).optional().describe("Names of the keys to revoke."),
    origin: echoOnly(z.enum(serviceAccountOrigins).optional().describe("Read-only.")),
    keys: echoOnly(
      z.unknown().optional().describe("Read-only; keys are added with -addKey and revoked with $drop/keys."),
    ),
  }).describe("Body of PATCH /org/{org}/serviceaccount/{name}."),
);

/** Body of POST /org/{org}/serviceaccount/{name}/-addKey. */
export const serviceAccountKeyCreate = lazy(() =>
  z
    .strictObject({
      description: description().describe(
        "Description of the key (required: controlplane-com/types-ts ServiceAccountKey.description, the CLI's " +
          "add-key --description and terraform-provider-cpln's cpln_service_account_key.description are required).",
      ),
    })
    .describe("Body of POST .../serviceaccount/{name}/-addKey."),
);

/** Response of -addKey: the only time `key` is returned. */
export const serviceAccountKey = lazy(() =>
  z
    .looseObject({
      name: z.string().describe("Key name."),
      key: z.string().describe("The secret key; returned once, never readable again."),
      created: timestamp().describe("When the key was added."),
      description: z.string().optional().describe("Description of the key."),
    })
    .describe("A newly added service-account key."),
);
export type ServiceAccountKey = z.infer<ReturnType<typeof serviceAccountKey>>;

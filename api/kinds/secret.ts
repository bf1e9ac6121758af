import { catalogOf } from "./catalogs.js";
import { secret, secretCreate, secretPatch, secretRevealed } from "../schemas/secret.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindDescriptor } from "./types.js";

/**
 * The contract of kind `secret`: org-scoped, queryable by `type` (the CLI's `secret query` props: defaultProps and
 * `type`, `@controlplane/cli` 3.10.1 `dist/src/commands/secret.js`). `data` is reveal-only: the API's
 * `GET /org/{org}/secret/{name}/-reveal` ("Get the sensitive content of a secret by name", docs
 * api-reference/secret) returns it, needing `reveal` (implied by `edit` and `manage`); what `cpln secret reveal`,
 * `secret edit` and `secret clone` call, and what terraform-provider-cpln reads after every write
 * (`internal/provider/client/secret.go` `GetSecret`).
 */
export const secretKind = {
  kind: "secret",
  scope: "org",
  permissions: catalogOf("secret"),
  queryProperties: ["type"],
  rels: [],
  revealOnly: ["data"],
  endpoints: {
    eventlog: eventlogEndpoint,
    reveal: {
      method: "GET",
      on: "item",
      summary: "The secret with its data in plaintext (what `cpln secret reveal` reads)",
      description: "Needs `reveal` on the secret (implied by `edit` and `manage`): 403 with `view` alone.",
      response: {
        name: "SecretRevealed",
        description: "The secret with its data",
        status: 200,
        schema: () => secretRevealed(),
      },
    },
  },
  schemas: {
    record: () => secret(),
    create: () => secretCreate(),
    patch: () => secretPatch(),
  },
  patchRules: { arrays: {} },
  addressing: { field: "name", by: "name" },
  resource: {
    typeName: "Secret",
    secrets: ["data"],
    description:
      "A Control Plane secret (opaque, dictionary, userpass, keypair, tls, aws, ecr, gcp, azure-sdk, azure-connector, " +
      "docker, nats-account). data is a Pulumi secret in both adapters: encrypted in the state, never in logs or " +
      "errors. The API returns data only from -reveal, so refresh and import read it there (a change made elsewhere " +
      "shows as drift); with a token lacking reveal on the secret they read the rest and keep the state's data. name " +
      "and org cannot change in place; every other change is one PATCH.",
  },
  examples: {
    create: (name) => ({ name, type: "opaque", data: { payload: `example value of ${name}`, encoding: "plain" } }),
    patch: (marker) => ({ description: `patched ${marker}`, "$replace/data": { payload: `value ${marker}` } }),
  },
} satisfies KindDescriptor<"secret">;

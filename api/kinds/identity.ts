import { catalogOf } from "./catalogs.js";
import { identity, identityCreate, identityDefaults, identityPatch } from "../schemas/identity.js";
import { namedSet, valueSet } from "../patch/rules.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindDescriptor } from "./types.js";

/**
 * The contract of kind `identity`: gvc-scoped (`/org/{org}/gvc/{gvc}/identity/{name}`: terraform-provider-cpln
 * `internal/provider/client/identity.go`), queryable by its gvc (`@controlplane/cli` 3.10.1
 * `dist/src/commands/identity.js`: `rels: ['gvc']`, no properties of its own). Network resources are sets keyed by
 * name, their ports and IPs and aws policyRefs sets of values (terraform-provider-cpln keeps each as a Set).
 */
export const identityKind = {
  kind: "identity",
  scope: "gvc",
  permissions: catalogOf("identity"),
  queryProperties: [],
  rels: ["gvc"],
  endpoints: { eventlog: eventlogEndpoint },
  schemas: {
    record: () => identity(),
    create: () => identityCreate(),
    patch: () => identityPatch(),
  },
  patchRules: {
    arrays: {
      networkResources: namedSet,
      "networkResources.ports": valueSet,
      "networkResources.IPs": valueSet,
      nativeNetworkResources: namedSet,
      "nativeNetworkResources.ports": valueSet,
      "aws.policyRefs": valueSet,
    },
  },
  addressing: { field: "name", by: "name" },
  defaults: (body) => identityDefaults(body),
  resource: {
    typeName: "Identity",
    description:
      "A Control Plane identity in a gvc: what its workloads run as — cloud access (aws, gcp, azure, ngs), network " +
      "resources reached through agents, native network resources. Policies name it as a principal (a workload needs " +
      "`reveal` on the secrets it reads). name, gvc and org cannot change in place; every other change is one PATCH.",
  },
  examples: {
    create: (name) => ({
      name,
      networkResources: [{ name: "db", FQDN: `db-${name}.internal.example`, ports: [5432] }],
    }),
    patch: (marker) => ({ description: `patched ${marker}`, tags: { example: marker } }),
  },
} satisfies KindDescriptor<"identity">;

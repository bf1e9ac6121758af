import { catalogOf } from "./catalogs.js";
import { mk8s, mk8sCacerts, mk8sCreate, mk8sJoinRequest, mk8sJoinResponse, mk8sPatch } from "../schemas/mk8s.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindDescriptor } from "./types.js";

/** The contract of kind `mk8s`. */
export const mk8sKind = {
  kind: "mk8s",
  scope: "org",
  permissions: catalogOf("mk8s"),
  queryProperties: [],
  rels: [],
  actions: {
    join: {
      summary: "Get a node join script",
      description:
        "For clusters whose provider is generic or hetzner; other providers answer 400 Unsupported (the API's documented status).",
      request: { name: "JoinRequest", schema: () => mk8sJoinRequest() },
      response: { name: "JoinResponse", description: "Join script (secret)", schema: () => mk8sJoinResponse() },
      rules: [
        {
          rule: "nodePoolName (or nodepool), when given, names a node pool of the cluster (409 otherwise: a conflict with the stored cluster).",
          issue: /^cluster .* has no node pool '.*' \(pools: .*\)$/,
        },
        {
          rule: "Only clusters whose provider is generic or hetzner have join scripts (400 Unsupported otherwise).",
          issue: /^Join scripts exist only for generic and hetzner clusters; .*$/,
        },
      ],
      errors: [409],
    },
  },
  endpoints: {
    eventlog: eventlogEndpoint,
    cacerts: {
      method: "GET",
      on: "item",
      summary: "The CA certificates of the cluster's API server (what a kubeconfig's certificate-authority-data holds)",
      description:
        "cpln-local answers with a self-signed Ed25519 CA certificate in PEM, the same for a cluster on every call of " +
        "one server; the emulated cluster has no API server, so the CA signs nothing.",
      response: { name: "Mk8sCacerts", description: "PEM certificates", status: 200, schema: () => mk8sCacerts() },
    },
  },
  schemas: {
    record: () => mk8s(),
    create: () => mk8sCreate(),
    patch: () => mk8sPatch(),
  },
  patchRules: { arrays: {} },
  addressing: { field: "name", by: "name" },
  examples: {
    create: (name) => ({
      name,
      spec: {
        version: "1.28.4",
        provider: { generic: { location: "aws-eu-central-1", nodePools: [{ name: "pool" }] } },
      },
    }),
    patch: (marker) => ({ description: `patched ${marker}`, tags: { example: marker } }),
  },
} satisfies KindDescriptor<"mk8s">;

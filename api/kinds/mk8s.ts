import { catalogOf } from "./catalogs.js";
import { mk8s, mk8sCreate, mk8sJoinRequest, mk8sJoinResponse, mk8sPatch } from "../schemas/mk8s.js";
import type { KindDescriptor } from "./types.js";

/** The contract of kind `mk8s`. */
export const mk8sKind: KindDescriptor = {
  kind: "mk8s",
  scope: "org",
  permissions: catalogOf("mk8s"),
  queryProperties: [],
  rels: [],
  actions: {
    join: {
      summary: "Get a node join script",
      description: "For clusters whose provider is generic or hetzner; other providers answer 400 Unsupported.",
      request: { name: "JoinRequest", schema: () => mk8sJoinRequest() },
      response: { name: "JoinResponse", description: "Join script (secret)", schema: () => mk8sJoinResponse() },
      rules: [
        {
          rule: "nodePoolName (or nodepool), when given, names a node pool of the cluster.",
          issue: /^cluster .* has no node pool '.*' \(pools: .*\)$/,
        },
        {
          rule: "Only clusters whose provider is generic or hetzner have join scripts (400 Unsupported otherwise).",
          issue: /^Join scripts exist only for generic and hetzner clusters; .*$/,
        },
      ],
    },
  },
  schemas: {
    record: () => mk8s(),
    create: () => mk8sCreate(),
    patch: () => mk8sPatch(),
  },
  patchRules: { arrays: {} },
  addressing: { field: "name", by: "name" },
};

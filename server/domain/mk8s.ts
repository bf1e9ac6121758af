import { randomBytes } from "node:crypto";
import { ErrorCode, issuesFromZod } from "../../api/errors.js";
import { mk8sJoinRequest, mk8sProviderName } from "../../api/schemas/mk8s.js";
import { ApiFailure, badRequest } from "../errors.js";
import type { JsonObject } from "../store/store.js";
import { isObject, pick } from "./common.js";
import type { KindServerRules } from "./rules.js";

/** Providers whose nodes the customer joins, and the provider fields holding their joinable node pools. */
const JOINABLE_POOLS: Readonly<Record<string, readonly string[]>> = {
  generic: ["nodePools"],
  hetzner: ["dedicatedServerNodePools"],
};

/** How long a join token stays valid. */
export const JOIN_TOKEN_TTL_SECONDS = 3600;

function poolNames(config: JsonObject, fields: readonly string[]): string[] {
  return fields.flatMap((field) => {
    const pools = config[field];
    return Array.isArray(pools) ? pools.filter(isObject).map((p) => String(p["name"])) : [];
  });
}

function joinScript(org: string, cluster: string, provider: string, pool: string, token: string, expires: string) {
  return [
    "#!/bin/bash",
    `# Joins this machine to the ${provider} mk8s cluster '${cluster}' (org '${org}') as a node of pool '${pool}'.`,
    "# Run as root. The bootstrap token below is secret and expires at the time shown.",
    "set -euo pipefail",
    `CLUSTER_NAME='${cluster}'`,
    `NODE_POOL='${pool}'`,
    `CPLN_ORG='${org}'`,
    `BOOTSTRAP_TOKEN='${token}'`,
    `TOKEN_EXPIRES='${expires}'`,
    'if [ "$(id -u)" -ne 0 ]; then echo "run this script as root" >&2; exit 1; fi',
    'echo "Joining node $(hostname) to cluster ${CLUSTER_NAME}, pool ${NODE_POOL}"',
    "mkdir -p /etc/cpln-mk8s",
    "umask 077",
    'printf "cluster=%s\\npool=%s\\norg=%s\\ntoken=%s\\nexpires=%s\\n" \\',
    '  "$CLUSTER_NAME" "$NODE_POOL" "$CPLN_ORG" "$BOOTSTRAP_TOKEN" "$TOKEN_EXPIRES" > /etc/cpln-mk8s/join.env',
    'echo "Node registered; the cluster agent completes the join."',
    "",
  ].join("\n");
}

/**
 * mk8s clusters: `spec.provider` has exactly one key naming the provider. `-join` returns a bash script for the
 * providers whose nodes the customer brings (generic, hetzner); other providers' nodes are provisioned by the
 * platform (400 Unsupported). The script holds a fresh random bootstrap token and is never stored or logged.
 */
export const mk8sRules: KindServerRules = {
  kind: "mk8s",
  readOnly: [],
  immutable: [],
  preserved: ["status"],
  initialize: (body) => ({ ...pick(body, ["spec"]), status: {} }),
  actions: {
    join: {
      permission: "join",
      secretResponse: true,
      async run(ctx) {
        const parsed = mk8sJoinRequest().safeParse(ctx.body);
        if (!parsed.success) throw badRequest(issuesFromZod(parsed.error));
        const spec = isObject(ctx.record["spec"]) ? ctx.record["spec"] : {};
        const providers = isObject(spec["provider"]) ? spec["provider"] : {};
        const provider = mk8sProviderName({ provider: providers }) ?? "unknown";
        const cluster = String(ctx.record["name"]);
        const poolFields = JOINABLE_POOLS[provider];
        if (!poolFields) {
          throw new ApiFailure(
            ErrorCode.Unsupported,
            `Join scripts exist only for generic and hetzner clusters; the nodes of ${provider} cluster ${cluster} are provisioned by the platform`,
          );
        }
        const config = isObject(providers[provider]) ? providers[provider] : {};
        const pools = poolNames(config, poolFields);
        const requested = parsed.data.nodePoolName ?? parsed.data.nodepool;
        const field = parsed.data.nodePoolName !== undefined ? "nodePoolName" : "nodepool";
        if (requested === undefined) {
          throw badRequest([
            {
              path: "nodePoolName",
              message: `is required: name one of the node pools (${pools.join(", ") || "none"})`,
            },
          ]);
        }
        if (!pools.includes(requested)) {
          throw badRequest([
            {
              path: field,
              message: `cluster ${cluster} has no node pool '${requested}' (pools: ${pools.join(", ") || "none"})`,
            },
          ]);
        }
        const token = randomBytes(24).toString("base64url");
        const expires = new Date(Date.parse(ctx.now) + JOIN_TOKEN_TTL_SECONDS * 1000).toISOString();
        return { status: 200, body: { script: joinScript(ctx.org, cluster, provider, requested, token, expires) } };
      },
    },
  },
};

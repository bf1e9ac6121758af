import { createHmac, randomBytes } from "node:crypto";
import { ErrorCode, issuesFromZod } from "../../api/errors.js";
import type { Issue } from "../../api/errors.js";
import { mk8sGenericLocations, mk8sJoinRequest, mk8sProviderName } from "../../api/schemas/mk8s.js";
import { ApiFailure, badRequest, stateConflict } from "../errors.js";
import type { JsonObject } from "../store/store.js";
import { isObject, pick } from "./common.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindEndpoint, KindServerRules, RuleContext } from "./rules.js";
import { ed25519FromSeed, selfSignedCaPem } from "./x509.js";

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

/** Values a join script assigns to shell variables, in order. */
export interface JoinValues {
  CLUSTER_NAME: string;
  NODE_POOL: string;
  CPLN_ORG: string;
  BOOTSTRAP_TOKEN: string;
  TOKEN_EXPIRES: string;
}

/**
 * `value` as one POSIX shell word that expands to exactly `value`: inside single quotes no character is special
 * except the closing quote, so the whole value goes in single quotes and each `'` in it becomes `'\''` (close,
 * an escaped quote, reopen). Line breaks, `$`, backquotes, `\`, `;`, `!` stay literal. (A NUL byte cannot be
 * in a bash word: bash refuses to run a script holding one, so it cannot execute anything either.)
 */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/**
 * The bash script that joins a machine to a cluster. It runs as root, so no value is ever spliced into its text
 * unquoted: each is assigned once to a variable with `shellQuote` (whatever characters it holds, the variable holds
 * exactly them and nothing runs), and the rest of the script only expands those variables inside double quotes. The
 * comment names no value (a line break in one would end the comment); `provider` comes from the fixed table of
 * joinable providers.
 */
export function joinScript(provider: keyof typeof JOINABLE_POOLS, values: JoinValues): string {
  if (!Object.hasOwn(JOINABLE_POOLS, provider)) throw new Error(`no join script for provider ${provider}`);
  const assignments = Object.entries(values).map(([variable, value]) => `${variable}=${shellQuote(value)}`);
  return [
    "#!/bin/bash",
    `# Joins this machine to a ${provider} mk8s cluster as a node of the pool named below.`,
    "# Run as root. The bootstrap token below is secret and expires at the time shown.",
    "set -euo pipefail",
    ...assignments,
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
 * The emulated status of a cluster (the fields terraform-provider-cpln's client reads, `client/mk8s.go` Mk8sStatus):
 * its API server and OIDC provider URLs, named by the cluster's alias, and its home location (the provider's
 * `location`, or `<provider>-<region>`).
 */
function statusOf(org: string, record: JsonObject): JsonObject {
  const alias = String(record["alias"] ?? "");
  const spec = isObject(record["spec"]) ? record["spec"] : {};
  const providers = isObject(spec["provider"]) ? spec["provider"] : {};
  const provider = mk8sProviderName({ provider: providers });
  const config = provider !== undefined && isObject(providers[provider]) ? providers[provider] : {};
  const home =
    typeof config["location"] === "string"
      ? config["location"]
      : typeof config["region"] === "string"
        ? `${String(provider)}-${config["region"]}`
        : undefined;
  return {
    serverUrl: `https://${alias}.mk8s.${org}.cpln-local.invalid:6443`,
    oidcProviderUrl: `https://${alias}.oidc.${org}.cpln-local.invalid`,
    ...(home !== undefined ? { homeLocation: home } : {}),
  };
}

/** The secret the emulated CAs' keys are derived from: one per process, so a cluster's CA is stable per server run. */
const CA_SECRET = randomBytes(32);

/** How long an emulated cluster CA is valid (ten years from the cluster's creation, as kubeadm-style CAs are). */
const CA_VALIDITY_MS = 10 * 365 * 24 * 3600 * 1000;

/** `-cacerts`: the cluster's emulated CA certificate (PEM), derived from the cluster's id and created time. */
const cacertsEndpoint: KindEndpoint = {
  permission: "view",
  run(ctx) {
    const record = ctx.record ?? {};
    const id = String(record["id"]);
    const seed = createHmac("sha256", CA_SECRET).update(`mk8s-ca:${ctx.org}:${id}`).digest();
    const serial = createHmac("sha256", CA_SECRET).update(`mk8s-serial:${ctx.org}:${id}`).digest().subarray(0, 16);
    serial[0] = ((serial[0] as number) & 0x7f) | 0x01;
    const created = new Date(String(record["created"]));
    const notBefore = Number.isNaN(created.getTime()) ? new Date(ctx.now) : created;
    const pem = selfSignedCaPem({
      commonName: `${String(record["alias"] ?? record["name"])}-ca (cpln-local emulated mk8s ${String(record["name"])})`,
      serial,
      notBefore,
      notAfter: new Date(notBefore.getTime() + CA_VALIDITY_MS),
      privateKey: ed25519FromSeed(seed),
    });
    return { cacerts: pem };
  },
};

/**
 * A generic cluster's control plane is hosted in a location of the org that can host one (`location` required:
 * terraform-provider-cpln `generic_provider.location`; the hosting locations: types-ts `GenericProvider.location`).
 */
async function genericLocationIssues(record: JsonObject, ctx: RuleContext): Promise<Issue[]> {
  const spec = isObject(record["spec"]) ? record["spec"] : {};
  const providers = isObject(spec["provider"]) ? spec["provider"] : {};
  if (mk8sProviderName({ provider: providers }) !== "generic") return [];
  const config = isObject(providers["generic"]) ? providers["generic"] : {};
  const path = "spec.provider.generic.location";
  const location = config["location"];
  if (typeof location !== "string" || location === "") {
    return [{ path, message: "is required for a generic cluster (a non-empty string)" }];
  }
  if (!(await ctx.tx.get(ctx.org, "location", "", location))) {
    return [{ path, message: `names no location of org ${ctx.org} ('${location}')` }];
  }
  if (!(mk8sGenericLocations as readonly string[]).includes(location)) {
    return [
      {
        path,
        message: `location '${location}' cannot host a generic cluster (one of ${mk8sGenericLocations.join(", ")})`,
      },
    ];
  }
  return [];
}

/**
 * mk8s clusters: `spec.provider` has exactly one key naming the provider. `-join` returns a bash script for the
 * providers whose nodes the customer brings (generic, hetzner); other providers' nodes are provisioned by the
 * platform (400 Unsupported, as the API document says). The script holds a fresh random bootstrap token and is
 * never stored or logged.
 */
export const mk8sRules: KindServerRules = {
  kind: "mk8s",
  endpoints: {
    eventlog: eventlogEndpoint,
    cacerts: cacertsEndpoint,
  },
  quota: { name: "mk8s-clusters", perGvc: false },
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
        // The node pool is optional (endpoint 4 accepts `{}`): without one the node joins no pool. One the cluster
        // does not have conflicts with the stored cluster (the same body suits a cluster that has it): a 409.
        if (requested !== undefined && !pools.includes(requested)) {
          throw stateConflict([
            {
              path: field,
              message: `cluster ${cluster} has no node pool '${requested}' (pools: ${pools.join(", ") || "none"})`,
            },
          ]);
        }
        const token = randomBytes(24).toString("base64url");
        const expires = new Date(Date.parse(ctx.now) + JOIN_TOKEN_TTL_SECONDS * 1000).toISOString();
        return {
          status: 200,
          body: {
            script: joinScript(provider, {
              CLUSTER_NAME: cluster,
              NODE_POOL: requested ?? "",
              CPLN_ORG: ctx.org,
              BOOTSTRAP_TOKEN: token,
              TOKEN_EXPIRES: expires,
            }),
          },
        };
      },
    },
  },
  fields: {
    readOnly: ["alias"],
    immutable: [],
    preserved: ["status"],
  },
  lifecycle: {
    initialize(body, ctx) {
      const alias = randomBytes(6).toString("hex");
      const record: JsonObject = { alias, ...pick(body, ["spec"]) };
      return { ...record, status: statusOf(ctx.org, record) };
    },
    validate: genericLocationIssues,
    // The status follows the spec (the home location is the provider's location).
    afterPatch: (_previous, next, ctx) => ({ ...next, status: statusOf(ctx.org, next) }),
  },
};

import { z } from "zod";
import { lazy } from "../lazy.js";
import { crossFieldRules, documentedRules, echoOnly } from "./jsonRules.js";
import {
  description,
  describedTaggedPatchFields,
  name,
  object,
  patchObject,
  readOnlyPatchShape,
  recordShape,
  tags,
  type ObjectMode,
} from "./common.js";

/**
 * The Kubernetes versions a cluster may run: `Mk8sSpec.version` of controlplane-com/types-ts `src/interfaces/mk8s.ts`
 * (25f7399); recorded in `fidelity/facts/mk8s.json`.
 */
export const mk8sVersions = [
  "1.26.0",
  "1.26.4",
  "1.27.3",
  "1.28.2",
  "1.28.4",
  "1.29.7",
  "1.30.3",
  "1.31.5",
  "1.31.13",
  "1.32.1",
  "1.32.9",
  "1.33.5",
  "1.34.2",
] as const;

function version(mode: ObjectMode) {
  return (mode === "strict" ? z.enum(mk8sVersions) : z.string().min(1)).describe(
    `Kubernetes version (${mk8sVersions.join(", ")}).`,
  );
}

export const mk8sProviders = [
  "generic",
  "hetzner",
  "aws",
  "gcp",
  "azure",
  "linode",
  "oblivus",
  "lambdalabs",
  "paperspace",
  "ephemeral",
  "triton",
  "digitalocean",
] as const;
export type Mk8sProvider = (typeof mk8sProviders)[number];

/**
 * The locations that may host a generic cluster's control plane: `GenericProvider.location` of
 * controlplane-com/types-ts `src/interfaces/mk8sGeneric.ts` (25f7399); recorded in `fidelity/facts/mk8s.json`.
 */
export const mk8sGenericLocations = [
  "aws-eu-central-1",
  "aws-us-east-2",
  "aws-us-west-2",
  "gcp-me-west1",
  "gcp-us-east1",
] as const;

/** Fields a provider's configuration requires (terraform-provider-cpln: `generic_provider.location` is Required). */
export const mk8sProviderRequired: Readonly<Partial<Record<Mk8sProvider, readonly string[]>>> = {
  generic: ["location"],
};

/**
 * The values a required field may take, where only some are valid: a generic cluster's location is one that can host
 * its control plane (each a builtin location of every org, so naming one never names a missing location).
 */
const mk8sProviderFieldValues: Readonly<Partial<Record<Mk8sProvider, Readonly<Record<string, readonly string[]>>>>> = {
  generic: { location: mk8sGenericLocations },
};

/**
 * A node pool. Its name lands in join scripts run as root, so what is written follows the name rule (`checked`);
 * records read back (`checked` false) only need a non-empty name.
 */
function nodePool(checked: boolean) {
  const poolName = checked ? name() : z.string().min(1);
  return z
    .looseObject({ name: poolName.describe("Node pool name.") })
    .describe("A node pool (other fields are provider-specific).");
}

/** Provider-specific configuration; only the node pools matter to this API (join scripts name a pool). */
function providerConfig(checked: boolean) {
  return z
    .looseObject({
      nodePools: z.array(nodePool(checked)).optional().describe("Node pools."),
      dedicatedServerNodePools: z
        .array(nodePool(checked))
        .optional()
        .describe("Hetzner dedicated-server node pools (joined with a join script)."),
    })
    .describe("Provider configuration.");
}

/** The provider in `spec.provider`: an object with exactly one key, the provider's name. */
function providerObject(strict: boolean) {
  return z
    .record(z.string(), providerConfig(strict))
    .superRefine((value, ctx) => {
      const keys = Object.keys(value);
      if (keys.length !== 1) {
        ctx.addIssue({
          code: "custom",
          message: `must have exactly one key naming the provider (${mk8sProviders.join(", ")}); got ${keys.length}`,
        });
      }
      if (!strict) return;
      for (const key of keys) {
        if (!(mk8sProviders as readonly string[]).includes(key)) {
          ctx.addIssue({
            code: "custom",
            message: `unknown provider '${key}' (one of ${mk8sProviders.join(", ")})`,
            path: [key],
          });
          continue;
        }
        if (keys.length !== 1) continue;
        const config = value[key] as Record<string, unknown> | null | undefined;
        for (const field of mk8sProviderRequired[key as Mk8sProvider] ?? []) {
          const given = config?.[field];
          if (typeof given !== "string" || given === "") {
            ctx.addIssue({
              code: "custom",
              message: `is required for a ${key} cluster (a non-empty string)`,
              path: [key, field],
            });
          }
        }
      }
    })
    .describe(`Exactly one key naming the provider (${mk8sProviders.join(", ")}), holding its configuration.`)
    .register(
      crossFieldRules(),
      strict
        ? {
            minProperties: 1,
            maxProperties: 1,
            propertyNames: { enum: [...mk8sProviders] },
            // A provider's required fields (its configuration's schema stays `additionalProperties`).
            dependentSchemas: Object.fromEntries(
              Object.entries(mk8sProviderRequired).map(([provider, fields]) => [
                provider,
                {
                  properties: {
                    [provider]: {
                      required: [...fields],
                      properties: Object.fromEntries(
                        fields.map((f) => {
                          const values = mk8sProviderFieldValues[provider as Mk8sProvider]?.[f];
                          return [f, values ? { type: "string", enum: [...values] } : { type: "string", minLength: 1 }];
                        }),
                      ),
                    },
                  },
                },
              ]),
            ),
          }
        : { minProperties: 1, maxProperties: 1 },
    );
}

/** The provider name of a cluster spec (`{provider: {generic: {...}}}` → `generic`). */
export function mk8sProviderName(spec: { provider?: Record<string, unknown> }): string | undefined {
  const keys = Object.keys(spec.provider ?? {});
  return keys.length === 1 ? keys[0] : undefined;
}

function firewallRule(mode: ObjectMode) {
  return object(mode, {
    sourceCIDR: z.string().min(1).describe("Allowed source range."),
    description: z.string().optional().describe("Why it is allowed."),
  }).describe("An allowed source range.");
}

function buildSpec(mode: ObjectMode) {
  return object(mode, {
    version: version(mode),
    provider: providerObject(mode === "strict"),
    firewall: z.array(firewallRule(mode)).optional().describe("Allowed source ranges for the API server."),
    addOns: z.record(z.string(), z.unknown()).optional().describe("Add-ons by name."),
  }).describe("Cluster specification.");
}

export const mk8sSpec = lazy(() => buildSpec("strict"));

export const mk8s = lazy(() =>
  z
    .looseObject({
      ...recordShape("mk8s"),
      alias: z.string().optional().describe("Short unique name the platform gives the cluster (read-only)."),
      spec: buildSpec("loose"),
      status: z
        .looseObject({
          serverUrl: z.string().optional().describe("URL of the cluster's Kubernetes API server."),
          oidcProviderUrl: z.string().optional().describe("URL of the cluster's OIDC provider."),
          homeLocation: z.string().optional().describe("The location the cluster's control plane is hosted in."),
        })
        .optional()
        .describe("Server-maintained state."),
    })
    .describe("A managed Kubernetes cluster."),
);
export type Mk8s = z.infer<ReturnType<typeof mk8s>>;

/** `GET /org/{org}/mk8s/{name}/-cacerts` (`CacertsRes` of controlplane-com/types-ts `src/interfaces/mk8sCommon.ts`). */
export const mk8sCacerts = lazy(() =>
  z
    .looseObject({
      cacerts: z
        .string()
        .describe(
          "PEM certificates of the cluster's certificate authority (a kubeconfig's certificate-authority-data).",
        ),
    })
    .describe("The CA certificates of a cluster's API server."),
);

export const mk8sCreate = lazy(() =>
  z
    .strictObject({ name: name(), description: description().optional(), tags: tags().optional(), spec: mk8sSpec() })
    .describe("Body of POST /org/{org}/mk8s."),
);

export const mk8sPatch = lazy(() =>
  patchObject(
    {
      ...describedTaggedPatchFields(),
      spec: {
        value: mk8sSpec(),
        merge: patchObject({
          version: { value: version("strict"), required: true },
          provider: {
            required: true,
            value: providerObject(true),
            merge: z
              .record(z.string(), providerConfig(true).nullable())
              .register(crossFieldRules(), { propertyNames: { enum: [...mk8sProviders] } }),
          },
          firewall: { value: z.array(firewallRule("strict")).describe("Allowed source ranges.") },
          addOns: {
            value: z.record(z.string(), z.unknown()).describe("Add-ons by name."),
            merge: z.record(z.string(), z.unknown()).describe("Add-ons by name; null removes one."),
          },
        }),
      },
    },
    {
      ...readOnlyPatchShape(),
      alias: echoOnly(z.string().optional().describe("Read-only; must equal the current value.")),
    },
  )
    .describe("Body of PATCH /org/{org}/mk8s/{name}.")
    .register(
      crossFieldRules(),
      documentedRules([
        {
          rule: "After the merge, spec.provider has exactly one key: set another provider's key only with null for the current one.",
          issue: /^must have exactly one key naming the provider \(.*\); got \d+$/,
        },
      ]),
    ),
);

/**
 * Body of POST /org/{org}/mk8s/{name}/-join: flat options (the CLI's `--options k=v`). `nodePoolName` names the pool
 * to join; the CLI help's `nodepool` spelling is accepted too.
 */
export const mk8sJoinRequest = lazy(() =>
  z
    .object({
      nodePoolName: z
        .string()
        .min(1)
        .optional()
        .describe("Node pool the node joins: must name a node pool of the cluster (left out: no pool)."),
      nodepool: z.string().min(1).optional().describe("Alternative spelling of nodePoolName."),
    })
    .catchall(z.union([z.string(), z.number(), z.boolean()]))
    .describe("Join options (flat key/value pairs)."),
);
export type Mk8sJoinRequest = z.infer<ReturnType<typeof mk8sJoinRequest>>;

export const mk8sJoinResponse = lazy(() =>
  z
    .looseObject({ script: z.string().describe("Bash script that joins a node; contains a short-lived secret token.") })
    .describe("Response of POST /org/{org}/mk8s/{name}/-join."),
);
export type Mk8sJoinResponse = z.infer<ReturnType<typeof mk8sJoinResponse>>;

/** Names used by docs/ARCHITECTURE.md. */
export const joinRequest = mk8sJoinRequest;
export const joinResponse = mk8sJoinResponse;

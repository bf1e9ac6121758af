import { z } from "zod";
import type { Issue } from "../errors.js";
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
  type PatchField,
} from "./common.js";
import { targetLinkPattern } from "./policyRules.js";
import { queryDocumentPatch, querySpec } from "./query.js";
import { secretLink, tracing, tracingPatch, tracingProviderRule } from "./tracing.js";

/**
 * A gvc's spec: `GvcSpec` of controlplane-com/types-ts `src/interfaces/gvc.ts`, with what terraform-provider-cpln's
 * client sends (`internal/provider/client/gvcs.go`: `locationOptions`, `aliasWorkloadLink`) and its validators
 * (`resource_gvc.go`: trustedProxies 0-2, routingTier and latencyToleranceMs ≥ 0).
 */

export const endpointNamingFormats = ["default", "legacy", "org"] as const;
/** What a gvc created without `endpointNamingFormat` has (terraform-provider-cpln `resource_gvc_test.go`). */
export const DEFAULT_ENDPOINT_NAMING_FORMAT = "org";
export const TRUSTED_PROXIES_MAX = 2;

/** The secret types a pull secret may have (docs.controlplane.com reference/gvc "Pull Secrets"). */
export const pullSecretTypes = ["docker", "ecr", "gcp"] as const;

function linkTo(kind: "location" | "identity" | "workload" | "ipset", text: string) {
  const example = kind === "identity" || kind === "workload" ? `//gvc/<gvc>/${kind}/<name>` : `//${kind}/<name>`;
  return z
    .string()
    .regex(
      new RegExp(targetLinkPattern(kind), "u"),
      `must be a link to ${kind === "ipset" ? "an" : "a"} ${kind} (${example})`,
    )
    .describe(`${text} A link: ${example} or its full form /org/<org>/...`);
}

function envVar(mode: ObjectMode) {
  return object(mode, {
    name: z.string().min(1).describe("Variable name."),
    value: z.string().optional().describe("Value."),
  }).describe("An environment variable for every workload of the gvc.");
}

function locationOption(mode: ObjectMode) {
  return object(mode, {
    locationLink: linkTo("location", "The location these options apply to (one of staticPlacement.locationLinks)."),
    routingTier: z.number().int().min(0).optional().describe("DNS geo-routing tier: lower is preferred (≥ 0)."),
    latencyOffsetMs: z.number().int().optional().describe("Milliseconds added to the measured latency."),
    latencyToleranceMs: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("Largest acceptable latency (ms, ≥ 0); beyond it the location is treated as unavailable."),
  }).describe("DNS geo-routing options of one location.");
}

function locationQuery(mode: ObjectMode) {
  return object(mode, {
    kind: z.literal("location").optional().describe("Always 'location'."),
    context: z.record(z.string(), z.unknown()).optional().describe("Extra context."),
    fetch: z.enum(["links", "items"]).optional().describe("items (default) or links."),
    spec: querySpec().optional(),
  }).describe("A query selecting the gvc's locations.");
}

function staticPlacement(mode: ObjectMode) {
  return object(mode, {
    locationLinks: z
      .array(linkTo("location", "A location of the org."))
      .optional()
      .describe("Locations the gvc's workloads run in: locations of the org, each once."),
    locationQuery: locationQuery(mode).optional(),
    locationOptions: z
      .array(locationOption(mode))
      .optional()
      .describe("Per-location DNS geo-routing options, each naming one of locationLinks once."),
  }).describe("Where the gvc's workloads run.");
}

function loadBalancer(mode: ObjectMode) {
  return object(mode, {
    dedicated: z.boolean().optional().describe("A dedicated load balancer in each location (custom ports, any host)."),
    multiZone: object(mode, { enabled: z.boolean().optional().describe("Spread over zones.") })
      .optional()
      .describe("Multi-zone load balancing."),
    trustedProxies: z
      .number()
      .int()
      .min(0)
      .max(TRUSTED_PROXIES_MAX)
      .optional()
      .describe("Proxies in X-Forwarded-For to trust for the client address: 0-2."),
    redirect: object(mode, {
      class: object(mode, {
        status5xx: z.string().optional().describe("URL answered with for any 5xx status."),
        status401: z.string().optional().describe("URL answered with for a 401 (envoy format strings allowed)."),
      })
        .optional()
        .describe("Redirects by status class."),
    })
      .optional()
      .describe("Redirects for error answers."),
    ipSet: linkTo("ipset", "The IP set of the load balancer.").optional(),
  }).describe("Load balancer settings.");
}

function keda(mode: ObjectMode) {
  return object(mode, {
    enabled: z.boolean().optional().describe("Run a KEDA operator in the gvc."),
    identityLink: linkTo("identity", "Identity the KEDA operator uses.").optional(),
    secrets: z
      .array(secretLink("A secret made a TriggerAuthentication."))
      .optional()
      .describe("Secrets made TriggerAuthentication objects."),
  }).describe("KEDA, event-driven autoscaling.");
}

const ENVOY_LISTS = [
  "accessLog",
  "clusters",
  "excludedExternalAuth",
  "excludedRateLimit",
  "http",
  "network",
  "volumes",
];

function envoy(mode: ObjectMode) {
  const shape: Record<string, z.ZodType> = {};
  for (const list of ENVOY_LISTS) {
    shape[list] = z
      .array(z.record(z.string(), z.unknown()).describe("An envoy configuration object (not checked further)."))
      .optional()
      .describe(`Envoy ${list} entries.`);
  }
  return object(mode, shape).describe("Envoy filters (EnvoyFilters of types-ts): lists of envoy objects.");
}

function buildSpec(mode: ObjectMode) {
  const spec = object(mode, {
    staticPlacement: staticPlacement(mode).optional(),
    pullSecretLinks: z
      .array(secretLink("A pull secret."))
      .optional()
      .describe("Image pull secrets: secrets of type docker, ecr or gcp."),
    domain: z.string().optional().describe("Custom domain of the gvc's workloads (deprecated: use a domain route)."),
    endpointNamingFormat: z
      .enum(endpointNamingFormats)
      .optional()
      .describe(`Canonical endpoint form: org (default for a new gvc), legacy, or default (deprecated).`),
    aliasWorkloadLink: linkTo("workload", "Workload of this gvc whose endpoint backs the gvc's alias.").optional(),
    tracing: tracing(mode).optional(),
    sidecar: object(mode, { envoy: envoy(mode).optional() })
      .optional()
      .describe("Sidecar settings."),
    env: z.array(envVar(mode)).optional().describe("Environment variables of every workload, names unique."),
    loadBalancer: loadBalancer(mode).optional(),
    keda: keda(mode).optional(),
  }).describe("Global virtual cloud settings.");
  return mode === "strict" ? spec.register(crossFieldRules(), gvcSpecRules()) : spec;
}

/** The refusals of a gvc's spec JSON Schema cannot state (they compare items, or read the org's objects). */
export function gvcSpecRules() {
  return documentedRules([
    {
      rule:
        "staticPlacement.locationLinks name locations of the org, each once; each staticPlacement.locationOptions " +
        "entry names one of them, once.",
      issue:
        /^(location '.*' does not exist in org '.*'|names .* more than once|must name one of staticPlacement\.locationLinks)$/,
    },
    { rule: "env names, pullSecretLinks and keda.secrets are each unique.", issue: /^names .* more than once$/ },
    { rule: "aliasWorkloadLink names a workload of this gvc.", issue: /^must name a workload of gvc '.*'$/ },
    tracingProviderRule,
    {
      rule: "pullSecretLinks name secrets of the org of type docker, ecr or gcp (where the org serves secrets).",
      issue: /^(secret '.*' does not exist in org '.*'|is a secret of type '.*': a pull secret is of type .*)$/,
    },
  ]);
}

/** Spec of a gvc in a create body or a `$replace/spec` (unknown fields rejected). */
export const gvcSpec = lazy(() => buildSpec("strict"));
export type GvcSpec = z.infer<ReturnType<typeof gvcSpec>>;

export const gvc = lazy(() =>
  z
    .looseObject({
      ...recordShape("gvc"),
      alias: z.string().optional().describe("Short unique alias the server gives the gvc (used in hostnames)."),
      spec: buildSpec("loose").optional(),
      status: z.looseObject({}).optional().describe("Server-maintained state (types-ts publishes no fields)."),
    })
    .describe("A global virtual cloud: the scope of workloads, identities and volume sets."),
);
export type Gvc = z.infer<ReturnType<typeof gvc>>;

export const gvcCreate = lazy(() =>
  z
    .strictObject({
      name: name(),
      description: description().optional(),
      tags: tags().optional(),
      spec: gvcSpec().optional(),
    })
    .describe("Body of POST /org/{org}/gvc."),
);

function leaf(value: z.ZodType): PatchField {
  return { value };
}

function linkSet(item: z.ZodType, text: string): PatchField {
  return {
    value: z.array(item).describe(text),
    array: { item, key: z.string().min(1), keyDescription: "the link" },
  };
}

function specPatch() {
  const option = locationOption("strict");
  const lb = loadBalancer("strict").shape;
  return patchObject({
    staticPlacement: {
      value: staticPlacement("strict"),
      merge: patchObject({
        locationLinks: linkSet(linkTo("location", "A location."), "Locations."),
        locationQuery: { value: locationQuery("strict"), merge: queryDocumentPatch() },
        locationOptions: {
          value: z.array(option).describe("Per-location options."),
          array: {
            item: option,
            key: z.string().min(1),
            patchItem: option.partial().required({ locationLink: true }),
            keyDescription: "the locationLink",
          },
        },
      }),
    },
    pullSecretLinks: linkSet(secretLink("A pull secret."), "Image pull secrets."),
    domain: leaf(z.string().describe("Custom domain (deprecated).")),
    endpointNamingFormat: leaf(z.enum(endpointNamingFormats).describe("Canonical endpoint form.")),
    aliasWorkloadLink: leaf(linkTo("workload", "Workload backing the alias.")),
    tracing: tracingPatch(),
    sidecar: { value: object("strict", { envoy: envoy("strict").optional() }).describe("Sidecar settings.") },
    env: {
      value: z.array(envVar("strict")).describe("Environment variables."),
      array: {
        item: envVar("strict"),
        key: z.string().min(1),
        patchItem: patchObject(
          { value: { value: z.string().describe("Value.") } },
          { name: z.string().min(1).describe("Names the variable.") },
        ),
        keyDescription: "the variable name",
      },
    },
    loadBalancer: {
      value: loadBalancer("strict"),
      merge: patchObject({
        dedicated: leaf(lb.dedicated.unwrap()),
        multiZone: leaf(lb.multiZone.unwrap()),
        trustedProxies: leaf(lb.trustedProxies.unwrap()),
        redirect: leaf(lb.redirect.unwrap()),
        ipSet: leaf(lb.ipSet.unwrap()),
      }),
    },
    keda: {
      value: keda("strict"),
      merge: patchObject({
        enabled: leaf(z.boolean().describe("Run a KEDA operator.")),
        identityLink: leaf(linkTo("identity", "Identity of the operator.")),
        secrets: linkSet(secretLink("A secret."), "Secrets made TriggerAuthentication objects."),
      }),
    },
  })
    .describe("Changes to the spec: objects merge, arrays take keyed directives.")
    .register(crossFieldRules(), gvcSpecRules());
}

export const gvcPatch = lazy(() =>
  patchObject(
    { ...describedTaggedPatchFields(), spec: { value: gvcSpec(), merge: specPatch() } },
    { ...readOnlyPatchShape(), alias: echoOnly(z.string().optional().describe("Read-only (set by the server).")) },
  ).describe("Body of PATCH /org/{org}/gvc/{name}."),
);

/** Items of `values` named more than once, as issues at `path` (the first repeat's index). */
function repeats(values: readonly (string | undefined)[], path: string, what: string): Issue[] {
  const seen = new Set<string>();
  const issues: Issue[] = [];
  values.forEach((value, index) => {
    if (value === undefined) return;
    if (seen.has(value)) issues.push({ path: `${path}.${index}`, message: `names ${what} '${value}' more than once` });
    seen.add(value);
  });
  return issues;
}

/**
 * Rules of a spec that passed `gvcSpec()` and compare its own items (links already in full form): unique names and
 * links, location options naming listed locations, the alias workload in this gvc. Paths start with `spec.`.
 */
export function gvcSpecIssues(spec: GvcSpec, org: string, gvcName: string): Issue[] {
  const placement = spec.staticPlacement;
  const locations = placement?.locationLinks ?? [];
  const options = placement?.locationOptions ?? [];
  const issues: Issue[] = [
    ...repeats(locations, "spec.staticPlacement.locationLinks", "location"),
    ...repeats(
      options.map((o) => o.locationLink),
      "spec.staticPlacement.locationOptions",
      "location",
    ),
    ...repeats(spec.pullSecretLinks ?? [], "spec.pullSecretLinks", "secret"),
    ...repeats(spec.keda?.secrets ?? [], "spec.keda.secrets", "secret"),
    ...repeats(
      (spec.env ?? []).map((e) => e.name),
      "spec.env",
      "variable",
    ),
  ];
  options.forEach((option, index) => {
    if (!locations.includes(option.locationLink)) {
      issues.push({
        path: `spec.staticPlacement.locationOptions.${index}.locationLink`,
        message: "must name one of staticPlacement.locationLinks",
      });
    }
  });
  const alias = spec.aliasWorkloadLink;
  if (alias !== undefined && !alias.startsWith(`/org/${org}/gvc/${gvcName}/workload/`)) {
    issues.push({ path: "spec.aliasWorkloadLink", message: `must name a workload of gvc '${gvcName}'` });
  }
  return issues;
}

/**
 * The property maps of the app kinds (Gvc, Workload, Secret, Identity, Domain, DomainRoute, Org): pulumiverse's
 * properties (@pulumiverse/cpln v0.0.89, pulumiverse/pulumi-cpln provider/cmd/pulumi-resource-cpln/schema.json at
 * 4c3881b, recorded in pulumiverse.json) against this package's, for what the two schemas cannot say themselves. How
 * pulumiverse's shapes become API bodies is read from the Terraform provider it bridges, controlplane-com/
 * terraform-provider-cpln v1.2.31 (851308c), whose files the reasons name; the API's shapes from Control Plane's
 * types-ts (src/interfaces/*.ts). `moves` place a whole subtree (longest `from` first); `entries` the rest.
 */
import type { PropertyMapping, PropertyMove } from "./mappingTypes.js";

const TF = "terraform-provider-cpln v1.2.31";
const VM_WHY =
  `workloads of type \`vm\` (${TF} internal/provider/client/workload.go WorkloadVm) are not in the API's workload ` +
  "types this package follows (types-ts src/interfaces/workload.ts: serverless, standard, stateful, cron).";

const link = (kind: string) =>
  `a link \`/org/<org>/${kind}/<name>\` where pulumiverse took the name (the Terraform provider built the link)`;

const secretType = (type: string, data: "text" | "map" | "block" = "block"): PropertyMapping => ({
  status: "reshaped",
  to: `type: "${type}", data`,
  why:
    `one secret has one \`type\` and its \`data\`, as the API (${TF} internal/provider/resource_secret.go buildType: ` +
    `the block set names the type); \`data\` ` +
    { text: "is the same text.", map: "is the same map.", block: "holds the block's fields under the same names." }[
      data
    ],
});

const tracing = (provider: string, credentials: boolean): Record<string, PropertyMapping> => {
  const from = `${provider}Tracing`;
  const api = provider === "controlplane" ? "controlplane" : provider;
  const entries: Record<string, PropertyMapping> = {
    [from]: {
      status: "reshaped",
      to: `tracing.provider.${api}`,
      why: `one \`tracing\` object as the API stores it: \`provider.${api}\` beside \`sampling\` and \`customTags\` (${TF} internal/provider/common.go BuildTracing).`,
    },
    [`${from}.sampling`]: { status: "renamed", to: "tracing.sampling", why: "see above: one `tracing.sampling`." },
    [`${from}.customTags`]: {
      status: "reshaped",
      to: "tracing.customTags",
      why: "each tag `key: value` is written `key: {literal: {value}}`, as the API stores it (common.go BuildTracing).",
    },
  };
  if (provider !== "controlplane") {
    entries[`${from}.endpoint`] = { status: "renamed", to: `tracing.provider.${api}.endpoint`, why: "see above." };
  }
  if (credentials) {
    entries[`${from}.credentials`] = {
      status: "renamed",
      to: `tracing.provider.${api}.credentials`,
      why: "see above.",
    };
  }
  return entries;
};

const jsonText = (to: string, where: string): PropertyMapping => ({
  status: "reshaped",
  to,
  why: `the object itself, not its JSON text (the Terraform provider parsed the text: ${where}).`,
});

const envMap = (to: string, where: string): PropertyMapping => ({
  status: "reshaped",
  to,
  why: `a list of \`{name, value}\` as the API stores it, instead of a map (${where}).`,
});

const orgSettings = (what: string) =>
  `No resource of its own here: ${what} are arguments of Org (the org's settings, adopted and restored on delete).`;

export const appResources: Record<string, { to: string; why?: string } | { to?: undefined; why: string }> = {
  OrgLogging: { why: orgSettings("the org's `logging` and `extraLogging`") },
  OrgTracing: { why: orgSettings("the org's `tracing`") },
  Domain: { to: "Domain" },
  DomainRoute: { to: "DomainRoute" },
  Gvc: { to: "Gvc" },
  Identity: { to: "Identity" },
  Org: {
    to: "Org",
    why:
      "Org adopts the configured org and manages its settings (restored on delete); it does not create orgs, as " +
      "pulumiverse's Org does under an account.",
  },
  Secret: { to: "Secret" },
  Workload: { to: "Workload" },
};

export const appMoves: Record<string, PropertyMove[]> = {
  Domain: [
    { from: "spec", to: "", why: "the spec's fields are the resource's own arguments here." },
    { from: "spec.ports[].routes[].mirrors", to: "ports[].routes[].mirror", why: "the API's name (`mirror`)." },
    { from: "statuses[]", to: "status", status: "reshaped", why: "one object, the API's `status`, not a list." },
    { from: "statuses[].dnsConfigs", to: "status.dnsConfig", status: "reshaped", why: "the API's `dnsConfig`." },
  ],
  DomainRoute: [{ from: "mirrors", to: "mirror", why: "the API's name (`mirror`)." }],
  Gvc: [
    {
      from: "locationQuery",
      to: "staticPlacement.locationQuery",
      why: `inside \`staticPlacement\`, as the API (${TF} internal/provider/resource_gvc.go buildStaticPlacement).`,
    },
    { from: "locationOptions", to: "staticPlacement.locationOptions", why: "inside `staticPlacement`, as the API." },
  ],
  Identity: [
    { from: "awsAccessPolicy", to: "aws", why: "the API's name (spec `aws`)." },
    { from: "azureAccessPolicy", to: "azure", why: "the API's name (spec `azure`)." },
    { from: "gcpAccessPolicy", to: "gcp", why: "the API's name (spec `gcp`)." },
    { from: "ngsAccessPolicy", to: "ngs", why: "the API's name (spec `ngs`)." },
    { from: "ngsAccessPolicy.pub.allows", to: "ngs.pub.allow", why: "the API's name." },
    { from: "ngsAccessPolicy.pub.denies", to: "ngs.pub.deny", why: "the API's name." },
    { from: "ngsAccessPolicy.sub.allows", to: "ngs.sub.allow", why: "the API's name." },
    { from: "ngsAccessPolicy.sub.denies", to: "ngs.sub.deny", why: "the API's name." },
    { from: "networkResources[].fqdn", to: "networkResources[].FQDN", why: "the API's spelling." },
    { from: "networkResources[].ips", to: "networkResources[].IPs", why: "the API's spelling." },
    { from: "networkResources[].resolverIp", to: "networkResources[].resolverIP", why: "the API's spelling." },
    { from: "nativeNetworkResources[].fqdn", to: "nativeNetworkResources[].FQDN", why: "the API's spelling." },
  ],
  Org: [
    {
      from: "statuses[]",
      to: "status",
      freeForm: true,
      why: "a field of the API's `status` object (one object, free-form here), not a list.",
    },
  ],
  Secret: ["aws", "azureConnector", "ecr", "keypair", "natsAccount", "opaque", "tls", "userpass"].map((block) => ({
    from: block,
    to: "data",
    freeForm: true,
    why: "the same field name inside `data` (internal/provider/resource_secret.go: the block's fields are the data's).",
  })),
  Workload: [
    { from: "options", to: "defaultOptions", why: "the API's name." },
    ...["options", "localOptions[]"].flatMap((o): PropertyMove[] => {
      const to = o === "options" ? "defaultOptions" : o;
      return [
        { from: `${o}.capacityAi`, to: `${to}.capacityAI`, why: "the API's spelling." },
        { from: `${o}.capacityAiUpdateMinutes`, to: `${to}.capacityAIUpdateMinutes`, why: "the API's spelling." },
        { from: `${o}.autoscaling.multis`, to: `${to}.autoscaling.multi`, why: "the API's name." },
        {
          from: `${o}.autoscaling.keda`,
          to: `${to}.autoscaling.keda`,
          freeForm: true,
          why: "the API's keda object, free-form here, with the same field names (types-ts src/interfaces/workloadOptions.ts).",
        },
      ];
    }),
    { from: "firewallSpec", to: "firewallConfig", why: "the API's name." },
    ...(
      [
        ["external.inboundAllowCidrs", "external.inboundAllowCIDR"],
        ["external.inboundBlockedCidrs", "external.inboundBlockedCIDR"],
        ["external.outboundAllowCidrs", "external.outboundAllowCIDR"],
        ["external.outboundBlockedCidrs", "external.outboundBlockedCIDR"],
        ["external.outboundAllowHostnames", "external.outboundAllowHostname"],
        ["external.outboundAllowPorts", "external.outboundAllowPort"],
        ["external.http.inboundHeaderFilters", "external.http.inboundHeaderFilter"],
        ["internal.inboundAllowWorkloads", "internal.inboundAllowWorkload"],
      ] as const
    ).map(([from, to]) => ({ from: `firewallSpec.${from}`, to: `firewallConfig.${to}`, why: "the API's name." })),
    { from: "jobs[]", to: "job", status: "reshaped", why: "one object, the API's `job`, not a list." },
    { from: "rolloutOptions[]", to: "rolloutOptions", status: "reshaped", why: "one object, as the API, not a list." },
    { from: "containers[].gpuNvidia", to: "containers[].gpu.nvidia", why: "inside `gpu`, as the API." },
    { from: "containers[].gpuCustom", to: "containers[].gpu.custom", why: "inside `gpu`, as the API." },
    ...["lifecycle.postStart", "lifecycle.preStop", "livenessProbe", "readinessProbe"].map((at) => ({
      from: `containers[].${at}.exec.commands`,
      to: `containers[].${at}.exec.command`,
      why: "the API's name.",
    })),
    { from: "statuses[]", to: "status", status: "reshaped", why: "one object, the API's `status`, not a list." },
    {
      from: "statuses[].healthChecks[]",
      to: "status.healthCheck",
      status: "reshaped",
      why: "one object, the API's `status.healthCheck`.",
    },
    {
      from: "statuses[].resolvedImages[]",
      to: "status.resolvedImages",
      status: "reshaped",
      why: "one object, the API's `status.resolvedImages`.",
    },
    {
      from: "statuses[].loadBalancers",
      to: "status.loadBalancer",
      freeForm: true,
      why: "the API's `status.loadBalancer` (types-ts LoadBalancerStatus: origin, url), free-form here.",
    },
    {
      from: "statuses[].resolvedImages[].images[].manifests",
      to: "status.resolvedImages.images[].manifests",
      freeForm: true,
      why: "the API's manifests, free-form here.",
    },
    { from: "vm", missing: true, why: VM_WHY },
  ],
};

const statusGap: PropertyMapping = {
  status: "missing",
  why:
    "not a declared output of this package's workload `status` (api/schemas/workload.ts declares what cpln-local " +
    "emulates); read it from the API.",
};

export const appEntries: Record<string, Record<string, PropertyMapping>> = {
  Domain: {
    spec: { status: "reshaped", why: "no `spec` block: its fields are the resource's own arguments here." },
    statuses: { status: "reshaped", to: "status", why: "one object, the API's `status`, not a list." },
  },
  DomainRoute: {
    domainLink: {
      status: "reshaped",
      to: "domain",
      why: "the domain's name (its DNS name) instead of its link `/org/<org>/domain/<name>`, now the output `domainLink`.",
    },
  },
  Gvc: {
    ...tracing("controlplane", false),
    ...tracing("lightstep", true),
    ...tracing("otel", false),
    env: envMap("env", `${TF} internal/provider/resource_gvc.go buildEnv`),
    locations: {
      status: "reshaped",
      to: "staticPlacement.locationLinks",
      why: `${link("location")}: resource_gvc.go buildStaticPlacement.`,
    },
    "locationOptions[].name": {
      status: "reshaped",
      to: "staticPlacement.locationOptions[].locationLink",
      why: `${link("location")}: resource_gvc.go buildLocationOptions.`,
    },
    pullSecrets: {
      status: "reshaped",
      to: "pullSecretLinks",
      why: `${link("secret")}: resource_gvc.go buildPullSecrets.`,
    },
    "loadBalancer.ipset": {
      status: "renamed",
      to: "loadBalancer.ipSet",
      why: `the API's spelling; a link \`/org/<org>/ipset/<name>\` (${TF} internal/provider/common.go FormatIpSetPath also took a name).`,
    },
    "sidecar.envoy": jsonText("sidecar.envoy", "resource_gvc.go buildSidecar"),
  },
  Identity: {
    "awsAccessPolicy.trustPolicies": {
      status: "reshaped",
      to: "aws.trustPolicy",
      why: "one policy document, the API's `trustPolicy` (types-ts src/interfaces/identity.ts), not a list.",
    },
    "awsAccessPolicy.trustPolicies[].version": {
      status: "reshaped",
      to: "aws.trustPolicy.Version",
      why: "the AWS document's own spelling, as the API stores it.",
    },
    "awsAccessPolicy.trustPolicies[].statements": {
      status: "reshaped",
      to: "aws.trustPolicy.Statement",
      why:
        "each statement as an object with JSON values, not JSON text in map values " +
        `(${TF} internal/provider/resource_identity.go expandAwsTrustPolicyStatement parsed them).`,
    },
    "gcpAccessPolicy.scopes": {
      status: "reshaped",
      to: "gcp.scopes",
      why: "a list of scopes, not one comma-separated string (resource_identity.go buildGcpScopes split it).",
    },
    status: {
      status: "reshaped",
      to: "status",
      why: "the API's status object (`objectName`; per cloud `usable` and `lastError`), not a map of strings.",
    },
  },
  Org: {
    accountId: {
      status: "missing",
      why:
        "orgs are not created here (Org manages the settings of the configured org); pulumiverse creates one under " +
        `an account (${TF} internal/provider/resource_org.go).`,
    },
    invitees: { status: "missing", why: "see `accountId`: the first admins of an org pulumiverse creates." },
    statuses: { status: "reshaped", to: "status", why: "one object, the API's `status`, not a list." },
  },
  Secret: {
    aws: secretType("aws"),
    azureConnector: secretType("azure-connector"),
    azureSdk: secretType("azure-sdk", "text"),
    dictionary: secretType("dictionary", "map"),
    docker: secretType("docker", "text"),
    ecr: secretType("ecr"),
    gcp: secretType("gcp", "text"),
    keypair: secretType("keypair"),
    natsAccount: secretType("nats-account"),
    opaque: secretType("opaque"),
    tls: secretType("tls"),
    userpass: secretType("userpass"),
    dictionaryAsEnvs: {
      status: "missing",
      to: "`cpln://secret/${name}.${key}`",
      why: `computed by the Terraform provider on the client (${TF} internal/provider/resource_secret.go); write it.`,
    },
    secretLink: {
      status: "missing",
      to: "`cpln://secret/${name}`",
      why: `computed by the Terraform provider on the client (${TF} internal/provider/resource_secret.go); write it.`,
    },
  },
  Workload: {
    extras: jsonText("extras", `${TF} internal/provider/resource_workload.go buildExtras`),
    "sidecar.envoy": jsonText("sidecar.envoy", `${TF} internal/provider/resource_workload.go`),
    "containers[].env": envMap("containers[].env", `${TF} internal/provider/resource_workload.go`),
    "containers[].livenessProbe.httpGet.httpHeaders": envMap(
      "containers[].livenessProbe.httpGet.httpHeaders",
      `${TF} internal/provider/resource_workload.go`,
    ),
    "containers[].readinessProbe.httpGet.httpHeaders": envMap(
      "containers[].readinessProbe.httpGet.httpHeaders",
      `${TF} internal/provider/resource_workload.go`,
    ),
    "containers[].workingDirectory": { status: "renamed", to: "containers[].workingDir", why: "the API's name." },
    "containers[].volumes[].bootOrder": { status: "missing", why: VM_WHY },
    "containers[].volumes[].bus": { status: "missing", why: VM_WHY },
    "containers[].volumes[].name": { status: "missing", why: VM_WHY },
    jobs: { status: "reshaped", to: "job", why: "one object, the API's `job`, not a list." },
    rolloutOptions: { status: "reshaped", to: "rolloutOptions", why: "one object, as the API, not a list." },
    "loadBalancer.direct.ipset": {
      status: "renamed",
      to: "loadBalancer.direct.ipSet",
      why: `the API's spelling; a link \`/org/<org>/ipset/<name>\` (${TF} internal/provider/common.go FormatIpSetPath also took a name).`,
    },
    "requestRetryPolicy.retryOns": {
      status: "renamed",
      to: "requestRetryPolicy.retryOn",
      why: "the API's name.",
    },
    "securityOptions.fileSystemGroupId": {
      status: "renamed",
      to: "securityOptions.filesystemGroupId",
      why: "the API's spelling.",
    },
    statuses: { status: "reshaped", to: "status", why: "one object, the API's `status`, not a list." },
    "statuses[].healthChecks": {
      status: "reshaped",
      to: "status.healthCheck",
      why: "one object, the API's `status.healthCheck`.",
    },
    ...Object.fromEntries(
      [
        "healthChecks[].code",
        "healthChecks[].failures",
        "healthChecks[].successes",
        "resolvedImages[].errorMessages",
        "resolvedImages[].nextRetryAt",
        "resolvedImages[].resolvedForVersion",
        "suspendedStatus",
      ].map((field) => [`statuses[].${field}`, statusGap]),
    ),
    "statuses[].resolvedImages": {
      status: "reshaped",
      to: "status.resolvedImages",
      why: "one object, the API's `status.resolvedImages`.",
    },
  },
};

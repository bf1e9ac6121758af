/**
 * Identities (workload identities, gvc-scoped): the record and its bodies from controlplane-com/types-ts
 * `src/interfaces/identity.ts` (25f7399: `Identity`, `AwsIdentity`, `GcpIdentity`, `AzureIdentity`, `NgsIdentity`,
 * `NetworkResource`, `NativeNetworkResource`, `MemcacheAccess`, `SpicedbAccess`, `Status`), the field tables of
 * docs.controlplane.com reference/identity (controlplane-docs/docs 566c726 `reference/identity.mdx`) and the rules
 * terraform-provider-cpln states for what it sends (`internal/provider/resource_identity.go` @851308c, whose
 * "upstream" xor/oxor comments mirror the API's): aws sets exactly one of roleName and policyRefs and never roleName
 * with trustPolicy; roleName matches `^[a-zA-Z0-9/+=,.@_-]+$`, at most 64 characters; gcp sets exactly one of
 * serviceAccount (`….gserviceaccount.com`) and bindings; azure requires roleAssignments; binding and role-assignment
 * roles hold at least one role; a network resource has exactly one of FQDN and IPs (1-5 IPv4 addresses), 1-10 ports
 * (0-65535); a native one exactly one of awsPrivateLink and gcpServiceConnect; at most 50 of each (terraform).
 */
import { z } from "zod";
import type { Issue } from "../errors.js";
import { lazy } from "../lazy.js";
import {
  crossFieldRules,
  documentedRules,
  echoOnly,
  exactlyOneOf,
  requires,
  type DocumentedRule,
} from "./jsonRules.js";
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

/** A link to an object of `kind` in the org: relative (`//cloudaccount/x`) or full (`/org/o/cloudaccount/x`). */
function linkTo(kind: string, what: string) {
  return z
    .string()
    .regex(new RegExp(`^(//|/org/[^/]+/)${kind}/[^/]+$`), `must be a link to ${what}, e.g. //${kind}/example`)
    .describe(`Link to ${what}: //${kind}/<name> or /org/<org>/${kind}/<name>.`);
}

const cloudAccountLink = () => linkTo("cloudaccount", "a cloud account of the same provider");
const strings = (what: string) => z.array(z.string().min(1, "must not be empty")).describe(what);
const roles = (what: string) => strings(what).min(1, "must hold at least one role");
const ports = () =>
  z
    .array(z.number().int().min(0).max(65535))
    .min(1, "must hold at least one port")
    .max(10, "at most 10 ports")
    .describe("TCP ports (1-10).");
/** NGS limits: -1 means no limit (the default: docs reference/identity, terraform-provider-cpln). */
const limit = (what: string) => z.number().int().min(-1).describe(`${what}; -1: no limit.`);

/** Cross-field rules of a strict object: their JSON Schema (document) only; `identityIssues` is the server's. */
function ruled<T extends z.ZodType>(mode: ObjectMode, schema: T, rules: Record<string, unknown>): T {
  if (mode === "strict") crossFieldRules().add(schema, rules);
  return schema;
}

const notBoth = (a: string, b: string) => ({ not: requires(a, b) });

function aws(mode: ObjectMode) {
  return ruled(
    mode,
    object(mode, {
      cloudAccountLink: cloudAccountLink(),
      policyRefs: strings("AWS policies attached to the role the identity gets (ARNs or names).").optional(),
      trustPolicy: object(mode, {
        Version: z.string().optional().describe(`Policy language version (default ${AWS_POLICY_VERSION}).`),
        Statement: z.array(z.record(z.string(), z.unknown())).optional().describe("Trust policy statements."),
      })
        .optional()
        .describe("Trust policy of the role the identity gets (not with roleName)."),
      roleName: z
        .string()
        .max(64, "at most 64 characters")
        .regex(/^[a-zA-Z0-9/+=,.@_-]+$/, "must contain only letters, numbers and / + = , . @ _ -")
        .optional()
        .describe("An existing AWS role the identity assumes (instead of policyRefs)."),
    }).describe("AWS access: exactly one of roleName and policyRefs; trustPolicy only with policyRefs."),
    { allOf: [exactlyOneOf("roleName", "policyRefs"), notBoth("roleName", "trustPolicy")] },
  );
}

function gcp(mode: ObjectMode) {
  return ruled(
    mode,
    object(mode, {
      cloudAccountLink: cloudAccountLink(),
      scopes: strings(`OAuth scopes (default: ["${GCP_DEFAULT_SCOPE}"]).`).optional(),
      serviceAccount: z
        .string()
        .regex(/^.*\.gserviceaccount\.com$/, "must be a GCP service account email (ending in .gserviceaccount.com)")
        .optional()
        .describe("An existing GCP service account (instead of bindings)."),
      bindings: z
        .array(
          object(mode, {
            resource: z.string().optional().describe("Resource the roles apply to."),
            roles: roles("GCP roles granted on the resource.").optional(),
          }),
        )
        .optional()
        .describe("Roles granted to the identity's service account, per resource."),
    }).describe("GCP access: exactly one of serviceAccount and bindings."),
    exactlyOneOf("serviceAccount", "bindings"),
  );
}

function azure(mode: ObjectMode) {
  return object(mode, {
    cloudAccountLink: cloudAccountLink(),
    roleAssignments: z
      .array(
        object(mode, {
          scope: z.string().optional().describe("Scope of the roles."),
          roles: roles("Azure roles assigned at the scope.").optional(),
        }),
      )
      .describe("Role assignments of the identity (required)."),
  }).describe("Azure access.");
}

function ngs(mode: ObjectMode) {
  const subjects = (what: string) =>
    object(mode, {
      allow: strings("Subjects allowed.").optional(),
      deny: strings("Subjects denied.").optional(),
    })
      .optional()
      .describe(what);
  return object(mode, {
    cloudAccountLink: cloudAccountLink(),
    pub: subjects("Publish permissions."),
    sub: subjects("Subscribe permissions."),
    resp: object(mode, {
      max: limit("Responses allowed on the replyTo subject").optional(),
      ttl: z.string().optional().describe("Deadline to reply (#ms, #s, #m, #h; -1: none)."),
    })
      .optional()
      .describe("Responses."),
    subs: limit("Subscriptions per connection").optional(),
    data: limit("Bytes a connection may send").optional(),
    payload: limit("Largest message payload").optional(),
  }).describe("NGS (NATS) access.");
}

function networkResource(mode: ObjectMode) {
  return ruled(
    mode,
    object(mode, {
      name: z.string().min(1, "must not be empty").describe("Name (unique among the identity's network resources)."),
      agentLink: linkTo("agent", "an agent").optional(),
      IPs: z
        .array(z.ipv4("must be an IPv4 address"))
        .min(1)
        .max(5, "at most 5 IPs")
        .optional()
        .describe("IPv4 addresses (1-5)."),
      FQDN: z.string().min(1).optional().describe("Fully qualified domain name."),
      resolverIP: z.ipv4("must be an IPv4 address").optional().describe("IPv4 address of the DNS resolver to use."),
      ports: ports(),
    }).describe("An endpoint in a private network reached through an agent: exactly one of FQDN and IPs."),
    exactlyOneOf("FQDN", "IPs"),
  );
}

function nativeNetworkResource(mode: ObjectMode) {
  return ruled(
    mode,
    object(mode, {
      name: z.string().min(1, "must not be empty").describe("Name (unique among the native network resources)."),
      FQDN: z.string().min(1).optional().describe("Fully qualified domain name."),
      ports: ports(),
      awsPrivateLink: object(mode, { endpointServiceName: z.string().min(1).describe("Endpoint service name.") })
        .optional()
        .describe("AWS PrivateLink (not with gcpServiceConnect)."),
      gcpServiceConnect: object(mode, { targetService: z.string().min(1).describe("Target service.") })
        .optional()
        .describe("GCP Private Service Connect (not with awsPrivateLink)."),
    }).describe("A cloud-native private endpoint: exactly one of awsPrivateLink and gcpServiceConnect."),
    exactlyOneOf("awsPrivateLink", "gcpServiceConnect"),
  );
}

const MAX_RESOURCES = 50;

/** The defaults the docs state (reference/identity) and terraform-provider-cpln treats as computed. */
export const GCP_DEFAULT_SCOPE = "https://www.googleapis.com/auth/cloud-platform";
export const AWS_POLICY_VERSION = "2012-10-17";
export const NGS_LIMITS = ["subs", "data", "payload"] as const;

function memcacheAccess(mode: ObjectMode) {
  return object(mode, {
    clusterLink: linkTo("memcachecluster", "a memcache cluster"),
    role: z.enum(["readWrite"]).describe("Role: readWrite."),
  }).describe("Access to a memcache cluster.");
}

function spicedbAccess(mode: ObjectMode) {
  return object(mode, {
    clusterLink: linkTo("spicedbcluster", "a SpiceDB cluster"),
    role: z.enum(["checkPermission", "read", "write"]).describe("Role: checkPermission, read or write."),
  }).describe("Access to a SpiceDB cluster.");
}

/** The writable fields of an identity, strict (bodies) or loose (the record as read). */
function fields(mode: ObjectMode) {
  const list = <T extends z.ZodType>(item: T, what: string) =>
    z.array(item).max(MAX_RESOURCES, `at most ${MAX_RESOURCES} items`).describe(what);
  return {
    aws: aws(mode).optional(),
    gcp: gcp(mode).optional(),
    azure: azure(mode).optional(),
    ngs: ngs(mode).optional(),
    networkResources: list(networkResource(mode), "Private network endpoints (Cloud Wormhole).").optional(),
    nativeNetworkResources: list(nativeNetworkResource(mode), "Cloud-native private endpoints.").optional(),
    memcacheAccess: z.array(memcacheAccess(mode)).optional().describe("Memcache clusters the identity may use."),
    spicedbAccess: z.array(spicedbAccess(mode)).optional().describe("SpiceDB clusters the identity may use."),
  };
}

/** The sections whose strict schema the server checks after every write, by field. */
export const identitySections = lazy(() => z.strictObject(fields("strict")));

const providerStatus = () =>
  z
    .looseObject({
      usable: z.boolean().optional().describe("Whether the access is set up."),
      lastError: z.string().optional().describe("Why not, if not."),
    })
    .optional();

export const identity = lazy(() =>
  z
    .looseObject({
      ...recordShape("identity"),
      ...fields("loose"),
      gvc: z.unknown().optional().describe("The gvc (read-only)."),
      status: z
        .looseObject({
          objectName: z.string().optional().describe("Name of the identity's object at the cloud providers."),
          aws: providerStatus(),
          gcp: providerStatus(),
          azure: providerStatus(),
        })
        .optional()
        .describe("Server-maintained state of the identity's cloud access."),
    })
    .describe("A workload identity: what a workload of the gvc may reach in clouds and private networks."),
);
export type Identity = z.infer<ReturnType<typeof identity>>;

/** Rules JSON Schema cannot state: names unique per list, and links naming existing cloud accounts. */
const documentedIdentityRules: readonly DocumentedRule[] = [
  {
    rule: "Network resource names are unique within networkResources, and within nativeNetworkResources.",
    issue: /^duplicate name '.*'$/,
  },
  {
    rule:
      "Each cloudAccountLink names an existing cloud account of the org whose provider is the section's (aws, gcp, " +
      "azure, ngs): an identity references one cloud account per provider (docs.controlplane.com reference/identity).",
    issue:
      /^(names no cloud account of org .* \('.*'\)|names a cloud account of provider \w+; \w+ access needs provider \w+)$/,
  },
];

/** After a PATCH the merged object must still satisfy the cross-field rules the create body states in JSON Schema. */
const mergedRule: DocumentedRule = {
  rule:
    "After the merge, aws has exactly one of roleName and policyRefs and not roleName with trustPolicy; gcp exactly " +
    "one of serviceAccount and bindings; each network resource exactly one of FQDN and IPs; a native one exactly " +
    "one of awsPrivateLink and gcpServiceConnect.",
  issue: /^(must set exactly one of \w+ and \w+|must not be set together with \w+)$/,
};

export const identityCreate = lazy(() => {
  const schema = z
    .strictObject({ name: name(), description: description().optional(), tags: tags().optional(), ...fields("strict") })
    .describe("Body of POST /org/{org}/gvc/{gvc}/identity.");
  crossFieldRules().add(schema, documentedRules(documentedIdentityRules));
  return schema;
});

/** A section's PATCH form: its leaves merge one by one (null removes one), nested objects as wholes. */
function sectionPatch(section: z.ZodObject): z.ZodType {
  const leaves: Record<string, PatchField> = {};
  for (const [key, value] of Object.entries(section.shape)) {
    const leaf = value instanceof z.ZodOptional ? (value.unwrap() as z.ZodType) : (value as z.ZodType);
    leaves[key] = { value: leaf, required: key === "cloudAccountLink" };
  }
  return patchObject(leaves).describe(`${section.description ?? "Section"} Fields merge; null removes one.`);
}

export const identityPatch = lazy(() => {
  const strict = fields("strict");
  const section = (value: z.ZodOptional<z.ZodObject>): PatchField => ({
    value: value.unwrap(),
    merge: sectionPatch(value.unwrap()),
  });
  const named = (value: z.ZodOptional<z.ZodArray<z.ZodObject>>, what: string): PatchField => {
    const item = value.unwrap().element;
    const leaves: Record<string, PatchField> = {};
    for (const [key, leaf] of Object.entries(item.shape)) {
      if (key !== "name") leaves[key] = { value: leaf instanceof z.ZodOptional ? leaf.unwrap() : leaf };
    }
    const patchItem = patchObject(leaves, { name: z.string().min(1).describe("Names the item.") });
    return { value: value.unwrap(), array: { item, key: z.string().min(1), patchItem, keyDescription: what } };
  };
  const schema = patchObject(
    {
      ...describedTaggedPatchFields(),
      aws: section(strict.aws),
      gcp: section(strict.gcp),
      azure: section(strict.azure),
      ngs: section(strict.ngs),
      networkResources: named(strict.networkResources, "the resource name"),
      nativeNetworkResources: named(strict.nativeNetworkResources, "the resource name"),
      memcacheAccess: { value: strict.memcacheAccess.unwrap() },
      spicedbAccess: { value: strict.spicedbAccess.unwrap() },
    },
    { ...readOnlyPatchShape(), gvc: echoOnly(z.unknown().optional().describe("Read-only; ignored.")) },
  ).describe("Body of PATCH /org/{org}/gvc/{gvc}/identity/{name}: merge fields and patch directives.");
  crossFieldRules().add(schema, documentedRules([...documentedIdentityRules, mergedRule]));
  return schema;
});

// ---- the server's cross-field checks (the JSON Schema above states the same rules) ----

type Json = Record<string, unknown>;
const isJson = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const has = (o: Json, key: string) => o[key] !== undefined;

/** The cross-field issues of an identity's sections (after a create or a merge), each with its path. */
export function identityIssues(record: Json): Issue[] {
  const issues: Issue[] = [];
  const one = (o: Json, path: string, a: string, b: string) => {
    if (has(o, a) === has(o, b)) issues.push({ path, message: `must set exactly one of ${a} and ${b}` });
  };
  const neither = (o: Json, path: string, a: string, b: string) => {
    if (has(o, a) && has(o, b)) issues.push({ path: `${path}.${b}`, message: `must not be set together with ${a}` });
  };
  if (isJson(record["aws"])) {
    one(record["aws"], "aws", "roleName", "policyRefs");
    neither(record["aws"], "aws", "roleName", "trustPolicy");
  }
  if (isJson(record["gcp"])) one(record["gcp"], "gcp", "serviceAccount", "bindings");
  for (const [field, check] of [
    ["networkResources", (o: Json, p: string) => one(o, p, "FQDN", "IPs")],
    ["nativeNetworkResources", (o: Json, p: string) => one(o, p, "awsPrivateLink", "gcpServiceConnect")],
  ] as const) {
    const items = record[field];
    if (!Array.isArray(items)) continue;
    const seen = new Set<string>();
    items.forEach((item, index) => {
      if (!isJson(item)) return;
      check(item, `${field}.${index}`);
      const itemName = item["name"];
      if (typeof itemName !== "string") return;
      if (seen.has(itemName)) issues.push({ path: `${field}.${index}.name`, message: `duplicate name '${itemName}'` });
      seen.add(itemName);
    });
  }
  return issues;
}

/** The providers whose sections name a cloud account (the status reports aws, gcp and azure). */
export const identityProviders = ["aws", "gcp", "azure", "ngs"] as const;

/**
 * The defaults docs.controlplane.com reference/identity states, which terraform-provider-cpln marks Computed with the
 * same values: gcp `scopes` [cloud-platform], an aws trust policy's `Version` 2012-10-17, ngs `subs`, `data` and
 * `payload` -1 (no limit). cpln-local stores them; the provider fills them before it compares.
 */
export function identityDefaults(record: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === "object" && value !== null && !Array.isArray(value);
  const out: Record<string, unknown> = { ...record };
  const { aws, gcp, ngs } = out;
  if (isObject(gcp) && gcp["scopes"] === undefined) out["gcp"] = { ...gcp, scopes: [GCP_DEFAULT_SCOPE] };
  const trust = isObject(aws) ? aws["trustPolicy"] : undefined;
  if (isObject(aws) && isObject(trust) && trust["Version"] === undefined) {
    out["aws"] = { ...aws, trustPolicy: { Version: AWS_POLICY_VERSION, ...trust } };
  }
  if (isObject(ngs)) {
    const limits: Record<string, unknown> = {};
    for (const limit of NGS_LIMITS) if (ngs[limit] === undefined) limits[limit] = -1;
    out["ngs"] = { ...ngs, ...limits };
  }
  return out;
}

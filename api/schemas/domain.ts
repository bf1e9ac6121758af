import { z } from "zod";
import { lazy } from "../lazy.js";
import {
  description,
  describedTaggedPatchFields,
  object,
  patchObject,
  readOnlyPatchShape,
  recordShape,
  tags,
  type ObjectMode,
} from "./common.js";
import { crossFieldRules, documentedRules } from "./jsonRules.js";

/*
 * The domain kind, field by field as Control Plane's own artefacts state it: types-ts `src/interfaces/domain.ts`
 * (fields, enums, status), terraform-provider-cpln `internal/provider/client/domain.go` (what a client sends: a
 * route's `mirror` and `canaries`), and controlplane-com/ai-plugin `rules/domain-manifest-reference.md` (limits,
 * patterns, cross-field rules). fidelity/facts/domain.json holds these facts with their sources.
 */

export const dnsModes = ["cname", "ns"] as const;
export const certChallengeTypes = ["http01", "dns01"] as const;
export const domainProtocols = ["http", "http2", "tcp"] as const;
export const tlsVersions = ["TLSV1_3", "TLSV1_2", "TLSV1_1", "TLSV1_0"] as const;
export const cipherSuites = [
  "ECDHE-ECDSA-AES256-GCM-SHA384",
  "ECDHE-ECDSA-CHACHA20-POLY1305",
  "ECDHE-ECDSA-AES128-GCM-SHA256",
  "ECDHE-RSA-AES256-GCM-SHA384",
  "ECDHE-RSA-CHACHA20-POLY1305",
  "ECDHE-RSA-AES128-GCM-SHA256",
  "AES256-GCM-SHA384",
  "AES128-GCM-SHA256",
  "TLS_RSA_WITH_AES_256_GCM_SHA384",
  "TLS_RSA_WITH_AES_128_GCM_SHA256",
  "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
  "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
  "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
  "TLS_CHACHA20_POLY1305_SHA256",
  "TLS_AES_256_GCM_SHA384",
  "TLS_AES_128_GCM_SHA256",
  "DES-CBC3-SHA",
  "ECDHE-RSA-AES128-SHA",
  "ECDHE-RSA-AES256-SHA",
  "AES128-SHA",
  "AES256-SHA",
] as const;
/** The cipher suites a port's TLS gets when it names none (terraform-provider-cpln's default set). */
export const defaultCipherSuites = [
  "AES128-GCM-SHA256",
  "AES256-GCM-SHA384",
  "ECDHE-ECDSA-AES128-GCM-SHA256",
  "ECDHE-ECDSA-AES256-GCM-SHA384",
  "ECDHE-ECDSA-CHACHA20-POLY1305",
  "ECDHE-RSA-AES128-GCM-SHA256",
  "ECDHE-RSA-AES256-GCM-SHA384",
  "ECDHE-RSA-CHACHA20-POLY1305",
] as const;
export const domainStatuses = [
  "initializing",
  "ready",
  "pendingDnsConfig",
  "pendingCertificate",
  "usedByGvc",
  "warning",
  "created",
  "updated",
  "deleted",
  "errored",
  "ignored",
] as const;

/** A domain's name: a fully qualified DNS name (labels of letters, digits and '-', a letter TLD), lowercase. */
export const DOMAIN_NAME_PATTERN = /^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\.)+[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;
export const MAX_PORTS = 10;
/** Routes per port (and per domain); the tag `cpln/routeLimitOverride` raises it to `ROUTE_LIMIT_OVERRIDE`. */
export const MAX_ROUTES = 150;
export const ROUTE_LIMIT_OVERRIDE = 200;
export const PREFIX_PATTERN = /^\/[0-9a-zA-Z-._~/]*$/;
export const HOST_PREFIX_PATTERN = /^[0-9a-zA-Z-._]*$/;
export const MAX_AGE_PATTERN = /^[\d.]+[hms]+$/;
/** `//gvc/<g>/workload/<w>` or `/org/<o>/gvc/<g>/workload/<w>`. */
export const WORKLOAD_LINK_PATTERN = /^(\/\/|\/org\/[^/]+\/)gvc\/[^/]+\/workload\/[^/]+$/;
export const GVC_LINK_PATTERN = /^(\/\/|\/org\/[^/]+\/)gvc\/[^/]+$/;
export const SECRET_LINK_PATTERN = /^(\/\/|\/org\/[^/]+\/)secret\/[^/]+$/;

export const domainName = lazy(() =>
  z
    .string()
    .max(253, "must be at most 253 characters")
    .regex(
      DOMAIN_NAME_PATTERN,
      "must be a fully qualified domain name in lowercase (e.g. app.example.com): labels of letters, digits and '-', a TLD of letters",
    )
    .describe("The domain's DNS name, e.g. app.example.com (lowercase, with its TLD)."),
);

const link = (pattern: RegExp, form: string, what: string) =>
  z.string().max(512, "must be at most 512 characters").regex(pattern, `must be a ${form} link`).describe(what);
const workloadLink = () =>
  link(WORKLOAD_LINK_PATTERN, "workload (//gvc/<gvc>/workload/<name>)", "Workload: //gvc/<gvc>/workload/<name>.");
const port = () => z.number().int().min(1).max(65535);

function certificate(mode: ObjectMode) {
  return object(mode, {
    secretLink: link(SECRET_LINK_PATTERN, "secret (//secret/<name>)", "A keypair secret: //secret/<name>.").optional(),
  });
}

export function domainTls(mode: ObjectMode) {
  return object(mode, {
    minProtocolVersion: z.enum(tlsVersions).optional().describe("Lowest TLS version accepted (default TLSV1_2)."),
    cipherSuites: z.array(z.enum(cipherSuites)).max(cipherSuites.length).optional().describe("Allowed cipher suites."),
    clientCertificate: certificate(mode).optional().describe("CA verifying client certificates (mTLS)."),
    serverCertificate: certificate(mode).optional().describe("Custom server certificate (else one is provisioned)."),
  }).describe("TLS of the port.");
}

export function domainCors(mode: ObjectMode) {
  const origin = object(mode, {
    exact: z.string().min(1).max(512).optional().describe("An origin, e.g. https://app.example.com."),
    regex: z.string().min(1).max(512).optional().describe("An RE2 pattern of origins."),
  }).describe("An allowed origin: exactly one of exact and regex.");
  const names = (what: string) => z.array(z.string().min(1).max(256)).max(50).optional().describe(what);
  return object(mode, {
    allowOrigins: z.array(origin).max(50).optional().describe("Origins allowed to make cross-origin requests."),
    allowMethods: names("HTTP methods allowed."),
    allowHeaders: names("Request headers allowed (stored lowercase)."),
    exposeHeaders: names("Response headers exposed (stored lowercase)."),
    maxAge: z
      .string()
      .regex(MAX_AGE_PATTERN, "must be a duration: digits then h, m or s (e.g. 24h)")
      .optional()
      .describe("How long a preflight answer may be cached, e.g. 24h."),
    allowCredentials: z.boolean().optional().describe("Whether credentials may be sent."),
  }).describe("CORS of the port.");
}

function weighted(mode: ObjectMode, share: "percent" | "weight") {
  return object(mode, {
    workloadLink: workloadLink(),
    port: port().optional().describe("Port of that workload (default: its first)."),
    [share]:
      share === "percent"
        ? z.number().min(0).max(100).describe("Share of traffic mirrored, 0-100.")
        : z.number().int().min(0).max(100).describe("Share of traffic routed to the canary, 0-100."),
  });
}

/** Fields of a route other than its key (prefix or regex). */
function routeFields(mode: ObjectMode) {
  return {
    replacePrefix: z.string().max(256).optional().describe("Replaces the matched prefix when forwarding."),
    workloadLink: workloadLink(),
    port: port().optional().describe("Port of the workload to route to."),
    hostPrefix: z
      .string()
      .max(253)
      .regex(HOST_PREFIX_PATTERN, "must hold only letters, digits, '-', '.' and '_'")
      .optional()
      .describe("Matches the host's prefix (needs acceptAllHosts or acceptAllSubdomains)."),
    hostRegex: z.string().min(1).max(512).optional().describe("RE2 pattern of the host header."),
    headers: object(mode, {
      request: object(mode, {
        set: z
          .record(z.string().min(1).max(256), z.string().max(1024))
          .optional()
          .describe("Headers set on every request of the route."),
      }).optional(),
    })
      .optional()
      .describe("Header changes."),
    replica: z.number().int().min(0).optional().describe("Replica of a stateful workload to route to."),
    mirror: z.array(weighted(mode, "percent")).max(10).optional().describe("Workloads traffic is mirrored to."),
    canaries: z.array(weighted(mode, "weight")).max(10).optional().describe("Workloads given a share of traffic."),
  };
}

const routeKeyFields = () => ({
  prefix: z
    .string()
    .max(256)
    .regex(PREFIX_PATTERN, "must start with '/' and hold only letters, digits and - . _ ~ /")
    .optional()
    .describe("Path prefix matched (default '/' when no regex)."),
  regex: z.string().min(1).max(512).optional().describe("RE2 pattern of paths (instead of prefix)."),
});

export function domainRoute(mode: ObjectMode) {
  return object(mode, { ...routeKeyFields(), ...routeFields(mode) }).describe("A route to a workload.");
}

export function domainPort(mode: ObjectMode) {
  return object(mode, {
    number: port().optional().describe("Port number (default 443)."),
    protocol: z.enum(domainProtocols).optional().describe("http, http2 (default) or tcp."),
    routes: z.array(domainRoute(mode)).max(ROUTE_LIMIT_OVERRIDE).optional().describe("Routes of the port."),
    cors: domainCors(mode).optional(),
    tls: domainTls(mode).optional(),
  }).describe("A port the domain listens on.");
}

function specFields(mode: ObjectMode) {
  return {
    dnsMode: z.enum(dnsModes).optional().describe("cname (default) or ns (default when gvcLink is set)."),
    gvcLink: link(GVC_LINK_PATTERN, "gvc (//gvc/<name>)", "GVC for subdomain routing: //gvc/<name>.").optional(),
    certChallengeType: z.enum(certChallengeTypes).optional().describe("How ownership is proven for certificates."),
    workloadLink: workloadLink().optional().describe("Single-workload domain: //gvc/<gvc>/workload/<name>."),
    acceptAllHosts: z.boolean().optional().describe("Accept any host (needs a dedicated load balancer)."),
    acceptAllSubdomains: z.boolean().optional().describe("Accept *.<domain> (needs a dedicated load balancer)."),
    ports: z.array(domainPort(mode)).max(MAX_PORTS).optional().describe("Ports (default: 443, http2)."),
  };
}

/** The rules of the domain's spec JSON Schema cannot state, as the document states them. */
export const domainSpecRules = lazy(() =>
  documentedRules([
    {
      rule: "gvcLink excludes workloadLink and any route; acceptAllHosts and acceptAllSubdomains are not both true.",
      issue:
        /^(must not be set together with spec\.\w+|must be empty when spec\.gvcLink is set|cannot be true together with spec\.acceptAll\w+)$/,
    },
    {
      rule: "A route has prefix or regex, not both; replacePrefix only with prefix; hostPrefix or hostRegex (not both) only with acceptAllHosts or acceptAllSubdomains; a CORS origin has exactly one of exact and regex.",
      issue:
        /^(must not be set together with \w+|is not supported on a regex route|needs spec\.acceptAllHosts or spec\.acceptAllSubdomains|must have exactly one of exact and regex)$/,
    },
    {
      rule: "Port numbers are unique; a port's route prefixes (and regexes) are unique; at most 150 routes a port and a domain (200 with the tag cpln/routeLimitOverride).",
      issue: /^(duplicates (port \d+|the route .*)|must hold at most \d+ routes.*)$/,
    },
    {
      rule: "Every route, mirror and canary names a workload of one GVC, which exists when cpln-local serves workloads; gvcLink and certificate secrets name existing objects.",
      issue: /^(must name a workload in gvc .*|names no (workload|gvc|secret) .*)$/,
    },
    {
      rule: "dnsMode 'ns' takes no certChallengeType 'http01' and no apex domain; with workloadLink every port has exactly one route to that workload and certChallengeType is not 'http01'; cname with gvcLink and HTTP-01 needs tls.serverCertificate on every TLS port.",
      issue:
        /^(is not supported with .*|must be 'cname' for an apex domain.*|must hold exactly one route when spec\.workloadLink is set|must be spec\.workloadLink .*|is required when dnsMode is 'cname', gvcLink is set and certChallengeType is not 'dns01')$/,
    },
    {
      rule: "Header values use only the placeholders %REQUESTED_SERVER_NAME%, %DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT% and %START_TIME%.",
      issue: /^uses the placeholder .* \(allowed: .*\)$/,
    },
  ]),
);

export function domainSpec(mode: ObjectMode) {
  const spec = object(mode, specFields(mode)).describe("What the domain serves and how.");
  return mode === "strict" ? spec.register(crossFieldRules(), domainSpecRules()) : spec;
}

const dnsRecord = () =>
  z.looseObject({
    type: z.string().optional().describe("CNAME, NS or TXT."),
    ttl: z.number().int().optional().describe("Seconds."),
    host: z.string().optional().describe("The record's name."),
    value: z.string().optional().describe("The record's value."),
  });

export const domainStatus = lazy(() =>
  z
    .looseObject({
      endpoints: z
        .array(z.looseObject({ url: z.string(), workloadLink: z.string().optional() }))
        .optional()
        .describe("URLs the domain serves, with the workload behind each."),
      status: z.enum(domainStatuses).optional().describe("pendingDnsConfig until the DNS records exist, then ready."),
      warning: z.string().optional(),
      locations: z
        .array(z.looseObject({ name: z.string(), certificateStatus: z.string().optional() }))
        .optional()
        .describe("Locations serving the domain, with their certificate's status."),
      fingerprint: z.string().optional().describe("Changes whenever the spec does."),
      dnsConfig: z.array(dnsRecord()).optional().describe("DNS records the owner must create."),
    })
    .describe("Server-maintained state (read-only)."),
);

export const domain = lazy(() =>
  z
    .looseObject({
      ...recordShape("domain"),
      spec: domainSpec("loose").optional(),
      status: domainStatus().optional(),
    })
    .describe("A custom domain routed to workloads (org-scoped, named by its DNS name)."),
);
export type Domain = z.infer<ReturnType<typeof domain>>;

export const domainCreate = lazy(() =>
  z
    .strictObject({
      name: domainName(),
      description: description().optional(),
      tags: tags().optional(),
      spec: domainSpec("strict").optional(),
    })
    .describe("Body of POST /org/{org}/domain."),
);

const routeKeyDescription = "the route's prefix, or regex:<regex> for a regex route";

function routesPatchField() {
  return {
    value: z.array(domainRoute("strict")).max(ROUTE_LIMIT_OVERRIDE).describe("Routes of the port."),
    array: {
      item: domainRoute("strict"),
      key: z.string().min(1).max(520),
      keyDescription: routeKeyDescription,
      patchItem: patchObject(
        Object.fromEntries(
          Object.entries(routeFields("strict")).map(([field, schema]) => [
            field,
            { value: schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema },
          ]),
        ),
        routeKeyFields(),
      ),
    },
  };
}

function portPatch() {
  return patchObject(
    {
      protocol: { value: z.enum(domainProtocols).describe("http, http2 or tcp.") },
      routes: routesPatchField(),
      cors: { value: domainCors("strict") },
      tls: { value: domainTls("strict") },
    },
    { number: port().describe("Names the port.") },
  );
}

export const domainPatch = lazy(() =>
  patchObject(
    {
      ...describedTaggedPatchFields(),
      spec: {
        value: domainSpec("strict"),
        merge: patchObject({
          dnsMode: { value: z.enum(dnsModes).describe("cname or ns.") },
          gvcLink: { value: link(GVC_LINK_PATTERN, "gvc (//gvc/<name>)", "GVC for subdomain routing.") },
          certChallengeType: { value: z.enum(certChallengeTypes).describe("http01 or dns01.") },
          workloadLink: { value: workloadLink() },
          acceptAllHosts: { value: z.boolean().describe("Accept any host.") },
          acceptAllSubdomains: { value: z.boolean().describe("Accept *.<domain>.") },
          ports: {
            value: z.array(domainPort("strict")).max(MAX_PORTS).describe("Ports."),
            array: {
              item: domainPort("strict"),
              key: z.union([port(), z.string().regex(/^\d{1,5}$/)]),
              keyDescription: "the port number",
              patchItem: portPatch(),
            },
          },
        }).register(crossFieldRules(), domainSpecRules()),
      },
    },
    readOnlyPatchShape(),
  ).describe("Body of PATCH /org/{org}/domain/{name}."),
);

import { catalogOf } from "./catalogs.js";
import type { Json } from "../patch/jsonValue.js";
import type { ArrayRule } from "../patch/rules.js";
import { domain, domainCreate, domainPatch } from "../schemas/domain.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindDescriptor } from "./types.js";
import type { JsonObject } from "../patch/index.js";
import { domainSpecDefaults } from "../schemas/domainDefaults.js";

function own(item: Json, field: string): Json | undefined {
  return typeof item === "object" && item !== null && !Array.isArray(item) && Object.hasOwn(item, field)
    ? item[field]
    : undefined;
}

/** Ports are named by their number (`$drop/ports: [443]`, `$patch/ports: [{number: 443, ...}]`). */
export const portRule: ArrayRule = {
  key: (item) => {
    const value = typeof item === "number" ? item : own(item, "number");
    return typeof value === "number" ? String(value) : undefined;
  },
  keyFields: ["number"],
  ordered: false,
};

/**
 * Routes are named by their prefix (`$drop/routes: ["/api"]`), a regex route by `regex:<regex>` (a prefix starts
 * with '/', so the two never collide); a route matching hosts adds its host rule (` host:<hostPrefix>` or
 * ` hostRegex:<hostRegex>`), as routes of one prefix for different hosts are distinct. The server orders routes itself
 * (longest prefix first), so order is no change.
 */
export function routeKey(item: Json): string | undefined {
  const prefix = own(item, "prefix");
  const regex = own(item, "regex");
  const path = typeof prefix === "string" ? prefix : typeof regex === "string" ? `regex:${regex}` : undefined;
  if (path === undefined) return undefined;
  const hostPrefix = own(item, "hostPrefix");
  const hostRegex = own(item, "hostRegex");
  if (typeof hostPrefix === "string") return `${path} host:${hostPrefix}`;
  return typeof hostRegex === "string" ? `${path} hostRegex:${hostRegex}` : path;
}

export const routeRule: ArrayRule = {
  key: routeKey,
  keyFields: ["prefix", "regex", "hostPrefix", "hostRegex"],
  ordered: false,
};

/** The contract of kind `domain`: org-scoped, named by its DNS name. */
export const domainKind = {
  kind: "domain",
  scope: "org",
  permissions: catalogOf("domain"),
  queryProperties: [],
  rels: [],
  endpoints: {
    eventlog: eventlogEndpoint,
  },
  schemas: {
    record: () => domain(),
    create: () => domainCreate(),
    patch: () => domainPatch(),
  },
  patchRules: { arrays: { "spec.ports": portRule, "spec.ports.routes": routeRule } },
  addressing: { field: "name", by: "name" },
  // The defaults the API fills (api/schemas/domainDefaults.ts), for the server and the provider alike.
  defaults: (body) => ({ ...body, spec: domainSpecDefaults((body.spec ?? {}) as JsonObject) }),
  resource: {
    typeName: "Domain",
    autoname: false,
    description:
      "A Control Plane domain, named by its DNS name: its ports, their routes to workloads (prefix, replacePrefix, " +
      "host rules), TLS and CORS, and dnsMode. A change of name or org replaces it; every other change is one PATCH of " +
      "only what changed (ports keyed by number, routes by prefix). status.dnsConfig lists the DNS records to create. " +
      "Routes another owner adds (DomainRoute, the CLI) show as drift here: manage a domain's routes in one place.",
  },
  examples: {
    create: (name) => ({
      name: `${name}.example.com`,
      spec: { dnsMode: "cname", ports: [{ number: 443, protocol: "http2" }] },
    }),
    patch: (marker) => ({ description: `patched ${marker}`, tags: { example: marker } }),
  },
} satisfies KindDescriptor<"domain">;

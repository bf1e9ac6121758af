import { catalogOf } from "./catalogs.js";
import type { Json } from "../patch/jsonValue.js";
import type { ArrayRule } from "../patch/rules.js";
import { domain, domainCreate, domainPatch } from "../schemas/domain.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindDescriptor } from "./types.js";

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
export const domainKind: KindDescriptor = {
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
  examples: {
    create: (name) => ({
      name: `${name}.example.com`,
      spec: { dnsMode: "cname", ports: [{ number: 443, protocol: "http2", routes: [] }] },
    }),
    patch: (marker) => ({ description: `patched ${marker}`, tags: { example: marker } }),
  },
};

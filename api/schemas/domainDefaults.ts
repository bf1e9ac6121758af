/**
 * The defaults the API fills in a domain's spec, shared by cpln-local (which stores them) and the provider (which fills
 * them before it compares, so a program that leaves them out sees no change). Sources (fidelity/facts/domain.json):
 * controlplane-com/ai-plugin `rules/domain-manifest-reference.md` (defaults), terraform-provider-cpln
 * `resource_domain.go` (TLS defaults). `org` set: relative links in full form too.
 */
import { isObject, type Json, type JsonObject } from "../patch/index.js";
import { defaultCipherSuites } from "./domain.js";

const objects = (value: Json | undefined): JsonObject[] =>
  Array.isArray(value) ? value.filter((item): item is JsonObject => isObject(item)) : [];

function withFullLink(org: string | undefined, object: JsonObject, field: string): void {
  const value = object[field];
  // A relative link (`//gvc/g/workload/w`) in the org (as api/links.ts normalizeLink, which sits above the registry).
  if (typeof value === "string" && org !== undefined && value.startsWith("//"))
    object[field] = `/org/${org}/${value.slice(2)}`;
}

/** A route's sort weight: the server orders routes longest prefix first, unless any route is a regex route. */
function byPrefixLength(a: JsonObject, b: JsonObject): number {
  return String(b["prefix"] ?? "").length - String(a["prefix"] ?? "").length;
}

function normalizedRoute(org: string | undefined, route: JsonObject): JsonObject {
  const out: JsonObject = { ...route };
  // Neither prefix nor regex: the route matches '/' (ai-plugin: "Default: '/' if regex not set").
  if (out["prefix"] === undefined && out["regex"] === undefined) out["prefix"] = "/";
  withFullLink(org, out, "workloadLink");
  for (const field of ["mirror", "canaries"]) {
    if (Array.isArray(out[field])) {
      out[field] = objects(out[field]).map((item) => {
        const copy = { ...item };
        withFullLink(org, copy, "workloadLink");
        return copy;
      });
    }
  }
  return out;
}

function normalizedPort(org: string | undefined, port: JsonObject): JsonObject {
  const out: JsonObject = { number: 443, protocol: "http2", ...port };
  if (Array.isArray(out["routes"])) {
    const routes = objects(out["routes"]).map((route) => normalizedRoute(org, route));
    out["routes"] = routes.some((route) => route["regex"] !== undefined) ? routes : routes.sort(byPrefixLength);
  }
  if (isObject(out["cors"])) {
    const cors: JsonObject = { ...out["cors"] };
    // CORS header names are stored lowercase (ai-plugin: "auto-lowercased").
    for (const field of ["allowHeaders", "exposeHeaders"]) {
      if (Array.isArray(cors[field]))
        cors[field] = cors[field].map((h) => (typeof h === "string" ? h.toLowerCase() : h));
    }
    out["cors"] = cors;
  }
  // A port gets the default TLS settings when it names none, unless it is a non-standard port of a non-HTTP protocol
  // (docs reference/domain: "it will always revert to the default configuration unless the domain is using a
  // non-standard port and a non-HTTP protocol"); the defaults are the docs' and terraform's.
  const standard = out["number"] === 443 || out["number"] === 80;
  if (out["tls"] === undefined && (standard || out["protocol"] !== "tcp")) {
    out["tls"] = { minProtocolVersion: "TLSV1_2", cipherSuites: [...defaultCipherSuites] };
  } else if (isObject(out["tls"])) {
    const tls: JsonObject = { minProtocolVersion: "TLSV1_2", cipherSuites: [...defaultCipherSuites], ...out["tls"] };
    for (const field of ["clientCertificate", "serverCertificate"]) {
      if (isObject(tls[field])) {
        const certificate = { ...tls[field] };
        withFullLink(org, certificate, "secretLink");
        tls[field] = certificate;
      }
    }
    out["tls"] = tls;
  }
  return out;
}

/**
 * The spec with the server's defaults: dnsMode `cname` (`ns` with a gvcLink), one port 443/http2 when none is given,
 * each port's number, protocol and TLS defaults, a route's prefix '/' when it has no regex, links in full form, CORS
 * header names lowercase, routes ordered longest prefix first (when no route is a regex route).
 */
export function domainSpecDefaults(spec: JsonObject, org?: string): JsonObject {
  const out: JsonObject = { ...spec };
  if (out["dnsMode"] === undefined) out["dnsMode"] = out["gvcLink"] === undefined ? "cname" : "ns";
  withFullLink(org, out, "gvcLink");
  withFullLink(org, out, "workloadLink");
  const ports = out["ports"] === undefined ? [{}] : objects(out["ports"]);
  out["ports"] = ports.map((port) => normalizedPort(org, port));
  return out;
}

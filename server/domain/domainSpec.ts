import type { Issue } from "../../api/errors.js";
import { isKind } from "../../api/kinds/index.js";
import { routeKey } from "../../api/kinds/domain.js";
import { MAX_ROUTES, ROUTE_LIMIT_OVERRIDE } from "../../api/schemas/domain.js";
import { domainSpecDefaults } from "../../api/schemas/domainDefaults.js";
import type { JsonObject, JsonValue, StoreOps } from "../store/store.js";
import { isObject } from "./common.js";

/*
 * A domain's spec as cpln-local stores it, and the rules beyond its schema. Sources (fidelity/facts/domain.json):
 * controlplane-com/ai-plugin `rules/domain-manifest-reference.md` and `plugins/cpln/references/domain-configurator/
 * manifest-reference.md` (defaults, cross-field rules, limits), terraform-provider-cpln `resource_domain.go`
 * (TLS defaults).
 */

/** The tag raising the route limit (ai-plugin: "max 150 per port (200 with tag override)"). */
export const ROUTE_LIMIT_TAG = "cpln/routeLimitOverride";
const HEADER_PLACEHOLDERS = ["%REQUESTED_SERVER_NAME%", "%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%", "%START_TIME%"];

const objects = (value: JsonValue | undefined): JsonObject[] =>
  Array.isArray(value) ? value.filter((item): item is JsonObject => isObject(item)) : [];

/** The registrable ("apex") domain: the last two labels (multi-label public suffixes such as co.uk are not known). */
export function apexOf(name: string): string {
  return name.split(".").slice(-2).join(".");
}

/** `/org/o/gvc/g/workload/w` → { gvc, name }. */
export function workloadOf(link: string): { gvc: string; name: string } | undefined {
  const match = /^\/org\/[^/]+\/gvc\/([^/]+)\/workload\/([^/]+)$/.exec(link);
  return match ? { gvc: match[1] as string, name: match[2] as string } : undefined;
}

/** Every workload link of the spec, with the path of the field holding it. */
export function workloadLinks(spec: JsonObject): { path: string; link: string }[] {
  const found: { path: string; link: string }[] = [];
  if (typeof spec["workloadLink"] === "string") found.push({ path: "spec.workloadLink", link: spec["workloadLink"] });
  objects(spec["ports"]).forEach((port, p) => {
    objects(port["routes"]).forEach((route, r) => {
      const at = `spec.ports.${p}.routes.${r}`;
      if (typeof route["workloadLink"] === "string")
        found.push({ path: `${at}.workloadLink`, link: route["workloadLink"] });
      for (const field of ["mirror", "canaries"]) {
        objects(route[field]).forEach((item, i) => {
          if (typeof item["workloadLink"] === "string")
            found.push({ path: `${at}.${field}.${i}.workloadLink`, link: item["workloadLink"] });
        });
      }
    });
  });
  return found;
}

/**
 * The gvc the domain's workloads live in: its gvcLink's, else the gvc most of its workload links name (the first of
 * them on a tie), so a route added in another gvc is the one named wrong.
 */
export function gvcOf(spec: JsonObject): string | undefined {
  const gvcLink = spec["gvcLink"];
  if (typeof gvcLink === "string") return /\/gvc\/([^/]+)$/.exec(gvcLink)?.[1];
  const counts = new Map<string, number>();
  for (const { link } of workloadLinks(spec)) {
    const gvc = workloadOf(link)?.gvc;
    if (gvc !== undefined) counts.set(gvc, (counts.get(gvc) ?? 0) + 1);
  }
  let best: string | undefined;
  for (const [gvc, count] of counts) if (best === undefined || count > (counts.get(best) ?? 0)) best = gvc;
  return best;
}

function routeIssues(spec: JsonObject, port: JsonObject, p: number): Issue[] {
  const issues: Issue[] = [];
  const wildcard = spec["acceptAllHosts"] === true || spec["acceptAllSubdomains"] === true;
  const seen = new Set<string>();
  objects(port["routes"]).forEach((route, r) => {
    const at = `spec.ports.${p}.routes.${r}`;
    const regex = route["regex"] !== undefined;
    if (regex && route["prefix"] !== undefined)
      issues.push({ path: `${at}.prefix`, message: "must not be set together with regex" });
    if (regex && route["replacePrefix"] !== undefined)
      issues.push({ path: `${at}.replacePrefix`, message: "is not supported on a regex route" });
    if (route["hostPrefix"] !== undefined && route["hostRegex"] !== undefined)
      issues.push({ path: `${at}.hostRegex`, message: "must not be set together with hostPrefix" });
    for (const field of ["hostPrefix", "hostRegex"]) {
      if (route[field] !== undefined && !wildcard)
        issues.push({ path: `${at}.${field}`, message: "needs spec.acceptAllHosts or spec.acceptAllSubdomains" });
    }
    const key = routeKey(route) ?? "";
    if (seen.has(key))
      issues.push({ path: `${at}.${regex ? "regex" : "prefix"}`, message: `duplicates the route ${key} of this port` });
    seen.add(key);
    const set =
      isObject(route["headers"]) && isObject(route["headers"]["request"])
        ? route["headers"]["request"]["set"]
        : undefined;
    if (isObject(set)) {
      for (const [header, value] of Object.entries(set)) {
        const unknown = String(value)
          .match(/%[A-Z_]+%/g)
          ?.find((token) => !HEADER_PLACEHOLDERS.includes(token));
        if (unknown !== undefined)
          issues.push({
            path: `${at}.headers.request.set.${header}`,
            message: `uses the placeholder ${unknown} (allowed: ${HEADER_PLACEHOLDERS.join(", ")})`,
          });
      }
    }
  });
  return issues;
}

/** The rules of a domain's spec beyond its schema, on the normalized spec (400s naming the field and the rule). */
export function specIssues(name: string, spec: JsonObject, tags: JsonObject): Issue[] {
  const issues: Issue[] = [];
  const ports = objects(spec["ports"]);
  const gvcLink = spec["gvcLink"] !== undefined;
  const workloadLink = spec["workloadLink"];
  if (gvcLink && workloadLink !== undefined)
    issues.push({ path: "spec.workloadLink", message: "must not be set together with spec.gvcLink" });
  if (spec["acceptAllHosts"] === true && spec["acceptAllSubdomains"] === true)
    issues.push({ path: "spec.acceptAllSubdomains", message: "cannot be true together with spec.acceptAllHosts" });
  if (spec["dnsMode"] === "ns" && spec["certChallengeType"] === "http01")
    issues.push({ path: "spec.certChallengeType", message: "is not supported with dnsMode 'ns' (use dns01)" });
  if (spec["dnsMode"] === "ns" && apexOf(name) === name)
    issues.push({ path: "spec.dnsMode", message: `must be 'cname' for an apex domain (${name})` });
  if (workloadLink !== undefined && spec["certChallengeType"] === "http01")
    issues.push({ path: "spec.certChallengeType", message: "is not supported with spec.workloadLink (use dns01)" });
  const limit =
    tags[ROUTE_LIMIT_TAG] === undefined || tags[ROUTE_LIMIT_TAG] === null ? MAX_ROUTES : ROUTE_LIMIT_OVERRIDE;
  const numbers = new Set<number>();
  let total = 0;
  ports.forEach((port, p) => {
    const number = port["number"] as number;
    if (numbers.has(number)) issues.push({ path: `spec.ports.${p}.number`, message: `duplicates port ${number}` });
    numbers.add(number);
    const routes = objects(port["routes"]);
    total += routes.length;
    if (gvcLink && routes.length > 0)
      issues.push({ path: `spec.ports.${p}.routes`, message: "must be empty when spec.gvcLink is set" });
    if (routes.length > limit)
      issues.push({
        path: `spec.ports.${p}.routes`,
        message: `must hold at most ${limit} routes (tag ${ROUTE_LIMIT_TAG} raises it to ${ROUTE_LIMIT_OVERRIDE})`,
      });
    if (typeof workloadLink === "string") {
      if (routes.length !== 1)
        issues.push({
          path: `spec.ports.${p}.routes`,
          message: "must hold exactly one route when spec.workloadLink is set",
        });
      routes.forEach((route, r) => {
        if (route["workloadLink"] !== workloadLink)
          issues.push({
            path: `spec.ports.${p}.routes.${r}.workloadLink`,
            message: `must be spec.workloadLink (${workloadLink})`,
          });
      });
    }
    const tls = port["tls"];
    const challenge = spec["certChallengeType"];
    if (spec["dnsMode"] === "cname" && gvcLink && challenge !== "dns01" && isObject(tls)) {
      const certificate = tls["serverCertificate"];
      if (!isObject(certificate) || typeof certificate["secretLink"] !== "string")
        issues.push({
          path: `spec.ports.${p}.tls.serverCertificate`,
          message: "is required when dnsMode is 'cname', gvcLink is set and certChallengeType is not 'dns01'",
        });
    }
    if (isObject(port["cors"])) {
      objects(port["cors"]["allowOrigins"]).forEach((origin, o) => {
        if ((origin["exact"] === undefined) === (origin["regex"] === undefined))
          issues.push({
            path: `spec.ports.${p}.cors.allowOrigins.${o}`,
            message: "must have exactly one of exact and regex",
          });
      });
    }
    issues.push(...routeIssues(spec, port, p));
  });
  if (total > limit && !issues.some((issue) => issue.message.startsWith("must hold at most")))
    issues.push({
      path: "spec.ports",
      message: `must hold at most ${limit} routes in all (tag ${ROUTE_LIMIT_TAG} raises it to ${ROUTE_LIMIT_OVERRIDE})`,
    });
  // Every route, mirror and canary names a workload of one gvc (ai-plugin: "All routes must target workloads in the
  // same GVC").
  const gvc = gvcOf(spec);
  for (const { path, link } of workloadLinks(spec)) {
    const target = workloadOf(link);
    if (target !== undefined && gvc !== undefined && target.gvc !== gvc)
      issues.push({ path, message: `must name a workload in gvc ${gvc}, as the domain's other workloads` });
  }
  return issues;
}

/**
 * Links that must name existing objects: the gvcLink's gvc, and — for kinds cpln-local serves (`isKind`) — each
 * workload and certificate secret. A kind cpln-local does not serve yet is checked by its link's form only.
 */
export async function missingTargets(org: string, spec: JsonObject, tx: StoreOps): Promise<Issue[]> {
  const issues: Issue[] = [];
  const gvcLink = spec["gvcLink"];
  if (typeof gvcLink === "string") {
    const gvc = /^\/org\/[^/]+\/gvc\/([^/]+)$/.exec(gvcLink)?.[1];
    if (gvc !== undefined && !(await tx.get(org, "gvc", "", gvc)))
      issues.push({ path: "spec.gvcLink", message: `names no gvc ${gvc}` });
  }
  if (isKind("workload")) {
    const seen = new Map<string, boolean>();
    for (const { path, link } of workloadLinks(spec)) {
      const target = workloadOf(link);
      if (target === undefined) continue;
      const key = `${target.gvc}/${target.name}`;
      if (!seen.has(key)) seen.set(key, (await tx.get(org, "workload", target.gvc, target.name)) !== undefined);
      if (seen.get(key) === false)
        issues.push({ path, message: `names no workload ${target.name} in gvc ${target.gvc}` });
    }
  }
  if (isKind("secret")) {
    for (const [p, port] of objects(spec["ports"]).entries()) {
      const tls = port["tls"];
      if (!isObject(tls)) continue;
      for (const field of ["clientCertificate", "serverCertificate"]) {
        const certificate = tls[field];
        const link = isObject(certificate) ? certificate["secretLink"] : undefined;
        const secret = typeof link === "string" ? /^\/org\/[^/]+\/secret\/([^/]+)$/.exec(link)?.[1] : undefined;
        if (secret !== undefined && !(await tx.get(org, "secret", "", secret)))
          issues.push({ path: `spec.ports.${p}.tls.${field}.secretLink`, message: `names no secret ${secret}` });
      }
    }
  }
  return issues;
}

/** The spec as stored: the API's defaults, links in full form (api/schemas/domainDefaults.ts). */
export function normalizedSpec(org: string, spec: JsonObject | undefined): JsonObject {
  return domainSpecDefaults(spec ?? {}, org) as JsonObject;
}

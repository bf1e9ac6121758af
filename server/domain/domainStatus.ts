import { createHash } from "node:crypto";
import { isKind } from "../../api/kinds/index.js";
import type { JsonObject, JsonValue, StoreOps } from "../store/store.js";
import { isObject } from "./common.js";
import { apexOf, gvcOf } from "./domainSpec.js";

/*
 * The emulated status of a domain. cpln-local resolves no DNS and issues no certificates, so a domain stays
 * `pendingDnsConfig` (the status the real API reports until the records exist, ai-plugin `agents/domain-configurator.md`)
 * unless it carries the tag `cpln/skipDNSCheck` (a tag the real API honours, Control Plane's MCP `create_domain`
 * description), which cpln-local reads as "the records exist": `ready`. The records themselves are the ones the docs
 * name (facts in fidelity/facts/domain.json):
 * - ownership: TXT `_cpln.<apex>` = the org's id, TTL 600 (ai-plugin: the `must_prove_ownership` answer lists the
 *   org's id and name as values), unless the org holds the apex domain itself;
 * - cname mode: CNAME `<name>` → `<gvc alias>.cpln.app` (docs quickstart/custom-domain: "a CNAME record points
 *   example.com at abc123xyz.cpln.app"); with a gvcLink also `*.<name>` (each workload gets `<workload>.<name>`);
 *   with dns01 also CNAME `_acme-challenge.<name>` → `_acme-challenge.cpln.app` (controlplane-com/templates);
 * - ns mode: NS `<name>` → ns1.cpln.cloud, ns2.cpln.cloud, ns1.cpln.live, ns2.cpln.live, TTL 1800 (ai-plugin).
 */

export const SKIP_DNS_TAG = "cpln/skipDNSCheck";
const NAME_SERVERS = ["ns1.cpln.cloud", "ns2.cpln.cloud", "ns1.cpln.live", "ns2.cpln.live"];
/** TTL of the CNAME records: not documented; the NS records' 1800 s. */
const CNAME_TTL = 1800;

const objects = (value: JsonValue | undefined): JsonObject[] =>
  Array.isArray(value) ? value.filter((item): item is JsonObject => isObject(item)) : [];

function canonical(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key] as JsonValue)}`)
      .join(",")}}`;
  return JSON.stringify(value);
}

/** The gvc's alias (its generated hostname label) when the gvc record has one, else its name. */
async function aliasOf(org: string, gvc: string, tx: StoreOps): Promise<string> {
  const record = await tx.get(org, "gvc", "", gvc);
  const alias = record?.doc["alias"];
  return typeof alias === "string" && alias !== "" ? alias : gvc;
}

/**
 * The URLs the domain serves: one per route, or with a gvcLink one subdomain per workload of the gvc (docs
 * reference/domain: "Control Plane will create the following subdomains", `<workload>.<domain>`), listed when
 * cpln-local serves workloads.
 */
async function endpoints(org: string, name: string, spec: JsonObject, tx: StoreOps): Promise<JsonObject[]> {
  const gvcLink = spec["gvcLink"];
  if (typeof gvcLink === "string") {
    const gvc = gvcLink.slice(gvcLink.lastIndexOf("/") + 1);
    if (!isKind("workload")) return [];
    const workloads = await tx.list(org, "workload", gvc);
    return workloads.map((w) => ({ url: `https://${w.name}.${name}`, workloadLink: `${gvcLink}/workload/${w.name}` }));
  }
  const out: JsonObject[] = [];
  for (const port of objects(spec["ports"])) {
    const scheme = port["protocol"] === "tcp" ? "tcp" : "https";
    const host = port["number"] === 443 ? name : `${name}:${String(port["number"])}`;
    for (const route of objects(port["routes"])) {
      const path = typeof route["prefix"] === "string" ? route["prefix"] : "/";
      const hostPrefix = typeof route["hostPrefix"] === "string" ? route["hostPrefix"] : "";
      out.push({ url: `${scheme}://${hostPrefix}${host}${path}`, workloadLink: route["workloadLink"] as JsonValue });
    }
  }
  return out;
}

/** The status of the domain `name` with the (normalized) `spec`, as of the store's state now. */
export async function domainStatus(
  org: string,
  name: string,
  spec: JsonObject,
  tags: JsonObject,
  tx: StoreOps,
): Promise<JsonObject> {
  const ready = tags[SKIP_DNS_TAG] !== undefined && tags[SKIP_DNS_TAG] !== null && tags[SKIP_DNS_TAG] !== false;
  const records: JsonObject[] = [];
  const apex = apexOf(name);
  const holdsApex = apex !== name && (await tx.get(org, "domain", "", apex)) !== undefined;
  if (!holdsApex) {
    const orgRecord = await tx.get(org, "org", "", org);
    records.push({ type: "TXT", ttl: 600, host: `_cpln.${apex}`, value: String(orgRecord?.doc["id"] ?? org) });
  }
  const gvc = gvcOf(spec);
  if (spec["dnsMode"] === "ns") {
    for (const server of NAME_SERVERS) records.push({ type: "NS", ttl: 1800, host: name, value: server });
  } else if (gvc !== undefined) {
    const target = `${await aliasOf(org, gvc, tx)}.cpln.app`;
    records.push({ type: "CNAME", ttl: CNAME_TTL, host: name, value: target });
    if (spec["gvcLink"] !== undefined)
      records.push({ type: "CNAME", ttl: CNAME_TTL, host: `*.${name}`, value: target });
    if (spec["certChallengeType"] === "dns01")
      records.push({
        type: "CNAME",
        ttl: CNAME_TTL,
        host: `_acme-challenge.${name}`,
        value: "_acme-challenge.cpln.app",
      });
  }
  const state = ready ? "ready" : "pendingDnsConfig";
  const gvcRecord = gvc === undefined ? undefined : await tx.get(org, "gvc", "", gvc);
  const placement = gvcRecord?.doc["spec"];
  const locationLinks =
    isObject(placement) && isObject(placement["staticPlacement"])
      ? placement["staticPlacement"]["locationLinks"]
      : undefined;
  const locations = (Array.isArray(locationLinks) ? locationLinks : [])
    .filter((link): link is string => typeof link === "string")
    .map((link) => ({ name: link.slice(link.lastIndexOf("/") + 1), certificateStatus: state }));
  return {
    status: state,
    endpoints: await endpoints(org, name, spec, tx),
    locations,
    fingerprint: createHash("sha256").update(canonical(spec)).digest("hex").slice(0, 16),
    dnsConfig: records,
  };
}

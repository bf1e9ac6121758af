import { randomUUID } from "node:crypto";
import { kindNames, kinds, type Kind } from "../../api/kinds/index.js";
import { selfLink } from "../../api/links.js";
import { jsonOf } from "../json.js";
import type { JsonObject, StoreOps } from "../store/store.js";
import { isObject } from "./common.js";
import type { KindServerRules } from "./rules.js";

export interface QuotaDefinition {
  name: string;
  description: string;
  unit: string;
  max: number;
  /** One quota per gvc (dimension `gvcLink`). */
  perGvc: boolean;
  /** Kind whose records the quota counts (undefined: nothing in this API consumes it, `current` stays 0). */
  counts?: string;
  /** The quota measures the bytes of every stored record of the org but quotas (their JSON, UTF-8). */
  measuresBytes?: boolean;
}

/** The quota on the bytes an org's records hold (see `quotaDefinitions`). */
export const STORED_BYTES_QUOTA = "stored-bytes";

/** The quotas written out here; `counts` ties a quota to the kind whose creates consume it (see the kind rules). */
const listedQuotas: readonly QuotaDefinition[] = [
  { name: "agents", description: "Max number of agents", unit: "count", max: 10, perGvc: false },
  { name: "gvcs", description: "Max number of gvc's", unit: "count", max: 20, perGvc: false, counts: "gvc" },
  { name: "domains", description: "Max number of domains", unit: "count", max: 20, perGvc: false, counts: "domain" },
  {
    name: "cloudaccounts",
    description: "Max number of cloudaccounts",
    unit: "count",
    max: 10,
    perGvc: false,
    counts: "cloudaccount",
  },
  { name: "policies", description: "Max number of policies", unit: "count", max: 500, perGvc: false, counts: "policy" },
  { name: "groups", description: "Max number of groups", unit: "count", max: 100, perGvc: false, counts: "group" },
  {
    name: "serviceaccounts",
    description: "Max number of service accounts",
    unit: "count",
    max: 100,
    perGvc: false,
    counts: "serviceaccount",
  },
  // Every kind a principal can create has a count quota (issue 39: mk8s, users and audit contexts had none, and 120
  // clusters of ~480 KiB took the server from 124 to 353 MiB). Records are held in memory when listed, so the counts
  // times the record limit (MAX_RECORD_BYTES) bound what creates can make the server hold. These four are
  // cpln-local's: the real API's names and maxima for them are not documented.
  {
    name: "mk8s-clusters",
    description: "Max number of mk8s clusters",
    unit: "count",
    max: 100,
    perGvc: false,
    counts: "mk8s",
  },
  { name: "users", description: "Max number of users", unit: "count", max: 1000, perGvc: false, counts: "user" },
  {
    name: "audit-contexts",
    description: "Max number of audit contexts",
    unit: "count",
    max: 100,
    perGvc: false,
    counts: "auditctx",
  },
  // cpln-local's too (issue 40): the real API's quota on secrets is not documented.
  { name: "secrets", description: "Max number of secrets", unit: "count", max: 1000, perGvc: false, counts: "secret" },
  {
    name: "locations",
    description: "Max number of locations (the builtin ones included)",
    unit: "count",
    max: 100,
    perGvc: false,
    counts: "location",
  },
  // What every kind's records hold together, whatever their counts: a count times the largest record is not a bound
  // an org should ever reach (500 policies of 512 KiB are 250 MiB). Equal to the state import's body limit
  // (IMPORT_BODY_LIMIT): an org is kept to about what one import restores (an export adds its quotas, key hashes and
  // envelope). A write that would pass it (a create, or a PATCH, PUT or action that grows a record) is a 429 naming it.
  {
    name: STORED_BYTES_QUOTA,
    description: "Max bytes of the org's stored objects (their JSON)",
    unit: "bytes",
    max: 64 * 1024 * 1024,
    perGvc: false,
    measuresBytes: true,
  },
  { name: "memory-per-workload", description: "Max memory per container", unit: "MiB", max: 1024, perGvc: false },
  { name: "cpu-per-workload", description: "Max CPU per container", unit: "millicore", max: 1000, perGvc: false },
  { name: "replicas-per-workload", description: "Max replicas per workload", unit: "count", max: 5, perGvc: false },
  {
    name: "workloads-per-gvc",
    description: "Max number of workloads in a gvc",
    unit: "count",
    max: 5,
    perGvc: true,
    counts: "workload",
  },
  {
    name: "identities-per-gvc",
    description: "Max number of workload identities in a gvc",
    unit: "count",
    max: 20,
    perGvc: true,
    counts: "identity",
  },
  {
    name: "volumesets-per-gvc",
    description: "Max number of volume sets in a gvc",
    unit: "count",
    max: 100,
    perGvc: true,
    counts: "volumeset",
  },
];

/**
 * The count quota of a kind a principal can create that no listed quota counts (a kind declared with no server rules of
 * its own): `<kind>s` (`-ies` for a `y` after a consonant; `<kind>s-per-gvc` for a gvc-scoped kind), max 100 — the real API's names and maxima for such a
 * kind are not documented. A listed quota of that name that counts nothing yet (`agents`) is taken over, max included.
 */
function countQuotaOf(kind: Kind, listed: readonly QuotaDefinition[]): QuotaDefinition {
  const perGvc = kinds[kind].scope === "gvc";
  const plural = /[^aeiou]y$/.test(kind) ? `${kind.slice(0, -1)}ies` : `${kind}s`;
  const name = perGvc ? `${plural}-per-gvc` : plural;
  const known = listed.find((definition) => definition.name === name && definition.counts === undefined);
  if (known !== undefined) return { ...known, counts: kind };
  const description = `Max number of ${plural}${perGvc ? " in a gvc" : ""}`;
  return { name, description, unit: "count", max: 100, perGvc, counts: kind };
}

/** The quotas every org gets: the listed ones, with a count quota for every creatable kind none of them counts. */
export const quotaDefinitions: readonly QuotaDefinition[] = (() => {
  const uncounted = kindNames.filter(
    (kind) =>
      kinds[kind].schemas.create !== undefined && !listedQuotas.some((definition) => definition.counts === kind),
  );
  const derived = uncounted.map((kind) => countQuotaOf(kind, listedQuotas));
  const replaced = new Set(derived.map((definition) => definition.name));
  return [...listedQuotas.filter((definition) => !replaced.has(definition.name)), ...derived];
})();

/** The count quota of a kind (undefined when nothing counts it: a kind not created through the API). */
export function countQuotaUse(kind: Kind): { name: string; perGvc: boolean } | undefined {
  const definition = quotaDefinitions.find((candidate) => candidate.counts === kind);
  return definition === undefined ? undefined : { name: definition.name, perGvc: definition.perGvc };
}

/** Writes one quota record (per-gvc quotas are stored under the gvc's scope so names may repeat). */
export async function createQuota(
  tx: StoreOps,
  org: string,
  definition: QuotaDefinition,
  gvc: string | undefined,
  now: string,
  max = definition.max,
  current = 0,
): Promise<void> {
  const id = randomUUID();
  const scope = definition.perGvc ? (gvc ?? "") : "";
  const doc: JsonObject = {
    kind: "quota",
    id,
    name: definition.name,
    description: definition.description,
    version: 1,
    created: now,
    lastModified: now,
    unit: definition.unit,
    dimensions: definition.perGvc && gvc !== undefined ? { gvcLink: selfLink(org, "gvc", gvc) } : {},
    max,
    current,
    origin: "builtin",
    links: [
      { rel: "self", href: selfLink(org, "quota", id) },
      { rel: "org", href: selfLink(org, "org", org) },
    ],
  };
  await tx.create({ org, kind: "quota", scope, name: definition.name, id, version: 1, doc });
}

/**
 * Creates the quotas `org` lacks (an org stored by an earlier version, or a snapshot that left them out), each with
 * `current` counting the records it limits that exist already: a quota added later limits what is there from the
 * start, and a create past it is refused as on a new org.
 */
export async function ensureQuotas(tx: StoreOps, org: string, now: string): Promise<void> {
  const gvcs = (await tx.list(org, "gvc")).map((r) => r.name);
  for (const definition of quotaDefinitions) {
    for (const gvc of definition.perGvc ? gvcs : [undefined]) {
      const scope = gvc ?? "";
      if (await tx.get(org, "quota", scope, definition.name)) continue;
      const current = definition.measuresBytes
        ? await storedBytes(tx, org)
        : definition.counts === undefined
          ? 0
          : await tx.count(org, definition.counts, gvc);
      await createQuota(tx, org, definition, gvc, now, definition.max, current);
    }
  }
}

/** The bytes an org's stored records hold (quotas left out: their usage moves with every write). */
async function storedBytes(tx: StoreOps, org: string): Promise<number> {
  let bytes = 0;
  for (const kind of kindNames) {
    if (kind === "quota") continue;
    for (const record of await tx.list(org, kind)) bytes += storedBytesOf(record.doc);
  }
  return bytes;
}

/**
 * Moves `stored-bytes` by `delta` without its limit, for the server's own writes outside the record service (the admin
 * key entry installed at start): they must never fail, and the usage stays exact.
 */
export async function moveStoredBytes(tx: StoreOps, org: string, delta: number): Promise<void> {
  const quota = delta === 0 ? undefined : await tx.get(org, "quota", "", STORED_BYTES_QUOTA);
  if (!quota) return;
  const current = Math.max(0, Number(quota.doc["current"] ?? 0) + delta);
  await tx.touch({ ...quota, doc: { ...quota.doc, current } });
}

/** What one stored document counts against `stored-bytes`: its JSON text as stored, in UTF-8 bytes. */
export function storedBytesOf(doc: JsonObject): number {
  return Buffer.byteLength(jsonOf(doc), "utf8");
}

function gvcNameOf(doc: JsonObject): string {
  const dimensions = doc["dimensions"];
  const link = isObject(dimensions) ? dimensions["gvcLink"] : undefined;
  return typeof link === "string" ? (link.split("/")[4] ?? "") : "";
}

/**
 * Quotas are addressed by id (names repeat per gvc). They are created by the server (per org, and per gvc when a
 * gvc is created), never through POST; `max` and `description` can be patched; `current` is maintained by the
 * creates and deletes that consume them.
 */
export const quotaRules: KindServerRules = {
  kind: "quota",
  fields: {
    readOnly: ["unit", "dimensions", "current", "origin"],
    immutable: [],
    preserved: [],
    storageScope: gvcNameOf,
  },
  lifecycle: {
    initialize: () => ({}),
  },
  access: {
    deleteForbidden: (record) => `The quota ${String(record["name"])} cannot be deleted`,
  },
};

import type { Http } from "./http.js";

export interface QuotaItem {
  id?: unknown;
  name?: unknown;
  dimensions?: { gvcLink?: unknown };
}

/** Whether `quota` is the `volumesets-per-gvc` quota of `gvc` in `org` (each gvc gets one when it is created). */
export function isVolumeSetQuotaOf(quota: QuotaItem, org: string, gvc: string): boolean {
  return quota.name === "volumesets-per-gvc" && quota.dimensions?.gvcLink === `/org/${org}/gvc/${gvc}`;
}

/** Whether `quota` is the org's `stored-bytes` quota (64 MiB of records by default). */
export function isStoredBytesQuota(quota: QuotaItem): boolean {
  return quota.name === "stored-bytes" && quota.dimensions?.gvcLink === undefined;
}

/** What a load test lifts `stored-bytes` to: far beyond any run (its check still runs on every write). */
export const LOAD_STORED_BYTES = 1e12;

/**
 * Creates a gvc and lifts its `volumesets-per-gvc` quota (100 by default) to `maxVolumeSets`, and the org's
 * `stored-bytes` quota, as an org admin would for a load test; the quota checks themselves still run on every create.
 */
export async function createGvc(admin: Http, org: string, gvc: string, maxVolumeSets = 1_000_000): Promise<void> {
  await admin.expect(201, "POST", `/org/${org}/gvc`, { name: gvc });
  const quotas = await admin.expect(200, "GET", `/org/${org}/quota`);
  const items = ((quotas.body as { items?: QuotaItem[] }).items ?? []).filter((q) => isVolumeSetQuotaOf(q, org, gvc));
  const id = items[0]?.id;
  if (items.length !== 1 || typeof id !== "string") {
    throw new Error(`expected one volumesets-per-gvc quota for gvc ${gvc}, found ${items.length}`);
  }
  await admin.expect(200, "PATCH", `/org/${org}/quota/${id}`, { max: maxVolumeSets });
  const bytes = ((quotas.body as { items?: QuotaItem[] }).items ?? []).find(isStoredBytesQuota)?.id;
  if (typeof bytes !== "string") throw new Error(`no stored-bytes quota in org ${org}`);
  await admin.expect(200, "PATCH", `/org/${org}/quota/${bytes}`, { max: LOAD_STORED_BYTES });
}

/** The volume set body the benchmarks create (tags and a description, as a real manifest carries). */
export function volumeSetBody(name: string): Record<string, unknown> {
  return {
    name,
    description: `bench volume set ${name}`,
    tags: { bench: "true" },
    spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd", fileSystemType: "ext4" },
  };
}

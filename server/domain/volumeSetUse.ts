/**
 * Which workloads use a volume set, as the volume set's status reports it (terraform-provider-cpln
 * `resource_volume_set.go`: `usedByWorkload` "the url of the workload currently using this volume set (if any)",
 * `workloadLinks` "a list of workload links that are using this volume set", `bindingId` "a new id is generated"
 * every time a new connection is made). A workload uses a set when one of its containers mounts
 * `cpln://volumeset/<name>`; a non-shared set binds the one workload that may mount it, a shared one binds none.
 * cpln-local keeps the status in step within the workload's own write, where the real API's controllers follow later.
 */
import { randomUUID } from "node:crypto";
import { selfLink } from "../../api/links.js";
import type { JsonObject, JsonValue, StoreOps } from "../store/store.js";
import { isObject } from "./common.js";
import { storedBytesOf } from "./quota.js";
import { consumeBytes } from "./recordChecks.js";
import { withDoc } from "./recordFields.js";

const VOLUME_SET_URI = /^cpln:\/\/volumeset\/([a-z][-a-z0-9]*)$/;

/** The names of the volume sets a workload spec mounts, in its order (a name may repeat). */
function* mountedNames(spec: JsonValue | undefined): Generator<string> {
  const containers = isObject(spec) && Array.isArray(spec["containers"]) ? spec["containers"] : [];
  for (const container of containers) {
    const volumes = isObject(container) && Array.isArray(container["volumes"]) ? container["volumes"] : [];
    for (const volume of volumes) {
      const m = isObject(volume) ? VOLUME_SET_URI.exec(String(volume["uri"])) : null;
      if (m) yield m[1] as string;
    }
  }
}

/** The volume sets a workload spec mounts, by name. */
export function mountedVolumeSets(spec: JsonValue | undefined): Set<string> {
  return new Set(mountedNames(spec));
}

/** Whether a workload spec mounts the volume set `name`. */
function mounts(spec: JsonValue | undefined, name: string): boolean {
  for (const mounted of mountedNames(spec)) if (mounted === name) return true;
  return false;
}

/** The workloads of `gvc` that mount each volume set, as self links in the store's order (by name). */
async function usersByVolumeSet(tx: StoreOps, org: string, gvc: string): Promise<Map<string, string[]>> {
  const users = new Map<string, string[]>();
  for (const workload of await tx.list(org, "workload", gvc)) {
    for (const name of mountedVolumeSets(workload.doc["spec"])) {
      const link = selfLink(org, "workload", workload.name, gvc);
      const links = users.get(name);
      if (links === undefined) users.set(name, [link]);
      else links.push(link);
    }
  }
  return users;
}

/** The workloads of `gvc` that mount the volume set `name`, as self links in the store's order (by name). */
async function usersOf(tx: StoreOps, org: string, gvc: string, name: string): Promise<string[]> {
  const links: string[] = [];
  for (const workload of await tx.list(org, "workload", gvc)) {
    if (mounts(workload.doc["spec"], name)) links.push(selfLink(org, "workload", workload.name, gvc));
  }
  return links;
}

/** The status fields of use: what `status` keeps of them and what the workloads now say. */
function withUse(status: JsonObject, links: string[], shared: boolean): JsonObject {
  const { usedByWorkload: bound, workloadLinks: _links, bindingId, ...rest } = status;
  if (links.length === 0) return rest;
  const next: JsonObject = { ...rest, workloadLinks: links };
  if (shared) return next;
  const user = links[0] as string;
  // The same workload keeps its binding; another one (or the first) is a new connection.
  return { ...next, usedByWorkload: user, bindingId: bound === user && bindingId ? bindingId : randomUUID() };
}

/**
 * Sets the use fields of the named volume sets of `gvc` from the workloads that mount them now. The status is the
 * server's, not a change of the set: version and lastModified stay (as a quota's `current` does).
 */
export async function refreshVolumeSetUse(
  tx: StoreOps,
  org: string,
  gvc: string,
  names: Iterable<string>,
): Promise<void> {
  const wanted = [...new Set(names)];
  if (wanted.length === 0) return;
  const users = await usersByVolumeSet(tx, org, gvc);
  for (const name of wanted) {
    const set = await tx.get(org, "volumeset", gvc, name);
    if (!set) continue;
    const status = isObject(set.doc["status"]) ? set.doc["status"] : {};
    const spec = isObject(set.doc["spec"]) ? set.doc["spec"] : {};
    const next = withUse(status, users.get(name) ?? [], spec["fileSystemType"] === "shared");
    if (JSON.stringify(next) === JSON.stringify(status)) continue;
    const doc = { ...set.doc, status: next };
    await tx.touch(withDoc(set, set.version, doc));
    await consumeBytes(tx, org, "volumeset", storedBytesOf(doc) - storedBytesOf(set.doc));
  }
}

/** The use fields of a new volume set of `gvc`: workloads may mount its name already (a set deleted and made again). */
export async function volumeSetUseAtCreate(
  tx: StoreOps,
  org: string,
  gvc: string,
  name: string,
  shared: boolean,
): Promise<JsonObject> {
  // Only this set's users: a create reads the gvc's workloads once, with no map of every set's users.
  return withUse({}, await usersOf(tx, org, gvc, name), shared);
}

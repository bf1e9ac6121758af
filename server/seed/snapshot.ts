import { issuesFromZod } from "../../api/errors.js";
import { kindNames, kinds, type Kind } from "../../api/kinds.js";
import { isObject } from "../domain/common.js";
import type { RecordService } from "../domain/records.js";
import type { JsonObject, StoreOps } from "../store/store.js";

/** The kind whose keys a snapshot carries (the `serviceAccountKeys` of the seed format). */
const KEY_OWNER_KIND = "serviceaccount";

/**
 * One service-account key of a snapshot: its name, its account and the SHA-256 of the key text. The secret itself
 * is never stored, so it is never exported; keys issued before an export keep working after the import.
 */
export interface SnapshotKey {
  keyName: string;
  serviceAccount: string;
  hash: string;
}

/** A whole org as `GET /_cpln-local/org/{org}/state` exports it; `--seed` and the import accept it as is. */
export interface OrgSnapshot {
  records: JsonObject[];
  serviceAccountKeys: SnapshotKey[];
}

/** gvcs first (their volume sets name them), the org before everything: the order a restore needs. */
function exportOrder(kind: Kind): number {
  return kind === kindNames[0] ? 0 : kinds[kind].scope === "gvc" ? 2 : 1;
}

/** Whether a seed entry is a whole record (as exported) rather than a create body. */
export function isWholeRecord(entry: JsonObject): boolean {
  return typeof entry["id"] === "string" && typeof entry["version"] === "number";
}

/**
 * Every record of `org` (each with `kind`, and `gvc` for gvc-scoped kinds) and the hashes of its service-account
 * keys, read in one transaction.
 */
export async function exportOrg(records: RecordService, org: string): Promise<OrgSnapshot> {
  return records.store.transaction(async (tx) => {
    const out: JsonObject[] = [];
    const keys: SnapshotKey[] = [];
    const ordered = [...kindNames].sort((a, b) => exportOrder(a) - exportOrder(b));
    for (const kind of ordered) {
      for (const record of await tx.list(org, kind)) {
        out.push(kinds[kind].scope === "gvc" ? { ...record.doc, gvc: record.scope } : record.doc);
        if (kind !== KEY_OWNER_KIND) continue;
        const accountKeys = Array.isArray(record.doc["keys"]) ? record.doc["keys"].filter(isObject) : [];
        for (const key of accountKeys) {
          const stored = await tx.findCredential(String(key["name"]));
          if (stored && stored.org === org && stored.ownerKind === kind && stored.owner === record.name) {
            keys.push({ keyName: stored.id, serviceAccount: stored.owner, hash: stored.hash });
          }
        }
      }
    }
    return { records: out, serviceAccountKeys: keys };
  });
}

/** Deletes every record of `org` and every service-account key hash of it. */
export async function wipeOrg(tx: StoreOps, org: string): Promise<number> {
  let deleted = 0;
  for (const kind of kindNames) {
    for (const record of await tx.list(org, kind)) {
      await tx.deleteCredentialsOf(org, kind, record.name);
      if (await tx.delete(org, kind, record.scope, record.name)) deleted++;
    }
  }
  return deleted;
}

/**
 * Stores one exported record exactly as it was (id, version, timestamps, links, status), replacing a record of the
 * same key. The record must satisfy its kind's record schema; `where` prefixes error messages.
 */
export async function restoreRecord(
  records: RecordService,
  tx: StoreOps,
  org: string,
  entry: JsonObject,
  where: string,
): Promise<void> {
  const { gvc, ...doc } = entry;
  const kind = doc["kind"];
  if (typeof kind !== "string" || !kindNames.includes(kind as Kind)) {
    throw new Error(`${where}.kind: unknown kind ${JSON.stringify(kind)}`);
  }
  const rules = records.rules[kind as Kind];
  const scoped = kinds[kind as Kind].scope === "gvc";
  if (scoped && typeof gvc !== "string") throw new Error(`${where}.gvc: required for ${kind}`);
  const parsed = rules.record().safeParse(doc);
  if (!parsed.success) {
    const issues = issuesFromZod(parsed.error).map((i) => `${i.path}: ${i.message}`);
    throw new Error(`${where} (${kind}) is not a valid ${kind} record: ${issues.join("; ")}`);
  }
  const scope = scoped ? String(gvc) : rules.storageScope ? rules.storageScope(doc) : "";
  if (scoped && !(await tx.get(org, "gvc", "", scope))) {
    throw new Error(`${where}.gvc: gvc ${scope} does not exist (list it before its ${kind} records)`);
  }
  const name = String(doc["name"]);
  await tx.delete(org, kind, scope, name);
  await tx.create({ org, kind, scope, name, id: String(doc["id"]), version: Number(doc["version"]), doc });
}

export async function restoreKeys(tx: StoreOps, org: string, keys: readonly SnapshotKey[]): Promise<void> {
  for (const key of keys) {
    await tx.putCredential({
      id: key.keyName,
      org,
      ownerKind: KEY_OWNER_KIND,
      owner: key.serviceAccount,
      hash: key.hash,
    });
  }
}

/** Checks the `serviceAccountKeys` of a seed document (absent: none). */
export function checkSnapshotKeys(value: unknown, source: string): SnapshotKey[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new Error(`${source}: serviceAccountKeys must be an array`);
  return value.map((key: unknown, index) => {
    const entry = key as Record<string, unknown>;
    if (
      !isObject(key as JsonObject) ||
      typeof entry["keyName"] !== "string" ||
      typeof entry["serviceAccount"] !== "string" ||
      typeof entry["hash"] !== "string" ||
      !/^[0-9a-f]{64}$/.test(entry["hash"])
    ) {
      throw new Error(
        `${source}: serviceAccountKeys.${index} must be {keyName, serviceAccount, hash} with a SHA-256 hex hash`,
      );
    }
    return { keyName: entry["keyName"], serviceAccount: entry["serviceAccount"], hash: entry["hash"] };
  });
}

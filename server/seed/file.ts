import { readFileSync } from "node:fs";
import { issuesFromZod } from "../../api/errors.js";
import { isKind, kinds } from "../../api/kinds.js";
import { isObject } from "../domain/common.js";
import type { RecordService } from "../domain/records.js";
import type { JsonObject } from "../store/store.js";
import { checkSnapshotKeys, isWholeRecord, restoreKeys, restoreRecord, type SnapshotKey } from "./snapshot.js";

/**
 * Extra records to load at start: `{ "records": [ { "kind": "cloudaccount", "name": "aws-prod", "provider": "aws" },
 * { "kind": "volumeset", "gvc": "default", "name": "data", "spec": {...} } ] }`. Each record is a create body of its
 * kind plus `kind` (and `gvc` for gvc-scoped kinds). Records that already exist are left as they are, so the same
 * file can be passed on every start. A record that carries `id` and `version` (an export of
 * `GET /_cpln-local/org/{org}/state`) is restored exactly as it was instead, replacing a record of the same name.
 */
export interface SeedDocument {
  records: Record<string, unknown>[];
  /** Hashes of service-account keys (as an export holds them); the keys themselves are never in a seed. */
  serviceAccountKeys?: SnapshotKey[];
}

export function readSeedFile(path: string): SeedDocument {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`Cannot read seed file ${path}: ${(error as Error).message}`, { cause: error });
  }
  return checkSeed(parsed, path);
}

export function checkSeed(value: unknown, source = "seed"): SeedDocument {
  if (!isObject(value as JsonObject) || !Array.isArray((value as JsonObject)["records"])) {
    throw new Error(`${source}: expected {"records": [...]}`);
  }
  const records = (value as { records: unknown[] }).records;
  records.forEach((record, index) => {
    if (!isObject(record as JsonObject)) throw new Error(`${source}: records.${index} must be an object`);
  });
  const keys = checkSnapshotKeys((value as JsonObject)["serviceAccountKeys"], source);
  return { records: records as JsonObject[], serviceAccountKeys: keys };
}

/** Creates the seed records that do not exist yet (as the admin would, but without authorization checks). */
export async function loadSeed(
  records: RecordService,
  org: string,
  seed: SeedDocument,
  source = "seed",
): Promise<number> {
  let created = 0;
  for (const [index, entry] of (seed.records as JsonObject[]).entries()) {
    const where = `${source}: records.${index}`;
    if (isWholeRecord(entry)) {
      await records.store.transaction((tx) => restoreRecord(records, tx, org, entry, where));
      created++;
      continue;
    }
    const { kind, gvc, ...body } = entry;
    if (!isKind(kind)) throw new Error(`${where}.kind: unknown kind ${JSON.stringify(kind)}`);
    const rules = records.rules[kind];
    if (!rules.createBody) throw new Error(`${where}.kind: ${kind} objects cannot be created`);
    const scoped = kinds[kind].scope === "gvc";
    if (scoped && typeof gvc !== "string") throw new Error(`${where}.gvc: required for ${kind}`);
    const parsed = rules.createBody().safeParse(body);
    if (!parsed.success) {
      const issues = issuesFromZod(parsed.error).map((i) => `${i.path}: ${i.message}`);
      throw new Error(`${where} (${kind}) is invalid: ${issues.join("; ")}`);
    }
    const scope = scoped ? String(gvc) : "";
    const name = String(body[rules.nameField ?? "name"]);
    if (scoped && !(await records.store.get(org, "gvc", "", scope))) {
      throw new Error(`${where}.gvc: gvc ${scope} does not exist (list it before its volume sets)`);
    }
    if (await records.store.get(org, kind, scope, name)) continue;
    const now = new Date().toISOString();
    try {
      await records.store.transaction((tx) =>
        records.insert(tx, org, kind, scope, scoped ? scope : undefined, body, now),
      );
    } catch (error) {
      const details = (error as { details?: { issues?: { path: string; message: string }[] } }).details;
      const issues = details?.issues?.map((i) => `${i.path}: ${i.message}`).join("; ");
      throw new Error(`${where} (${kind} ${name}) was refused: ${issues ?? (error as Error).message}`, {
        cause: error,
      });
    }
    created++;
  }
  const keys = seed.serviceAccountKeys ?? [];
  if (keys.length > 0) await records.store.transaction((tx) => restoreKeys(tx, org, keys));
  return created;
}

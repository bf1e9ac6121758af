import { readFileSync } from "node:fs";
import { isObject } from "../domain/common.js";
import type { RecordService } from "../domain/records.js";
import type { JsonObject, StoreOps } from "../store/store.js";
import { checkSnapshotKeys, restoreSnapshot, SnapshotError, type SnapshotKey } from "./snapshot.js";

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
    throw new SnapshotError("records", `${source}: expected {"records": [...]}`);
  }
  const records = (value as { records: unknown[] }).records;
  records.forEach((record, index) => {
    if (!isObject(record as JsonObject)) {
      throw new SnapshotError(`records.${index}`, `${source}: records.${index} must be an object`);
    }
  });
  const keys = checkSnapshotKeys((value as JsonObject)["serviceAccountKeys"], source);
  return { records: records as JsonObject[], serviceAccountKeys: keys };
}

/**
 * Loads a seed at start: create bodies that do not exist yet are created (as the admin would, but without
 * authorization checks), whole records replace records of the same key. The seed is untrusted input: it is checked
 * in full and applied in one transaction (see `restoreSnapshot`), so a refused seed leaves the data file unchanged.
 * `finish` runs last in that transaction.
 */
export async function loadSeed(
  records: RecordService,
  org: string,
  seed: SeedDocument,
  source = "seed",
  finish?: (tx: StoreOps) => Promise<void>,
): Promise<number> {
  try {
    return await restoreSnapshot(records, org, seed as { records: JsonObject[]; serviceAccountKeys?: SnapshotKey[] }, {
      mode: "merge",
      ...(finish ? { finish } : {}),
    });
  } catch (error) {
    if (error instanceof SnapshotError) throw new Error(`${source}: ${error.message}`, { cause: error });
    throw error;
  }
}

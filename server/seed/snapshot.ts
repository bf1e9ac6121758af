import { z } from "zod";
import { issuesFromZod } from "../../api/errors.js";
import { isKind, kindNames, kinds, type Kind } from "../../api/kinds/index.js";
import { selfLink } from "../../api/links.js";
import { lazy } from "../../api/lazy.js";
import { name as nameSchema } from "../../api/schemas/common.js";
import { isObject } from "../domain/common.js";
import type { RecordService } from "../domain/records.js";
import type { JsonObject, StoreOps } from "../store/store.js";

/** The kind of the org record (the first kind: see `exportOrder`). */
const ORG_KIND = kindNames[0];

/** The kind whose keys a snapshot carries (the `serviceAccountKeys` of the seed format). */
const KEY_OWNER_KIND = "serviceaccount";

/** A key's name is the text before the key's first `.` (see `keyNameOf`); bounded like a path segment. */
const KEY_NAME_MAX = 300;
const KEY_NAME = new RegExp(`^[^.]{1,${KEY_NAME_MAX}}$`);

/**
 * One service-account key of a snapshot: its name, its account and the SHA-256 of the key text. The secret itself
 * is never stored, so it is never exported; keys issued before an export keep working after the import. The import
 * checks each entry with this schema and the document states it (server/routes/emulator.ts), so the two agree.
 */
export const snapshotKey = lazy(() =>
  z.strictObject({
    keyName: z
      .string()
      .regex(KEY_NAME)
      .describe(`The key's name: the text before the key's first '.' (1-${KEY_NAME_MAX} characters, no '.').`),
    serviceAccount: z
      .string()
      .describe("The service account holding the key: a whole record of the same snapshot that lists keyName."),
    hash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .describe("The SHA-256 of the key text, as lowercase hex."),
  }),
);

export type SnapshotKey = z.infer<ReturnType<typeof snapshotKey>>;

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

/** Deletes every record of `org` (but those of kind `keep`) and every service-account key hash of it. */
export async function wipeOrg(tx: StoreOps, org: string, keep?: Kind): Promise<number> {
  let deleted = 0;
  for (const kind of kindNames) {
    if (kind === keep) continue;
    for (const record of await tx.list(org, kind)) {
      await tx.deleteCredentialsOf(org, kind, record.name);
      if (await tx.delete(org, kind, record.scope, record.name)) deleted++;
    }
  }
  return deleted;
}

/** A refusal of a snapshot: `path` names the offending entry (`records.3.name`, `serviceAccountKeys.0`). */
export class SnapshotError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * How a snapshot is applied: `replace` (the import endpoint) wipes the org first (but its org record when the snapshot
 * holds none: the org keeps its own); `merge` (a `--seed` at start) restores whole records over records of the same
 * key and creates the create bodies that do not exist yet.
 */
export type RestoreMode = "replace" | "merge";

export interface RestoreOptions {
  mode: RestoreMode;
  /**
   * Runs last, inside the same transaction (the admin key is installed here, with its builtin service account when
   * the snapshot holds none, so no import can lose it).
   */
  finish?: (tx: StoreOps) => Promise<void>;
}

/** One whole record of a snapshot, checked, with the key and links the server computed for it. */
interface PlannedRecord {
  index: number;
  kind: Kind;
  scope: string;
  gvc: string | undefined;
  name: string;
  doc: JsonObject;
}

/** One create body of a snapshot, checked against its kind's create schema. */
interface PlannedBody {
  index: number;
  kind: Kind;
  scope: string;
  gvc: string | undefined;
  name: string;
  body: JsonObject;
}

type Planned = { whole: true; entry: PlannedRecord } | { whole: false; entry: PlannedBody };

function describeEntry(kind: string, name: string, gvc: string | undefined): string {
  return gvc === undefined ? `${kind} ${name}` : `${kind} ${name} in gvc ${gvc}`;
}

/** The name a record or body must carry under its kind's rules: the create schema's name field, the rule its addressing states (images), or the name rule. */
function nameRule(records: RecordService, kind: Kind): { field: string; schema: z.ZodType } {
  const rules = records.rules[kind];
  const field = rules.nameField ?? "name";
  const create = rules.createBody?.();
  const fromCreate = create instanceof z.ZodObject ? (create.shape as Record<string, z.ZodType>)[field] : undefined;
  const stated = kinds[kind].addressing.schema?.();
  return { field, schema: fromCreate ?? stated ?? nameSchema() };
}

/** The links the server gives a record: self (by name, or by id for kinds addressed by id), org, gvc. */
function linksOf(records: RecordService, org: string, kind: Kind, doc: JsonObject, gvc: string | undefined) {
  const address = records.rules[kind].addressBy === "id" ? String(doc["id"]) : String(doc["name"]);
  const links: JsonObject[] = [{ rel: "self", href: selfLink(org, kind, address, gvc) }];
  if (kind !== "org") links.push({ rel: "org", href: selfLink(org, "org", org) });
  if (gvc !== undefined) links.push({ rel: "gvc", href: selfLink(org, "gvc", gvc) });
  return links;
}

function zodMessage(error: z.ZodError): string {
  return issuesFromZod(error)
    .map((i) => (i.path === "" ? i.message : `${i.path}: ${i.message}`))
    .join("; ");
}

/**
 * Checks a whole snapshot without touching the store: every entry's kind, gvc, schema and name; the org record's
 * name; duplicate keys and ids; keys only for service accounts of the snapshot that list them. Links are recomputed
 * (never taken from the entry). Throws `SnapshotError` naming the first offending entry.
 */
function planSnapshot(
  records: RecordService,
  org: string,
  seed: { records: readonly JsonObject[]; serviceAccountKeys?: readonly SnapshotKey[] },
  options: RestoreOptions,
): { planned: Planned[]; keys: SnapshotKey[]; orgRecord: boolean } {
  const planned: Planned[] = [];
  const byKey = new Map<string, number>();
  const byId = new Map<string, number>();
  const gvcs = new Set<string>();
  const accounts = new Map<string, JsonObject>();
  let orgRecords = 0;
  for (const [index, entry] of seed.records.entries()) {
    const at = `records.${index}`;
    const { gvc: gvcValue, ...doc } = entry;
    const kind = doc["kind"];
    if (!isKind(kind)) throw new SnapshotError(`${at}.kind`, `${at}.kind: unknown kind ${JSON.stringify(kind)}`);
    const rules = records.rules[kind];
    const scoped = kinds[kind].scope === "gvc";
    if (scoped && (typeof gvcValue !== "string" || !nameSchema().safeParse(gvcValue).success)) {
      throw new SnapshotError(`${at}.gvc`, `${at}.gvc: required for ${kind} (the name of its gvc)`);
    }
    if (!scoped && gvcValue !== undefined) {
      throw new SnapshotError(`${at}.gvc`, `${at}.gvc: a ${kind} is not inside a gvc (leave gvc out)`);
    }
    const gvc = scoped ? String(gvcValue) : undefined;
    const { field, schema } = nameRule(records, kind);
    const nameValue = doc[field];
    const nameCheck = schema.safeParse(nameValue);
    if (typeof nameValue !== "string" || !nameCheck.success) {
      const why = nameCheck.success ? "must be a string" : zodMessage(nameCheck.error);
      throw new SnapshotError(`${at}.${field}`, `${at}.${field} (${kind}): ${why}`);
    }
    const name = nameValue;
    const what = `${at} (${describeEntry(kind, name, gvc)})`;
    if (kind === "org" && name !== org) {
      throw new SnapshotError(`${at}.name`, `${what}: the org record of org ${org} must be named ${org}`);
    }
    let item: Planned;
    if (isWholeRecord(entry)) {
      if (field !== "name" && doc["name"] !== name) {
        throw new SnapshotError(`${at}.name`, `${what}: name must equal ${field} (${JSON.stringify(name)})`);
      }
      const parsed = rules.record().safeParse(doc);
      if (!parsed.success) {
        throw new SnapshotError(at, `${what} is not a valid ${kind} record: ${zodMessage(parsed.error)}`);
      }
      const restored: JsonObject = { ...doc, links: linksOf(records, org, kind, doc, gvc) };
      const scope = scoped ? String(gvc) : rules.fields.storageScope ? rules.fields.storageScope(restored) : "";
      const idKey = `${kind}\n${String(doc["id"])}`;
      const earlier = byId.get(idKey);
      if (earlier !== undefined) {
        throw new SnapshotError(`${at}.id`, `${what}: id ${String(doc["id"])} is also the id of records.${earlier}`);
      }
      byId.set(idKey, index);
      item = { whole: true, entry: { index, kind, scope, gvc, name, doc: restored } };
      if (kind === KEY_OWNER_KIND) accounts.set(name, restored);
      if (kind === "org") orgRecords++;
    } else {
      if (!rules.createBody) throw new SnapshotError(`${at}.kind`, `${what}: ${kind} objects cannot be created`);
      const body = Object.fromEntries(Object.entries(doc).filter(([k]) => k !== "kind")) as JsonObject;
      const parsed = rules.createBody().safeParse(body);
      if (!parsed.success) throw new SnapshotError(at, `${what} is invalid: ${zodMessage(parsed.error)}`);
      item = { whole: false, entry: { index, kind, scope: gvc ?? "", gvc, name, body } };
    }
    const recordKey = `${kind}\n${item.entry.scope}\n${name}`;
    const first = byKey.get(recordKey);
    if (first !== undefined) throw new SnapshotError(at, `${what} is a duplicate of records.${first}`);
    byKey.set(recordKey, index);
    if (kind === "gvc") gvcs.add(name);
    planned.push(item);
  }
  if (options.mode === "replace") {
    for (const { entry } of planned) {
      const scopeGvc = entry.gvc ?? (entry.scope === "" ? undefined : entry.scope);
      if (scopeGvc !== undefined && !gvcs.has(scopeGvc)) {
        const what = describeEntry(entry.kind, entry.name, entry.gvc);
        throw new SnapshotError(
          `records.${entry.index}`,
          `records.${entry.index} (${what}): gvc ${scopeGvc} is not in the snapshot`,
        );
      }
    }
  }
  const keys = seed.serviceAccountKeys ?? [];
  const keyNames = new Map<string, number>();
  for (const [index, key] of keys.entries()) {
    const at = `serviceAccountKeys.${index}`;
    const earlier = keyNames.get(key.keyName);
    if (earlier !== undefined) {
      throw new SnapshotError(at, `${at}: key ${key.keyName} is also serviceAccountKeys.${earlier}`);
    }
    keyNames.set(key.keyName, index);
    const account = accounts.get(key.serviceAccount);
    const listed = account && Array.isArray(account["keys"]) ? account["keys"].filter(isObject) : [];
    if (!listed.some((k) => k["name"] === key.keyName)) {
      throw new SnapshotError(
        at,
        `${at}: key ${key.keyName} belongs to no service account of the snapshot that lists it ` +
          `(service account ${key.serviceAccount} must be a whole record whose keys name it)`,
      );
    }
  }
  return { planned, keys: [...keys], orgRecord: orgRecords > 0 };
}

/**
 * Applies a snapshot as untrusted input: checked in full first (nothing changes when any entry is refused), then
 * written in one transaction that also runs the kind rules over every restored record and `options.finish`; any
 * failure rolls everything back. Returns how many entries were written.
 */
export async function restoreSnapshot(
  records: RecordService,
  org: string,
  seed: { records: readonly JsonObject[]; serviceAccountKeys?: readonly SnapshotKey[] },
  options: RestoreOptions,
): Promise<number> {
  const { planned, keys, orgRecord } = planSnapshot(records, org, seed, options);
  const now = new Date().toISOString();
  return records.store.transaction(async (tx) => {
    // A snapshot without the org record leaves the org's own (its description, tags and spec) as it was.
    if (options.mode === "replace") await wipeOrg(tx, org, orgRecord ? undefined : ORG_KIND);
    let written = 0;
    const restored: PlannedRecord[] = [];
    for (const item of planned) {
      const { index, kind, scope, gvc, name } = item.entry;
      const at = `records.${index}`;
      const what = `${at} (${describeEntry(kind, name, gvc)})`;
      const scopeGvc = gvc ?? (scope === "" ? undefined : scope);
      if (scopeGvc !== undefined && !(await tx.get(org, "gvc", "", scopeGvc))) {
        throw new SnapshotError(at, `${what}: gvc ${scopeGvc} does not exist (list it before its records)`);
      }
      if (item.whole) {
        const { doc } = item.entry;
        const id = String(doc["id"]);
        const sameId = await tx.getById(org, kind, id);
        if (sameId && (sameId.scope !== scope || sameId.name !== name)) {
          throw new SnapshotError(`${at}.id`, `${what}: id ${id} is the id of ${kind} ${sameId.name}`);
        }
        if (await tx.delete(org, kind, scope, name)) await tx.deleteCredentialsOf(org, kind, name);
        const version = Number(doc["version"]);
        if (!(await tx.create({ org, kind, scope, name, id, version, doc }))) {
          throw new SnapshotError(at, `${what} could not be stored (its key or id is taken)`);
        }
        restored.push(item.entry);
      } else {
        if (await tx.get(org, kind, scope, name)) continue;
        try {
          await records.insert(tx, org, kind, scope, gvc, item.entry.body, now);
        } catch (error) {
          const details = (error as { details?: { issues?: { path: string; message: string }[] } }).details;
          const issues = details?.issues?.map((i) => `${i.path}: ${i.message}`).join("; ");
          throw new SnapshotError(at, `${what} was refused: ${issues ?? (error as Error).message}`);
        }
      }
      written++;
    }
    // The kind rules beyond the schema (cross-field and cross-record checks) read the restored org as a whole.
    for (const entry of restored) {
      const validate = records.rules[entry.kind].lifecycle.validate;
      if (!validate) continue;
      const issues = await validate(entry.doc, { org, gvc: entry.gvc, tx, now });
      if (issues.length > 0) {
        const at = `records.${entry.index}`;
        const text = issues.map((i) => `${i.path}: ${i.message}`).join("; ");
        throw new SnapshotError(at, `${at} (${describeEntry(entry.kind, entry.name, entry.gvc)}) is invalid: ${text}`);
      }
    }
    for (const [index, key] of keys.entries()) {
      const taken = await tx.findCredential(key.keyName);
      if (taken && (taken.org !== org || taken.ownerKind !== KEY_OWNER_KIND || taken.owner !== key.serviceAccount)) {
        const at = `serviceAccountKeys.${index}`;
        throw new SnapshotError(at, `${at}: key name ${key.keyName} is already a key of another owner`);
      }
      await tx.putCredential({
        id: key.keyName,
        org,
        ownerKind: KEY_OWNER_KIND,
        owner: key.serviceAccount,
        hash: key.hash,
      });
    }
    if (options.finish) await options.finish(tx);
    return written;
  });
}

/** Checks the `serviceAccountKeys` of a seed document (absent: none). */
export function checkSnapshotKeys(value: unknown, source: string): SnapshotKey[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new SnapshotError("serviceAccountKeys", `${source}: serviceAccountKeys must be an array`);
  }
  return value.map((key: unknown, index) => {
    const parsed = snapshotKey().safeParse(key);
    if (!parsed.success) {
      throw new SnapshotError(
        `serviceAccountKeys.${index}`,
        `${source}: serviceAccountKeys.${index} must be {keyName, serviceAccount, hash} with a key name ` +
          `(1-${KEY_NAME_MAX} characters, no '.') and a SHA-256 hex hash`,
      );
    }
    return parsed.data;
  });
}

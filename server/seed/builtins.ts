import { kindNames, type Kind } from "../../api/kinds/index.js";
import { selfLink } from "../../api/links.js";
import { keyNameOf, sha256Hex } from "../auth/authn.js";
import { isObject } from "../domain/common.js";
import { ensureQuotas, moveStoredBytes, storedBytesOf } from "../domain/quota.js";
import type { RecordService } from "../domain/records.js";
import type { JsonObject, StoreOps } from "../store/store.js";
import { builtinLocations, geoOf } from "./locations.js";

export const ADMIN_SERVICE_ACCOUNT = "controlplane";
/** Marks the admin key in the controlplane account's key list, so a restart with another key replaces it. */
export const ADMIN_KEY_DESCRIPTION = "cpln-local admin key";

/**
 * Seeds an org on its first start: the org record, quotas, the `controlplane` service account, the `superusers` and
 * `viewers` groups, `superusers-<kind>` (manage) and `viewers-<kind>` (view) policies for every kind, the `cpln`
 * audit context, the builtin locations and the `default` gvc. Does nothing when the org already exists.
 * Returns whether it seeded.
 */
export async function seedOrg(records: RecordService, org: string): Promise<boolean> {
  const store = records.store;
  if (await store.get(org, "org", "", org)) {
    // An org stored by an earlier version gets the quotas added since, counting what it holds.
    await store.transaction((tx) => ensureQuotas(tx, org, new Date().toISOString()));
    return false;
  }
  await store.transaction(async (tx) => {
    await insertBuiltins(records, tx, org, "all");
    await records.insert(tx, org, "gvc", "", undefined, defaultGvc, new Date().toISOString());
  });
  return true;
}

/**
 * Creates the builtin objects of `org` (those the API can neither create nor delete) that it lacks, as at its first
 * start: after a state import, an org always has its quotas, the `controlplane` service account, the `superusers`
 * and `viewers` groups, their policies, the `cpln` audit context and the builtin locations, whatever the snapshot
 * left out (what it holds is kept as it is). The admin key's account is among them, and so are the policies that make
 * it a superuser, so an import never locks the admin out.
 */
export async function ensureBuiltins(records: RecordService, tx: StoreOps, org: string): Promise<void> {
  await insertBuiltins(records, tx, org, "missing");
}

const defaultGvc: JsonObject = { name: "default", description: "Default global virtual cloud" };

/** The builtins of `seedOrg` (the org record too): `all` on a new org, or only the `missing` ones. */
async function insertBuiltins(
  records: RecordService,
  tx: StoreOps,
  org: string,
  which: "all" | "missing",
): Promise<void> {
  const now = new Date().toISOString();
  const saLink = selfLink(org, "serviceaccount", ADMIN_SERVICE_ACCOUNT);
  const superusers = selfLink(org, "group", "superusers");
  const viewers = selfLink(org, "group", "viewers");
  const missing = async (kind: Kind, name: string) => which === "all" || !(await tx.get(org, kind, "", name));
  const insert = async (kind: Kind, body: JsonObject, fields?: JsonObject) => {
    if (await missing(kind, String(body["name"])))
      await records.insert(tx, org, kind, "", undefined, body, now, fields);
  };
  await insert("org", { name: org, description: org });
  // Before the other builtins, which consume them; a quota created here counts what the org already holds.
  await ensureQuotas(tx, org, now);
  await insert(
    "serviceaccount",
    { name: ADMIN_SERVICE_ACCOUNT, description: "Service account of the platform (builtin)" },
    { origin: "builtin", keys: [] },
  );
  await insert(
    "group",
    { name: "superusers", description: "Full access to every object of the org (builtin)" },
    { origin: "builtin", memberLinks: [saLink] },
  );
  await insert(
    "group",
    { name: "viewers", description: "Read-only access to every object of the org (builtin)" },
    { origin: "builtin", memberLinks: [] },
  );
  for (const kind of kindNames) {
    await insert(
      "policy",
      { name: `superusers-${kind}`, description: `Full access to every ${kind} (builtin)` },
      {
        origin: "builtin",
        targetKind: kind,
        target: "all",
        bindings: [{ permissions: ["manage"], principalLinks: [superusers, saLink] }],
      },
    );
    await insert(
      "policy",
      { name: `viewers-${kind}`, description: `Read-only access to every ${kind} (builtin)` },
      {
        origin: "builtin",
        targetKind: kind,
        target: "all",
        bindings: [{ permissions: ["view"], principalLinks: [viewers] }],
      },
    );
  }
  await insert(
    "auditctx",
    { name: "cpln", description: "Audit events of the platform (builtin)" },
    { origin: "builtin", status: {} },
  );
  for (const location of builtinLocations) {
    await insert(
      "location",
      { name: location.name, description: location.description, tags: { ...location.tags } },
      {
        origin: "builtin",
        provider: location.provider,
        region: location.region,
        spec: { enabled: true },
        status: { geo: geoOf(location), ipRanges: [] },
      },
    );
  }
}

/**
 * Makes `adminKey` a key of the `controlplane` service account (stored hashed), replacing the admin key of an earlier
 * start. Other keys of the account are left alone.
 */
export async function installAdminKey(records: RecordService, org: string, adminKey: string): Promise<void> {
  await records.store.transaction((tx) => installAdminKeyIn(tx, org, adminKey));
}

/** `installAdminKey` inside a transaction the caller runs (an import installs it in the import's transaction). */
export async function installAdminKeyIn(tx: StoreOps, org: string, adminKey: string): Promise<void> {
  const keyName = keyNameOf(adminKey);
  const now = new Date().toISOString();
  const account = await tx.get(org, "serviceaccount", "", ADMIN_SERVICE_ACCOUNT);
  if (!account) throw new Error(`org ${org} has no ${ADMIN_SERVICE_ACCOUNT} service account`);
  const keys = Array.isArray(account.doc["keys"]) ? account.doc["keys"].filter(isObject) : [];
  const stale = keys.filter((k) => k["description"] === ADMIN_KEY_DESCRIPTION && k["name"] !== keyName);
  for (const key of stale) await tx.deleteCredential(String(key["name"]));
  await tx.putCredential({
    id: keyName,
    org,
    ownerKind: "serviceaccount",
    owner: ADMIN_SERVICE_ACCOUNT,
    hash: sha256Hex(adminKey),
  });
  const kept = keys.filter((k) => !stale.includes(k));
  if (stale.length === 0 && kept.some((k) => k["name"] === keyName)) return;
  if (!kept.some((k) => k["name"] === keyName)) {
    kept.push({ name: keyName, created: now, description: ADMIN_KEY_DESCRIPTION });
  }
  const version = account.version + 1;
  const doc: JsonObject = { ...account.doc, keys: kept, version, lastModified: now };
  await tx.replace({ ...account, version, doc }, account.version);
  await moveStoredBytes(tx, org, storedBytesOf(doc) - storedBytesOf(account.doc));
}

import { randomBytes } from "node:crypto";
import { issuesFromZod } from "../../api/errors.js";
import { serviceAccountKeyCreate } from "../../api/schemas/serviceAccount.js";
import { sha256Hex } from "../auth/authn.js";
import { badRequest, forbidden } from "../errors.js";
import type { JsonObject } from "../store/store.js";
import { builtinMessage, isBuiltin, isObject } from "./common.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindServerRules } from "./rules.js";

function keysOf(record: JsonObject): JsonObject[] {
  const keys = record["keys"];
  return Array.isArray(keys) ? keys.filter(isObject) : [];
}

/** A new key `<keyName>.<secret>`: the name is what the record lists, the secret is shown once. */
export function newServiceAccountKey(): { keyName: string; key: string } {
  const keyName = randomBytes(8).toString("hex");
  return { keyName, key: `${keyName}.${randomBytes(32).toString("base64url")}` };
}

/**
 * Service accounts: keys are added with `-addKey` (the secret is returned once; only its SHA-256 is stored) and
 * revoked with `PATCH {"$drop/keys": [name]}`; a PATCH can never add a key. The builtin `controlplane` account
 * cannot be edited or deleted.
 */
export const serviceAccountRules: KindServerRules = {
  kind: "serviceaccount",
  endpoints: {
    eventlog: eventlogEndpoint,
  },
  quota: { name: "serviceaccounts", perGvc: false },
  actions: {
    addKey: {
      permission: "addKey",
      secretResponse: true,
      async run(ctx) {
        if (isBuiltin(ctx.record)) {
          throw forbidden(
            `Keys of the builtin service account ${String(ctx.record["name"])} are managed by the server`,
          );
        }
        const parsed = serviceAccountKeyCreate().safeParse(ctx.body);
        if (!parsed.success) throw badRequest(issuesFromZod(parsed.error));
        const { keyName, key } = newServiceAccountKey();
        const description = parsed.data.description;
        const name = String(ctx.record["name"]);
        await ctx.tx.putCredential({
          id: keyName,
          org: ctx.org,
          ownerKind: "serviceaccount",
          owner: name,
          hash: sha256Hex(key),
        });
        const entry: JsonObject = { name: keyName, created: ctx.now, description };
        return {
          status: 200,
          body: { name: keyName, key, created: ctx.now, description },
          update: { ...ctx.record, keys: [...keysOf(ctx.record), entry] },
        };
      },
    },
  },
  fields: {
    readOnly: ["origin"],
    immutable: [],
    preserved: [],
    ignoredInPatch: ["keys"],
  },
  lifecycle: {
    initialize: () => ({ origin: "default", keys: [] }),
    afterPatch(previous, next) {
      // Keys are only ever removed by a PATCH (`$drop/keys`); nothing a body says can add or alter one.
      const remaining = new Set(keysOf(next).map((k) => String(k["name"])));
      return { ...next, keys: keysOf(previous).filter((k) => remaining.has(String(k["name"]))) };
    },
    async patched(previous, next, ctx) {
      const remaining = new Set(keysOf(next).map((k) => String(k["name"])));
      for (const key of keysOf(previous)) {
        const name = String(key["name"]);
        if (!remaining.has(name)) await ctx.tx.deleteCredential(name);
      }
    },
    async deleted(record, ctx) {
      await ctx.tx.deleteCredentialsOf(record.org, record.kind, record.name);
    },
  },
  access: {
    editForbidden: (record) =>
      isBuiltin(record) ? builtinMessage("service account", record["name"], "edited") : undefined,
    deleteForbidden: (record) =>
      isBuiltin(record) ? builtinMessage("service account", record["name"], "deleted") : undefined,
  },
};

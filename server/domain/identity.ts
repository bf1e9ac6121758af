import { issuesFromZod, type Issue } from "../../api/errors.js";
import { normalizeLink, parseLink } from "../../api/links.js";
import { identityDefaults, identityIssues, identityProviders, identitySections } from "../../api/schemas/identity.js";
import type { JsonObject, JsonValue } from "../store/store.js";
import { isObject, pick } from "./common.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindServerRules, RuleContext } from "./rules.js";

/** The writable fields of an identity beyond description and tags (types-ts `Identity`). */
const SECTIONS = [
  "aws",
  "gcp",
  "azure",
  "ngs",
  "networkResources",
  "nativeNetworkResources",
  "memcacheAccess",
  "spicedbAccess",
] as const;

/** The value with every `<x>Link` field, at any depth, in full form (`//cloudaccount/a` → `/org/o/cloudaccount/a`). */
function fullLinksIn(org: string, value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map((item) => fullLinksIn(org, item));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    out[key] = key.endsWith("Link") && typeof child === "string" ? normalizeLink(org, child) : fullLinksIn(org, child);
  }
  return out;
}

/**
 * The record's sections with links in full form (the API returns full links: terraform-provider-cpln's flatten keeps
 * the user's form) and the defaults docs.controlplane.com reference/identity states filled in, which
 * terraform-provider-cpln marks Computed with the same values: gcp `scopes` [cloud-platform], an aws trust policy's
 * `Version` 2012-10-17, ngs `subs`, `data` and `payload` -1 (no limit).
 */
function normalized(record: JsonObject, org: string): JsonObject {
  const out: JsonObject = { ...record };
  for (const field of SECTIONS) if (record[field] !== undefined) out[field] = fullLinksIn(org, record[field]);
  return identityDefaults(out) as JsonObject;
}

/**
 * The status types-ts `Status` describes: `objectName` (the identity's name in the docs' example, reference/identity)
 * and, per cloud whose access is set, `{usable, lastError}`. cpln-local reaches no cloud: a section whose cloud
 * account exists (checked on every write) counts as usable.
 */
function statusOf(record: JsonObject): JsonObject {
  const status: JsonObject = { objectName: String(record["name"]) };
  for (const provider of ["aws", "gcp", "azure"] as const) {
    if (isObject(record[provider])) status[provider] = { usable: true };
  }
  return status;
}

/**
 * Each section's cloudAccountLink names a cloud account of the org of the section's provider. The docs say an
 * identity "can reference only one cloud account per provider" and that a cloud account is registered "for each
 * cloud provider" (docs.controlplane.com reference/identity, core/accessing-cloud-resources): an aws section naming a
 * gcp account is refused. Checked when the link changes, so an edit of another field never fails on it.
 */
async function cloudAccountIssues(record: JsonObject, ctx: RuleContext, previous?: JsonObject): Promise<Issue[]> {
  const issues: Issue[] = [];
  for (const provider of identityProviders) {
    const section = record[provider];
    if (!isObject(section) || typeof section["cloudAccountLink"] !== "string") continue;
    const link = section["cloudAccountLink"];
    const before = previous?.[provider];
    if (isObject(before) && before["cloudAccountLink"] === link) continue;
    const path = `${provider}.cloudAccountLink`;
    const parsed = parseLink(link);
    const account =
      parsed?.kind === "cloudaccount" && parsed.name !== undefined && parsed.org === ctx.org
        ? await ctx.tx.get(ctx.org, "cloudaccount", "", parsed.name)
        : undefined;
    if (!account) {
      issues.push({ path, message: `names no cloud account of org ${ctx.org} ('${link}')` });
      continue;
    }
    const actual = String(account.doc["provider"]);
    if (actual !== provider) {
      issues.push({
        path,
        message: `names a cloud account of provider ${actual}; ${provider} access needs provider ${provider}`,
      });
    }
  }
  return issues;
}

/**
 * Identities: every section is optional (an identity with none is valid: types-ts marks all optional); its shape and
 * cross-field rules are checked after every write (`api/schemas/identity.ts`), links are stored in full form, and
 * `status` is the server's. Network resources reach agents and memcache/SpiceDB access names clusters: cpln-local
 * serves neither kind, so those links are checked for form only.
 */
export const identityRules: KindServerRules = {
  kind: "identity",
  endpoints: { eventlog: eventlogEndpoint },
  quota: { name: "identities-per-gvc", perGvc: true },
  fields: {
    readOnly: [],
    immutable: [],
    preserved: ["status", "gvc"],
  },
  lifecycle: {
    initialize(body, ctx) {
      const record = normalized(pick(body, SECTIONS), ctx.org);
      return { ...record, status: statusOf(body) };
    },
    afterPatch(_previous, next, ctx) {
      const record = normalized(next, ctx.org);
      return { ...record, status: statusOf(record) };
    },
    async validate(record, ctx, previous) {
      const parsed = identitySections().safeParse(pick(record, SECTIONS));
      if (!parsed.success) return issuesFromZod(parsed.error);
      const issues = identityIssues(record);
      if (issues.length > 0) return issues;
      return cloudAccountIssues(record, ctx, previous);
    },
  },
};

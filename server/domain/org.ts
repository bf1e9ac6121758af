import { randomBytes } from "node:crypto";
import { issuesFromZod } from "../../api/errors.js";
import { normalizeLink } from "../../api/links.js";
import { ORG_SPEC_DEFAULTS, RETENTION_FIELDS, orgSpec } from "../../api/schemas/org.js";
import type { JsonObject, JsonValue } from "../store/store.js";
import { isObject } from "./common.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindServerRules } from "./rules.js";

/** Every `credentials` link (logging providers, tracing) in full form, at any depth. */
function fullCredentials(org: string, value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map((item) => fullCredentials(org, item));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    out[key] =
      key === "credentials" && typeof child === "string" ? normalizeLink(org, child) : fullCredentials(org, child);
  }
  return out;
}

/**
 * The org's settings as stored: credentials links in full form, and the defaults the real API shows for what is not
 * set (sessionTimeoutSeconds 900, each retention 30 days: terraform-provider-cpln `resource_org.go`, whose Delete
 * writes exactly these back).
 */
export function storedOrgSpec(org: string, spec: JsonValue | undefined): JsonObject {
  const out = (isObject(spec) ? fullCredentials(org, spec) : {}) as JsonObject;
  out["sessionTimeoutSeconds"] ??= ORG_SPEC_DEFAULTS.sessionTimeoutSeconds;
  const observability: JsonObject = isObject(out["observability"]) ? { ...out["observability"] } : {};
  for (const field of RETENTION_FIELDS) observability[field] ??= ORG_SPEC_DEFAULTS.observability[field];
  out["observability"] = observability;
  return out;
}

/** A random endpoint prefix ("All orgs are setup with a random endpoint prefix": docs.controlplane.com reference/org). */
function endpointPrefix(): string {
  return `p${randomBytes(5).toString("hex")}`;
}

/**
 * The org record (`/org/{org}`): seeded, never created or deleted through the API. Description, tags and the whole
 * `spec` (settings) change through PATCH, `$replace/spec` and nested directives included; `status` is the server's.
 */
export const orgRules: KindServerRules = {
  kind: "org",
  endpoints: {
    eventlog: eventlogEndpoint,
  },
  fields: {
    readOnly: [],
    immutable: [],
    preserved: ["status"],
  },
  lifecycle: {
    initialize: (body, ctx) => ({
      spec: storedOrgSpec(ctx.org, body["spec"]),
      status: { active: true, endpointPrefix: endpointPrefix() },
    }),
    afterPatch(previous, next, ctx) {
      return next["spec"] === previous["spec"] ? next : { ...next, spec: storedOrgSpec(ctx.org, next["spec"]) };
    },
    validate(record, _ctx, previous) {
      // Only the spec is checked here: an update that kept the stored one changed nothing checked.
      if (previous !== undefined && record["spec"] === previous["spec"]) return [];
      const parsed = orgSpec().safeParse(record["spec"]);
      return parsed.success ? [] : issuesFromZod(parsed.error, ["spec"]);
    },
  },
};

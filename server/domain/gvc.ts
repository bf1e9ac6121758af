import { randomBytes } from "node:crypto";
import { issuesFromZod, type Issue } from "../../api/errors.js";
import { isKind } from "../../api/kinds/index.js";
import { normalizeLink } from "../../api/links.js";
import { DEFAULT_ENDPOINT_NAMING_FORMAT, gvcSpec, gvcSpecIssues, pullSecretTypes } from "../../api/schemas/gvc.js";
import { conflict } from "../errors.js";
import type { JsonObject, JsonValue, StoreOps } from "../store/store.js";
import { fullLinks, isObject } from "./common.js";
import { createQuota, quotaDefinitions } from "./quota.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindServerRules } from "./rules.js";

/** The kinds that live inside a gvc: a gvc holding any of them cannot be deleted (409 InUse). */
const GVC_CHILDREN = ["volumeset", "workload", "identity"] as const;

const ALIAS_LENGTH = 12;
const ALIAS_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** A random alias: lowercase letters and digits, starting with a letter (it is a DNS label). */
function randomAlias(): string {
  const bytes = randomBytes(ALIAS_LENGTH);
  let alias = ALIAS_ALPHABET[(bytes[0] as number) % 26] as string;
  for (let i = 1; i < ALIAS_LENGTH; i++) alias += ALIAS_ALPHABET[(bytes[i] as number) % ALIAS_ALPHABET.length];
  return alias;
}

/** An alias no other gvc of the org has. */
async function uniqueAlias(tx: StoreOps, org: string): Promise<string> {
  const taken = new Set((await tx.list(org, "gvc")).map((r) => r.doc["alias"]));
  for (;;) {
    const alias = randomAlias();
    if (!taken.has(alias)) return alias;
  }
}

function linkAt(org: string, value: JsonValue | undefined): JsonValue | undefined {
  return typeof value === "string" ? normalizeLink(org, value) : value;
}

/** Copies `object` with `field` put through `map` (when present). */
function withField(
  object: JsonValue | undefined,
  field: string,
  map: (v: JsonValue | undefined) => JsonValue | undefined,
) {
  if (!isObject(object) || object[field] === undefined) return object;
  return { ...object, [field]: map(object[field]) as JsonValue };
}

/**
 * The spec as stored: every link in full form (`//location/x` → `/org/o/location/x`, as the API returns them:
 * terraform-provider-cpln strips `/org/<org>/location/` from what it reads back) and `endpointNamingFormat` filled.
 */
export function storedGvcSpec(org: string, spec: JsonValue | undefined): JsonObject {
  const out: JsonObject = isObject(spec) ? { ...spec } : {};
  const links = (v: JsonValue | undefined) => fullLinks(org, v);
  const link = (v: JsonValue | undefined) => linkAt(org, v);
  out["staticPlacement"] = withField(out["staticPlacement"], "locationLinks", links) as JsonValue;
  out["staticPlacement"] = withField(out["staticPlacement"], "locationOptions", (options) =>
    Array.isArray(options) ? options.map((o) => withField(o, "locationLink", link) as JsonValue) : options,
  ) as JsonValue;
  if (out["staticPlacement"] === undefined) delete out["staticPlacement"];
  if (out["pullSecretLinks"] !== undefined) out["pullSecretLinks"] = links(out["pullSecretLinks"]) as JsonValue;
  if (out["aliasWorkloadLink"] !== undefined) out["aliasWorkloadLink"] = link(out["aliasWorkloadLink"]) as JsonValue;
  if (isObject(out["loadBalancer"])) out["loadBalancer"] = withField(out["loadBalancer"], "ipSet", link) as JsonValue;
  if (isObject(out["keda"])) {
    out["keda"] = withField(withField(out["keda"], "identityLink", link), "secrets", links) as JsonValue;
  }
  if (isObject(out["tracing"])) {
    const credentials = (block: JsonValue | undefined) => withField(block, "credentials", link);
    let tracing = withField(out["tracing"], "lightstep", credentials);
    tracing = withField(tracing, "provider", (p) => withField(p, "lightstep", credentials));
    out["tracing"] = tracing as JsonValue;
  }
  out["endpointNamingFormat"] ??= DEFAULT_ENDPOINT_NAMING_FORMAT;
  return out;
}

function nameOf(link: string): string {
  return link.slice(link.lastIndexOf("/") + 1);
}

/**
 * Pull secrets must be secrets of the org of type docker, ecr or gcp (docs.controlplane.com reference/gvc "Pull
 * Secrets": "Only the Docker, Amazon ECR, and GCP secret types are supported"). Checked only where the org serves
 * the `secret` kind (`serves`), and only for links the update added.
 */
export async function pullSecretIssues(
  tx: Pick<StoreOps, "get">,
  org: string,
  links: readonly string[],
  serves: boolean,
  before: readonly string[] = [],
): Promise<Issue[]> {
  if (!serves) return [];
  const issues: Issue[] = [];
  for (const [index, link] of links.entries()) {
    if (before.includes(link)) continue;
    const path = `spec.pullSecretLinks.${index}`;
    const secret = await tx.get(org, "secret", "", nameOf(link));
    if (secret === undefined) {
      issues.push({ path, message: `secret '${nameOf(link)}' does not exist in org '${org}'` });
      continue;
    }
    const type = secret.doc["type"];
    if (!(pullSecretTypes as readonly unknown[]).includes(type)) {
      issues.push({
        path,
        message: `is a secret of type '${String(type)}': a pull secret is of type ${pullSecretTypes.join(", ")}`,
      });
    }
  }
  return issues;
}

function stringsAt(spec: JsonValue | undefined, ...path: string[]): string[] {
  let value: JsonValue | undefined = spec;
  for (const key of path) value = isObject(value) ? value[key] : undefined;
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/**
 * GVCs: the whole spec of the real API, links stored in full form, `endpointNamingFormat` defaulting to `org`, a
 * server-given `alias`; locations must exist. Creating one adds its per-gvc quotas; deleting one removes them, and
 * needs the gvc to be empty.
 */
export const gvcRules: KindServerRules = {
  kind: "gvc",
  endpoints: {
    eventlog: eventlogEndpoint,
  },
  quota: { name: "gvcs", perGvc: false },
  fields: {
    readOnly: ["alias"],
    immutable: [],
    preserved: ["status"],
    linkArrays: ["locationLinks", "locationOptions", "pullSecretLinks", "secrets"],
  },
  lifecycle: {
    async initialize(body, ctx) {
      return { alias: await uniqueAlias(ctx.tx, ctx.org), spec: storedGvcSpec(ctx.org, body["spec"]), status: {} };
    },
    afterPatch(previous, next, ctx) {
      // A spec the patch left alone is the stored one: kept as the same value (nothing re-checks it).
      return next["spec"] === previous["spec"] ? next : { ...next, spec: storedGvcSpec(ctx.org, next["spec"]) };
    },
    async validate(record, ctx, previous) {
      if (previous !== undefined && record["spec"] === previous["spec"]) return [];
      const parsed = gvcSpec().safeParse(record["spec"]);
      if (!parsed.success) return issuesFromZod(parsed.error, ["spec"]);
      const issues = gvcSpecIssues(parsed.data, ctx.org, String(record["name"]));
      const spec = record["spec"];
      const old = previous?.["spec"];
      const locationsBefore = stringsAt(old, "staticPlacement", "locationLinks");
      for (const [index, link] of stringsAt(spec, "staticPlacement", "locationLinks").entries()) {
        if (locationsBefore.includes(link)) continue;
        const linked = /^\/org\/([^/]+)\/location\/([^/]+)$/.exec(link);
        if (linked !== null && (await ctx.tx.get(ctx.org, "location", "", linked[2] as string)) === undefined) {
          issues.push({
            path: `spec.staticPlacement.locationLinks.${index}`,
            message: `location '${linked[2] as string}' does not exist in org '${ctx.org}'`,
          });
        }
      }
      const serves = isKind("secret");
      issues.push(
        ...(await pullSecretIssues(
          ctx.tx,
          ctx.org,
          stringsAt(spec, "pullSecretLinks"),
          serves,
          stringsAt(old, "pullSecretLinks"),
        )),
      );
      return issues;
    },
    async created(record, ctx) {
      for (const definition of quotaDefinitions) {
        if (definition.perGvc) await createQuota(ctx.tx, ctx.org, definition, record.name, ctx.now);
      }
    },
    async deleting(record, ctx) {
      for (const kind of GVC_CHILDREN) {
        const count = await ctx.tx.count(ctx.org, kind, record.name);
        if (count > 0) throw conflict("InUse", `gvc ${record.name} still holds ${count} ${kind}(s); delete them first`);
      }
    },
    async deleted(record, ctx) {
      for (const definition of quotaDefinitions) {
        if (definition.perGvc) await ctx.tx.delete(ctx.org, "quota", record.name, definition.name);
      }
    },
  },
};

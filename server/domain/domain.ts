import type { Issue } from "../../api/errors.js";
import type { JsonObject } from "../store/store.js";
import { isObject, pick } from "./common.js";
import { missingTargets, normalizedSpec, specIssues } from "./domainSpec.js";
import { domainStatus } from "./domainStatus.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindServerRules, RuleContext } from "./rules.js";

const tagsOf = (record: JsonObject): JsonObject => (isObject(record["tags"]) ? record["tags"] : {});
const specOf = (record: JsonObject): JsonObject => (isObject(record["spec"]) ? record["spec"] : {});

/** The record with its status derived from its spec, its tags and the store (gvc alias and locations, the org's id). */
async function withStatus(record: JsonObject, ctx: RuleContext): Promise<JsonObject> {
  const status = await domainStatus(ctx.org, String(record["name"]), specOf(record), tagsOf(record), ctx.tx);
  return { ...record, status };
}

/**
 * Domains (org-scoped, named by their DNS name): the spec is stored with the server's defaults (see `normalizedSpec`),
 * checked against the rules the real API states (`specIssues`) and the objects it links (`missingTargets`); the
 * status is emulated (`domainStatus`) and follows every write.
 */
export const domainRules: KindServerRules = {
  kind: "domain",
  endpoints: {
    eventlog: eventlogEndpoint,
  },
  quota: { name: "domains", perGvc: false },
  fields: {
    readOnly: [],
    immutable: [],
    preserved: ["status"],
    // A PUT without a spec gets the spec a create without one gets (the defaults of `normalizedSpec`).
    omittedDefaults: { spec: {} },
  },
  lifecycle: {
    async initialize(body, ctx) {
      const record: JsonObject = {
        ...pick(body, ["name", "tags"]),
        spec: normalizedSpec(ctx.org, isObject(body["spec"]) ? body["spec"] : undefined),
      };
      const { status } = await withStatus(record, ctx);
      return { spec: record["spec"] as JsonObject, status: status as JsonObject };
    },
    async afterPatch(previous, next, ctx) {
      const spec = next["spec"];
      // A spec the patch left alone is the stored one, defaults in place: kept as the same value.
      const normalized =
        spec === previous["spec"]
          ? next
          : { ...next, spec: normalizedSpec(ctx.org, isObject(spec) ? spec : undefined) };
      return withStatus(normalized, ctx);
    },
    async validate(record, ctx, previous) {
      // Only the spec and the tags (the route limit's) are read: an update that kept both changed nothing checked here.
      if (previous !== undefined && record["spec"] === previous["spec"] && record["tags"] === previous["tags"])
        return [];
      const spec = specOf(record);
      const issues: Issue[] = specIssues(String(record["name"]), spec, tagsOf(record));
      if (issues.length > 0) return issues;
      return missingTargets(ctx.org, spec, ctx.tx);
    },
  },
};

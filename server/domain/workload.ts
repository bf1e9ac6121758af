import { issuesFromZod, type Issue } from "../../api/errors.js";
import { isKind } from "../../api/kinds/index.js";
import { workloadSpec } from "../../api/schemas/workload.js";
import { workloadSpecDefaults, workloadSpecIssues } from "../../api/schemas/workloadRules.js";
import { IDENTITY_LINK_PATTERN } from "../../api/schemas/workloadSpec.js";
import type { JsonObject } from "../store/store.js";
import { isObject } from "./common.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindServerRules, RuleContext } from "./rules.js";
import { mountedVolumeSets, refreshVolumeSetUse } from "./volumeSetUse.js";
import {
  deploymentEndpoint,
  deploymentsEndpoint,
  gvcFacts,
  gvcFactsOfStatus,
  workloadStatusOf,
} from "./workloadStatus.js";

/** The identity link in full form (`/org/O/gvc/G/identity/N`), as the API stores links; other text unchanged. */
function fullIdentityLink(org: string, gvc: string, link: string): string {
  const m = IDENTITY_LINK_PATTERN.exec(link);
  if (!m) return link;
  if (m[1] !== undefined) return `/org/${org}/gvc/${gvc}/identity/${m[1]}`;
  if (m[2] !== undefined) return `/org/${org}/gvc/${m[2]}/identity/${m[3] ?? ""}`;
  return link;
}

function withDefaults(spec: JsonObject, ctx: RuleContext): JsonObject {
  const filled = workloadSpecDefaults(spec) as JsonObject;
  const identity = filled["identityLink"];
  if (typeof identity === "string") filled["identityLink"] = fullIdentityLink(ctx.org, ctx.gvc ?? "", identity);
  return filled;
}

/** Checks the objects a spec names: its identity, volume sets, secrets and locations (links of the same org). */
async function linkIssues(record: JsonObject, spec: JsonObject, ctx: RuleContext): Promise<Issue[]> {
  const issues: Issue[] = [];
  const gvc = ctx.gvc ?? "";
  const identity = spec["identityLink"];
  if (typeof identity === "string") {
    const m = IDENTITY_LINK_PATTERN.exec(identity);
    const path = "spec.identityLink";
    if (!m)
      issues.push({ path, message: "must be an identity link: //identity/NAME or /org/ORG/gvc/GVC/identity/NAME" });
    else {
      const inGvc = m[5] ?? m[2] ?? gvc;
      const name = m[6] ?? m[3] ?? m[1] ?? "";
      if (inGvc !== gvc) issues.push({ path, message: `must name an identity of the workload's gvc (${gvc})` });
      else if (isKind("identity") && !(await ctx.tx.get(ctx.org, "identity", gvc, name))) {
        issues.push({ path, message: `names no identity ${name} in gvc ${gvc}` });
      }
    }
  }
  const containers = Array.isArray(spec["containers"]) ? spec["containers"].filter(isObject) : [];
  let others: JsonObject[] | undefined;
  for (const [i, c] of containers.entries()) {
    const volumes = Array.isArray(c["volumes"]) ? c["volumes"].filter(isObject) : [];
    for (const [j, v] of volumes.entries()) {
      const path = `spec.containers.${i}.volumes.${j}.uri`;
      const m = /^cpln:\/\/(volumeset|secret)\/([a-z][-a-z0-9]*)$/.exec(String(v["uri"]));
      if (!m) continue;
      const name = m[2] as string;
      if (m[1] === "secret") {
        if (isKind("secret") && !(await ctx.tx.get(ctx.org, "secret", "", name))) {
          issues.push({ path, message: `names no secret ${name}` });
        }
        continue;
      }
      const set = await ctx.tx.get(ctx.org, "volumeset", gvc, name);
      if (!set) {
        issues.push({ path, message: `names no volume set ${name} in gvc ${gvc}` });
        continue;
      }
      const setSpec = isObject(set.doc["spec"]) ? set.doc["spec"] : {};
      if (setSpec["fileSystemType"] === "shared") continue;
      if (spec["type"] !== "stateful") {
        issues.push({
          path,
          message: `mounts a volume set only a stateful workload may mount (${name} is not shared)`,
        });
        continue;
      }
      others ??= (await ctx.tx.list(ctx.org, "workload", gvc))
        .filter((w) => w.name !== record["name"])
        .map((w) => w.doc);
      const user = others.find((w) => JSON.stringify(w["spec"]).includes(`"cpln://volumeset/${name}"`));
      if (user)
        issues.push({ path, message: `mounts volume set ${name} already mounted by workload ${String(user["name"])}` });
    }
  }
  const local = Array.isArray(spec["localOptions"]) ? spec["localOptions"].filter(isObject) : [];
  for (const [i, o] of local.entries()) {
    const location = String(o["location"]);
    if (!(await ctx.tx.get(ctx.org, "location", "", location))) {
      issues.push({ path: `spec.localOptions.${i}.location`, message: `names no location ${location}` });
    }
  }
  return issues;
}

/**
 * Workloads: the type is fixed at create; the spec gets the defaults the API fills (`workloadSpecDefaults`), and the
 * status is emulated (`workloadStatus.ts`). Each counts against the gvc's `workloads-per-gvc` quota, and a gvc holding
 * one cannot be deleted (`gvc.ts`).
 */
export const workloadRules: KindServerRules = {
  kind: "workload",
  endpoints: {
    eventlog: eventlogEndpoint,
    deployments: deploymentsEndpoint,
    deployment: deploymentEndpoint,
  },
  quota: { name: "workloads-per-gvc", perGvc: true },
  fields: {
    readOnly: [],
    immutable: [],
    preserved: ["status", "gvc"],
    // The official CLI reads a workload's deployments from this link (`cpln workload get`: `insertReadyState`).
    links: (self) => [{ rel: "deployment", href: `${self}/deployment` }],
  },
  lifecycle: {
    async initialize(body, ctx): Promise<JsonObject> {
      const gvc = ctx.gvc === undefined ? undefined : await ctx.tx.get(ctx.org, "gvc", "", ctx.gvc);
      const spec = withDefaults(body["spec"] as JsonObject, ctx);
      return { spec, status: workloadStatusOf(String(body["name"]), spec, gvcFacts(gvc?.doc, ctx.gvc ?? ""), ctx.now) };
    },
    afterPatch(previous, next, ctx) {
      const spec = next["spec"];
      // A spec the patch left alone is the stored one, defaults and status in place: kept as the very same values.
      if (!isObject(spec) || spec === previous["spec"]) return next;
      const filled = withDefaults(spec, ctx);
      const before = isObject(previous["status"]) ? previous["status"] : undefined;
      const gvc = gvcFactsOfStatus(before, ctx.gvc ?? "");
      return { ...next, spec: filled, status: workloadStatusOf(String(next["name"]), filled, gvc, ctx.now, before) };
    },
    // The volume sets a workload mounts, and those it stopped mounting, report who uses them (`volumeSetUse.ts`).
    async created(record, ctx) {
      await refreshVolumeSetUse(ctx.tx, ctx.org, record.scope, mountedVolumeSets(record.doc["spec"]));
    },
    async patched(previous, next, ctx) {
      if (next["spec"] === previous["spec"]) return;
      const names = [...mountedVolumeSets(previous["spec"]), ...mountedVolumeSets(next["spec"])];
      await refreshVolumeSetUse(ctx.tx, ctx.org, ctx.gvc ?? "", names);
    },
    async deleted(record, ctx) {
      await refreshVolumeSetUse(ctx.tx, ctx.org, record.scope, mountedVolumeSets(record.doc["spec"]));
    },
    async validate(record, ctx, previous) {
      // The spec and the tags (the grace-period tag) are read: an update that kept both changed nothing checked here.
      if (previous !== undefined && record["spec"] === previous["spec"] && record["tags"] === previous["tags"])
        return [];
      const parsed = workloadSpec().safeParse(record["spec"]);
      if (!parsed.success) return issuesFromZod(parsed.error, ["spec"]);
      const spec = record["spec"] as JsonObject;
      const issues = workloadSpecIssues(spec, isObject(record["tags"]) ? record["tags"] : {});
      return issues.length > 0 ? issues : linkIssues(record, spec, ctx);
    },
  },
};

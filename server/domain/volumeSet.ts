import { issuesFromZod, type Issue } from "../../api/errors.js";
import { volumeSetSpec, volumeSetSpecDefaults, volumeSetSpecIssues } from "../../api/schemas/volumeSet.js";
import type { JsonObject } from "../store/store.js";
import { isObject } from "./common.js";
import type { KindServerRules } from "./rules.js";

function withDefaults(spec: JsonObject): JsonObject {
  return volumeSetSpecDefaults(spec as { performanceClass?: string; fileSystemType?: string }) as JsonObject;
}

/**
 * Volume sets: performanceClass and fileSystemType are fixed at create; fileSystemType defaults to ext4 and a shared
 * file system implies the shared class; no other spec default is materialized (snapshots, autoscaling and
 * mountOptions stay absent unless sent).
 */
export const volumeSetRules: KindServerRules = {
  kind: "volumeset",
  readOnly: [],
  immutable: ["spec.performanceClass", "spec.fileSystemType"],
  preserved: ["status", "gvc"],
  quota: { name: "volumesets-per-gvc", perGvc: true },
  async initialize(body, ctx): Promise<JsonObject> {
    const gvc = ctx.gvc === undefined ? undefined : await ctx.tx.get(ctx.org, "gvc", "", ctx.gvc);
    return {
      spec: withDefaults(body["spec"] as JsonObject),
      status: gvc ? { parentId: gvc.id } : ({} as JsonObject),
    };
  },
  afterPatch(_previous, next) {
    const spec = next["spec"];
    return isObject(spec) ? { ...next, spec: withDefaults(spec) } : next;
  },
  validate(record) {
    const parsed = volumeSetSpec().safeParse(record["spec"]);
    if (!parsed.success) return issuesFromZod(parsed.error, ["spec"]);
    const issues: Issue[] = volumeSetSpecIssues(parsed.data);
    return issues;
  },
};

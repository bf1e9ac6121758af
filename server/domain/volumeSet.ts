import { issuesFromZod, type Issue } from "../../api/errors.js";
import { volumeSetSpec } from "../../api/schemas/volumeSet.js";
import { volumeSetSpecDefaults, volumeSetSpecIssues } from "../../api/schemas/volumeSetRules.js";
import type { JsonObject } from "../store/store.js";
import { isObject } from "./common.js";
import { eventlogEndpoint } from "./eventlog.js";
import { randomUUID } from "node:crypto";
import type { KindEndpoint, KindServerRules } from "./rules.js";
import { volumeSetUseAtCreate } from "./volumeSetUse.js";

/**
 * `POST .../volumeset/{name}/-command` (the body is checked against the contract first; the permission is
 * `exec.<type>` of the volume set's catalog): answers 201 with the new command. cpln-local runs no volumes, so the
 * command stays `pending` and is not kept.
 */
const commandEndpoint: KindEndpoint = {
  permission: (body) => `exec.${String(body["type"])}`,
  run(ctx) {
    const id = randomUUID();
    const volumeSet = ctx.self.slice(0, -"/-command".length);
    return {
      id,
      kind: "command",
      version: 1,
      created: ctx.now,
      lastModified: ctx.now,
      // No self link: the command is not kept, so no path serves it.
      links: [{ rel: "volumeset", href: volumeSet }],
      tags: {},
      type: ctx.body["type"] as string,
      lifecycleStage: "pending",
      spec: ctx.body["spec"] as JsonObject,
      status: {},
    };
  },
};

function withDefaults(spec: JsonObject): JsonObject {
  return volumeSetSpecDefaults(spec as { performanceClass?: string; fileSystemType?: string }) as JsonObject;
}

/**
 * Volume sets: performanceClass and fileSystemType are fixed at create; fileSystemType defaults to ext4 and a shared
 * file system implies the shared class; no other spec default is materialized (snapshots, autoscaling and
 * mountOptions stay absent unless sent). Its status says which workloads mount it (`volumeSetUse.ts`).
 */
export const volumeSetRules: KindServerRules = {
  kind: "volumeset",
  endpoints: {
    eventlog: eventlogEndpoint,
    command: commandEndpoint,
  },
  quota: { name: "volumesets-per-gvc", perGvc: true },
  fields: {
    readOnly: [],
    immutable: ["spec.performanceClass", "spec.fileSystemType"],
    preserved: ["status", "gvc"],
  },
  lifecycle: {
    async initialize(body, ctx): Promise<JsonObject> {
      const gvc = ctx.gvc === undefined ? undefined : await ctx.tx.get(ctx.org, "gvc", "", ctx.gvc);
      const spec = withDefaults(body["spec"] as JsonObject);
      const use =
        ctx.gvc === undefined
          ? {}
          : await volumeSetUseAtCreate(
              ctx.tx,
              ctx.org,
              ctx.gvc,
              String(body["name"]),
              spec["fileSystemType"] === "shared",
            );
      return { spec, status: gvc ? { parentId: gvc.id, ...use } : use };
    },
    afterPatch(previous, next) {
      const spec = next["spec"];
      // A spec the patch left alone is the stored one, defaults in place: kept as the same value (nothing re-checks it).
      return isObject(spec) && spec !== previous["spec"] ? { ...next, spec: withDefaults(spec) } : next;
    },
    validate(record, _ctx, previous) {
      // Only the spec is read: an update that kept the stored one changed nothing checked here.
      if (previous !== undefined && record["spec"] === previous["spec"]) return [];
      const parsed = volumeSetSpec().safeParse(record["spec"]);
      if (!parsed.success) return issuesFromZod(parsed.error, ["spec"]);
      const issues: Issue[] = volumeSetSpecIssues(parsed.data);
      return issues;
    },
  },
};

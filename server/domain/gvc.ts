import { conflict } from "../errors.js";
import { pick } from "./common.js";
import { createQuota, quotaDefinitions } from "./quota.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindServerRules } from "./rules.js";

/** The kinds that live inside a gvc: a gvc holding any of them cannot be deleted (409 InUse). */
const GVC_CHILDREN = ["volumeset", "identity"] as const;

/** GVCs: creating one adds its per-gvc quotas; deleting one removes them, and needs the gvc to be empty. */
export const gvcRules: KindServerRules = {
  kind: "gvc",
  endpoints: {
    eventlog: eventlogEndpoint,
  },
  readOnly: ["alias"],
  immutable: [],
  preserved: ["status"],
  quota: { name: "gvcs", perGvc: false },
  initialize: (body) => ({ ...pick(body, ["spec"]), status: {} }),
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
};

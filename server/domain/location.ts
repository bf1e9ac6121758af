import { selfLink } from "../../api/links.js";
import { conflict } from "../errors.js";
import type { JsonObject } from "../store/store.js";
import { isObject } from "./common.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindServerRules } from "./rules.js";

/** Tags the server sets on builtin locations; they survive `$replace/tags` and `tag: null`. */
export const SERVER_LOCATION_TAGS = ["cpln/city", "cpln/country", "cpln/continent", "cpln/state"] as const;

/**
 * Locations: builtin ones (cloud regions) are seeded and can be neither created nor deleted; BYOK ones are created
 * with provider `byok` (origin `custom`, region = name). provider, region and origin are read-only.
 */
export const locationRules: KindServerRules = {
  kind: "location",
  endpoints: {
    eventlog: eventlogEndpoint,
  },
  quota: { name: "locations", perGvc: false },
  fields: {
    readOnly: ["origin", "provider", "region"],
    immutable: [],
    preserved: ["status"],
    serverTags: SERVER_LOCATION_TAGS,
    // A location created or replaced without `spec` is enabled.
    omittedDefaults: { spec: { enabled: true } },
  },
  lifecycle: {
    initialize(body, ctx) {
      const spec = isObject(body["spec"]) ? body["spec"] : {};
      void ctx;
      return {
        origin: "custom",
        provider: "byok",
        region: String(body["name"]),
        spec: { enabled: spec["enabled"] ?? true },
        status: {},
      };
    },
    afterPatch(previous, next) {
      const before = isObject(previous["tags"]) ? previous["tags"] : {};
      const kept: JsonObject = {};
      for (const key of SERVER_LOCATION_TAGS) if (before[key] !== undefined) kept[key] = before[key];
      if (Object.keys(kept).length === 0) return next;
      const after = isObject(next["tags"]) ? next["tags"] : {};
      return { ...next, tags: { ...after, ...kept } };
    },
    // A gvc's location links must name locations of the org (server/domain/gvc.ts): one still placed cannot go.
    async deleting(record, ctx) {
      const link = selfLink(ctx.org, "location", record.name);
      for (const gvc of await ctx.tx.list(ctx.org, "gvc")) {
        const placement = isObject(gvc.doc["spec"]) ? gvc.doc["spec"]["staticPlacement"] : undefined;
        const links = isObject(placement) ? placement["locationLinks"] : undefined;
        if (Array.isArray(links) && links.includes(link)) {
          throw conflict("InUse", `location ${record.name} is a location of gvc ${gvc.name}; remove it there first`);
        }
      }
    },
  },
  access: {
    deleteForbidden(record) {
      return record["origin"] === "builtin"
        ? `The builtin location ${String(record["name"])} cannot be deleted (only BYOK locations can; disable it instead)`
        : undefined;
    },
  },
};

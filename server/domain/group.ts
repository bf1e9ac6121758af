import type { JsonObject, JsonValue } from "../store/store.js";
import { builtinMessage, fullLinks, isBuiltin, pick } from "./common.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindServerRules } from "./rules.js";

/** Groups: members are stored as full links; builtin groups keep editable membership but cannot be deleted. */
export const groupRules: KindServerRules = {
  kind: "group",
  endpoints: {
    eventlog: eventlogEndpoint,
  },
  quota: { name: "groups", perGvc: false },
  fields: {
    readOnly: ["origin"],
    immutable: [],
    preserved: [],
    queryFields: ["memberQuery"],
    linkArrays: ["memberLinks"],
  },
  lifecycle: {
    initialize(body, ctx) {
      const fields: JsonObject = {
        origin: "default",
        ...pick(body, ["memberLinks", "memberQuery", "identityMatcher"]),
      };
      if (fields["memberLinks"] !== undefined)
        fields["memberLinks"] = fullLinks(ctx.org, fields["memberLinks"]) as JsonValue;
      return fields;
    },
    afterPatch(_previous, next, ctx) {
      if (next["memberLinks"] === undefined) return next;
      return { ...next, memberLinks: fullLinks(ctx.org, next["memberLinks"]) as JsonValue };
    },
  },
  access: {
    deleteForbidden: (record) => (isBuiltin(record) ? builtinMessage("group", record["name"], "deleted") : undefined),
  },
};

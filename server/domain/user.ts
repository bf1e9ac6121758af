import { randomUUID } from "node:crypto";
import { normalizeLink, parseLink } from "../../api/links.js";
import { stateConflict } from "../errors.js";
import type { JsonObject } from "../store/store.js";
import { pick } from "./common.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindEndpoint, KindServerRules } from "./rules.js";

/**
 * `POST /org/{org}/user/-invite` (the body is checked against the contract first): an invitation id per email, or
 * an error for an email that is already a user of the org. cpln-local sends no email and keeps no invitation.
 */
const inviteEndpoint: KindEndpoint = {
  permission: "invite",
  async run(ctx) {
    const emails = (ctx.body["emails"] as string[]).map((e) => e.toLowerCase());
    const groupLink = ctx.body["groupLink"];
    if (typeof groupLink === "string") {
      const parsed = parseLink(normalizeLink(ctx.org, groupLink));
      const group =
        parsed?.kind === "group" && parsed.org === ctx.org && parsed.name !== undefined
          ? await ctx.tx.get(ctx.org, "group", "", parsed.name)
          : undefined;
      // A well-formed link (the schema checked it) to no group of this org: valid in itself, ruled out by the org's
      // stored groups (409).
      if (!group) throw stateConflict([{ path: "groupLink", message: `names no group of org ${ctx.org}` }]);
    }
    const invitations: JsonObject = {};
    const errors: JsonObject = {};
    for (const email of new Set(emails)) {
      if (await ctx.tx.get(ctx.org, "user", "", email)) {
        errors[email] = {
          status: 409,
          code: "AlreadyExists",
          message: `${email} is already a user of org ${ctx.org}`,
          id: randomUUID(),
        };
      } else {
        invitations[email] = randomUUID();
      }
    }
    return { invitations, errors };
  },
};

/**
 * Users are named by their email (the JWT `email` claim names the same principal). The documented catalog has no
 * `create`: users join an org by invitation, so adding one needs `invite`. An invitation carries only emails (and a
 * group, types-ts `InviteRequest`); a user's tags change through `cpln user update`, a PATCH needing `edit`
 * ("Modify existing users", docs.controlplane.com reference/user). So a create that sets anything besides the email
 * needs `edit` too: otherwise `invite` alone would choose the tags a group's memberQuery selects (issue 39).
 */
export const userRules: KindServerRules = {
  kind: "user",
  endpoints: {
    eventlog: eventlogEndpoint,
    invite: inviteEndpoint,
  },
  // `name` is the email (set by the server from it).
  quota: { name: "users", perGvc: false },
  createPermission: "invite",
  fields: {
    readOnly: ["email", "idp", "name"],
    immutable: [],
    preserved: [],
  },
  lifecycle: {
    initialize: (body) => pick(body, ["email", "idp"]),
  },
  access: {
    createAlone: { fields: ["email"], permission: "edit" },
  },
};

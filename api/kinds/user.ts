import { catalogOf } from "./catalogs.js";
import { user, userCreate, userInvite, userInviteResponse, userPatch } from "../schemas/user.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindDescriptor } from "./types.js";

/** The contract of kind `user`. */
export const userKind = {
  kind: "user",
  scope: "org",
  permissions: catalogOf("user"),
  queryProperties: ["email", "idp"],
  rels: [],
  endpoints: {
    eventlog: eventlogEndpoint,
    invite: {
      method: "POST",
      on: "collection",
      summary: "Invite users to the org by email (what `cpln user invite` sends)",
      description:
        "Needs `invite` on users. Each email gets an invitation id, or an error when a user with that email is " +
        "already in the org; cpln-local sends no email and keeps no invitation.",
      request: { name: "UserInvite", schema: () => userInvite() },
      response: {
        name: "UserInviteResponse",
        description: "Invitations",
        status: 200,
        schema: () => userInviteResponse(),
      },
      rules: [
        {
          rule: "groupLink, when given, names an existing group of the org (409 otherwise: a conflict with the org's groups).",
          issue: /^names no group of org .*$/,
        },
      ],
      errors: [409],
    },
  },
  schemas: {
    record: () => user(),
    create: () => userCreate(),
    patch: () => userPatch(),
  },
  patchRules: { arrays: {} },
  addressing: { field: "email", by: "name" },
  examples: {
    create: (name) => ({ email: `${name}@example.com` }),
    patch: (marker) => ({ description: `patched ${marker}`, tags: { example: marker } }),
  },
} satisfies KindDescriptor<"user">;

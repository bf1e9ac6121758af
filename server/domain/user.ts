import { pick } from "./common.js";
import type { KindServerRules } from "./rules.js";

/**
 * Users are named by their email (the JWT `email` claim names the same principal). The documented catalog has no
 * `create`: users join an org by invitation, so adding one needs `invite`.
 */
export const userRules: KindServerRules = {
  kind: "user",
  // `name` is the email (set by the server from it).
  readOnly: ["email", "idp", "name"],
  immutable: [],
  preserved: [],
  createPermission: "invite",
  initialize: (body) => pick(body, ["email", "idp"]),
};

import { pick } from "./common.js";
import type { KindServerRules } from "./rules.js";

/**
 * Users are named by their email (the JWT `email` claim names the same principal). The documented catalog has no
 * `create`: users join an org by invitation, so adding one needs `invite`.
 */
export const userRules: KindServerRules = {
  kind: "user",
  readOnly: ["email", "idp"],
  immutable: [],
  preserved: [],
  createPermission: "invite",
  initialize: (body) => pick(body, ["email", "idp"]),
};

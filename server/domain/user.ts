import { pick } from "./common.js";
import type { KindServerRules } from "./rules.js";

/** Users are named by their email (the JWT `email` claim names the same principal). */
export const userRules: KindServerRules = {
  kind: "user",
  readOnly: ["email", "idp"],
  immutable: [],
  preserved: [],
  initialize: (body) => pick(body, ["email", "idp"]),
};

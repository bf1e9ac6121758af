import { user, userCreate, userPatch } from "../../api/schemas/user.js";
import { pick } from "./common.js";
import type { KindRules } from "./rules.js";

/** Users are named by their email (the JWT `email` claim names the same principal). */
export const userRules: KindRules = {
  kind: "user",
  createBody: userCreate,
  patchBody: userPatch,
  record: user,
  nameField: "email",
  readOnly: ["email", "idp"],
  immutable: [],
  preserved: [],
  initialize: (body) => pick(body, ["email", "idp"]),
};

import { echoOnly } from "./jsonRules.js";
import { z } from "zod";
import { lazy } from "../lazy.js";
import {
  description,
  describedTaggedPatchFields,
  name,
  object,
  patchObject,
  readOnlyPatchShape,
  recordShape,
  tags,
  type ObjectMode,
} from "./common.js";
import { queryDocument, queryDocumentOutput, queryDocumentPatch } from "./query.js";

export const groupOrigins = ["default", "builtin", "synthetic"] as const;
export const identityMatcherLanguages = ["jmespath", "javascript"] as const;

const MEMBER_LINK_PATTERN = /^(\/\/|\/org\/[^/]+\/)(user|serviceaccount)\/[^/]+$/;

function memberLink() {
  return z
    .string()
    .regex(MEMBER_LINK_PATTERN, "must be a link to a user or service account, e.g. //user/me@example.com")
    .describe("Member: //user/<email>, //serviceaccount/<name>, or the full /org/<org>/... form.");
}

function identityMatcher(mode: ObjectMode) {
  return object(mode, {
    expression: z.string().min(1).describe("Expression evaluated against a user's identity-provider claims."),
    language: z.enum(identityMatcherLanguages).optional().describe("jmespath (default) or javascript."),
  }).describe("Adds users whose identity matches the expression.");
}

export const group = lazy(() =>
  z
    .looseObject({
      ...recordShape("group"),
      origin: z.enum(groupOrigins).describe("builtin (superusers, viewers), default, or synthetic."),
      memberLinks: z.array(z.string()).optional().describe("Members (full links)."),
      memberQuery: queryDocumentOutput().optional().describe("Users added by query."),
      identityMatcher: identityMatcher("loose").optional(),
    })
    .describe("A set of principals that policies can name at once."),
);
export type Group = z.infer<ReturnType<typeof group>>;

export const groupCreate = lazy(() =>
  z
    .strictObject({
      name: name(),
      description: description().optional(),
      tags: tags().optional(),
      memberLinks: z.array(memberLink()).optional().describe("Members."),
      memberQuery: queryDocument().optional().describe("Users added by query."),
      identityMatcher: identityMatcher("strict").optional(),
    })
    .describe("Body of POST /org/{org}/group."),
);

export const groupPatch = lazy(() =>
  patchObject(
    {
      ...describedTaggedPatchFields(),
      memberLinks: {
        value: z.array(memberLink()).describe("Members."),
        array: { item: memberLink(), key: z.string().min(1), keyDescription: "the link" },
      },
      memberQuery: { value: queryDocument().describe("Users added by query."), merge: queryDocumentPatch() },
      identityMatcher: {
        value: identityMatcher("strict"),
        merge: patchObject({
          expression: { value: z.string().min(1).describe("Expression."), required: true },
          language: { value: z.enum(identityMatcherLanguages).describe("jmespath or javascript.") },
        }),
      },
    },
    { ...readOnlyPatchShape(), origin: echoOnly(z.enum(groupOrigins).optional().describe("Read-only.")) },
  ).describe("Body of PATCH /org/{org}/group/{name}."),
);

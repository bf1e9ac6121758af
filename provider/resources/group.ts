/**
 * Group: a set of principals that policies can name at once (`/org/{org}/group/{name}`). Members are a set: an update
 * adds and removes links one by one (`$append/memberLinks`, `$drop/memberLinks`), so members another client adds
 * survive until the next refresh shows them.
 */
import { z } from "zod";
import { parseOnce } from "../../api/parseOnce.js";
import { lazy } from "../../api/lazy.js";
import { fromShortLink, normalizeLink } from "../../api/links.js";
import { patchRules as allPatchRules } from "../../api/kinds/index.js";
import { group as groupRecord, groupCreate, groupOrigins } from "../../api/schemas/group.js";
import { recordMeta } from "./requests.js";
import {
  namedApiBody,
  namedFieldRules,
  namedInputFields,
  namedKindLifecycle,
  namedRecordOutputs,
  recordOutputFields,
} from "./common.js";
import type { AnyResourceDefinition, FieldRules, Props, ResourceDefinition } from "./types.js";

// ---- input schema ---------------------------------------------------------------------------------------------------

export const groupInputs = lazy(() => {
  const body = groupCreate().shape;
  return z.strictObject({
    memberLinks: body.memberLinks.describe(
      "Members: //user/<email>, //serviceaccount/<name> or their full /org/<org>/... forms (a set: order is ignored).",
    ),
    memberQuery: body.memberQuery,
    identityMatcher: body.identityMatcher,
    ...namedInputFields("group"),
  });
});
export type GroupInputs = z.infer<ReturnType<typeof groupInputs>>;

export const groupOutputs = lazy(() =>
  groupInputs().extend({
    ...recordOutputFields("group", "/org/<org>/group/<name>"),
    origin: z
      .enum(groupOrigins)
      .describe("default for groups created through the API; builtin ones cannot be deleted."),
  }),
);
export type GroupOutputs = z.infer<ReturnType<typeof groupOutputs>>;

// ---- field rules ----------------------------------------------------------------------------------------------------

const fields: FieldRules<GroupInputs> = {
  memberLinks: {},
  memberQuery: {},
  identityMatcher: {},
  ...namedFieldRules,
};

// ---- toApi / fromApi ------------------------------------------------------------------------------------------------

function toApi(inputs: Props) {
  return namedApiBody(inputs, {
    memberLinks: inputs.memberLinks,
    memberQuery: inputs.memberQuery,
    identityMatcher: inputs.identityMatcher,
  });
}

function fromApi(record: unknown): GroupOutputs {
  const parsed = parseOnce(groupRecord(), record);
  const meta = recordMeta(parsed, "cpln/");
  return {
    memberLinks: parsed.memberLinks,
    memberQuery: parsed.memberQuery,
    identityMatcher: parsed.identityMatcher,
    ...namedRecordOutputs(parsed, meta),
    origin: parsed.origin,
  } as GroupOutputs;
}

/** The server stores full member links (`/org/o/user/u`); the args may use the relative form (`//user/u`). */
function normalize(inputs: GroupInputs, org: string): GroupInputs {
  if (inputs.memberLinks === undefined) return inputs;
  return { ...inputs, memberLinks: inputs.memberLinks.map((href) => normalizeLink(org, href)) };
}

/** Members in the short form a user of @pulumiverse/cpln writes (`serviceaccount/ci`): the relative form. */
function shortForms(inputs: Props): Props {
  if (!Array.isArray(inputs.memberLinks)) return {};
  return {
    memberLinks: inputs.memberLinks.map((href: unknown) => (typeof href === "string" ? fromShortLink(href) : href)),
  };
}

// ---- the definition: check, diff (generic, from the tables above), create, read, update, delete ---------------------

export const groupDefinition = {
  typeName: "Group",
  kind: "group",
  description:
    "A Control Plane group: a set of users and service accounts (listed in memberLinks, or added by memberQuery) " +
    "that policies grant permissions to at once. name and org cannot change in place; an update is one PATCH that " +
    "appends and drops only the members that changed.",
  inputs: groupInputs,
  outputs: groupOutputs,

  fields,
  patchRules: () => allPatchRules.group ?? { arrays: {} },
  autoname: true,

  toApi,
  fromApi,

  // check
  defaults: (inputs) => ({ description: inputs.name }),
  contractIssues: () => [],
  normalize,
  shortForms,

  // create: one POST; with `adopt`, a 409 becomes a GET and (if anything differs) one PATCH. read: one GET. update:
  // one PATCH built by buildPatch ($append/ and $drop/ of members), none when nothing managed changed. delete: one
  // DELETE; 404 counts as deleted.
  ...namedKindLifecycle<GroupInputs, GroupOutputs>("group", (): AnyResourceDefinition => groupDefinition),
} satisfies ResourceDefinition<GroupInputs, GroupOutputs>;

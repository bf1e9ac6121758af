import { crossFieldRules, echoOnly } from "./jsonRules.js";
import { z } from "zod";
import { permissionNames, policyKindNames } from "../kinds/catalogs.js";
import { lazy } from "../lazy.js";
import {
  description,
  describedTaggedPatchFields,
  name,
  patchObject,
  readOnlyPatchShape,
  recordShape,
  tags,
} from "./common.js";
import { anyTargetLinkPattern, policyRules, targetKindSchemas } from "./policyRules.js";
import { queryDocument, queryDocumentOutput, queryDocumentPatch } from "./query.js";

export {
  bindingKey,
  policyConflicts,
  policyIssues,
  targetKindSchemas,
  targetLinkPattern,
  type PolicyRules,
} from "./policyRules.js";

export const BINDINGS_MAX = 50;
export const PRINCIPAL_LINKS_MAX = 200;
export const TARGET_LINKS_MAX = 200;
export const policyOrigins = ["default", "builtin"] as const;

/** Principals a binding can name: groups, users, service accounts, and workload identities. */
const PRINCIPAL_LINK_PATTERN =
  /^(\/\/|\/org\/[^/]+\/)((group|user|serviceaccount)\/[^/]+|gvc\/[^/]+\/identity\/[^/]+)$/;

/**
 * A permission name: in the document, one of some kind's catalog (which kind's is `targetKind`'s rule: the create's
 * `oneOf`; on an update, a permission of another kind is a conflict with the stored targetKind).
 */
function permissionName() {
  const schema = z.string().min(1, "must not be empty");
  crossFieldRules().add(schema, { enum: [...new Set(policyKindNames.flatMap((kind) => permissionNames(kind)))] });
  return schema;
}

/** A target link: in the document, a link of some kind of the policy set (which kind's is `targetKind`'s rule). */
function targetLink() {
  const schema = z.string().min(1);
  crossFieldRules().add(schema, { pattern: anyTargetLinkPattern() });
  return schema;
}

/**
 * Item rules by where they are stated: `body` — a body that names its targetKind (create, collection PUT), whose
 * `oneOf` branch per kind states that kind's permissions and link pattern (an any-kind rule beside it would give every
 * item two patterns or enums, which generators can only meet by filtering); `patch` — an update, where the item holds
 * only the rule of any kind (which one is the stored targetKind's).
 */
type ItemRules = "body" | "patch";

function permissionList(rules: ItemRules) {
  return z
    .array(rules === "patch" ? permissionName() : z.string().min(1, "must not be empty"))
    .min(1, "a binding needs at least one permission")
    .describe("Permissions granted, from the target kind's catalog (GET /org/{org}/{kind}/-schema/permissions).");
}

function principalLinkList() {
  return z
    .array(
      z
        .string()
        .regex(
          PRINCIPAL_LINK_PATTERN,
          "must be a link to a group, user, service account or identity, e.g. //group/admins or /org/acme/user/me@example.com",
        ),
    )
    .min(1, "a binding needs at least one principal")
    .max(PRINCIPAL_LINKS_MAX, `at most ${PRINCIPAL_LINKS_MAX} principals per binding`)
    .describe(
      `Principals (1-${PRINCIPAL_LINKS_MAX}): //group/<g>, //user/<email>, //serviceaccount/<s>, //gvc/<g>/identity/<i>, or their full /org/<org>/... forms.`,
    );
}

function targetLinkList(rules: ItemRules) {
  return z
    .array(rules === "patch" ? targetLink() : z.string().min(1))
    .max(TARGET_LINKS_MAX, `at most ${TARGET_LINKS_MAX} target links`)
    .describe(
      `Objects of targetKind the policy applies to (at most ${TARGET_LINKS_MAX}), as //<kind>/<name> or full links.`,
    );
}

function bindingOf(rules: ItemRules) {
  return z
    .strictObject({ permissions: permissionList(rules), principalLinks: principalLinkList() })
    .describe("Grants permissions to principals.");
}

export const binding = lazy(() => bindingOf("patch"));

export const bindingOutput = lazy(() =>
  z
    .looseObject({
      permissions: z.array(z.string()).describe("Permissions granted."),
      principalLinks: z.array(z.string()).describe("Principals they are granted to (full links)."),
    })
    .describe("Grants permissions to principals."),
);

function bindingsList(rules: ItemRules) {
  return z
    .array(rules === "patch" ? binding() : bindingOf(rules))
    .max(BINDINGS_MAX, `at most ${BINDINGS_MAX} bindings`)
    .describe(
      `Who gets which permissions (at most ${BINDINGS_MAX}; bindings with the same permission set are stored as one).`,
    );
}

export const policy = lazy(() =>
  z
    .looseObject({
      ...recordShape("policy"),
      origin: z.enum(policyOrigins).describe("builtin policies cannot be changed or deleted."),
      targetKind: z.string().describe("Kind of the objects the policy applies to. Immutable."),
      targetLinks: z.array(z.string()).optional().describe("Objects the policy applies to (full links)."),
      targetQuery: queryDocumentOutput().optional().describe("Objects the policy applies to, by query."),
      target: z.literal("all").optional().describe("'all': the policy applies to every object of targetKind."),
      bindings: z.array(bindingOutput()).optional().describe("Who gets which permissions."),
    })
    .describe("Grants permissions on objects of one kind to principals."),
);
export type Policy = z.infer<ReturnType<typeof policy>>;

export const policyCreate = lazy(() =>
  z
    .strictObject({
      name: name(),
      description: description().optional(),
      tags: tags().optional(),
      targetKind: z
        .enum(policyKindNames)
        .describe(
          "Kind of the objects the policy applies to (any kind of the policy set, whether or not this server stores it). Immutable.",
        ),
      targetLinks: targetLinkList("body").optional(),
      targetQuery: queryDocument().optional().describe("Objects the policy applies to, by query."),
      target: z.literal("all").optional().describe("'all': the policy applies to every object of targetKind."),
      bindings: bindingsList("body").optional(),
    })
    .describe("Body of POST /org/{org}/policy.")
    .register(crossFieldRules(), { ...policyRules(), oneOf: targetKindSchemas() }),
);
export type PolicyCreate = z.infer<ReturnType<typeof policyCreate>>;

const bindingKeyDescription = "the binding's permissions, sorted and joined with ',' (e.g. 'edit,view')";

export const bindingPatch = lazy(() =>
  patchObject({
    permissions: {
      value: permissionList("patch"),
      array: { item: permissionName(), key: z.string().min(1), keyDescription: "the permission" },
    },
    principalLinks: {
      value: principalLinkList(),
      array: {
        item: z.string().regex(PRINCIPAL_LINK_PATTERN, "must be a link to a group, user, service account or identity"),
        key: z.string().min(1),
        keyDescription: "the link",
      },
    },
  })
    .describe("Partial binding: `permissions` names the binding; the directives change it.")
    // The item is found by its permissions: they must be given (the patch of `permissions` itself is by directives).
    .register(crossFieldRules(), {
      allOf: [{ required: ["permissions"], properties: { permissions: { type: "array" } } }],
    }),
);

/** Body of PATCH /org/{org}/policy/{name}: merge fields and every directive of the API document. */
export const policyPatch = lazy(() =>
  patchObject(
    {
      ...describedTaggedPatchFields(),
      targetLinks: {
        value: targetLinkList("patch"),
        array: { item: targetLink(), key: z.string().min(1), keyDescription: "the link" },
      },
      targetQuery: {
        value: queryDocument().describe("Objects the policy applies to, by query."),
        merge: queryDocumentPatch(),
      },
      target: { value: z.literal("all").describe("'all': every object of targetKind.") },
      bindings: {
        value: bindingsList("patch"),
        array: {
          item: binding(),
          key: z.string().min(1),
          patchItem: bindingPatch(),
          keyDescription: bindingKeyDescription,
        },
      },
    },
    {
      ...readOnlyPatchShape(),
      targetKind: echoOnly(z.string().optional().describe("Read-only (immutable); must equal the current value.")),
      origin: echoOnly(z.enum(policyOrigins).optional().describe("Read-only; must equal the current value.")),
    },
  )
    .describe("Body of PATCH /org/{org}/policy/{name}.")
    .register(crossFieldRules(), policyRules()),
);
export type PolicyPatch = z.infer<ReturnType<typeof policyPatch>>;

import { crossFieldRules, documentedRules, echoOnly } from "./jsonRules.js";
import { z } from "zod";
import type { Issue } from "../errors.js";
import {
  hasPermission,
  isPolicyKind,
  linkFormOf,
  permissionNames,
  policyKindNames,
  type LinkForm,
  type PolicyKind,
} from "../kinds/catalogs.js";
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
import { queryDocument, queryDocumentOutput, queryDocumentPatch } from "./query.js";

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

/** The rules of `policyIssues` (they depend on targetKind) as the document states them. */
function policyRules() {
  return documentedRules([
    {
      rule: "Each binding's permissions are permissions of targetKind (GET /org/{org}/{targetKind}/-schema/permissions), each once. Bindings with the same permission set are stored as one (the first, its principals joined with the others', each once).",
      issue: /^('.*' is not a permission of \w+ \(.*\)|duplicate permission '.*')$/,
    },
    {
      rule: "targetLinks link objects of targetKind (e.g. /org/{org}/gvc/{name}), each once.",
      issue: /^(must be a link to an object of kind \w+, e\.g\. .*|duplicate target link '.*')$/,
    },
    { rule: "targetQuery.kind, when given, is targetKind.", issue: /^must be the policy's targetKind '\w+'$/ },
  ]);
}

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

/** Key of a binding in `$drop/bindings`, `$retain/bindings` and `$patch/bindings`: its sorted permissions. */
export function bindingKey(permissions: readonly string[]): string {
  return [...permissions].sort().join(",");
}

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

/** The parts of a policy `policyIssues` checks (a create body, or a record after a patch). */
export interface PolicyRules {
  targetKind: string;
  targetLinks?: readonly string[];
  targetQuery?: { kind?: string };
  bindings?: readonly { permissions: readonly string[]; principalLinks: readonly string[] }[];
}

function duplicates(values: readonly string[]): Map<string, number> {
  const seen = new Set<string>();
  const repeated = new Map<string, number>();
  values.forEach((value, index) => {
    if (seen.has(value) && !repeated.has(value)) repeated.set(value, index);
    seen.add(value);
  });
  return repeated;
}

/**
 * The target links of a kind, by its `LinkForm` (the policy set's catalog): the source of a pattern over the link as
 * given (relative `//...` or full `/org/<org>/...`, every segment non-empty), and an example. One pattern serves the
 * server's check and the OpenAPI document, so the two cannot disagree.
 */
const linkForms: Readonly<Record<LinkForm, (kind: string) => { pattern: string; example: string }>> = {
  org: () => ({ pattern: "^/org/[^/]+$", example: "/org/<org>" }),
  orgItem: (kind) => ({ pattern: `^(//|/org/[^/]+/)${kind}/[^/]+$`, example: `//${kind}/<name>` }),
  gvcItem: (kind) => ({ pattern: `^(//|/org/[^/]+/)gvc/[^/]+/${kind}/[^/]+$`, example: `//gvc/<gvc>/${kind}/<name>` }),
  deployment: (kind) => ({
    pattern: `^(//|/org/[^/]+/)gvc/[^/]+/workload/[^/]+/${kind}/[^/]+$`,
    example: `//gvc/<gvc>/workload/<workload>/${kind}/<name>`,
  }),
};

/** The pattern (JSON Schema / ECMAScript source) every target link of a policy on `kind` matches. */
export function targetLinkPattern(kind: PolicyKind): string {
  return linkForms[linkFormOf(kind)](kind).pattern;
}

/** The pattern a link of any kind of the policy set matches. */
function anyTargetLinkPattern(): string {
  return `^(?:${policyKindNames.map((kind) => targetLinkPattern(kind).slice(1, -1)).join("|")})$`;
}

const linkPatterns = new Map<PolicyKind, RegExp>();

/** Whether `href`, as given, links an object of `kind`. */
function linksTo(kind: PolicyKind, href: string): boolean {
  let pattern = linkPatterns.get(kind);
  if (pattern === undefined) {
    pattern = new RegExp(targetLinkPattern(kind), "u");
    linkPatterns.set(kind, pattern);
  }
  return pattern.test(href);
}

function linkExample(kind: PolicyKind): string {
  return linkForms[linkFormOf(kind)](kind).example;
}

/**
 * The rules of `policyIssues` that JSON Schema can state, for a body that names its `targetKind` (create, collection
 * PUT): one branch per kind of the policy set, from its catalog and link form, holding that kind's target-link
 * pattern, permission names and query kind, with each target link and each binding's permission once.
 */
export function targetKindSchemas(): Record<string, unknown>[] {
  return policyKindNames.map((kind) => ({
    // targetKind required in each branch too: what makes the branches exclusive, for readers and linters alike.
    required: ["targetKind"],
    properties: {
      targetKind: { const: kind },
      targetLinks: { items: { pattern: targetLinkPattern(kind) }, uniqueItems: true },
      targetQuery: { properties: { kind: { const: kind } } },
      bindings: {
        items: { properties: { permissions: { items: { enum: permissionNames(kind) }, uniqueItems: true } } },
      },
    },
  }));
}

/** An issue of `policyIssues`, and whether its value is valid for another kind of the policy set. */
interface RuleIssue {
  issue: Issue;
  /** The value fits some kind of the policy set, just not targetKind: on an update, a conflict with the stored kind. */
  otherKind: boolean;
}

/**
 * Rules spanning fields of a policy that passed its schema: permissions must exist in the target kind's catalog,
 * no two bindings may hold the same permission set, no duplicates inside a list, target links must point at objects
 * of the target kind, and a targetQuery's kind must be the target kind.
 */
export function policyIssues(policy: PolicyRules): Issue[] {
  return ruleIssues(policy).map((r) => r.issue);
}

/**
 * The issues of `policyIssues` whose value is valid for another kind of the policy set (a link of another kind,
 * another kind's permission, another query kind): what an update valid in itself can break only through the stored,
 * immutable targetKind.
 */
export function policyConflicts(policy: PolicyRules): Issue[] {
  return ruleIssues(policy)
    .filter((r) => r.otherKind)
    .map((r) => r.issue);
}

const anyPermission = lazy(() => new Set(policyKindNames.flatMap((kind) => permissionNames(kind))));

function ruleIssues(policy: PolicyRules): RuleIssue[] {
  const issues: RuleIssue[] = [];
  const push = (issue: Issue, otherKind = false) => issues.push({ issue, otherKind });
  const { targetKind } = policy;
  if (!isPolicyKind(targetKind)) {
    push({ path: "targetKind", message: `unknown kind '${targetKind}' (kinds: ${policyKindNames.join(", ")})` });
    return issues;
  }

  policy.targetLinks?.forEach((href, index) => {
    if (!linksTo(targetKind, href)) {
      push(
        {
          path: `targetLinks.${index}`,
          message: `must be a link to an object of kind ${targetKind}, e.g. ${linkExample(targetKind)}`,
        },
        policyKindNames.some((kind) => linksTo(kind, href)),
      );
    }
  });
  for (const [href, index] of duplicates(policy.targetLinks ?? [])) {
    push({ path: `targetLinks.${index}`, message: `duplicate target link '${href}'` });
  }

  const queryKind = policy.targetQuery?.kind;
  if (queryKind !== undefined && queryKind !== targetKind) {
    push(
      { path: "targetQuery.kind", message: `must be the policy's targetKind '${targetKind}'` },
      isPolicyKind(queryKind),
    );
  }

  const catalog = permissionNames(targetKind).join(", ");
  const bindingIndexByKey = new Map<string, number>();
  policy.bindings?.forEach((b, index) => {
    b.permissions.forEach((permission, p) => {
      if (!hasPermission(targetKind, permission)) {
        push(
          {
            path: `bindings.${index}.permissions.${p}`,
            message: `'${permission}' is not a permission of ${targetKind} (${catalog})`,
          },
          anyPermission().has(permission),
        );
      }
    });
    for (const [permission, p] of duplicates(b.permissions)) {
      push({ path: `bindings.${index}.permissions.${p}`, message: `duplicate permission '${permission}'` });
    }
    for (const [principal, p] of duplicates(b.principalLinks)) {
      push({ path: `bindings.${index}.principalLinks.${p}`, message: `duplicate principal '${principal}'` });
    }
    const key = bindingKey([...new Set(b.permissions)]);
    const first = bindingIndexByKey.get(key);
    if (first !== undefined) {
      push({
        path: `bindings.${index}.permissions`,
        message: `bindings ${first} and ${index} hold the same permission set (${key}); merge their principals`,
      });
    } else {
      bindingIndexByKey.set(key, index);
    }
  });
  return issues;
}

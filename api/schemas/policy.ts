import { crossFieldRules, documentedRules, echoOnly } from "./jsonRules.js";
import { z } from "zod";
import type { Issue } from "../errors.js";
import {
  hasPermission,
  isKind,
  isPolicyKind,
  kinds,
  linkFormOf,
  permissionNames,
  policyKindNames,
  type LinkForm,
  type PolicyKind,
} from "../kinds.js";
import { lazy } from "../lazy.js";
import { normalizeLink, parseLink } from "../links.js";
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

function permissionList() {
  return z
    .array(z.string().min(1, "must not be empty"))
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

function targetLinkList() {
  return z
    .array(z.string().min(1))
    .max(TARGET_LINKS_MAX, `at most ${TARGET_LINKS_MAX} target links`)
    .describe(
      `Objects of targetKind the policy applies to (at most ${TARGET_LINKS_MAX}), as //<kind>/<name> or full links.`,
    );
}

export const binding = lazy(() =>
  z
    .strictObject({ permissions: permissionList(), principalLinks: principalLinkList() })
    .describe("Grants permissions to principals."),
);

export const bindingOutput = lazy(() =>
  z
    .looseObject({
      permissions: z.array(z.string()).describe("Permissions granted."),
      principalLinks: z.array(z.string()).describe("Principals they are granted to (full links)."),
    })
    .describe("Grants permissions to principals."),
);

function bindingsList() {
  return z
    .array(binding())
    .max(BINDINGS_MAX, `at most ${BINDINGS_MAX} bindings`)
    .describe(`Who gets which permissions (at most ${BINDINGS_MAX}; no two with the same permission set).`);
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
      rule: "No two bindings hold the same permission set. Each binding's permissions are permissions of targetKind (GET /org/{org}/{targetKind}/-schema/permissions), each once.",
      issue:
        /^('.*' is not a permission of \w+ \(.*\)|duplicate permission '.*'|bindings \d+ and \d+ hold the same permission set \(.*\); merge their principals)$/,
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
      targetLinks: targetLinkList().optional(),
      targetQuery: queryDocument().optional().describe("Objects the policy applies to, by query."),
      target: z.literal("all").optional().describe("'all': the policy applies to every object of targetKind."),
      bindings: bindingsList().optional(),
    })
    .describe("Body of POST /org/{org}/policy.")
    .register(crossFieldRules(), policyRules()),
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
      value: permissionList(),
      array: { item: z.string().min(1), key: z.string().min(1), keyDescription: "the permission" },
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
        value: targetLinkList(),
        array: { item: z.string().min(1), key: z.string().min(1), keyDescription: "the link" },
      },
      targetQuery: {
        value: queryDocument().describe("Objects the policy applies to, by query."),
        merge: queryDocumentPatch(),
      },
      target: { value: z.literal("all").describe("'all': every object of targetKind.") },
      bindings: {
        value: bindingsList(),
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

/** Link forms of objects of kinds this server does not store (checked for form only), by `LinkForm`. */
const linkForms: Readonly<Record<LinkForm, (kind: string) => { pattern: RegExp; example: string }>> = {
  org: () => ({ pattern: /^\/org\/[^/]+$/, example: "/org/<org>" }),
  orgItem: (kind) => ({ pattern: new RegExp(`^/org/[^/]+/${kind}/[^/]+$`), example: `//${kind}/<name>` }),
  gvcItem: (kind) => ({
    pattern: new RegExp(`^/org/[^/]+/gvc/[^/]+/${kind}/[^/]+$`),
    example: `//gvc/<gvc>/${kind}/<name>`,
  }),
  deployment: (kind) => ({
    pattern: new RegExp(`^/org/[^/]+/gvc/[^/]+/workload/[^/]+/${kind}/[^/]+$`),
    example: `//gvc/<gvc>/workload/<workload>/${kind}/<name>`,
  }),
};

/** Whether `href` (full form) links an object of `kind`: parsed for stored kinds, by its form for the others. */
function linksTo(kind: PolicyKind, href: string): boolean {
  if (isKind(kind)) {
    const parsed = parseLink(href);
    return parsed !== undefined && parsed.kind === kind && parsed.name !== undefined;
  }
  return linkForms[linkFormOf(kind)](kind).pattern.test(href);
}

function linkExample(kind: PolicyKind): string {
  if (isKind(kind)) return kinds[kind].scope === "gvc" ? `//gvc/<gvc>/${kind}/<name>` : `//${kind}/<name>`;
  return linkForms[linkFormOf(kind)](kind).example;
}

/**
 * Rules spanning fields of a policy that passed its schema: permissions must exist in the target kind's catalog,
 * no two bindings may hold the same permission set, no duplicates inside a list, target links must point at objects
 * of the target kind, and a targetQuery's kind must be the target kind.
 */
export function policyIssues(policy: PolicyRules): Issue[] {
  const issues: Issue[] = [];
  const { targetKind } = policy;
  if (!isPolicyKind(targetKind)) {
    return [{ path: "targetKind", message: `unknown kind '${targetKind}' (kinds: ${policyKindNames.join(", ")})` }];
  }

  policy.targetLinks?.forEach((href, index) => {
    if (!linksTo(targetKind, normalizeLink("-", href))) {
      issues.push({
        path: `targetLinks.${index}`,
        message: `must be a link to an object of kind ${targetKind}, e.g. ${linkExample(targetKind)}`,
      });
    }
  });
  for (const [href, index] of duplicates(policy.targetLinks ?? [])) {
    issues.push({ path: `targetLinks.${index}`, message: `duplicate target link '${href}'` });
  }

  const queryKind = policy.targetQuery?.kind;
  if (queryKind !== undefined && queryKind !== targetKind) {
    issues.push({ path: "targetQuery.kind", message: `must be the policy's targetKind '${targetKind}'` });
  }

  const catalog = permissionNames(targetKind).join(", ");
  const bindingIndexByKey = new Map<string, number>();
  policy.bindings?.forEach((b, index) => {
    b.permissions.forEach((permission, p) => {
      if (!hasPermission(targetKind, permission)) {
        issues.push({
          path: `bindings.${index}.permissions.${p}`,
          message: `'${permission}' is not a permission of ${targetKind} (${catalog})`,
        });
      }
    });
    for (const [permission, p] of duplicates(b.permissions)) {
      issues.push({ path: `bindings.${index}.permissions.${p}`, message: `duplicate permission '${permission}'` });
    }
    for (const [principal, p] of duplicates(b.principalLinks)) {
      issues.push({ path: `bindings.${index}.principalLinks.${p}`, message: `duplicate principal '${principal}'` });
    }
    const key = bindingKey([...new Set(b.permissions)]);
    const first = bindingIndexByKey.get(key);
    if (first !== undefined) {
      issues.push({
        path: `bindings.${index}.permissions`,
        message: `bindings ${first} and ${index} hold the same permission set (${key}); merge their principals`,
      });
    } else {
      bindingIndexByKey.set(key, index);
    }
  });
  return issues;
}

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
import { documentedRules } from "./jsonRules.js";

/**
 * The rules of a policy that span its fields and depend on its targetKind: which permissions and target links a
 * kind of the policy set takes (from the catalogs, `api/kinds/catalogs.ts`), as the server checks them
 * (`policyIssues`, `policyConflicts`) and as the API document states them (`policyRules`, `targetKindSchemas`), from
 * one source so the two cannot disagree. The policy's schemas are `policy.ts`.
 */

/** Key of a binding in `$drop/bindings`, `$retain/bindings` and `$patch/bindings`: its sorted permissions. */
export function bindingKey(permissions: readonly string[]): string {
  return [...permissions].sort().join(",");
}

/** The rules of `policyIssues` (they depend on targetKind) as the document states them. */
export function policyRules() {
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
export function anyTargetLinkPattern(): string {
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

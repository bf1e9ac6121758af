import { grantedBy, impliedBy, isKind, kinds, type Kind } from "../../api/kinds/index.js";
import { normalizeLink, selfLink } from "../../api/links.js";
import { WorkBudget } from "../../api/query.js";
import type { JsonObject, JsonValue, Store } from "../store/store.js";
import { presentRecord } from "../domain/present.js";
import type { Principal } from "./authn.js";
import { targetQueryMatches } from "./targeting.js";

/**
 * Authorization by policies. A principal holds permission P on object O when a policy whose `targetKind` is O's kind
 * selects O (`target: all`, O's self link in `targetLinks`, or `targetQuery` matching O) and has a binding whose
 * `principalLinks` name the principal or a group it belongs to, with a permission that grants P (itself or by
 * implication in the kind's catalog).
 *
 * Policies and groups (members by link, and users matched by a group's memberQuery) are indexed per org, by target
 * kind and by principal, and rebuilt only when the store's change counters for policies, groups or users move; a check therefore costs in proportion to the grants the caller holds on one kind,
 * never to the number of records or policies.
 */

export type MatchKind = "all" | "link" | "query";

interface PolicyEntry {
  link: string;
  targetAll: boolean;
  targetLinks: ReadonlySet<string>;
  targetQuery: JsonObject | undefined;
  bindings: { permissions: string[]; principals: string[] }[];
}

interface Grant {
  policy: PolicyEntry;
  /** Everything the binding grants on the kind, implications followed. */
  effective: ReadonlySet<string>;
}

interface OrgIndex {
  /** Change counters of policy, group and user when the index was built. */
  counters: readonly number[];
  policiesByKind: Map<Kind, PolicyEntry[]>;
  /** kind → principal link → grants */
  grants: Map<Kind, Map<string, Grant[]>>;
  /** principal link → the groups it belongs to */
  groupsOf: Map<string, string[]>;
  /** `${principal}\n${kind}\n${permission}` → the grants that give that permission (memoized). */
  relevant: Map<string, Grant[]>;
}

export interface AccessReportBinding {
  principalLink: string;
  grantingPolicyLink: string;
  grantedPermissions: string[];
  match: MatchKind;
}

export interface AccessReportPermission {
  name: string;
  description: string;
  bindings: AccessReportBinding[];
}

function strings(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The record's self link ("" when it has none); runs on every check, so it allocates nothing. */
export function selfLinkOf(doc: JsonObject): string {
  const links = doc["links"];
  if (!Array.isArray(links)) return "";
  for (const l of links) {
    if (isObject(l) && l["rel"] === "self" && typeof l["href"] === "string") return l["href"];
  }
  return "";
}

const RELEVANT_MEMO_MAX = 50_000;

/** The kinds an org's index is built from; a write to any of them rebuilds it. */
const INDEXED_KINDS = ["policy", "group", "user"] as const;

function buildIndex(
  org: string,
  policies: JsonObject[],
  groups: JsonObject[],
  users: JsonObject[],
  counters: readonly number[],
): OrgIndex {
  const policiesByKind = new Map<Kind, PolicyEntry[]>();
  const grants = new Map<Kind, Map<string, Grant[]>>();
  for (const policy of policies) {
    const kind = policy["targetKind"];
    if (!isKind(kind)) continue;
    const entry: PolicyEntry = {
      link: selfLinkOf(policy) || selfLink(org, "policy", String(policy["name"])),
      targetAll: policy["target"] === "all",
      targetLinks: new Set(strings(policy["targetLinks"]).map((l) => normalizeLink(org, l))),
      targetQuery: isObject(policy["targetQuery"]) ? policy["targetQuery"] : undefined,
      bindings: (Array.isArray(policy["bindings"]) ? policy["bindings"] : []).filter(isObject).map((b) => ({
        permissions: strings(b["permissions"]),
        principals: strings(b["principalLinks"]).map((l) => normalizeLink(org, l)),
      })),
    };
    let list = policiesByKind.get(kind);
    if (!list) policiesByKind.set(kind, (list = []));
    list.push(entry);
    let byPrincipal = grants.get(kind);
    if (!byPrincipal) grants.set(kind, (byPrincipal = new Map()));
    for (const binding of entry.bindings) {
      const effective = new Set(binding.permissions.flatMap((p) => grantedBy(kind, p)));
      for (const principal of binding.principals) {
        let held = byPrincipal.get(principal);
        if (!held) byPrincipal.set(principal, (held = []));
        held.push({ policy: entry, effective });
      }
    }
  }
  const groupsOf = new Map<string, string[]>();
  // One budget for every memberQuery of the org: a rebuild (paid by the write that triggered it) is bounded whatever
  // the stored queries; once spent, the remaining queries add no member.
  const budget = new WorkBudget();
  for (const group of groups) {
    const groupLink = selfLinkOf(group) || selfLink(org, "group", String(group["name"]));
    const members = new Set(strings(group["memberLinks"]).map((l) => normalizeLink(org, l)));
    // memberQuery adds the org's users it matches (evaluated here, once per change, never per request).
    const memberQuery = group["memberQuery"];
    if (isObject(memberQuery)) {
      for (const user of users) if (targetQueryMatches(memberQuery, user, budget)) members.add(selfLinkOf(user));
    }
    for (const member of members) {
      let list = groupsOf.get(member);
      if (!list) groupsOf.set(member, (list = []));
      list.push(groupLink);
    }
  }
  return {
    counters,
    policiesByKind,
    grants,
    groupsOf,
    relevant: new Map(),
  };
}

/** `doc` without its kind's reveal-only fields (see `presentRecord`). */
function presentedForQuery(doc: JsonObject): JsonObject {
  const kind = doc["kind"];
  return isKind(kind) ? presentRecord(kind, doc) : doc;
}

/** How `policy` selects `doc` (first of all, link, query), or undefined. */
function selection(policy: PolicyEntry, doc: JsonObject, link: string, budget: WorkBudget): MatchKind | undefined {
  if (policy.targetAll) return "all";
  if (link !== "" && policy.targetLinks.has(link)) return "link";
  // A target query reads the record as callers see it: a term on a reveal-only field (a secret's data) matches nothing.
  if (policy.targetQuery && targetQueryMatches(policy.targetQuery, presentedForQuery(doc), budget)) return "query";
  return undefined;
}

/** The authorization view of one org at one moment (an index snapshot), for one request. */
export class OrgAuthz {
  /** The work the request may spend evaluating policies' `targetQuery` (then they select nothing more). */
  private readonly budget = new WorkBudget();

  constructor(
    readonly org: string,
    private readonly index: OrgIndex,
  ) {}

  /** The same object while the org's policies, groups and users stand still: what a memo of these decisions checks. */
  get decisions(): object {
    return this.index;
  }

  /** The principal and the groups it belongs to. */
  principalsOf(principal: Principal): string[] {
    const groups = this.index.groupsOf.get(principal.link);
    return groups ? [principal.link, ...groups] : [principal.link];
  }

  private relevantGrants(principal: Principal, kind: Kind, permission: string): Grant[] {
    const memoKey = `${principal.link}\n${kind}\n${permission}`;
    const memo = this.index.relevant.get(memoKey);
    if (memo) return memo;
    const byPrincipal = this.index.grants.get(kind);
    const found: Grant[] = [];
    if (byPrincipal) {
      for (const p of this.principalsOf(principal)) {
        for (const grant of byPrincipal.get(p) ?? []) if (grant.effective.has(permission)) found.push(grant);
      }
    }
    if (this.index.relevant.size >= RELEVANT_MEMO_MAX) this.index.relevant.clear();
    this.index.relevant.set(memoKey, found);
    return found;
  }

  /** Whether `principal` holds `permission` on `doc` (a record of `kind`, or a prospective one for create). */
  can(principal: Principal, kind: Kind, permission: string, doc: JsonObject): boolean {
    const grants = this.relevantGrants(principal, kind, permission);
    if (grants.length === 0) return false;
    const link = selfLinkOf(doc);
    for (const grant of grants) if (selection(grant.policy, doc, link, this.budget) !== undefined) return true;
    return false;
  }

  /** The items `principal` may view, in their order. */
  visible<T extends JsonObject>(principal: Principal, kind: Kind, docs: T[]): T[] {
    const grants = this.relevantGrants(principal, kind, "view");
    if (grants.length === 0) return [];
    if (grants.some((g) => g.policy.targetAll)) return docs;
    return docs.filter((doc) => {
      const link = selfLinkOf(doc);
      return grants.some((grant) => selection(grant.policy, doc, link, this.budget) !== undefined);
    });
  }

  /**
   * For each permission of the kind in catalog order: one entry per (policy, binding principal) that grants it.
   * Every policy of the org counts: what the caller is shown of it is decided by `accessReportFor` (server/domain).
   */
  accessReport(kind: Kind, doc: JsonObject): AccessReportPermission[] {
    const link = selfLinkOf(doc);
    const selecting = (this.index.policiesByKind.get(kind) ?? [])
      .map((policy) => ({ policy, match: selection(policy, doc, link, this.budget) }))
      .filter((s): s is { policy: PolicyEntry; match: MatchKind } => s.match !== undefined);
    return kinds[kind].permissions.map((permission) => {
      const granting = new Set(impliedBy(kind, permission.name));
      const bindings: AccessReportBinding[] = [];
      for (const { policy, match } of selecting) {
        for (const binding of policy.bindings) {
          const grantedPermissions = binding.permissions.filter((p) => granting.has(p));
          if (grantedPermissions.length === 0) continue;
          for (const principalLink of binding.principals) {
            bindings.push({ principalLink, grantingPolicyLink: policy.link, grantedPermissions, match });
          }
        }
      }
      return { name: permission.name, description: permission.description, bindings };
    });
  }
}

export class Authorizer {
  private readonly indexes = new Map<string, OrgIndex>();
  private readonly building = new Map<string, Promise<OrgIndex>>();

  constructor(private readonly store: Store) {}

  /** The current authorization view of `org`; rebuilt only when policies, groups or users changed. */
  async forOrg(org: string): Promise<OrgAuthz> {
    const counters = await this.store.changeCounters(org, INDEXED_KINDS);
    const cached = this.indexes.get(org);
    if (cached && cached.counters.every((c, i) => c === counters[i])) return new OrgAuthz(org, cached);
    const key = `${org}\n${counters.join(",")}`;
    let pending = this.building.get(key);
    if (!pending) {
      pending = (async () => {
        const [policies, groups] = await Promise.all([this.store.list(org, "policy"), this.store.list(org, "group")]);
        const queried = groups.some((g) => isObject(g.doc["memberQuery"]));
        const users = queried ? await this.store.list(org, "user") : [];
        const index = buildIndex(
          org,
          policies.map((r) => r.doc),
          groups.map((r) => r.doc),
          users.map((r) => r.doc),
          counters,
        );
        this.indexes.set(org, index);
        return index;
      })().finally(() => this.building.delete(key));
      this.building.set(key, pending);
    }
    return new OrgAuthz(org, await pending);
  }
}

/**
 * Contract facts per kind: scope, permission catalog (API order, with implied permissions), queryable properties and
 * rels. Plain data only (no zod): the server's authorization and the provider both read it.
 *
 * Catalogs come from reference/control-plane-api.md §3.3. Kinds without a documented table (gvc, mk8s, user) follow
 * the common pattern create/delete/edit(view)/manage/view; mk8s adds `join` (the `-join` endpoint needs a permission
 * of its own; implied by `manage` only). Org implications other than `manage` are not documented: `edit` implies
 * `view` and `exec` implies `exec.echo` as on every other kind.
 */

import type { z } from "zod";
import { mk8sJoinRequest, mk8sJoinResponse } from "./schemas/mk8s.js";
import { serviceAccountKey, serviceAccountKeyCreate } from "./schemas/serviceAccount.js";

export const kindNames = [
  "org",
  "gvc",
  "volumeset",
  "location",
  "policy",
  "group",
  "serviceaccount",
  "user",
  "cloudaccount",
  "mk8s",
  "auditctx",
  "quota",
] as const;
export type Kind = (typeof kindNames)[number];

export interface Permission {
  readonly name: string;
  readonly description: string;
  /** Permissions this one grants besides itself (`manage` lists every permission, itself included). */
  readonly implies: readonly string[];
}

export interface KindInfo {
  readonly kind: Kind;
  /** `gvc`: the object lives under `/org/{org}/gvc/{gvc}/`. */
  readonly scope: "org" | "gvc";
  readonly permissions: readonly Permission[];
  /** Properties a query term may name beyond the common ones (`commonQueryProperties`). */
  readonly queryProperties: readonly string[];
  /** Relations a query term may name (`rel`), read from the item's links. */
  readonly rels: readonly string[];
  /** The kind has one object per org, addressed as `/org/{org}` (the org itself). */
  readonly singleton?: boolean;
  /** Creating one may be attempted without credentials (the API document's empty security alternative). */
  readonly anonymousCreate?: boolean;
  /** The contract of each action `POST .../{name}/-<action>` (the server's kind rules implement them). */
  readonly actions?: Readonly<Record<string, ActionContract>>;
}

/** A named body schema of an action (a component of the OpenAPI document). */
export interface NamedBody {
  readonly name: string;
  readonly schema: () => z.ZodType;
}

export interface ActionContract {
  readonly summary: string;
  readonly description?: string;
  readonly request: NamedBody;
  readonly response: NamedBody & { readonly description: string };
}

/** Properties every kind can be queried and sorted by. */
export const commonQueryProperties: readonly string[] = [
  "name",
  "id",
  "version",
  "description",
  "created",
  "lastModified",
];

function perm(name: string, description: string, implies: readonly string[] = []): Permission {
  return { name, description, implies };
}

/** `manage`: full access, implying every permission of the kind including itself. */
function withManage(permissions: readonly Permission[], description = "Full access"): readonly Permission[] {
  const names = [...permissions.map((p) => p.name), "manage"].sort();
  return [...permissions, perm("manage", description, names)].sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** create/delete/edit(view)/view (+ extras) and manage, in alphabetical (API) order. */
function standardCatalog(noun: string, extras: readonly Permission[] = []): readonly Permission[] {
  return withManage([
    perm("create", `Create new ${noun}`),
    perm("delete", `Delete existing ${noun}`),
    perm("edit", `Modify existing ${noun}`, ["view"]),
    perm("view", "Read-only access"),
    ...extras,
  ]);
}

const volumeSetExecs = [
  "exec.createVolumeSnapshot",
  "exec.deleteVolume",
  "exec.deleteVolumeSnapshot",
  "exec.expandVolume",
  "exec.restoreVolume",
  "exec.shrinkVolume",
] as const;

export const kinds: Readonly<Record<Kind, KindInfo>> = {
  org: {
    kind: "org",
    scope: "org",
    permissions: withManage([
      perm("edit", "Modify the org", ["view"]),
      perm("exec", "Execute commands", ["exec.echo"]),
      perm("exec.echo", "Echo (test command)"),
      perm("grafanaAdmin", "Administer Grafana"),
      perm("readLogs", "Read logs"),
      perm("readMetrics", "Read metrics"),
      perm("readUsage", "Read usage"),
      perm("view", "Read-only access"),
      perm("viewAccessReport", "View access reports"),
    ]),
    queryProperties: [],
    rels: [],
    singleton: true,
  },
  gvc: {
    kind: "gvc",
    scope: "org",
    permissions: standardCatalog("gvcs"),
    queryProperties: [],
    rels: [],
  },
  volumeset: {
    kind: "volumeset",
    scope: "gvc",
    permissions: withManage([
      perm("create", "Create new volume sets"),
      perm("delete", "Delete existing volume sets"),
      perm("edit", "Modify existing volume sets", ["view"]),
      perm("exec", "Run every volume command", volumeSetExecs),
      perm("exec.createVolumeSnapshot", "Create a volume snapshot"),
      perm("exec.deleteVolume", "Delete a volume"),
      perm("exec.deleteVolumeSnapshot", "Delete a volume snapshot"),
      perm("exec.expandVolume", "Expand a volume"),
      perm("exec.restoreVolume", "Restore a volume from a snapshot"),
      perm("exec.shrinkVolume", "Shrink a volume"),
      perm("view", "Read-only access"),
    ]),
    queryProperties: [],
    rels: ["gvc"],
    anonymousCreate: true,
  },
  location: {
    kind: "location",
    scope: "org",
    permissions: withManage([
      perm("create", "Create new locations"),
      perm("delete", "Delete byok locations"),
      perm("edit", "Modify existing locations", ["view"]),
      perm("use", "Use this location for workload placement", ["view"]),
      perm("view", "Read-only access"),
    ]),
    queryProperties: ["origin", "provider", "region"],
    rels: [],
  },
  policy: {
    kind: "policy",
    scope: "org",
    permissions: withManage([
      perm("create", "Create new policies"),
      perm("delete", "Delete existing policies"),
      perm("edit", "Modify existing policies", ["view"]),
      perm("view", "Read-only access"),
    ]),
    queryProperties: ["origin", "targetKind"],
    rels: [],
  },
  group: {
    kind: "group",
    scope: "org",
    permissions: withManage([
      perm("create", "Create new groups"),
      perm("delete", "Delete a group"),
      perm("edit", "Modify existing groups", ["view"]),
      perm("view", "Read-only view"),
    ]),
    queryProperties: ["origin"],
    rels: [],
  },
  serviceaccount: {
    kind: "serviceaccount",
    scope: "org",
    permissions: withManage([
      perm("addKey", "Add a key"),
      perm("create", "Create new service accounts"),
      perm("delete", "Delete existing service accounts"),
      perm("edit", "Modify existing service accounts", ["view"]),
      perm("view", "Read-only access"),
    ]),
    queryProperties: ["origin"],
    rels: [],
    actions: {
      addKey: {
        summary: "Add a key (its value is returned once)",
        request: { name: "ServiceAccountKeyCreate", schema: () => serviceAccountKeyCreate() },
        response: { name: "ServiceAccountKey", description: "The new key (secret)", schema: () => serviceAccountKey() },
      },
    },
  },
  user: {
    kind: "user",
    scope: "org",
    permissions: standardCatalog("users"),
    queryProperties: ["email", "idp"],
    rels: [],
  },
  cloudaccount: {
    kind: "cloudaccount",
    scope: "org",
    permissions: withManage([
      perm("browse", "Browse account contents", ["view"]),
      perm("create", "Create new cloud accounts"),
      perm("delete", "Delete existing cloud accounts"),
      perm("edit", "Modify existing cloud accounts", ["view", "browse"]),
      perm("view", "Read-only access"),
    ]),
    queryProperties: ["provider"],
    rels: [],
  },
  mk8s: {
    kind: "mk8s",
    scope: "org",
    permissions: standardCatalog("mk8s clusters", [perm("join", "Obtain a node join script")]),
    queryProperties: [],
    rels: [],
    actions: {
      join: {
        summary: "Get a node join script",
        description: "For clusters whose provider is generic or hetzner; other providers answer 400 Unsupported.",
        request: { name: "JoinRequest", schema: () => mk8sJoinRequest() },
        response: { name: "JoinResponse", description: "Join script (secret)", schema: () => mk8sJoinResponse() },
      },
    },
  },
  auditctx: {
    kind: "auditctx",
    scope: "org",
    // No `delete`: audit contexts cannot be deleted by any principal (reference §3.3, §9).
    permissions: withManage([
      perm("create", "Create new audit contexts"),
      perm("edit", "Modify existing audit contexts", ["view"]),
      perm("readAudit", "Read audit events", ["view"]),
      perm("view", "Read-only access"),
      perm("writeAudit", "Write audit events", ["view"]),
    ]),
    queryProperties: ["origin"],
    rels: [],
  },
  quota: {
    kind: "quota",
    scope: "org",
    permissions: withManage([
      perm("create", "Create new quotas"),
      perm("edit", "Modify existing quotas", ["view"]),
      perm("view", "Read-only access"),
    ]),
    queryProperties: ["origin", "max", "current", "unit"],
    rels: [],
  },
};

export function isKind(value: unknown): value is Kind {
  return typeof value === "string" && (kindNames as readonly string[]).includes(value);
}

export function permissionNames(kind: Kind): string[] {
  return kinds[kind].permissions.map((p) => p.name);
}

export function hasPermission(kind: Kind, permission: string): boolean {
  return kinds[kind].permissions.some((p) => p.name === permission);
}

/** Everything `permission` grants on `kind`, itself included, following implications transitively. */
export function grantedBy(kind: Kind, permission: string): string[] {
  const catalog = kinds[kind].permissions;
  const granted = new Set<string>();
  const pending = [permission];
  while (pending.length > 0) {
    const next = pending.pop() as string;
    if (granted.has(next)) continue;
    granted.add(next);
    for (const implied of catalog.find((p) => p.name === next)?.implies ?? []) pending.push(implied);
  }
  return catalog.map((p) => p.name).filter((name) => granted.has(name));
}

/** The permissions of `kind` that grant `permission` (itself included), in catalog order. */
export function impliedBy(kind: Kind, permission: string): string[] {
  if (!hasPermission(kind, permission)) return [];
  return permissionNames(kind).filter((name) => grantedBy(kind, name).includes(permission));
}

/** The `implied` map of the permission schema response: each permission that implies others → those (as documented). */
export function impliedMap(kind: Kind): Record<string, string[]> {
  const implied: Record<string, string[]> = {};
  for (const p of kinds[kind].permissions) if (p.implies.length > 0) implied[p.name] = [...p.implies];
  return implied;
}

/** Properties a query on `kind` may name (common + kind-specific). */
export function queryProperties(kind: Kind): string[] {
  return [...commonQueryProperties, ...kinds[kind].queryProperties];
}

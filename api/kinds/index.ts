/**
 * The registry of kinds: one descriptor per kind (`api/kinds/<kind>.ts`). A new kind is a new descriptor file plus
 * its entry in `declared` below; the names (`kindNames`, `Kind`), the table by name and everything generic (routes,
 * OpenAPI, authorization, the patch engine's rules, the client, the provider's resources, the SDK) follow from it.
 *
 * The kinds cpln-local stores. Their permission catalogs, and those of every other kind a policy may target (the
 * policy set, `policyKindNames`), are in `catalogs.ts` with their sources.
 */
import type { PatchRules } from "../patch/rules.js";
import { auditCtxKind } from "./auditCtx.js";
import { cloudAccountKind } from "./cloudAccount.js";
import { domainKind } from "./domain.js";
import { groupKind } from "./group.js";
import { gvcKind } from "./gvc.js";
import { imageKind } from "./image.js";
import { identityKind } from "./identity.js";
import { locationKind } from "./location.js";
import { mk8sKind } from "./mk8s.js";
import { orgKind } from "./org.js";
import { policyKind } from "./policy.js";
import { quotaKind } from "./quota.js";
import { secretKind } from "./secret.js";
import { serviceAccountKind } from "./serviceAccount.js";
import type { EndpointContract, KindDescriptor as Descriptor } from "./types.js";
import { hasPermission, permissionNames } from "./catalogs.js";
import { userKind } from "./user.js";
import { volumeSetKind } from "./volumeSet.js";
import { workloadKind } from "./workload.js";

export type { Permission } from "./permission.js";
export type { ActionContract, NamedBody } from "./types.js";

/** Every kind's descriptor, in the order lists of kinds take (the org first: it holds every other object). */
const declared = [
  orgKind,
  gvcKind,
  volumeSetKind,
  locationKind,
  policyKind,
  groupKind,
  serviceAccountKind,
  userKind,
  cloudAccountKind,
  mk8sKind,
  auditCtxKind,
  quotaKind,
  workloadKind,
  domainKind,
  imageKind,
  secretKind,
  identityKind,
] as const;

/** The name of a kind cpln-local stores. */
export type Kind = (typeof declared)[number]["kind"];

/** The declaration of a kind cpln-local stores. */
export type KindDescriptor<K extends Kind = Kind> = Descriptor<K>;

/**
 * Every descriptor's own type, as precise as it is written: one written `{...} satisfies KindDescriptor<"x">` keeps
 * its schemas' types, which the SDK's compile-time check derives a declared resource's args from.
 */
export type KindDeclaration = (typeof declared)[number];

/** The kinds cpln-local stores, by name, in the registry's order. */
export const kindNames: readonly Kind[] = declared.map((descriptor) => descriptor.kind);

/** Every kind's descriptor by name. */
export const kinds: Readonly<Record<Kind, KindDescriptor>> = Object.fromEntries(
  declared.map((descriptor): [Kind, KindDescriptor] => [descriptor.kind, descriptor]),
) as Record<Kind, KindDescriptor>;

if (Object.keys(kinds).length !== declared.length) {
  throw new Error(`Two descriptors in api/kinds/index.ts declare one kind: ${kindNames.join(", ")}`);
}

/** The patch rules of every kind by kind name (read from the descriptors), for `applyPatch` and `buildPatch`. */
export const patchRules: Readonly<Record<string, PatchRules>> = Object.fromEntries(
  kindNames.map((kind) => [kind, kinds[kind].patchRules]),
);

export {
  catalogOf,
  hasPermission,
  isPolicyKind,
  linkFormOf,
  permissionNames,
  policyKindNames,
  type LinkForm,
  type PolicyKind,
} from "./catalogs.js";

// ---- generic facts about kinds, read from the descriptors ----

/** Properties every kind can be queried and sorted by. */
export const commonQueryProperties: readonly string[] = [
  "name",
  "id",
  "version",
  "description",
  "created",
  "lastModified",
];

export function isKind(value: unknown): value is Kind {
  return typeof value === "string" && (kindNames as readonly string[]).includes(value);
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

/**
 * The endpoint that returns a kind's reveal-only fields (a secret's `-reveal`), or undefined when it has none: reads
 * that need those fields (a resource's refresh and import, its `get<Type>`) go through it.
 */
export function revealEndpointOf(descriptor: KindDescriptor): EndpointContract | undefined {
  return (descriptor.revealOnly ?? []).length > 0 ? descriptor.endpoints?.["reveal"] : undefined;
}

/**
 * Generic facts about kinds, read from the registry (`api/kinds/index.ts`, one descriptor per kind): names, scope,
 * permission catalogs and their implications, queryable properties. Plain functions over the descriptors.
 */
import { hasPermission, permissionNames } from "./kinds/catalogs.js";
import { kindNames, kinds, type Kind } from "./kinds/index.js";

export { kindNames, kinds, patchRules, type Kind, type KindDescriptor, type Permission } from "./kinds/index.js";
export type { ActionContract, NamedBody } from "./kinds/index.js";
export {
  catalogOf,
  hasPermission,
  isPolicyKind,
  linkFormOf,
  permissionNames,
  policyKindNames,
  type LinkForm,
  type PolicyKind,
} from "./kinds/catalogs.js";

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

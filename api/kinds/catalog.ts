/** Building blocks of the permission catalogs (API order: alphabetical, with implied permissions). */

export interface Permission {
  readonly name: string;
  readonly description: string;
  /** Permissions this one grants besides itself (`manage` lists every permission, itself included). */
  readonly implies: readonly string[];
}

export function perm(name: string, description: string, implies: readonly string[] = []): Permission {
  return { name, description, implies };
}

/** `manage`: full access, implying every permission of the kind including itself. */
export function withManage(permissions: readonly Permission[], description = "Full access"): readonly Permission[] {
  const names = [...permissions.map((p) => p.name), "manage"].sort();
  return [...permissions, perm("manage", description, names)].sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** create/delete/edit(view)/view (+ extras) and manage, in alphabetical (API) order. */
export function standardCatalog(noun: string, extras: readonly Permission[] = []): readonly Permission[] {
  return withManage([
    perm("create", `Create new ${noun}`),
    perm("delete", `Delete existing ${noun}`),
    perm("edit", `Modify existing ${noun}`, ["view"]),
    perm("view", "Read-only access"),
    ...extras,
  ]);
}

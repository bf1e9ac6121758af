/** Building blocks of the permission catalogs (`catalogs.ts`). */

export interface Permission {
  readonly name: string;
  readonly description: string;
  /** Permissions this one grants besides itself (`manage` lists every permission, itself included). */
  readonly implies: readonly string[];
}

export function perm(name: string, description: string, implies: readonly string[] = []): Permission {
  return { name, description, implies };
}

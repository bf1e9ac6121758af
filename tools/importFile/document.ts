/**
 * An org as a `pulumi import --file` document: every object of the kinds this package manages, as resources of the
 * native plugin (`cpln-native:index:<Type>`) whose ids are self links, which the plugin's Read accepts (with any
 * configured org). The format is the one `pulumi import --file` reads (pulumi/pulumi v3.274.1
 * pkg/cmd/pulumi/operations/import.go, `importFile` / `importSpec`): `resources[]` of `{type, name, id, logicalName}`,
 * where `logicalName` becomes the resource's name in its URN (unique per type) and `name` the variable name of the
 * generated code (unique in the file). No `nameTable`: nothing here has a parent or an explicit provider.
 */
import { collectionPath, selfLink } from "../../api/links.js";
import { kinds, type Kind } from "../../api/kinds/index.js";
import type { ApiRecord } from "../../provider/client/index.js";
import type { ResourceTypeName } from "../../provider/resources/types.js";
import type { DeclaredTypeName } from "../../provider/resources/declaredNames.js";
import type { handWrittenTypeNames } from "../../provider/resources/typeNames.js";

export const NATIVE_TYPE_PREFIX = "cpln-native:index:";

/** One resource of the document. */
export interface ImportSpec {
  type: string;
  name: string;
  id: string;
  logicalName: string;
}

export interface ImportDocument {
  resources: ImportSpec[];
}

/** What the document builder needs from a client: the objects of a collection, all pages. */
export interface Lister {
  listByLink(collection: string): Promise<ApiRecord[]>;
}

/** One object to import, before naming. */
interface Found {
  type: ResourceTypeName;
  kind: Kind;
  /** The object's name; for keys, the key's name. */
  name: string;
  /** The gvc of a gvc-scoped object; the service account of a key. */
  within?: string;
  id: string;
  builtin: boolean;
}

const isBuiltin = (record: ApiRecord) => record.origin === "builtin";

/**
 * How each resource type's objects are found (a per-type table: adding a resource type fails the compiler until it has
 * an entry). `undefined`: the type has no objects of its own to import.
 */
type Source =
  | { kind: Kind; scope: "org" }
  | { kind: Kind; scope: "gvc" }
  | { kind: Kind; scope: "children"; of: ResourceTypeName; items: (parent: ApiRecord) => string[] };

const handWrittenSources: Record<(typeof handWrittenTypeNames)[number], Source | undefined> = {
  AuditContext: { kind: "auditctx", scope: "org" },
  CloudAccount: { kind: "cloudaccount", scope: "org" },
  Group: { kind: "group", scope: "org" },
  Location: { kind: "location", scope: "org" },
  Policy: { kind: "policy", scope: "org" },
  ServiceAccount: { kind: "serviceaccount", scope: "org" },
  // A key's id is its service account's link and the key's name (provider/resources/serviceAccountKey.ts).
  ServiceAccountKey: {
    kind: "serviceaccount",
    scope: "children",
    of: "ServiceAccount",
    items: (account) =>
      Array.isArray(account.keys)
        ? account.keys.flatMap((key: unknown) =>
            typeof key === "object" && key !== null && typeof (key as { name?: unknown }).name === "string"
              ? [(key as { name: string }).name]
              : [],
          )
        : [],
  },
  VolumeSet: { kind: "volumeset", scope: "gvc" },
  // A binding belongs to its policy: importing the Policy imports its bindings.
  PolicyBinding: undefined,
  // The org's settings are not an object of the org: `new Org` adopts them (and restores them on delete).
  Org: undefined,
  // A route belongs to its domain: importing the Domain imports its routes.
  DomainRoute: undefined,
};

/** Every type's source: a declared resource's objects are those of its kind, in the kind's scope. */
export const sources: Record<ResourceTypeName, Source | undefined> = {
  ...handWrittenSources,
  ...(Object.fromEntries(
    Object.values(kinds).flatMap((descriptor) =>
      descriptor.resource === undefined
        ? []
        : [[descriptor.resource.typeName, { kind: descriptor.kind, scope: descriptor.scope }]],
    ),
  ) as Record<DeclaredTypeName, Source>),
};

/** Every object of the managed kinds in `org`, in a stable order (type, then gvc or account, then name). */
async function findAll(client: Lister, org: string): Promise<Found[]> {
  const found: Found[] = [];
  const byType = new Map<ResourceTypeName, ApiRecord[]>();
  let gvcs: string[] | undefined;
  const types = (Object.keys(sources) as ResourceTypeName[]).sort();
  // Parents first, so that children can be listed from them.
  const ordered = [
    ...types.filter((t) => sources[t]?.scope !== "children"),
    ...types.filter((t) => sources[t]?.scope === "children"),
  ];
  for (const type of ordered) {
    const source = sources[type];
    if (source === undefined) continue;
    if (source.scope === "org") {
      const records = await client.listByLink(collectionPath(org, source.kind));
      byType.set(type, records);
      for (const record of records) {
        found.push({
          type,
          kind: source.kind,
          name: record.name,
          id: selfLink(org, source.kind, record.name),
          builtin: isBuiltin(record),
        });
      }
    } else if (source.scope === "gvc") {
      gvcs ??= (await client.listByLink(collectionPath(org, "gvc"))).map((gvc) => gvc.name).sort();
      for (const gvc of gvcs) {
        for (const record of await client.listByLink(collectionPath(org, source.kind, gvc))) {
          const id = selfLink(org, source.kind, record.name, gvc);
          found.push({ type, kind: source.kind, name: record.name, within: gvc, id, builtin: isBuiltin(record) });
        }
      }
    } else {
      for (const parent of byType.get(source.of) ?? []) {
        for (const item of source.items(parent)) {
          const id = `${selfLink(org, source.kind, parent.name)}#${item}`;
          found.push({ type, kind: source.kind, name: item, within: parent.name, id, builtin: isBuiltin(parent) });
        }
      }
    }
  }
  const key = (f: Found) => [f.type, f.within ?? "", f.name].join("\u0000");
  return found.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** `policy_viewers_gvc`: a variable-like name from parts (letters, digits and `_`). */
function identifier(parts: string[]): string {
  return parts
    .join("_")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

export interface DocumentOptions {
  org: string;
  /** Include built-in objects (origin `builtin`), their names prefixed `builtin_`. Default: leave them out. */
  includeBuiltins?: boolean;
}

/** The import document of an org, and how many built-in objects were left out. */
export async function importDocument(
  client: Lister,
  options: DocumentOptions,
): Promise<{ document: ImportDocument; builtinsLeftOut: number }> {
  const all = await findAll(client, options.org);
  const kept = all.filter((f) => options.includeBuiltins === true || !f.builtin);
  const taken = new Set<string>();
  const resources = kept.map((f): ImportSpec => {
    const within = f.within !== undefined ? [f.within] : [];
    const base = identifier([...(f.builtin ? ["builtin"] : []), f.type.toLowerCase(), ...within, f.name]);
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
    taken.add(name);
    // Unique per type: a name within its gvc or service account (neither can hold a '/').
    const logicalName = f.within === undefined ? f.name : `${f.within}/${f.name}`;
    return { type: `${NATIVE_TYPE_PREFIX}${f.type}`, name, id: f.id, logicalName };
  });
  return { document: { resources }, builtinsLeftOut: all.length - kept.length };
}

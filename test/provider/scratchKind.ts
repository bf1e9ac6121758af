// What test/provider/scratchKind.test.ts writes into its copy of the sources and what it expects to change there.

/** The resource type name of the scratch kind (`ipset` → `Ipset`). */
export function typeNameOf(kind: string): string {
  return `${kind[0]!.toUpperCase()}${kind.slice(1)}`;
}

/**
 * The whole declaration of a kind with no rules beyond it, as a maintainer writes `api/kinds/<kind>.ts`: its schemas
 * (record, create, patch), permission catalog, array keys, an immutable field, a resource and its example bodies.
 */
export function declarationOf(kind: string): string {
  return `import { z } from "zod";
import { lazy } from "../lazy.js";
import { valueSet } from "../patch/rules.js";
import {
  describedTaggedPatchFields,
  description,
  name,
  patchObject,
  readOnlyPatchShape,
  recordShape,
  tags,
} from "../schemas/common.js";
import { catalogOf } from "./catalogs.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindDescriptor } from "./types.js";

const spec = lazy(() =>
  z
    .strictObject({
      region: z.enum(["north", "south"]).describe("Where the set applies; fixed at create."),
      cidrs: z.array(z.string().min(1).max(64)).max(20).optional().describe("Address ranges in the set."),
    })
    .describe("The set."),
);
const record = lazy(() => z.looseObject({ ...recordShape("${kind}"), spec: spec() }).describe("A set of ranges."));
const create = lazy(() =>
  z
    .strictObject({ name: name(), description: description().optional(), tags: tags().optional(), spec: spec() })
    .describe("Body of POST /org/{org}/${kind}."),
);
const patch = lazy(() =>
  patchObject({ ...describedTaggedPatchFields(), spec: { value: spec(), required: true } }, readOnlyPatchShape())
    .describe("Body of PATCH /org/{org}/${kind}/{name}."),
);

export const ${kind}Kind = {
  kind: "${kind}",
  scope: "org",
  permissions: catalogOf("${kind}"),
  queryProperties: [],
  rels: [],
  endpoints: { eventlog: eventlogEndpoint },
  schemas: { record: () => record(), create: () => create(), patch: () => patch() },
  patchRules: { arrays: { "spec.cidrs": valueSet } },
  addressing: { field: "name", by: "name" },
  immutable: ["spec.region"],
  resource: { typeName: "${typeNameOf(kind)}", description: "A scratch kind: a set of address ranges." },
  examples: {
    create: (name) => ({ name, spec: { region: "north", cidrs: ["10.0.0.0/8"] } }),
    patch: (marker) => ({ description: \`patched \${marker}\`, tags: { example: marker } }),
    immutableChange: { "spec.region": "south" },
  },
} satisfies KindDescriptor<"${kind}">;
`;
}

/** The files `npm run gen` writes: with the declaration and its registry entry, the only files a new kind changes. */
export const GENERATED = [
  "schema.json",
  "docs/resources.md",
  "docs/migrating-from-pulumiverse.md",
  "sdk/types.ts",
  "sdk/declared.ts",
  "sdk/native/declared.ts",
  "provider/resources/declaredNames.ts",
];

/**
 * The generic suites run over the scratch kind: each reads every kind from the registry and its example bodies.
 * Not here for cost (they take minutes): test/reliability's security matrix, crash counts and fuzzers, which read the
 * registry the same way.
 */
export const GENERIC_SUITES = [
  "test/unit/contract.test.ts",
  "test/unit/migrationGuide.test.ts",
  "test/unit/schema.test.ts",
  "test/unit/adopt.test.ts",
  "test/server/declared.test.ts",
  "test/server/openapi.test.ts",
  "test/server/kind-quotas.test.ts",
  "test/fidelity/roundtrip.test.ts",
  "test/provider/declared.lifecycle.test.ts",
  "test/provider/dataSources.test.ts",
  "test/native/declared.test.ts",
];

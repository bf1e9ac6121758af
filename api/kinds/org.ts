import { catalogOf } from "./catalogs.js";
import { org, orgPatch } from "../schemas/org.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindDescriptor } from "./types.js";

/** The contract of kind `org`. */
export const orgKind = {
  kind: "org",
  scope: "org",
  permissions: catalogOf("org"),
  queryProperties: [],
  rels: [],
  singleton: true,
  endpoints: {
    eventlog: eventlogEndpoint,
  },
  schemas: {
    record: () => org(),
    patch: () => orgPatch(),
  },
  patchRules: { arrays: {} },
  addressing: { field: "name", by: "name" },
  dataSources: { get: "getOrg" },
  examples: {
    patch: (marker) => ({ description: `patched ${marker}`, tags: { example: marker } }),
  },
} satisfies KindDescriptor<"org">;

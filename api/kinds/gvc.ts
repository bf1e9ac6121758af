import { catalogOf } from "./catalogs.js";
import { gvc, gvcCreate, gvcPatch } from "../schemas/gvc.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindDescriptor } from "./types.js";

/** The contract of kind `gvc`. */
export const gvcKind: KindDescriptor = {
  kind: "gvc",
  scope: "org",
  permissions: catalogOf("gvc"),
  queryProperties: [],
  rels: [],
  endpoints: {
    eventlog: eventlogEndpoint,
  },
  schemas: {
    record: () => gvc(),
    create: () => gvcCreate(),
    patch: () => gvcPatch(),
  },
  patchRules: { arrays: {} },
  addressing: { field: "name", by: "name" },
  dataSources: { list: "getGvcs" },
  resource: {
    typeName: "Gvc",
    description:
      "A Control Plane global virtual cloud (GVC): the locations its workloads run in, its pull secrets and the " +
      "environment every workload of it gets. name and org cannot change in place; every other change is one PATCH " +
      "holding only what changed (environment variables keyed by name, links as sets).",
  },
  examples: {
    create: (name) => ({ name, description: "a gvc" }),
    patch: (marker) => ({ description: `patched ${marker}`, tags: { example: marker } }),
  },
};

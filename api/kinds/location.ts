import { catalogOf } from "./catalogs.js";
import { location, locationCreate, locationPatch } from "../schemas/location.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindDescriptor } from "./types.js";

/** The contract of kind `location`. */
export const locationKind = {
  kind: "location",
  scope: "org",
  permissions: catalogOf("location"),
  queryProperties: ["origin", "provider", "region"],
  rels: [],
  endpoints: {
    eventlog: eventlogEndpoint,
  },
  schemas: {
    record: () => location(),
    create: () => locationCreate(),
    patch: () => locationPatch(),
  },
  patchRules: { arrays: {} },
  addressing: { field: "name", by: "name" },
  dataSources: { list: "getLocations" },
  examples: {
    create: (name) => ({ name, provider: "byok", description: "a byok location" }),
    patch: (marker) => ({ description: `patched ${marker}`, tags: { example: marker } }),
  },
} satisfies KindDescriptor<"location">;

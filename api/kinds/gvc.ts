import { catalogOf } from "./catalogs.js";
import { DEFAULT_ENDPOINT_NAMING_FORMAT, gvc, gvcCreate, gvcPatch } from "../schemas/gvc.js";
import { eventlogEndpoint } from "./eventlog.js";
import { defaultArrayRule, queryTerms, valueSet, type ArrayRule } from "../patch/rules.js";
import type { KindDescriptor } from "./types.js";

/** A location option is named by its location's link. */
const byLocationLink: ArrayRule = {
  key: (item) => {
    const link = typeof item === "object" && item !== null && !Array.isArray(item) ? item["locationLink"] : undefined;
    return typeof link === "string" ? link : undefined;
  },
  keyFields: ["locationLink"],
  ordered: false,
};

/** The contract of kind `gvc`. */
export const gvcKind = {
  kind: "gvc",
  scope: "org",
  permissions: catalogOf("gvc"),
  // The official CLI queries gvcs by alias (`cpln gvc query`: `props: [...defaultProps, 'alias']`).
  queryProperties: ["alias"],
  rels: [],
  endpoints: {
    eventlog: eventlogEndpoint,
  },
  schemas: {
    record: () => gvc(),
    create: () => gvcCreate(),
    patch: () => gvcPatch(),
  },
  patchRules: {
    arrays: {
      "spec.staticPlacement.locationLinks": valueSet,
      "spec.staticPlacement.locationOptions": byLocationLink,
      "spec.staticPlacement.locationQuery.spec.terms": queryTerms,
      "spec.pullSecretLinks": valueSet,
      "spec.keda.secrets": valueSet,
      "spec.env": defaultArrayRule,
    },
  },
  addressing: { field: "name", by: "name" },
  dataSources: { list: "getGvcs" },
  // The server fills endpointNamingFormat when a spec leaves it out (terraform-provider-cpln's acceptance test reads
  // `org` back after a create without it); the provider fills it too, so leaving it out is no change.
  defaults: (body) => {
    const spec = (body.spec ?? {}) as Record<string, unknown>;
    return {
      ...body,
      spec: { ...spec, endpointNamingFormat: spec.endpointNamingFormat ?? DEFAULT_ENDPOINT_NAMING_FORMAT },
    };
  },
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
} satisfies KindDescriptor<"gvc">;

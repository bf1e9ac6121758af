import { catalogOf } from "./catalogs.js";
import { namedSet } from "../patch/rules.js";
import {
  serviceAccount,
  serviceAccountCreate,
  serviceAccountKey,
  serviceAccountKeyCreate,
  serviceAccountPatch,
} from "../schemas/serviceAccount.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindDescriptor } from "./types.js";

/** The contract of kind `serviceaccount`. */
export const serviceAccountKind = {
  kind: "serviceaccount",
  scope: "org",
  permissions: catalogOf("serviceaccount"),
  queryProperties: ["origin"],
  rels: [],
  actions: {
    addKey: {
      summary: "Add a key (its value is returned once)",
      request: { name: "ServiceAccountKeyCreate", schema: () => serviceAccountKeyCreate() },
      response: { name: "ServiceAccountKey", description: "The new key (secret)", schema: () => serviceAccountKey() },
    },
  },
  endpoints: {
    eventlog: eventlogEndpoint,
  },
  schemas: {
    record: () => serviceAccount(),
    create: () => serviceAccountCreate(),
    patch: () => serviceAccountPatch(),
  },
  patchRules: { arrays: { keys: namedSet } },
  addressing: { field: "name", by: "name" },
  examples: {
    create: (name) => ({ name, description: "a service account" }),
    patch: (marker) => ({ description: `patched ${marker}`, tags: { example: marker } }),
  },
} satisfies KindDescriptor<"serviceaccount">;

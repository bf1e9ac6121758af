import { catalogOf } from "./catalogs.js";
import { volumeSet, volumeSetCreate, volumeSetPatch } from "../schemas/volumeSet.js";
import type { KindDescriptor } from "./types.js";

/** The contract of kind `volumeset`. */
export const volumeSetKind: KindDescriptor = {
  kind: "volumeset",
  scope: "gvc",
  permissions: catalogOf("volumeset"),
  queryProperties: [],
  rels: ["gvc"],
  anonymousCreate: true,
  schemas: {
    record: () => volumeSet(),
    create: () => volumeSetCreate(),
    patch: () => volumeSetPatch(),
  },
  patchRules: { arrays: {} },
  addressing: { field: "name", by: "name" },
};

import { catalogOf } from "./catalogs.js";
import { image, imageName, imagePatch } from "../schemas/image.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindDescriptor } from "./types.js";

/**
 * The contract of kind `image`: org-scoped, named `<repository>:<tag>`, never created through the API (a push to the
 * org's registry creates it; cpln-local's admin push or a seed file stand in for that), only its tags change.
 */
export const imageKind = {
  kind: "image",
  scope: "org",
  permissions: catalogOf("image"),
  // Query properties of the CLI's `cpln image query` (its schema's props beyond the common ones).
  queryProperties: ["repository", "tag", "digest"],
  rels: [],
  endpoints: {
    eventlog: eventlogEndpoint,
  },
  schemas: {
    record: () => image(),
    patch: () => imagePatch(),
  },
  patchRules: { arrays: {} },
  addressing: { field: "name", by: "name", schema: () => imageName() },
  dataSources: { get: "getImage", list: "getImages" },
  examples: {
    patch: (marker) => ({ tags: { example: marker } }),
  },
} satisfies KindDescriptor<"image">;

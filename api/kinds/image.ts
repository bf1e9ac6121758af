import { catalogOf } from "./catalogs.js";
import { image, imageName, imagePatch, imageRepository } from "../schemas/image.js";
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
    // terraform-provider-cpln's `cpln_image` reads a name without a tag here (`client/image.go` `GetLatestImage`).
    latest: {
      method: "GET",
      on: "collection",
      param: {
        name: "repository",
        description: "A repository of the org's registry (an image's name before `:`).",
        schema: () => imageRepository(),
      },
      summary:
        "The latest image of a repository (what terraform-provider-cpln's cpln_image reads for a name without a tag)",
      description:
        "Needs `view` on images. The image of the repository pushed last (the latest `created`; the greater name " +
        "when two were pushed at once); 404 when the repository has none.",
      response: { name: "Image", description: "The latest image", status: 200, schema: () => image() },
    },
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

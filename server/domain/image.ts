import { createHash } from "node:crypto";
import { notFound } from "../errors.js";
import type { JsonObject } from "../store/store.js";
import { isObject } from "./common.js";
import { eventlogEndpoint } from "./eventlog.js";
import { presentRecord } from "./present.js";
import type { KindEndpoint, KindServerRules } from "./rules.js";

const sha256 = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

/**
 * The manifest a push without one records: a Docker v2 manifest of one config blob and one layer, both derived from
 * the image's name (so two pushes of one name agree).
 */
function defaultManifest(name: string): JsonObject {
  return {
    schemaVersion: 2,
    mediaType: "application/vnd.docker.distribution.manifest.v2+json",
    config: {
      mediaType: "application/vnd.docker.container.image.v1+json",
      size: 1024,
      digest: sha256(`config ${name}`),
    },
    layers: [
      { mediaType: "application/vnd.docker.image.rootfs.diff.tar.gzip", size: 4096, digest: sha256(`layer ${name}`) },
    ],
  };
}

/**
 * `GET /org/{org}/image/-latest/{repository}`: the repository's image pushed last. "Latest" is the newest `created`
 * (a push creates the image); two pushed in the same millisecond are told apart by name, so the answer is stable.
 */
const latestEndpoint: KindEndpoint = {
  permission: "view",
  async run(ctx) {
    // The contract's rule of the parameter (a repository name) was checked before this runs.
    const repository = ctx.param ?? "";
    let latest: JsonObject | undefined;
    for (const { doc } of await ctx.tx.list(ctx.org, "image", "")) {
      if (doc["repository"] !== repository) continue;
      const newer =
        latest === undefined ||
        String(doc["created"]) > String(latest["created"]) ||
        (doc["created"] === latest["created"] && String(doc["name"]) > String(latest["name"]));
      if (newer) latest = doc;
    }
    if (latest === undefined) throw notFound(`image repository ${repository}`);
    return presentRecord("image", latest);
  },
};

/**
 * Images: created only by a push (cpln-local's admin `POST /_cpln-local/org/{org}/image`, or a seed file holding
 * whole records), never through the API; `repository` and `tag` come from the name, `digest` is the sha256 of the
 * manifest's JSON as a registry computes it from the manifest's bytes. Only tags change afterwards.
 */
export const imageRules: KindServerRules = {
  kind: "image",
  endpoints: {
    eventlog: eventlogEndpoint,
    latest: latestEndpoint,
  },
  fields: {
    readOnly: ["description", "repository", "tag", "digest", "manifest"],
    immutable: [],
    preserved: [],
  },
  lifecycle: {
    initialize(body) {
      const name = String(body["name"]);
      const colon = name.lastIndexOf(":");
      const manifest = isObject(body["manifest"]) ? body["manifest"] : defaultManifest(name);
      return {
        repository: name.slice(0, colon),
        tag: name.slice(colon + 1),
        digest: sha256(JSON.stringify(manifest)),
        manifest,
      };
    },
  },
};

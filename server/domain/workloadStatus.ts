import { createHash } from "node:crypto";
import { findLink, type Link } from "../../api/links.js";
import { notFound } from "../errors.js";
import type { JsonObject, JsonValue } from "../store/store.js";
import { isObject } from "./common.js";
import type { KindEndpoint } from "./rules.js";

/**
 * The emulated status of a workload and its deployments. cpln-local runs no container: a workload is reported as
 * deployed and ready in every location of its gvc's static placement, with the names the real API forms
 * (docs.controlplane.com/reference/workload/general: the canonical endpoint `https://WORKLOAD-GVCALIAS.cpln.app`, the
 * internal name `WORKLOAD.GVC.cpln.local`, location endpoints under `LOCATION.controlplane.us`), and images
 * "resolved" to a digest computed from their reference (not a registry's).
 */

const EMULATED = "emulated by cpln-local: no container runs";

/** What the status needs of the workload's gvc (read at create; fixed for the workload's life). */
export interface GvcFacts {
  id: string;
  name: string;
  /** The gvc's alias, or its name when the gvc has none (cpln-local gvcs made before aliases). */
  alias: string;
}

export function gvcFacts(gvc: JsonObject | undefined, name: string): GvcFacts {
  const alias = gvc?.["alias"];
  return { id: String(gvc?.["id"] ?? ""), name, alias: typeof alias === "string" && alias !== "" ? alias : name };
}

function digestOf(image: string): string {
  return `sha256:${createHash("sha256").update(image).digest("hex")}`;
}

function containersOf(spec: JsonObject): JsonObject[] {
  const containers = spec["containers"];
  return Array.isArray(containers) ? containers.filter(isObject) : [];
}

/** Replicas per location: the default minScale; none when suspended, and none between the runs of a cron workload. */
function replicasPerLocation(spec: JsonObject): number {
  const options = isObject(spec["defaultOptions"]) ? spec["defaultOptions"] : {};
  if (spec["type"] === "cron" || options["suspend"] === true) return 0;
  const scaling = isObject(options["autoscaling"]) ? options["autoscaling"] : {};
  return typeof scaling["minScale"] === "number" ? scaling["minScale"] : 1;
}

/**
 * The status of a workload named `name` with `spec` in gvc `gvc`. `previous` keeps `resolvedImages.resolvedAt` when
 * the images did not change, so an update that changes nothing leaves the status as it was.
 */
export function workloadStatusOf(
  name: string,
  spec: JsonObject,
  gvc: GvcFacts,
  now: string,
  previous?: JsonObject,
): JsonObject {
  const images = containersOf(spec).map((c) => String(c["image"]));
  const resolved: JsonObject = {
    images: images.map((image) => ({
      digest: digestOf(image),
      manifests: [
        {
          image,
          mediaType: "application/vnd.oci.image.manifest.v1+json",
          digest: digestOf(image),
          platform: { architecture: "amd64", os: "linux" },
        },
      ],
    })),
  };
  const before = isObject(previous?.["resolvedImages"]) ? previous["resolvedImages"] : undefined;
  const same = before !== undefined && JSON.stringify(before["images"]) === JSON.stringify(resolved["images"]);
  resolved["resolvedAt"] = same ? (before["resolvedAt"] as JsonValue) : now;
  const status: JsonObject = {
    parentId: gvc.id,
    internalName: `${name}.${gvc.name}.cpln.local`,
    currentReplicaCount: replicasPerLocation(spec),
    ready: true,
    resolvedImages: resolved,
  };
  if (spec["type"] !== "cron") {
    const endpoint = `https://${name}-${gvc.alias}.cpln.app`;
    status["canonicalEndpoint"] = endpoint;
    status["endpoint"] = endpoint;
    status["healthCheck"] = { active: false, message: EMULATED };
  }
  return status;
}

/** The facts of the gvc a stored status was made with (its id, name and alias), for recomputing it. */
export function gvcFactsOfStatus(status: JsonValue | undefined, gvcName: string): GvcFacts {
  const s = isObject(status) ? status : {};
  const endpoint = typeof s["canonicalEndpoint"] === "string" ? s["canonicalEndpoint"] : "";
  const host = /^https:\/\/(.*)\.cpln\.app$/.exec(endpoint)?.[1];
  const internal = typeof s["internalName"] === "string" ? s["internalName"] : "";
  const name = internal.split(".")[0] ?? "";
  const alias = host !== undefined && host.startsWith(`${name}-`) ? host.slice(name.length + 1) : gvcName;
  return { id: String(s["parentId"] ?? ""), name: gvcName, alias };
}

function locationsOf(gvc: JsonObject | undefined): string[] {
  const spec = isObject(gvc?.["spec"]) ? gvc["spec"] : {};
  const placement = isObject(spec["staticPlacement"]) ? spec["staticPlacement"] : {};
  const links = Array.isArray(placement["locationLinks"]) ? placement["locationLinks"] : [];
  return links.filter((l): l is string => typeof l === "string").map((l) => l.slice(l.lastIndexOf("/") + 1));
}

function deploymentOf(org: string, workload: JsonObject, gvc: JsonObject | undefined, location: string): JsonObject {
  const self = findLink(workload["links"] as unknown as Link[], "self") ?? "";
  const name = String(workload["name"]);
  const spec = isObject(workload["spec"]) ? workload["spec"] : {};
  const status = isObject(workload["status"]) ? workload["status"] : {};
  const version = Number(workload["version"]);
  const replicas = replicasPerLocation(spec);
  const alias = gvcFactsOfStatus(status, String(gvc?.["name"] ?? "")).alias;
  const containers: JsonObject = {};
  for (const c of containersOf(spec)) {
    containers[String(c["name"])] = {
      name: String(c["name"]),
      image: String(c["image"]),
      ready: true,
      resources: { replicas, replicasReady: replicas },
      message: EMULATED,
    };
  }
  const deploymentStatus: JsonObject = {
    lastProcessedVersion: version,
    expectedDeploymentVersion: version,
    // The official CLI reads `internal.syncFailed` of every ready deployment (`getWorkloadHealth`).
    internal: { syncFailed: false },
    ready: true,
    deploying: false,
    versions: [
      {
        name: `${name}-${version}`,
        created: String(workload["lastModified"]),
        workload: version,
        gvc: Number(gvc?.["version"] ?? 1),
        containers,
        ready: true,
        message: EMULATED,
      },
    ],
    message: EMULATED,
  };
  if (spec["type"] === "cron") deploymentStatus["jobExecutions"] = [];
  else deploymentStatus["endpoint"] = `https://${name}-${alias}.${location}.controlplane.us`;
  return {
    name: location,
    kind: "deployment",
    links: [
      { rel: "self", href: `${self}/deployment/${location}` },
      { rel: "workload", href: self },
      { rel: "location", href: `/org/${org}/location/${location}` },
    ],
    lastModified: String(workload["lastModified"]),
    status: deploymentStatus,
  };
}

/** `GET .../workload/{name}/deployment`: one deployment per location of the gvc's static placement. */
export const deploymentsEndpoint: KindEndpoint = {
  permission: "view",
  async run(ctx) {
    const gvc = ctx.gvc === undefined ? undefined : await ctx.tx.get(ctx.org, "gvc", "", ctx.gvc);
    const items = locationsOf(gvc?.doc).map((l) => deploymentOf(ctx.org, ctx.record ?? {}, gvc?.doc, l));
    return { kind: "list", itemKind: "deployment", items, links: [{ rel: "self", href: ctx.self }] };
  },
};

/** `GET .../workload/{name}/deployment/{location}`: 404 for a location the gvc does not place the workload in. */
export const deploymentEndpoint: KindEndpoint = {
  permission: "view",
  async run(ctx) {
    const gvc = ctx.gvc === undefined ? undefined : await ctx.tx.get(ctx.org, "gvc", "", ctx.gvc);
    const location = ctx.param ?? "";
    if (!locationsOf(gvc?.doc).includes(location)) {
      throw notFound(`deployment ${location} of workload ${String(ctx.record?.["name"])}`);
    }
    return deploymentOf(ctx.org, ctx.record ?? {}, gvc?.doc, location);
  },
};

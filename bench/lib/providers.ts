/**
 * The `__provider` text of each resource kind, taken from constructing the SDK class under `setMocks` (what a real
 * program registers), via the test harness. One text per kind: every resource of a kind carries the same one.
 */
import { Location, Policy, VolumeSet } from "../../sdk/index.js";
import { captureDynamicRegistration } from "../../test/harness/index.js";

export type ResourceKind = "VolumeSet" | "Policy" | "Location";

export function typeToken(kind: ResourceKind): string {
  return `pulumi-nodejs:dynamic/cpln:${kind}`;
}

const constructors: Record<ResourceKind, () => unknown> = {
  VolumeSet: () =>
    new VolumeSet("probe", {
      gvc: "g",
      initialCapacity: 10,
      performanceClass: "general-purpose-ssd",
      fileSystemType: "ext4",
    }),
  Policy: () => new Policy("probe", { targetKind: "volumeset", target: "all" }),
  Location: () => new Location("probe", { name: "aws-eu-central-1" }),
};

const cache = new Map<ResourceKind, Promise<string>>();

export function providerText(kind: ResourceKind): Promise<string> {
  let text = cache.get(kind);
  if (!text) {
    text = captureDynamicRegistration(constructors[kind], { project: "bench", stack: "bench" }).then((registration) => {
      const provider = registration.inputs.__provider;
      if (typeof provider !== "string") throw new Error(`${kind}: the registration carries no __provider text`);
      return provider;
    });
    cache.set(kind, text);
  }
  return text;
}

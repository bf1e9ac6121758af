import * as pulumi from "@pulumi/pulumi";
import * as cpln from "cpln-pulumi";

// Bring objects that already exist under Pulumi. Dynamic providers cannot use `pulumi import`, so:
// - `adopt: true` takes over an existing object of that name (instead of failing with 409) and then manages it like
//   one Pulumi created — `pulumi destroy` deletes it. VolumeSet, Policy, Group, ServiceAccount, AuditContext and
//   CloudAccount take it; what the args do not declare is removed, and preview lists those changes first;
// - `.get(name, id)` reads an object without managing it (id = its self link); destroy leaves it alone.
// `existing-resources:capacity` grows the adopted volume set: one PATCH of spec.initialCapacity.
const config = new pulumi.Config("existing-resources");
const org = new pulumi.Config("cpln").require("org");
const capacity = config.getNumber("capacity") ?? 20;

const legacy = new cpln.VolumeSet("legacy-data", {
  name: "legacy-data",
  gvc: "default",
  initialCapacity: capacity,
  performanceClass: "general-purpose-ssd",
  adopt: true,
});

const legacyAccess = new cpln.Policy("legacy-access", {
  name: "legacy-access",
  targetKind: "volumeset",
  targetLinks: [legacy.selfLink],
  bindings: [{ permissions: ["view"], principalLinks: ["//group/data-readers"] }],
  adopt: true,
});

const viewers = cpln.Policy.get("viewers-volumeset", `/org/${org}/policy/viewers-volumeset`);
const oregon = cpln.Location.get("aws-us-west-2", `/org/${org}/location/aws-us-west-2`);

export const legacyVersion = legacy.version;
export const legacyAccessOrigin = legacyAccess.origin;
export const builtinViewerBindings = viewers.bindings;
export const oregonEnabled = oregon.enabled;

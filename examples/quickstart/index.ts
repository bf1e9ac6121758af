import * as pulumi from "@pulumi/pulumi";
import * as cpln from "cpln-pulumi";

// A volume set that grows and snapshots itself, a policy that lets a group read it and a service account edit it,
// a builtin location switched off, and the org's quotas as stack outputs.
const config = new pulumi.Config("quickstart");
const gvc = config.get("gvc") ?? "default";
// The edit the tests and the demo make: one more principal on the "view" binding.
const extraViewer = config.get("extraViewer");

const data = new cpln.VolumeSet("data", {
  gvc,
  description: "Application data",
  initialCapacity: 20,
  performanceClass: "general-purpose-ssd",
  fileSystemType: "ext4",
  autoscaling: { maxCapacity: 200, minFreePercentage: 20, scalingFactor: 1.5 },
  snapshots: { createFinalSnapshot: true, retentionDuration: "7d", schedule: "0 3 * * *" },
  tags: { team: "data" },
});

const access = new cpln.Policy("data-access", {
  description: "Who may use the application data",
  targetKind: "volumeset",
  targetLinks: [data.selfLink],
  bindings: [
    { permissions: ["view"], principalLinks: ["//group/data-readers", ...(extraViewer ? [extraViewer] : [])] },
    { permissions: ["edit", "exec.expandVolume"], principalLinks: ["//serviceaccount/data-operator"] },
  ],
});

const westCoast = new cpln.Location("aws-us-west-2", { name: "aws-us-west-2", enabled: false });

const quotas = cpln.getQuotasOutput({});
const readers = cpln.getGroupAccessReportOutput({ name: "data-readers" });

export const volumeSetId = data.cplnId;
export const volumeSetSelfLink = data.selfLink;
export const policyName = access.name;
export const locationEnabled = westCoast.enabled;
export const quotaUsage = quotas.apply((result) =>
  Object.fromEntries(result.items.map((quota) => [quota.name, `${quota.current}/${quota.max}`])),
);
export const dataReadersAccess = readers.apply((report) =>
  Object.fromEntries(
    report.permissions.map((permission) => [
      permission.name,
      permission.bindings.map((binding) => binding.principalLink),
    ]),
  ),
);

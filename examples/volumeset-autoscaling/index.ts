import * as pulumi from "@pulumi/pulumi";
import * as cpln from "cpln-pulumi";

// A volume set with reactive and predictive autoscaling. `volumeset-autoscaling:maxCapacity` raises the ceiling: the
// provider sends one PATCH carrying only spec.autoscaling.maxCapacity.
const config = new pulumi.Config("volumeset-autoscaling");
const maxCapacity = config.getNumber("maxCapacity") ?? 500;

const logs = new cpln.VolumeSet("logs", {
  gvc: config.get("gvc") ?? "default",
  initialCapacity: 50,
  performanceClass: "general-purpose-ssd",
  fileSystemType: "xfs",
  autoscaling: {
    maxCapacity,
    minFreePercentage: 15,
    scalingFactor: 1.2,
    predictive: {
      enabled: true,
      lookbackHours: 48,
      projectionHours: 12,
      minDataPoints: 20,
      minGrowthRateGBPerHour: 0.5,
      scalingFactor: 1.5,
    },
  },
  snapshots: { createFinalSnapshot: false, retentionDuration: "36h", schedule: "15 */6 * * *" },
});

export const selfLink = logs.selfLink;
export const autoscaling = logs.autoscaling;
export const version = logs.version;

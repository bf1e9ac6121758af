/** The server-maintained state of a volume set (`status`): its volumes per location, and their snapshots. */
import { z } from "zod";
import { lazy } from "../lazy.js";

export const volumeLifecycles = ["creating", "unused", "unbound", "bound", "deleted", "repairing"] as const;

export const volumeSetStatus = lazy(() =>
  z
    .looseObject({
      parentId: z.string().optional().describe("Id of the gvc holding the volume set."),
      usedByWorkload: z.string().optional().describe("Link of the workload that mounts the volume set."),
      workloadLinks: z.array(z.string()).optional().describe("Links of the workloads that mount the volume set."),
      bindingId: z.string().optional().describe("Id of the workload binding."),
      locations: z
        .array(
          z
            .looseObject({
              name: z.string().describe("Location name."),
              volumes: z
                .array(
                  z
                    .looseObject({
                      index: z.number().int().optional().describe("Replica index."),
                      lifecycle: z
                        .string()
                        .optional()
                        .describe(`Lifecycle: ${volumeLifecycles.join(", ")}.`),
                      storageDeviceId: z.string().optional().describe("Cloud storage device id."),
                      currentSize: z.number().optional().describe("Current size in GB."),
                      currentBytesUsed: z.number().optional().describe("Bytes in use."),
                      resourceName: z.string().optional().describe("Kubernetes volume name."),
                    })
                    .describe("One volume."),
                )
                .optional()
                .describe("Volumes in this location."),
              desiredVolumeCount: z.number().int().optional().describe("Volumes wanted in this location."),
              clusterId: z.string().optional().describe("Cluster serving the location."),
            })
            .describe("Volumes of one location."),
        )
        .optional()
        .describe("Per-location volumes; absent until a workload mounts the volume set."),
      snapshots: z
        .array(
          z
            .looseObject({
              name: z.string().optional().describe("Snapshot name."),
              created: z.string().optional().describe("When the snapshot was taken."),
              location: z.string().optional().describe("Location of the snapshot."),
              volumeIndex: z.number().int().optional().describe("Replica index of the volume."),
              size: z.number().optional().describe("Size in GB."),
            })
            .describe("One snapshot."),
        )
        .optional()
        .describe("Snapshots of the volumes."),
    })
    .describe("Server-maintained state of the volume set."),
);

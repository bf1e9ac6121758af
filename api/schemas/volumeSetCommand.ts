/** The commands of a volume set (`POST .../volumeset/{name}/-command`): bodies and the command record. */
import { z } from "zod";
import { lazy } from "../lazy.js";

/** Lifecycle stages of a command: `CommandLifecycleStage` of controlplane-com/types-ts `src/interfaces/command.ts`. */
export const commandLifecycleStages = ["pending", "running", "cancelled", "completed", "failed"] as const;

function commandTarget() {
  return {
    location: z.string().min(1).describe("Location of the volume."),
    volumeIndex: z.number().int().min(0).describe("Replica index of the volume."),
  };
}

/**
 * The commands the official CLI posts to `-command` (`cpln volumeset expand|shrink|delete-volume|snapshot ...`), each
 * with the spec of controlplane-com/types-ts `src/interfaces/command.ts` (`ExpandVolumeSpec`, ...).
 */
export const volumeSetCommandSpecs = lazy(() => ({
  expandVolume: z.strictObject({
    ...commandTarget(),
    newStorageCapacity: z.number().int().min(1).describe("New size in GB."),
    timeoutSeconds: z.number().int().min(1).optional().describe("How long the command may run."),
  }),
  shrinkVolume: z.strictObject({
    ...commandTarget(),
    newStorageCapacity: z.number().int().min(1).describe("New size in GB."),
    timeoutSeconds: z.number().int().min(1).optional().describe("How long the command may run."),
  }),
  deleteVolume: z.strictObject(commandTarget()),
  createVolumeSnapshot: z.strictObject({
    ...commandTarget(),
    snapshotName: z.string().min(1).describe("Name of the new snapshot."),
    snapshotExpirationDate: z.iso.datetime().optional().describe("When the snapshot expires."),
    snapshotTags: z.array(z.record(z.string(), z.string())).optional().describe("Tags of the snapshot."),
  }),
  deleteVolumeSnapshot: z.strictObject({
    ...commandTarget(),
    snapshotName: z.string().min(1).describe("Name of the snapshot."),
  }),
  restoreVolume: z.strictObject({
    ...commandTarget(),
    snapshotName: z.string().min(1).describe("Name of the snapshot to restore."),
    zone: z.string().min(1).optional().describe("Zone to restore into."),
  }),
}));

export const volumeSetCommandCreate = lazy(() =>
  z
    .discriminatedUnion(
      "type",
      Object.entries(volumeSetCommandSpecs()).map(([type, spec]) =>
        z.strictObject({ type: z.literal(type).describe("The command."), spec: spec.describe(`Spec of ${type}.`) }),
      ) as unknown as [z.ZodObject, ...z.ZodObject[]],
    )
    .describe("Body of POST /org/{org}/gvc/{gvc}/volumeset/{name}/-command: the command's type and its spec."),
);

/** A command as the API returns it: `Command` of controlplane-com/types-ts `src/interfaces/command.ts`. */
export const volumeSetCommand = lazy(() =>
  z
    .looseObject({
      id: z.string().describe("Id of the command."),
      kind: z.literal("command").describe("Always 'command'."),
      version: z.number().int().describe("Version of the command."),
      created: z.string().describe("When the command was created."),
      lastModified: z.string().describe("When the command last changed."),
      links: z
        .array(z.looseObject({ rel: z.string(), href: z.string() }))
        .describe("The volume set (cpln-local keeps no command, so none has a self link)."),
      tags: z.record(z.string(), z.unknown()).optional().describe("Tags."),
      type: z.string().describe("The command."),
      lifecycleStage: z.enum(commandLifecycleStages).describe("Where the command is."),
      spec: z.record(z.string(), z.unknown()).describe("The command's spec."),
      status: z.record(z.string(), z.unknown()).optional().describe("What the command has done."),
    })
    .describe("A command on a volume set."),
);

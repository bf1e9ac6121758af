import { catalogOf } from "./catalogs.js";
import { volumeSet, volumeSetCreate, volumeSetPatch } from "../schemas/volumeSet.js";
import { volumeSetCommand, volumeSetCommandCreate } from "../schemas/volumeSetCommand.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindDescriptor } from "./types.js";

/** The contract of kind `volumeset`. */
export const volumeSetKind = {
  kind: "volumeset",
  scope: "gvc",
  permissions: catalogOf("volumeset"),
  queryProperties: [],
  rels: ["gvc"],
  anonymousCreate: true,
  endpoints: {
    eventlog: eventlogEndpoint,
    command: {
      method: "POST",
      on: "item",
      summary: "Start a command on the volume set's volumes (expandVolume, shrinkVolume, deleteVolume, snapshots, ...)",
      description:
        "Needs `edit` on the volume set. Answers 201 with the new command (`lifecycleStage` pending); cpln-local runs " +
        "no volumes, so the command never progresses and is not kept.",
      request: { name: "VolumeSetCommandCreate", schema: () => volumeSetCommandCreate() },
      response: { name: "VolumeSetCommand", description: "The command", status: 201, schema: () => volumeSetCommand() },
    },
  },
  schemas: {
    record: () => volumeSet(),
    create: () => volumeSetCreate(),
    patch: () => volumeSetPatch(),
  },
  patchRules: { arrays: {} },
  addressing: { field: "name", by: "name" },
  examples: {
    create: (name) => ({ name, spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" } }),
    patch: (marker) => ({ description: `patched ${marker}`, tags: { example: marker } }),
  },
} satisfies KindDescriptor<"volumeset">;

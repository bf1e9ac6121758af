import { perm, withManage } from "./catalog.js";
import { volumeSet, volumeSetCreate, volumeSetPatch } from "../schemas/volumeSet.js";
import type { KindDescriptor } from "./types.js";

const volumeSetExecs = [
  "exec.createVolumeSnapshot",
  "exec.deleteVolume",
  "exec.deleteVolumeSnapshot",
  "exec.expandVolume",
  "exec.restoreVolume",
  "exec.shrinkVolume",
] as const;

/** The contract of kind `volumeset`. */
export const volumeSetKind: KindDescriptor = {
  kind: "volumeset",
  scope: "gvc",
  permissions: withManage([
    perm("create", "Create new volume sets"),
    perm("delete", "Delete existing volume sets"),
    perm("edit", "Modify existing volume sets", ["view"]),
    perm("exec", "Run every volume command", volumeSetExecs),
    perm("exec.createVolumeSnapshot", "Create a volume snapshot"),
    perm("exec.deleteVolume", "Delete a volume"),
    perm("exec.deleteVolumeSnapshot", "Delete a volume snapshot"),
    perm("exec.expandVolume", "Expand a volume"),
    perm("exec.restoreVolume", "Restore a volume from a snapshot"),
    perm("exec.shrinkVolume", "Shrink a volume"),
    perm("view", "Read-only access"),
  ]),
  queryProperties: [],
  rels: ["gvc"],
  anonymousCreate: true,
  schemas: {
    record: () => volumeSet(),
    create: () => volumeSetCreate(),
    patch: () => volumeSetPatch(),
  },
  patchRules: { arrays: {} },
  addressing: { field: "name", by: "name" },
};

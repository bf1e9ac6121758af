import * as pulumi from "@pulumi/pulumi";
import { providers } from "../provider/dynamic.js";
import { NamedResource, namedArgsProps, recordOutputProps, type NamedResourceArgs } from "./named.js";
import type { VolumeSetOutputs } from "../provider/resources/volumeSet.js";
import type { VolumeSetOutputs as VolumeSetPublicOutputs } from "./types.js";

/** The encryption key of one location. */
export interface VolumeSetEncryptionKey {
  /** KMS key id (ARN) used to encrypt the volumes in this location. */
  keyId: pulumi.Input<string>;
}

/** Customer-managed encryption keys (AWS locations only; any file system, the shared one included). */
export interface VolumeSetCustomEncryption {
  /** Key per location, keyed by AWS location name (`aws-us-east-1`). */
  regions: pulumi.Input<Record<string, pulumi.Input<VolumeSetEncryptionKey>>>;
}

/** Snapshot settings (accepted on every file system; the shared one takes no snapshots). */
export interface VolumeSetSnapshots {
  /** Take a snapshot when a volume is deleted. */
  createFinalSnapshot?: pulumi.Input<boolean>;
  /** How long snapshots are kept: a number followed by d, h or m (`7d`, `12h`, `1.5d`). */
  retentionDuration?: pulumi.Input<string>;
  /** Cron schedule (5 fields, UTC); the minute must be a single number, so at most hourly (`0 * * * *`). */
  schedule?: pulumi.Input<string>;
}

/** Predictive scaling: grows volumes ahead of projected use. */
export interface VolumeSetPredictiveScaling {
  /** Enable predictive scaling (needs `minFreePercentage` and `scalingFactor` on the autoscaling block). */
  enabled?: pulumi.Input<boolean>;
  /** Hours of history used for the prediction: 1–168 (server default 24). */
  lookbackHours?: pulumi.Input<number>;
  /** Hours ahead to project: 1–72 (server default 6). */
  projectionHours?: pulumi.Input<number>;
  /** Data points needed before predicting: 2–100 (server default 10). */
  minDataPoints?: pulumi.Input<number>;
  /** Smallest growth rate (GB/hour) that triggers scaling: ≥ 0 (server default 0.01). */
  minGrowthRateGBPerHour?: pulumi.Input<number>;
  /** Growth factor for predictive expansion: ≥ 1.1 (defaults to the autoscaling scalingFactor). */
  scalingFactor?: pulumi.Input<number>;
}

/** Automatic volume expansion. */
export interface VolumeSetAutoscaling {
  /** Largest size (GB) a volume may grow to: 10–65536, at least `initialCapacity`. */
  maxCapacity?: pulumi.Input<number>;
  /** Grow a volume when its free space falls below this percentage: 1–100. */
  minFreePercentage?: pulumi.Input<number>;
  /** Factor a volume grows by: ≥ 1.1. */
  scalingFactor?: pulumi.Input<number>;
  /** Predictive scaling. */
  predictive?: pulumi.Input<VolumeSetPredictiveScaling>;
}

/** Resources of the mount helper (shared file system). */
export interface VolumeSetMountResources {
  /** CPU limit, e.g. `2000m` (server default 2000m). */
  maxCpu?: pulumi.Input<string>;
  /** CPU request, e.g. `500m` (server default 500m); max at most 4000m above and 4× this. */
  minCpu?: pulumi.Input<string>;
  /** Memory request, e.g. `1Gi` (server default 1Gi). */
  minMemory?: pulumi.Input<string>;
  /** Memory limit, e.g. `2Gi` (server default 2Gi); at most 4096Mi above and 4× minMemory. */
  maxMemory?: pulumi.Input<string>;
}

/** Mount options. */
export interface VolumeSetMountOptions {
  /** Resources of the mount helper. */
  resources?: pulumi.Input<VolumeSetMountResources>;
}

/** Arguments of a `VolumeSet`. */
export interface VolumeSetArgs extends NamedResourceArgs {
  /** Name of the gvc the volume set lives in. Changing it replaces the volume set. */
  gvc: pulumi.Input<string>;
  /** Capacity in GB of each new volume: 10–65536 (200–65536 for `high-throughput-ssd`); at most `autoscaling.maxCapacity`. */
  initialCapacity: pulumi.Input<number>;
  /** `general-purpose-ssd`, `high-throughput-ssd` or `shared`. Required unless `fileSystemType` is `shared`. Changing it replaces the volume set. */
  performanceClass?: pulumi.Input<"general-purpose-ssd" | "high-throughput-ssd" | "shared">;
  /** `ext4` (default), `xfs` or `shared` (implies performanceClass `shared`). Changing it replaces the volume set. */
  fileSystemType?: pulumi.Input<"ext4" | "xfs" | "shared">;
  /** Suffix appended to the storage class name (BYOK clusters): `^[a-zA-Z][0-9a-zA-Z\-_]*$`. */
  storageClassSuffix?: pulumi.Input<string>;
  /** Customer-managed encryption keys per AWS location. */
  customEncryption?: pulumi.Input<VolumeSetCustomEncryption>;
  /** Snapshot settings. */
  snapshots?: pulumi.Input<VolumeSetSnapshots>;
  /** Automatic volume expansion, including predictive scaling. */
  autoscaling?: pulumi.Input<VolumeSetAutoscaling>;
  /** Mount options (shared file system). */
  mountOptions?: pulumi.Input<VolumeSetMountOptions>;
}

const outputProps: Record<keyof VolumeSetOutputs, undefined> = {
  gvc: undefined,
  initialCapacity: undefined,
  performanceClass: undefined,
  fileSystemType: undefined,
  storageClassSuffix: undefined,
  customEncryption: undefined,
  snapshots: undefined,
  autoscaling: undefined,
  mountOptions: undefined,
  ...namedArgsProps,
  ...recordOutputProps,
  status: undefined,
};

/**
 * A Control Plane volume set: persistent volumes for the workloads of one gvc.
 *
 * `performanceClass`, `fileSystemType`, `gvc`, `name` and `org` cannot change in place (a change replaces the volume
 * set); every other change is one PATCH holding only what changed. The resource id is the self link
 * (`/org/<org>/gvc/<gvc>/volumeset/<name>`).
 */
export class VolumeSet extends NamedResource {
  declare readonly gvc: pulumi.Output<string>;
  declare readonly initialCapacity: pulumi.Output<number>;
  declare readonly performanceClass: pulumi.Output<VolumeSetPublicOutputs["performanceClass"]>;
  declare readonly fileSystemType: pulumi.Output<VolumeSetPublicOutputs["fileSystemType"]>;
  declare readonly storageClassSuffix: pulumi.Output<string | undefined>;
  declare readonly customEncryption: pulumi.Output<VolumeSetPublicOutputs["customEncryption"]>;
  declare readonly snapshots: pulumi.Output<VolumeSetPublicOutputs["snapshots"]>;
  declare readonly autoscaling: pulumi.Output<VolumeSetPublicOutputs["autoscaling"]>;
  declare readonly mountOptions: pulumi.Output<VolumeSetPublicOutputs["mountOptions"]>;
  /** Server-maintained state: locations, volumes, workloads. */
  declare readonly status: pulumi.Output<VolumeSetPublicOutputs["status"]>;

  /** Reads an existing volume set by its self link (`/org/<org>/gvc/<gvc>/volumeset/<name>`) without managing it. */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): VolumeSet {
    return new VolumeSet(name, undefined, { ...opts, id });
  }

  constructor(name: string, args: VolumeSetArgs, opts?: pulumi.CustomResourceOptions);
  /** Reading an existing volume set (`opts.id` set): no args. */
  constructor(name: string, args: undefined, opts: pulumi.CustomResourceOptions & { id: pulumi.Input<pulumi.ID> });
  constructor(name: string, args: VolumeSetArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    super(providers.VolumeSet, name, { ...outputProps, ...args, __logicalName: name }, opts, "cpln", "VolumeSet");
  }
}

import { echoOnly } from "./jsonRules.js";
import { z } from "zod";
import { lazy } from "../lazy.js";
import { crossFieldRules, documentedRules } from "./jsonRules.js";
import { cronProblem } from "./volumeSetCron.js";
import { volumeSetStatus } from "./volumeSetStatus.js";
import {
  description,
  describedTaggedPatchFields,
  name,
  object,
  patchObject,
  readOnlyPatchShape,
  recordShape,
  tags,
  type ObjectMode,
  type PatchField,
} from "./common.js";

// The snapshot schedule's rule and the record's status have files of their own; this module still exports them.
export { cronProblem } from "./volumeSetCron.js";
export { volumeLifecycles, volumeSetStatus } from "./volumeSetStatus.js";

// ---- limits and enums (reference/control-plane-api.md §4) ----

export const performanceClasses = ["general-purpose-ssd", "high-throughput-ssd", "shared"] as const;
export type PerformanceClass = (typeof performanceClasses)[number];
export const fileSystemTypes = ["ext4", "xfs", "shared"] as const;
export type FileSystemType = (typeof fileSystemTypes)[number];

export const CAPACITY_MAX = 65536;
/** Smallest initial capacity (GB) per performance class. */
export const capacityMin: Readonly<Record<PerformanceClass, number>> = {
  "general-purpose-ssd": 10,
  "high-throughput-ssd": 200,
  shared: 10,
};
export const RETENTION_PATTERN = /^\d+(\.\d+)?[dhm]$/;
export const STORAGE_CLASS_SUFFIX_PATTERN = /^[a-zA-Z][0-9a-zA-Z\-_]*$/;
export const MOUNT_RESOURCE_MAX_LENGTH = 20;
export const CPU_PATTERN = /^\d+(\.\d+)?m?$/;
export const MEMORY_PATTERN = /^\d+(\.\d+)?(Ki|Mi|Gi|Ti|K|M|G|T)?$/;
/** Mount resources: max − min at most 4000 millicores / 4096 MiB, and min at least a quarter of max. */
export const MOUNT_CPU_SPREAD_MAX = 4000;
export const MOUNT_MEMORY_SPREAD_MAX_MI = 4096;

// ---- spec ----

function leafFields() {
  return {
    initialCapacity: z
      .number()
      .int("must be a whole number of GB")
      .min(10, "must be at least 10 GB")
      .max(CAPACITY_MAX, `must be at most ${CAPACITY_MAX} GB`)
      .describe(
        `Capacity in GB of each new volume: 10-${CAPACITY_MAX} (200-${CAPACITY_MAX} for high-throughput-ssd); at most autoscaling.maxCapacity.`,
      ),
    performanceClass: z
      .enum(performanceClasses)
      .describe("Performance class (immutable). Required unless fileSystemType is 'shared', which implies 'shared'."),
    storageClassSuffix: z
      .string()
      .regex(STORAGE_CLASS_SUFFIX_PATTERN, `must match ${STORAGE_CLASS_SUFFIX_PATTERN.source}`)
      .describe("Suffix appended to the storage class name (BYOK clusters)."),
    fileSystemType: z
      .enum(fileSystemTypes)
      .describe("File system (immutable): ext4 (default), xfs, or shared (implies performanceClass 'shared')."),
  };
}

function customEncryptionRegion(mode: ObjectMode) {
  return object(mode, {
    keyId: z.string().min(1).describe("KMS key id (ARN) used to encrypt volumes in this region."),
  }).describe("Encryption key for one region.");
}

const regionKey = () => z.string().regex(/^aws-[a-z0-9-]+$/, "must be an AWS location name such as aws-us-east-1");

function customEncryption(mode: ObjectMode) {
  return object(mode, {
    regions: z.record(regionKey(), customEncryptionRegion(mode)).describe("Keys per location (aws-<region>)."),
  }).describe(
    "Customer-managed encryption keys (AWS only). Accepted and returned on every file system, the shared one included.",
  );
}

function snapshotFields() {
  return {
    createFinalSnapshot: z.boolean().describe("Take a snapshot when a volume is deleted."),
    retentionDuration: z
      .string()
      .regex(RETENTION_PATTERN, "must be a number followed by d, h or m, e.g. 7d, 12h, 30m, 1.5d")
      .describe("How long snapshots are kept: a number followed by d, h or m (e.g. 7d)."),
    schedule: z
      .string()
      .superRefine((value, ctx) => {
        const problem = cronProblem(value);
        if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
      })
      .describe("Cron schedule (5 fields, UTC) for automatic snapshots; the minute must be a single number.")
      .register(crossFieldRules(), { pattern: "^\\s*\\d+\\s+\\S+\\s+\\S+\\s+\\S+\\s+\\S+\\s*$" }),
  };
}

function snapshots(mode: ObjectMode) {
  const f = snapshotFields();
  return object(mode, {
    createFinalSnapshot: f.createFinalSnapshot.optional(),
    retentionDuration: f.retentionDuration.optional(),
    schedule: f.schedule.optional(),
  }).describe(
    "Snapshot settings. Accepted and returned on every file system; the shared one takes no snapshots (docs: Caveats).",
  );
}

function predictiveFields() {
  return {
    enabled: z.boolean().describe("Enable predictive scaling (default false)."),
    lookbackHours: z
      .number()
      .int()
      .min(1)
      .max(168)
      .describe("Hours of history used for the prediction: 1-168 (default 24)."),
    projectionHours: z.number().int().min(1).max(72).describe("Hours ahead to project: 1-72 (default 6)."),
    minDataPoints: z
      .number()
      .int()
      .min(2)
      .max(100)
      .describe("Data points needed before predicting: 2-100 (default 10)."),
    minGrowthRateGBPerHour: z
      .number()
      .min(0)
      .describe("Smallest growth rate (GB/hour) that triggers scaling: >= 0 (default 0.01)."),
    scalingFactor: z
      .number()
      .min(1.1)
      .describe("Growth factor for predictive expansion: >= 1.1 (defaults to autoscaling.scalingFactor)."),
  };
}

function predictive(mode: ObjectMode) {
  const f = predictiveFields();
  return object(mode, {
    enabled: f.enabled.optional(),
    lookbackHours: f.lookbackHours.optional(),
    projectionHours: f.projectionHours.optional(),
    minDataPoints: f.minDataPoints.optional(),
    minGrowthRateGBPerHour: f.minGrowthRateGBPerHour.optional(),
    scalingFactor: f.scalingFactor.optional(),
  }).describe("Predictive scaling; needs autoscaling.minFreePercentage and autoscaling.scalingFactor when enabled.");
}

function autoscalingFields() {
  return {
    maxCapacity: z
      .number()
      .int()
      .min(10, "must be at least 10 GB")
      .max(CAPACITY_MAX, `must be at most ${CAPACITY_MAX} GB`)
      .describe(`Largest size (GB) a volume may grow to: 10-${CAPACITY_MAX}, at least initialCapacity.`),
    minFreePercentage: z
      .number()
      .int()
      .min(1)
      .max(100)
      .describe("Grow a volume when its free space falls below this percentage: 1-100."),
    scalingFactor: z.number().min(1.1).describe("Factor a volume grows by: >= 1.1."),
  };
}

function autoscaling(mode: ObjectMode) {
  const f = autoscalingFields();
  return object(mode, {
    maxCapacity: f.maxCapacity.optional(),
    minFreePercentage: f.minFreePercentage.optional(),
    scalingFactor: f.scalingFactor.optional(),
    predictive: predictive(mode).optional(),
  }).describe("Automatic volume expansion.");
}

function mountResourceFields() {
  const limited = (pattern: RegExp, example: string, text: string) =>
    z
      .string()
      .max(MOUNT_RESOURCE_MAX_LENGTH, `must be at most ${MOUNT_RESOURCE_MAX_LENGTH} characters`)
      .regex(pattern, `must be a quantity such as ${example}`)
      .describe(text);
  return {
    maxCpu: limited(CPU_PATTERN, "2000m or 2", "CPU limit of the mount helper (default 2000m)."),
    minCpu: limited(CPU_PATTERN, "500m or 0.5", "CPU request of the mount helper (default 500m)."),
    minMemory: limited(MEMORY_PATTERN, "1Gi or 512Mi", "Memory request of the mount helper (default 1Gi)."),
    maxMemory: limited(MEMORY_PATTERN, "2Gi or 2048Mi", "Memory limit of the mount helper (default 2Gi)."),
  };
}

function mountOptions(mode: ObjectMode) {
  const f = mountResourceFields();
  return object(mode, {
    resources: object(mode, {
      maxCpu: f.maxCpu.optional(),
      minCpu: f.minCpu.optional(),
      minMemory: f.minMemory.optional(),
      maxMemory: f.maxMemory.optional(),
    })
      .optional()
      .describe("Resources of the mount helper (shared file system)."),
  }).describe("Mount options.");
}

function buildSpec(mode: ObjectMode) {
  const f = leafFields();
  return object(mode, {
    initialCapacity: f.initialCapacity,
    performanceClass: f.performanceClass.optional(),
    storageClassSuffix: f.storageClassSuffix.optional(),
    fileSystemType: f.fileSystemType.optional(),
    customEncryption: customEncryption(mode).optional(),
    snapshots: snapshots(mode).optional(),
    autoscaling: autoscaling(mode).optional(),
    mountOptions: mountOptions(mode).optional(),
  })
    .describe("Volume set specification.")
    .register(crossFieldRules(), mode === "strict" ? { ...specRulesJsonSchema, ...volumeSetSpecRules() } : {});
}

/** The rules of `volumeSetSpecIssues` JSON Schema cannot say (they compare fields), as the document states them. */
function volumeSetSpecRules() {
  return documentedRules([
    {
      rule: "A shared file system has performanceClass 'shared' (and only it); other file systems need a performanceClass.",
      issue:
        /^(must be 'shared' when (fileSystemType|performanceClass) is 'shared'|is required unless fileSystemType is 'shared')$/,
    },
    {
      rule: "initialCapacity is at least 200 GB for high-throughput-ssd, and at most autoscaling.maxCapacity.",
      issue:
        /^(must be at least \d+ GB for performanceClass '.*'|must not exceed autoscaling\.maxCapacity \(\d+ GB\))$/,
    },
    {
      rule: "Predictive autoscaling (autoscaling.predictive.enabled) needs autoscaling.minFreePercentage and scalingFactor.",
      issue: /^is required when autoscaling\.predictive\.enabled is true$/,
    },
    {
      rule: "snapshots.schedule: the hour, day, month and weekday fields are values, ranges or steps within their cron ranges.",
      issue:
        /^(must be a cron expression with 5 fields \(got \d+\)|the minute field must be .*|the \w+ field has an invalid step in '.*'|the \w+ field '.*' is not a value or range within \d+-\d+)$/,
    },
    {
      rule: "mountOptions.resources: each maximum is at least its minimum, at most 4 times it, and within 4000m (maxCpu) or 4096Mi (maxMemory) of it.",
      issue: /^must (not be less than|be within \S+ of|be at most \d+ times) min(Cpu|Memory) \(.*\)$/,
    },
  ]);
}

/**
 * The cross-field rules of `volumeSetSpecIssues` that JSON Schema can say: performanceClass is required unless
 * fileSystemType is 'shared', and 'shared' pairs only with 'shared'. Capacity minimums per class and the features a
 * shared file system lacks are in the field descriptions.
 */
const specRulesJsonSchema = {
  if: { properties: { fileSystemType: { const: "shared" } }, required: ["fileSystemType"] },
  then: { properties: { performanceClass: { const: "shared" } } },
  else: {
    properties: { performanceClass: {} },
    required: ["performanceClass"],
    if: { properties: { fileSystemType: {} }, required: ["fileSystemType"] },
    then: { properties: { performanceClass: { not: { const: "shared" } } } },
  },
};

/** Spec of a volume set in a create body or a `$replace/spec` (unknown fields rejected). */
export const volumeSetSpec = lazy(() => buildSpec("strict"));
/** Spec as returned by the server. */
export const volumeSetSpecOutput = lazy(() => buildSpec("loose"));
export type VolumeSetSpec = z.infer<ReturnType<typeof volumeSetSpec>>;

// ---- record ----

export const volumeSet = lazy(() =>
  z
    .looseObject({
      ...recordShape("volumeset"),
      gvc: z.unknown().optional().describe("The gvc (the real API returns an empty object here)."),
      spec: volumeSetSpecOutput(),
      status: volumeSetStatus().optional(),
    })
    .describe("A set of persistent volumes mounted by workloads of one gvc."),
);
export type VolumeSet = z.infer<ReturnType<typeof volumeSet>>;

// ---- bodies ----

export const volumeSetCreate = lazy(() =>
  z
    .strictObject({
      name: name(),
      description: description().optional(),
      tags: tags().optional(),
      spec: volumeSetSpec(),
    })
    .describe("Body of POST /org/{org}/gvc/{gvc}/volumeset."),
);
export type VolumeSetCreate = z.infer<ReturnType<typeof volumeSetCreate>>;

function leafPatchFields(leaves: Record<string, z.ZodType>): Record<string, PatchField> {
  const fields: Record<string, PatchField> = {};
  for (const [key, value] of Object.entries(leaves)) fields[key] = { value };
  return fields;
}

function volumeSetSpecPatch() {
  const regionPatch = patchObject(leafPatchFields({ keyId: z.string().min(1).describe("KMS key id.") }));
  const leaves = leafPatchFields(leafFields());
  return patchObject({
    ...leaves,
    initialCapacity: { value: leafFields().initialCapacity, required: true },
    customEncryption: {
      value: customEncryption("strict"),
      merge: patchObject({
        regions: {
          value: z.record(regionKey(), customEncryptionRegion("strict")).describe("Keys per location."),
          merge: z.record(regionKey(), regionPatch.nullable()).describe("Keys per location; null removes a location."),
        },
      }),
    },
    snapshots: { value: snapshots("strict"), merge: patchObject(leafPatchFields(snapshotFields())) },
    autoscaling: {
      value: autoscaling("strict"),
      merge: patchObject({
        ...leafPatchFields(autoscalingFields()),
        predictive: { value: predictive("strict"), merge: patchObject(leafPatchFields(predictiveFields())) },
      }),
    },
    mountOptions: {
      value: mountOptions("strict"),
      merge: patchObject({
        resources: {
          value: mountOptions("strict").shape.resources.unwrap(),
          merge: patchObject(leafPatchFields(mountResourceFields())),
        },
      }),
    },
  })
    .describe("Changes to the spec (performanceClass and fileSystemType cannot change).")
    .register(crossFieldRules(), volumeSetSpecRules());
}

/** Body of PATCH /org/{org}/gvc/{gvc}/volumeset/{name}. */
export const volumeSetPatch = lazy(() =>
  patchObject(
    {
      ...describedTaggedPatchFields(),
      spec: { value: volumeSetSpec(), merge: volumeSetSpecPatch() },
    },
    { ...readOnlyPatchShape(), gvc: echoOnly(z.unknown().optional().describe("Read-only; ignored.")) },
  ).describe("Body of PATCH /org/{org}/gvc/{gvc}/volumeset/{name}: merge fields and patch directives."),
);
export type VolumeSetPatch = z.infer<ReturnType<typeof volumeSetPatch>>;

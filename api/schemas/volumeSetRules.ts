/**
 * A volume set spec's cross-field rules, shared by the server and the provider's check: the defaults the API fills in
 * and the issues JSON Schema cannot state (they compare fields).
 */
import type { Issue } from "../errors.js";
import {
  CPU_PATTERN,
  MEMORY_PATTERN,
  MOUNT_CPU_SPREAD_MAX,
  MOUNT_MEMORY_SPREAD_MAX_MI,
  capacityMin,
  type PerformanceClass,
  type VolumeSetSpec,
} from "./volumeSet.js";

/** Fills the file-system/class defaults the server applies: ext4, and 'shared' pairs with 'shared'. */
export function volumeSetSpecDefaults<T extends { performanceClass?: string; fileSystemType?: string }>(
  spec: T,
): T & { performanceClass?: string; fileSystemType: string } {
  const fileSystemType = spec.fileSystemType ?? (spec.performanceClass === "shared" ? "shared" : "ext4");
  const filled: T & { performanceClass?: string; fileSystemType: string } = { ...spec, fileSystemType };
  if (filled.performanceClass === undefined && fileSystemType === "shared") filled.performanceClass = "shared";
  return filled;
}

function millicores(quantity: string): number | undefined {
  if (!CPU_PATTERN.test(quantity)) return undefined;
  return quantity.endsWith("m") ? Number(quantity.slice(0, -1)) : Number(quantity) * 1000;
}

const memoryUnitsMi: Record<string, number> = {
  "": 1 / (1024 * 1024),
  K: 1000 / (1024 * 1024),
  M: 1e6 / (1024 * 1024),
  G: 1e9 / (1024 * 1024),
  T: 1e12 / (1024 * 1024),
  Ki: 1 / 1024,
  Mi: 1,
  Gi: 1024,
  Ti: 1024 * 1024,
};

function mebibytes(quantity: string): number | undefined {
  const match = MEMORY_PATTERN.exec(quantity);
  if (!match) return undefined;
  const unit = memoryUnitsMi[match[2] ?? ""] as number;
  return Number(quantity.slice(0, quantity.length - (match[2]?.length ?? 0))) * unit;
}

/**
 * Rules spanning several fields of a volume set spec that has already passed `volumeSetSpec()`. Paths start with
 * `prefix` (default `spec`; pass "" when the fields are at the top level).
 */
export function volumeSetSpecIssues(spec: VolumeSetSpec, prefix = "spec"): Issue[] {
  const issues: Issue[] = [];
  const at = (path: string, message: string) => issues.push({ path: prefix ? `${prefix}.${path}` : path, message });
  const { performanceClass, fileSystemType } = volumeSetSpecDefaults(spec);

  if (fileSystemType === "shared" && performanceClass !== "shared") {
    at("performanceClass", "must be 'shared' when fileSystemType is 'shared'");
  } else if (performanceClass === "shared" && fileSystemType !== "shared") {
    at("fileSystemType", "must be 'shared' when performanceClass is 'shared'");
  } else if (performanceClass === undefined) {
    at("performanceClass", "is required unless fileSystemType is 'shared'");
  }

  if (performanceClass !== undefined) {
    const min = capacityMin[performanceClass as PerformanceClass];
    if (min !== undefined && spec.initialCapacity < min) {
      at("initialCapacity", `must be at least ${min} GB for performanceClass '${performanceClass}'`);
    }
  }

  const scaling = spec.autoscaling;
  if (scaling?.maxCapacity !== undefined && spec.initialCapacity > scaling.maxCapacity) {
    at("initialCapacity", `must not exceed autoscaling.maxCapacity (${scaling.maxCapacity} GB)`);
  }
  if (scaling?.predictive?.enabled === true) {
    if (scaling.minFreePercentage === undefined) {
      at("autoscaling.minFreePercentage", "is required when autoscaling.predictive.enabled is true");
    }
    if (scaling.scalingFactor === undefined) {
      at("autoscaling.scalingFactor", "is required when autoscaling.predictive.enabled is true");
    }
  }

  // No rule keeps snapshots or customEncryption off a shared file system: the real API takes both there and returns
  // them (terraform-provider-cpln's acceptance test sets both on a shared volume set and reads them back).

  const resources = spec.mountOptions?.resources;
  if (resources) {
    const pair = (
      minField: "minCpu" | "minMemory",
      maxField: "maxCpu" | "maxMemory",
      toUnits: (q: string) => number | undefined,
      spreadMax: number,
      unit: string,
    ) => {
      const minText = resources[minField];
      const maxText = resources[maxField];
      if (minText === undefined || maxText === undefined) return;
      const min = toUnits(minText);
      const max = toUnits(maxText);
      if (min === undefined || max === undefined) return;
      const path = `mountOptions.resources.${maxField}`;
      if (max < min) at(path, `must not be less than ${minField} (${minText})`);
      else if (max - min > spreadMax) at(path, `must be within ${spreadMax}${unit} of ${minField} (${minText})`);
      else if (min * 4 < max) at(path, `must be at most 4 times ${minField} (${minText})`);
    };
    pair("minCpu", "maxCpu", millicores, MOUNT_CPU_SPREAD_MAX, "m");
    pair("minMemory", "maxMemory", mebibytes, MOUNT_MEMORY_SPREAD_MAX_MI, "Mi");
  }
  return issues;
}

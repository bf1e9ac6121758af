/**
 * `cpln-pulumi`: Control Plane volume sets, policies and locations as Pulumi dynamic resources, data-source
 * functions, and the typed HTTP client.
 */
export { VolumeSet } from "./volumeSet.js";
export type {
  VolumeSetArgs,
  VolumeSetAutoscaling,
  VolumeSetCustomEncryption,
  VolumeSetEncryptionKey,
  VolumeSetMountOptions,
  VolumeSetMountResources,
  VolumeSetPredictiveScaling,
  VolumeSetSnapshots,
} from "./volumeSet.js";
export { Policy } from "./policy.js";
export type {
  PolicyArgs,
  PolicyBinding,
  PolicyQuerySort,
  PolicyQuerySpec,
  PolicyQueryTerm,
  PolicyTargetQuery,
} from "./policy.js";
export { Location } from "./location.js";
export type { LocationArgs } from "./location.js";
export * from "./functions.js";
export { CplnApiError, CplnClient, isCplnApiError } from "../provider/client/index.js";
export type { CplnClientOptions } from "../provider/client/index.js";

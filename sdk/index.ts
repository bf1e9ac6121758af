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
export { CplnApiError, isCplnApiError } from "../provider/client/errors.js";
export { CplnClient } from "./client.js";
export type {
  About,
  AccessReport,
  ApiRecord,
  CallOptions,
  CloudAccount,
  CplnClientApi,
  CplnClientOptions,
  Group,
  JoinOptions,
  Kind,
  KindCallOptions,
  LocationOutputs,
  LocationPatchBody,
  Mk8sJoinResponse,
  PermissionSchema,
  PolicyCreateBody,
  PolicyOutputs,
  PolicyPatchBody,
  QueryDocumentBody,
  QueryResult,
  Quota,
  RetryOptions,
  ServiceAccount,
  ServiceAccountKey,
  VolumeSetCreateBody,
  VolumeSetOutputs,
  VolumeSetPatchBody,
} from "./types.js";

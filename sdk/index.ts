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
  // The resource class PolicyBinding takes the name; a Policy's own binding item is PolicyBindingEntry.
  PolicyBinding as PolicyBindingEntry,
  PolicyQuerySort,
  PolicyQuerySpec,
  PolicyQueryTerm,
  PolicyTargetQuery,
} from "./policy.js";
export { Location } from "./location.js";
export type { LocationArgs } from "./location.js";
export { Group } from "./group.js";
export type { GroupArgs, GroupIdentityMatcher, GroupMemberQuery, GroupQueryTerm } from "./group.js";
export { ServiceAccount } from "./serviceAccount.js";
export type { ServiceAccountArgs } from "./serviceAccount.js";
export { ServiceAccountKey } from "./serviceAccountKey.js";
export type { ServiceAccountKeyArgs } from "./serviceAccountKey.js";
export { AuditContext } from "./auditCtx.js";
export type { AuditContextArgs } from "./auditCtx.js";
export { CloudAccount } from "./cloudAccount.js";
export type { CloudAccountArgs } from "./cloudAccount.js";
export { PolicyBinding } from "./policyBinding.js";
export type { PolicyBindingArgs } from "./policyBinding.js";
export * from "./declared.js";
export * from "./functions.js";
export { CplnApiError, isCplnApiError } from "../provider/client/errors.js";
export { CplnClient } from "./client.js";
export type {
  About,
  AccessReport,
  ApiRecord,
  CallOptions,
  CloudAccount as CloudAccountRecord,
  CplnClientApi,
  CplnClientOptions,
  Group as GroupRecord,
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
  ServiceAccount as ServiceAccountRecord,
  ServiceAccountKey as ServiceAccountKeyRecord,
  VolumeSetCreateBody,
  VolumeSetOutputs,
  VolumeSetPatchBody,
} from "./types.js";

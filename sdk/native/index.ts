/**
 * `cpln-pulumi/native`: the resources as custom resources of the native plugin (`cpln-native:index:<Type>`), for
 * TypeScript programs that want what dynamic resources cannot give (detailed diffs, `pulumi import`, per-type tokens,
 * Invoke). Each class takes the same args as its dynamic twin in `cpln-pulumi`, and carries an alias from the dynamic
 * type token (`pulumi-nodejs:dynamic/cpln:<Type>`), so switching a program from `cpln.VolumeSet` to
 * `native.VolumeSet` keeps every resource: the plugin's Check carries the old `__provider` input over and its Diff is
 * empty, so the next `pulumi up` writes nothing (pulumi-eks did the same when RandomSuffix stopped being dynamic).
 *
 * The plugin must be installed (`pulumi plugin install resource cpln-native <version> --file <archive>`, see the
 * README), and its config is `cpln-native:org|endpoint|token`.
 */
import { nativeResource, type OutputsOf } from "./resource.js";
import type { AuditContext as DynamicAuditContext, AuditContextArgs } from "../auditCtx.js";
import type { CloudAccount as DynamicCloudAccount, CloudAccountArgs } from "../cloudAccount.js";
import type { Group as DynamicGroup, GroupArgs } from "../group.js";
import type { Location as DynamicLocation, LocationArgs } from "../location.js";
import type { Policy as DynamicPolicy, PolicyArgs } from "../policy.js";
import type { PolicyBinding as DynamicPolicyBinding, PolicyBindingArgs } from "../policyBinding.js";
import type { ServiceAccount as DynamicServiceAccount, ServiceAccountArgs } from "../serviceAccount.js";
import type { ServiceAccountKey as DynamicServiceAccountKey, ServiceAccountKeyArgs } from "../serviceAccountKey.js";
import type { VolumeSet as DynamicVolumeSet, VolumeSetArgs } from "../volumeSet.js";

export const VolumeSet = nativeResource<VolumeSetArgs, OutputsOf<DynamicVolumeSet>>("VolumeSet");
export type VolumeSet = InstanceType<typeof VolumeSet>;
export const Policy = nativeResource<PolicyArgs, OutputsOf<DynamicPolicy>>("Policy");
export type Policy = InstanceType<typeof Policy>;
export const Location = nativeResource<LocationArgs, OutputsOf<DynamicLocation>>("Location");
export type Location = InstanceType<typeof Location>;
export const Group = nativeResource<GroupArgs, OutputsOf<DynamicGroup>>("Group");
export type Group = InstanceType<typeof Group>;
export const ServiceAccount = nativeResource<ServiceAccountArgs, OutputsOf<DynamicServiceAccount>>("ServiceAccount");
export type ServiceAccount = InstanceType<typeof ServiceAccount>;
export const ServiceAccountKey = nativeResource<ServiceAccountKeyArgs, OutputsOf<DynamicServiceAccountKey>>(
  "ServiceAccountKey",
);
export type ServiceAccountKey = InstanceType<typeof ServiceAccountKey>;
export const AuditContext = nativeResource<AuditContextArgs, OutputsOf<DynamicAuditContext>>("AuditContext");
export type AuditContext = InstanceType<typeof AuditContext>;
export const CloudAccount = nativeResource<CloudAccountArgs, OutputsOf<DynamicCloudAccount>>("CloudAccount");
export type CloudAccount = InstanceType<typeof CloudAccount>;
export const PolicyBinding = nativeResource<PolicyBindingArgs, OutputsOf<DynamicPolicyBinding>>("PolicyBinding");
export type PolicyBinding = InstanceType<typeof PolicyBinding>;

export * from "./declared.js";
export { nativeResourceOptions, type NativeResourceClass, type NativeTypeName } from "./resource.js";

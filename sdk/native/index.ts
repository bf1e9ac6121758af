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
import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { resources, resourceToken } from "../../provider/index.js";
import { nativeToken, pluginVersion } from "../../provider/native/identity.js";
import type { AuditContext as DynamicAuditContext, AuditContextArgs } from "../auditContext.js";
import type { CloudAccount as DynamicCloudAccount, CloudAccountArgs } from "../cloudAccount.js";
import type { Group as DynamicGroup, GroupArgs } from "../group.js";
import type { Location as DynamicLocation, LocationArgs } from "../location.js";
import type { Policy as DynamicPolicy, PolicyArgs } from "../policy.js";
import type { PolicyBinding as DynamicPolicyBinding, PolicyBindingArgs } from "../policyBinding.js";
import type { ServiceAccount as DynamicServiceAccount, ServiceAccountArgs } from "../serviceAccount.js";
import type { ServiceAccountKey as DynamicServiceAccountKey, ServiceAccountKeyArgs } from "../serviceAccountKey.js";
import type { VolumeSet as DynamicVolumeSet, VolumeSetArgs } from "../volumeSet.js";

/**
 * The resource types (the registry's keys), spelled out so that this module's declarations reach no provider module
 * (whose types reach zod); `satisfies` below keeps the list equal to the registry.
 */
export type NativeTypeName =
  | "VolumeSet"
  | "Policy"
  | "Location"
  | "Group"
  | "ServiceAccount"
  | "ServiceAccountKey"
  | "AuditContext"
  | "CloudAccount"
  | "PolicyBinding";

/**
 * The options every native resource is registered with: the caller's, plus the alias from the dynamic type and the
 * type's secret outputs (the schema's `secret: true`, as a generated SDK passes them) in `additionalSecretOutputs`,
 * so the engine keeps them secret in its state whatever the plugin returns.
 */
export function nativeResourceOptions(
  typeName: NativeTypeName,
  opts: pulumi.CustomResourceOptions = {},
): pulumi.CustomResourceOptions {
  const descriptor = resources[typeName] as { secretOutputs?: readonly string[] };
  const secretOutputs = descriptor.secretOutputs ?? [];
  return {
    version: pluginVersion(),
    ...opts,
    aliases: [...(opts.aliases ?? []), { type: resourceToken(typeName) }],
    ...(secretOutputs.length > 0
      ? { additionalSecretOutputs: [...new Set([...(opts.additionalSecretOutputs ?? []), ...secretOutputs])] }
      : {}),
  };
}

/** Every output property, unset, so the engine's outputs resolve onto the instance. */
function outputProps(typeName: NativeTypeName): Record<string, undefined> {
  const shape = (resources[typeName].outputs() as unknown as z.ZodObject).shape;
  return Object.fromEntries(Object.keys(shape).map((key) => [key, undefined]));
}

/** The outputs of a resource: the `Output` properties its dynamic class declares. */
type OutputsOf<Dynamic> = Omit<Dynamic, keyof pulumi.dynamic.Resource>;

export interface NativeResourceClass<Args, Dynamic> {
  new (name: string, args: Args, opts?: pulumi.CustomResourceOptions): pulumi.CustomResource & OutputsOf<Dynamic>;
  /** Reads an existing object by its id (self link, or the short forms `gvc:name` / `name`) without managing it. */
  get(
    name: string,
    id: pulumi.Input<pulumi.ID>,
    opts?: pulumi.CustomResourceOptions,
  ): pulumi.CustomResource & OutputsOf<Dynamic>;
}

/** The native class of a resource type of the registry. */
function nativeResource<Args, Dynamic>(typeName: NativeTypeName): NativeResourceClass<Args, Dynamic> {
  class NativeResource extends pulumi.CustomResource {
    constructor(name: string, args: Args | undefined, opts?: pulumi.CustomResourceOptions) {
      const props = { ...outputProps(typeName), ...(args ?? {}), __logicalName: name };
      super(nativeToken(typeName), name, props, nativeResourceOptions(typeName, opts));
    }

    static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions) {
      return new NativeResource(name, undefined, { ...opts, id });
    }
  }
  return NativeResource as unknown as NativeResourceClass<Args, Dynamic>;
}

export const VolumeSet = nativeResource<VolumeSetArgs, DynamicVolumeSet>("VolumeSet");
export type VolumeSet = InstanceType<typeof VolumeSet>;
export const Policy = nativeResource<PolicyArgs, DynamicPolicy>("Policy");
export type Policy = InstanceType<typeof Policy>;
export const Location = nativeResource<LocationArgs, DynamicLocation>("Location");
export type Location = InstanceType<typeof Location>;
export const Group = nativeResource<GroupArgs, DynamicGroup>("Group");
export type Group = InstanceType<typeof Group>;
export const ServiceAccount = nativeResource<ServiceAccountArgs, DynamicServiceAccount>("ServiceAccount");
export type ServiceAccount = InstanceType<typeof ServiceAccount>;
export const ServiceAccountKey = nativeResource<ServiceAccountKeyArgs, DynamicServiceAccountKey>("ServiceAccountKey");
export type ServiceAccountKey = InstanceType<typeof ServiceAccountKey>;
export const AuditContext = nativeResource<AuditContextArgs, DynamicAuditContext>("AuditContext");
export type AuditContext = InstanceType<typeof AuditContext>;
export const CloudAccount = nativeResource<CloudAccountArgs, DynamicCloudAccount>("CloudAccount");
export type CloudAccount = InstanceType<typeof CloudAccount>;
export const PolicyBinding = nativeResource<PolicyBindingArgs, DynamicPolicyBinding>("PolicyBinding");
export type PolicyBinding = InstanceType<typeof PolicyBinding>;

// The list above is exactly the registry's types: a new resource fails to compile here until it has a native class.
type SameAsRegistry = [keyof typeof resources] extends [NativeTypeName]
  ? [NativeTypeName] extends [keyof typeof resources]
    ? true
    : never
  : never;
const sameAsRegistry: SameAsRegistry = true;
void sameAsRegistry;

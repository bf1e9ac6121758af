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
import { resources, resourceToken, type ResourceTypeName } from "../../provider/index.js";
import { nativeToken, pluginVersion } from "../../provider/native/identity.js";
import type { LocationOutputs } from "../../provider/resources/location.js";
import type { PolicyOutputs } from "../../provider/resources/policy.js";
import type { VolumeSetOutputs } from "../../provider/resources/volumeSet.js";
import type { LocationArgs } from "../location.js";
import type { PolicyArgs } from "../policy.js";
import type { VolumeSetArgs } from "../volumeSet.js";

/** The options every native resource is registered with: the caller's, plus the alias from the dynamic type. */
export function nativeResourceOptions(
  typeName: ResourceTypeName,
  opts: pulumi.CustomResourceOptions = {},
): pulumi.CustomResourceOptions {
  return {
    version: pluginVersion(),
    ...opts,
    aliases: [...(opts.aliases ?? []), { type: resourceToken(typeName) }],
  };
}

/** Every output property, unset, so the engine's outputs resolve onto the instance. */
function outputProps(typeName: ResourceTypeName): Record<string, undefined> {
  const shape = (resources[typeName].outputs() as unknown as z.ZodObject).shape;
  return Object.fromEntries(Object.keys(shape).map((key) => [key, undefined]));
}

type OutputsOf<T> = { readonly [K in keyof T]-?: pulumi.Output<T[K]> };

export interface NativeResourceClass<Args, Outputs> {
  new (name: string, args: Args, opts?: pulumi.CustomResourceOptions): pulumi.CustomResource & OutputsOf<Outputs>;
  /** Reads an existing object by its id (self link, or the short forms `gvc:name` / `name`) without managing it. */
  get(
    name: string,
    id: pulumi.Input<pulumi.ID>,
    opts?: pulumi.CustomResourceOptions,
  ): pulumi.CustomResource & OutputsOf<Outputs>;
}

/** The native class of a resource type of the registry. */
export function nativeResource<Args, Outputs>(typeName: ResourceTypeName): NativeResourceClass<Args, Outputs> {
  class NativeResource extends pulumi.CustomResource {
    constructor(name: string, args: Args | undefined, opts?: pulumi.CustomResourceOptions) {
      const props = { ...outputProps(typeName), ...(args ?? {}), __logicalName: name };
      super(nativeToken(typeName), name, props, nativeResourceOptions(typeName, opts));
    }

    static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions) {
      return new NativeResource(name, undefined, { ...opts, id });
    }
  }
  return NativeResource as unknown as NativeResourceClass<Args, Outputs>;
}

export const VolumeSet = nativeResource<VolumeSetArgs, VolumeSetOutputs>("VolumeSet");
export type VolumeSet = InstanceType<typeof VolumeSet>;
export const Policy = nativeResource<PolicyArgs, PolicyOutputs>("Policy");
export type Policy = InstanceType<typeof Policy>;
export const Location = nativeResource<LocationArgs, LocationOutputs>("Location");
export type Location = InstanceType<typeof Location>;

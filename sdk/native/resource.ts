/**
 * The native class of a resource type: a custom resource of the plugin (`cpln-native:index:<Type>`) registered with
 * the alias from its dynamic type and its secret outputs.
 */
import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { resources, resourceToken } from "../../provider/index.js";
import { nativeToken, pluginVersion } from "../../provider/native/identity.js";
import type { ResourceTypeName } from "../../provider/resources/typeNames.js";

/** The resource types (the registry's keys), from a module that reaches no zod. */
export type NativeTypeName = ResourceTypeName;

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
export type OutputsOf<Dynamic> = Omit<Dynamic, keyof pulumi.dynamic.Resource>;

/** A native class whose instances carry `Outputs` (the `Output` properties). */
export interface NativeResourceClass<Args, Outputs> {
  new (name: string, args: Args, opts?: pulumi.CustomResourceOptions): pulumi.CustomResource & Outputs;
  /** Reads an existing object by its id (self link, or the short forms `gvc:name` / `name`) without managing it. */
  get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): pulumi.CustomResource & Outputs;
}

/** The native class of a resource type of the registry. */
export function nativeResource<Args, Outputs>(typeName: NativeTypeName): NativeResourceClass<Args, Outputs> {
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

/**
 * The native class of a resource type: a custom resource of the plugin (`cpln-native:index:<Type>`) registered with
 * the alias from its dynamic type and its secret outputs. What a class needs of its type (output names, which are
 * secret) comes from the package's schema.json, as a generated Pulumi SDK bakes it in: a program that loaded the
 * provider's registry here built each type's zod schemas to list its outputs, 0.3–0.6 s of every `pulumi up`.
 */
import * as pulumi from "@pulumi/pulumi";
import { nativeToken, packageFile, pluginVersion } from "../../provider/native/identity.js";
import { resourceToken, type ResourceTypeName } from "../../provider/resources/typeNames.js";

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
  const secretOutputs = typeOutputs(typeName).secret;
  return {
    version: pluginVersion(),
    ...opts,
    aliases: [...(opts.aliases ?? []), { type: resourceToken(typeName) }],
    ...(secretOutputs.length > 0
      ? { additionalSecretOutputs: [...new Set([...(opts.additionalSecretOutputs ?? []), ...secretOutputs])] }
      : {}),
  };
}

interface SchemaResource {
  properties: Record<string, { secret?: boolean }>;
}
let schemaResources: Record<string, SchemaResource> | undefined;

/** A type's output properties and the secret ones, from schema.json's `cpln-native:index:<Type>` (read once). */
export function typeOutputs(typeName: NativeTypeName): { names: string[]; secret: string[] } {
  schemaResources ??= (JSON.parse(packageFile("schema.json")) as { resources: Record<string, SchemaResource> })
    .resources;
  const spec = schemaResources[nativeToken(typeName)];
  if (spec === undefined) throw new Error(`schema.json has no resource ${nativeToken(typeName)}`);
  const entries = Object.entries(spec.properties);
  return { names: entries.map(([name]) => name), secret: entries.filter(([, p]) => p.secret).map(([name]) => name) };
}

/** Every output property, unset, so the engine's outputs resolve onto the instance. */
function outputProps(typeName: NativeTypeName): Record<string, undefined> {
  return Object.fromEntries(typeOutputs(typeName).names.map((key) => [key, undefined]));
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

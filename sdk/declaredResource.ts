/**
 * The dynamic class of a resource type: `sdk/declared.ts`, written by `npm run gen`, makes one per type (those of the
 * kinds that declare a resource, and the hand-written definitions newer than the generator) from the package
 * schema, with its args and outputs as interfaces.
 */
import * as pulumi from "@pulumi/pulumi";
import { providers } from "../provider/dynamic.js";
import type { ResourceTypeName } from "../provider/resources/typeNames.js";

/** The `Output` properties of an instance, one per output of the resource. */
export type OutputProperties<Outputs> = { readonly [K in keyof Outputs]-?: pulumi.Output<Outputs[K]> };

export interface DeclaredResourceClass<Args, Outputs> {
  new (
    name: string,
    args: Args,
    opts?: pulumi.CustomResourceOptions,
  ): pulumi.dynamic.Resource & OutputProperties<Outputs>;
  /** Reads an existing object by its id (its self link, or `<name>` / `<gvc>:<name>`) without managing it. */
  get(
    name: string,
    id: pulumi.Input<pulumi.ID>,
    opts?: pulumi.CustomResourceOptions,
  ): pulumi.dynamic.Resource & OutputProperties<Outputs>;
}

/**
 * The class of `typeName`: every output passed as `undefined` so the engine's outputs resolve onto the instance, the
 * `secrets` args wrapped as Pulumi secrets (so the state never holds them in plaintext, inputs included) and listed
 * in `additionalSecretOutputs`.
 */
export function declaredResource<Args, Outputs>(
  typeName: ResourceTypeName,
  outputNames: readonly string[],
  secrets: readonly string[],
): DeclaredResourceClass<Args, Outputs> {
  class DeclaredResource extends pulumi.dynamic.Resource {
    constructor(name: string, args: Args | undefined, opts?: pulumi.CustomResourceOptions) {
      const props: Record<string, unknown> = Object.fromEntries(outputNames.map((output) => [output, undefined]));
      Object.assign(props, args);
      for (const field of secrets) if (props[field] !== undefined) props[field] = pulumi.secret(props[field]);
      props.__logicalName = name;
      const options =
        secrets.length > 0
          ? { ...opts, additionalSecretOutputs: [...new Set([...(opts?.additionalSecretOutputs ?? []), ...secrets])] }
          : opts;
      super(providers[typeName], name, props, options, "cpln", typeName);
    }

    static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions) {
      return new DeclaredResource(name, undefined, { ...opts, id });
    }
  }
  return DeclaredResource as unknown as DeclaredResourceClass<Args, Outputs>;
}

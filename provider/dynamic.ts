/**
 * The `pulumi.dynamic.ResourceProvider` objects, one per resource kind. Pulumi serializes the provider object into
 * every resource's `__provider` input as JavaScript source, including everything its methods reach by value. So each
 * method is one line that loads the real implementation by package path at call time: the serialized text is a few
 * hundred bytes, holds no data (no token, no zod schema, no client), and the dynamic-provider host resolves
 * `cpln-pulumi` from the program's node_modules. Keep the required path stable: state written by this version keeps
 * requiring it for read and delete until the resource is next updated.
 */
import type * as pulumi from "@pulumi/pulumi";
import type * as runtimeModule from "./runtime.js";
import { resourceTypeNames, type ResourceTypeName } from "./resources/typeNames.js";

/** The package path the serialized providers load; `package.json` `exports` must keep it resolvable. */
export const RUNTIME_MODULE = "cpln-pulumi/dist/provider/runtime.js";

// A require by package path inside the function (not an import) keeps the runtime out of the serialized closure;
// comments inside the body would be serialized too, hence this one sits outside.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const runtime = (): typeof runtimeModule => require("cpln-pulumi/dist/provider/runtime.js");

function dynamicProvider(typeName: ResourceTypeName): pulumi.dynamic.ResourceProvider {
  return {
    async configure(req) {
      return runtime().configure(req.config);
    },
    async check(olds, news) {
      return runtime().checkWithLink(typeName, olds, news);
    },
    async diff(id, olds, news) {
      return runtime().diff(typeName, id, olds, news);
    },
    async create(inputs) {
      return runtime().create(typeName, inputs);
    },
    async read(id, props) {
      return runtime().readWithLink(typeName, id, props);
    },
    async update(id, olds, news) {
      return runtime().update(typeName, id, olds, news);
    },
    async delete(id, props) {
      return runtime().delete(typeName, id, props);
    },
  };
}

/** One provider instance per type: Pulumi caches a provider's serialization per object. */
export const providers: Readonly<Record<ResourceTypeName, pulumi.dynamic.ResourceProvider>> = Object.fromEntries(
  resourceTypeNames.map((typeName) => [typeName, dynamicProvider(typeName)]),
) as Record<ResourceTypeName, pulumi.dynamic.ResourceProvider>;

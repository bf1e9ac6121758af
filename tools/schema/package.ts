/**
 * The `cpln-native` package schema of this repository (served by the native plugin's GetSchema): the provider's registries fed to the generator.
 */
import { resources } from "../../provider/index.js";
import { schemaFunctions } from "./functions.js";
import { generateSchema, type PackageSchema, type SchemaFunction, type SchemaResource } from "./generate.js";

export const packageDescription =
  "Control Plane volume sets, policies and locations, with data sources for quotas, " +
  "permission schemas, cloud-account queries, service accounts, groups, policies, locations, access reports and " +
  "mk8s join scripts. Served by the native plugin pulumi-resource-cpln-native for every Pulumi language; " +
  "TypeScript programs may use the same resources as dynamic resources (the cpln-pulumi package).";

export function registryResources(): SchemaResource[] {
  return Object.values(resources);
}

export function registryFunctions(): SchemaFunction[] {
  return schemaFunctions();
}

export function packageSchema(): PackageSchema {
  return generateSchema(registryResources(), registryFunctions(), packageDescription);
}

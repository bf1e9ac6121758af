/**
 * The `cpln` package schema of this repository: the provider's registries fed to the generator.
 */
import { resources } from "../../provider/index.js";
import { schemaFunctions } from "./functions.js";
import { generateSchema, type PackageSchema, type SchemaFunction, type SchemaResource } from "./generate.js";

export const packageDescription =
  "Control Plane volume sets, policies and locations as Pulumi dynamic resources, with data sources for quotas, " +
  "permission schemas, cloud-account queries, service accounts, groups, policies, locations, access reports and " +
  "mk8s join scripts. TypeScript/JavaScript programs only.";

export function registryResources(): SchemaResource[] {
  return Object.values(resources);
}

export function registryFunctions(): SchemaFunction[] {
  return schemaFunctions();
}

export function packageSchema(): PackageSchema {
  return generateSchema(registryResources(), registryFunctions(), packageDescription);
}

/**
 * The provider's registry: one resource definition per Pulumi type. The runtime dispatches on it, and the schema
 * generator reads each definition's input/output schemas, descriptions and field rules (`replace`) from it.
 */
import { locationDefinition } from "./resources/location.js";
import { policyDefinition } from "./resources/policy.js";
import type { AnyResourceDefinition, ResourceTypeName } from "./resources/types.js";
import { volumeSetDefinition } from "./resources/volumeSet.js";

export const resources = {
  VolumeSet: volumeSetDefinition,
  Policy: policyDefinition,
  Location: locationDefinition,
} satisfies Record<ResourceTypeName, AnyResourceDefinition>;

/** The Pulumi type token of a resource: `pulumi-nodejs:dynamic/cpln:<TypeName>`. */
export function resourceToken(typeName: ResourceTypeName): string {
  return `pulumi-nodejs:dynamic/cpln:${typeName}`;
}

/** Input fields whose change replaces the object, per resource (for the schema's `replaceOnChanges`). */
export function replaceFields(typeName: ResourceTypeName): string[] {
  const fields: Record<string, { replace?: boolean }> = resources[typeName].fields;
  return Object.entries(fields)
    .filter(([, rule]) => rule.replace === true)
    .map(([field]) => field);
}

export { volumeSetDefinition, policyDefinition, locationDefinition };
export type { ResourceDefinition, ResourceTypeName, FieldRule } from "./resources/types.js";

/**
 * The resource type names, in a module of their own that reaches nothing else (no zod), so that the SDK's
 * declarations can name them.
 */
import { declaredTypeNames, type DeclaredTypeName } from "./declaredNames.js";

/** The types whose resource file is written by hand (behaviour beyond their kind's declaration). */
export const handWrittenTypeNames = [
  "VolumeSet",
  "Policy",
  "Location",
  "Group",
  "ServiceAccount",
  "ServiceAccountKey",
  "AuditContext",
  "CloudAccount",
  "PolicyBinding",
  "Org",
  "DomainRoute",
] as const;

/**
 * The Pulumi type names (`pulumi-nodejs:dynamic/cpln:<TypeName>`, `cpln-native:index:<TypeName>`): the hand-written
 * ones and those of the kinds that declare a resource (`declaredTypeNames`, written by `npm run gen`).
 */
export type ResourceTypeName = (typeof handWrittenTypeNames)[number] | DeclaredTypeName;
export const resourceTypeNames: readonly ResourceTypeName[] = [...handWrittenTypeNames, ...declaredTypeNames];

/** The Pulumi type token of a resource: `pulumi-nodejs:dynamic/cpln:<TypeName>`. */
export function resourceToken(typeName: ResourceTypeName): string {
  return `pulumi-nodejs:dynamic/cpln:${typeName}`;
}

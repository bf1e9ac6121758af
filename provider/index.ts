/**
 * The provider's registries: one resource definition per Pulumi type (the runtime dispatches on it), and one entry
 * per data-source function. The schema generator reads input/output schemas, descriptions and field rules
 * (`replace`, secret results) from both.
 */
import { z } from "zod";
import {
  accessReport,
  cloudAccount,
  group,
  location,
  permissionSchema,
  policy,
  quota,
  serviceAccount,
} from "../api/schemas/index.js";
import * as fn from "./functions/index.js";
import { declaredFunctions } from "./functions/declared.js";
import { auditContextDefinition } from "./resources/auditCtx.js";
import { cloudAccountDefinition } from "./resources/cloudAccount.js";
import { groupDefinition } from "./resources/group.js";
import { locationDefinition } from "./resources/location.js";
import { domainRouteDefinition } from "./resources/domainRoute.js";
import { orgDefinition } from "./resources/org.js";
import { policyDefinition } from "./resources/policy.js";
import { policyBindingDefinition } from "./resources/policyBinding.js";
import { serviceAccountDefinition } from "./resources/serviceAccount.js";
import { serviceAccountKeyDefinition } from "./resources/serviceAccountKey.js";
import { declaredDefinitions } from "./resources/declared.js";
import type { DeclaredTypeName } from "./resources/declaredNames.js";
import { kinds } from "../api/kinds/index.js";
import type { AnyResourceDefinition, ResourceTypeName } from "./resources/types.js";
import type { handWrittenTypeNames } from "./resources/typeNames.js";
import { volumeSetDefinition } from "./resources/volumeSet.js";

const handWritten = {
  VolumeSet: volumeSetDefinition,
  Policy: policyDefinition,
  Location: locationDefinition,
  Group: groupDefinition,
  ServiceAccount: serviceAccountDefinition,
  ServiceAccountKey: serviceAccountKeyDefinition,
  AuditContext: auditContextDefinition,
  CloudAccount: cloudAccountDefinition,
  PolicyBinding: policyBindingDefinition,
  Org: orgDefinition,
  DomainRoute: domainRouteDefinition,
} satisfies Record<(typeof handWrittenTypeNames)[number], AnyResourceDefinition>;

/**
 * Every resource type: the hand-written definitions and one per kind that declares a resource (`npm run gen` writes
 * their names into `declaredNames.ts` for the types; a test holds the two equal).
 */
export const resources = {
  ...handWritten,
  ...(declaredDefinitions(Object.values(kinds)) as Record<DeclaredTypeName, AnyResourceDefinition>),
};

export { resourceToken } from "./resources/typeNames.js";

/** Input fields whose change replaces the object, per resource (for the schema's `replaceOnChanges`). */
export function replaceFields(typeName: ResourceTypeName): string[] {
  const fields: Record<string, { replace?: boolean }> = resources[typeName].fields;
  return Object.entries(fields)
    .filter(([, rule]) => rule.replace === true)
    .map(([field]) => field);
}

/** What the schema generator needs of a data-source function (`getX` / `getXOutput` in the SDK). */
export interface FunctionDefinition {
  name: string;
  description: string;
  args(): z.ZodType;
  result(): z.ZodType;
  /** Result fields that are secrets (the Output form wraps them with `pulumi.secret`). */
  secretResultFields?: readonly string[];
}

function listOf(item: () => z.ZodType, description: string) {
  return () =>
    z.object({
      org: z.string().describe("The org that was read."),
      items: z.array(item()).describe(description),
    });
}

const handWrittenFunctions = {
  getQuotas: {
    name: "getQuotas",
    description: "Every quota of the org (GET /org/{org}/quota); per-gvc quotas have one record per gvc.",
    args: fn.getQuotasArgs,
    result: listOf(quota, "Every quota of the org; `id` tells per-gvc quotas of the same name apart."),
  },
  getQuota: {
    name: "getQuota",
    description: "One quota by its id (GET /org/{org}/quota/{id}).",
    args: fn.getQuotaArgs,
    result: quota,
  },
  getCloudAccountPermissions: {
    name: "getCloudAccountPermissions",
    description: "The permission catalog of cloud accounts (GET /org/{org}/cloudaccount/-schema/permissions).",
    args: fn.getCloudAccountPermissionsArgs,
    result: permissionSchema,
  },
  queryCloudAccounts: {
    name: "queryCloudAccounts",
    description: "Cloud accounts matching a query (POST /org/{org}/cloudaccount/-query); every page is fetched.",
    args: fn.queryCloudAccountsArgs,
    result: () =>
      z.object({
        org: z.string().describe("The org that was queried."),
        items: z.array(cloudAccount()).describe("The matching cloud accounts, in the query's sort order."),
        query: z.record(z.string(), z.unknown()).describe("The query as evaluated, defaults filled."),
      }),
  },
  getServiceAccounts: {
    name: "getServiceAccounts",
    description: "The service accounts the caller may view (GET /org/{org}/serviceaccount); key names only.",
    args: fn.getServiceAccountsArgs,
    result: listOf(serviceAccount, "The service accounts the caller may view."),
  },
  getGroups: {
    name: "getGroups",
    description: "The groups the caller may view (GET /org/{org}/group), built-ins included.",
    args: fn.getGroupsArgs,
    result: listOf(group, "The groups the caller may view."),
  },
  getPolicy: {
    name: "getPolicy",
    description: "One policy by name (GET /org/{org}/policy/{name}).",
    args: fn.getPolicyArgs,
    result: policy,
  },
  getLocation: {
    name: "getLocation",
    description: "One location by name (GET /org/{org}/location/{name}).",
    args: fn.getLocationArgs,
    result: location,
  },
  getGroupAccessReport: {
    name: "getGroupAccessReport",
    description:
      "Who may act on a group, per permission, with the granting policy (GET .../group/{name}/-accessreport).",
    args: fn.getGroupAccessReportArgs,
    result: accessReport,
  },
  getMk8sJoinScript: {
    name: "getMk8sJoinScript",
    description:
      "A script that joins a node to an mk8s cluster (POST /org/{org}/mk8s/{name}/-join); generic and hetzner " +
      "clusters only. The script embeds a bootstrap token: the Output form is a secret.",
    args: fn.getMk8sJoinScriptArgs,
    result: () =>
      z.object({
        name: z.string().describe("The cluster's name."),
        script: z.string().describe("Bash script that joins a node to the cluster (a secret)."),
      }),
    secretResultFields: ["script"],
  },
} satisfies Record<string, FunctionDefinition>;

/** `get<Type>` of every kind that declares a resource (their implementations run the request themselves). */
export const declaredFunctionsByName = declaredFunctions(Object.values(kinds));

/** Every data-source function: the hand-written ones and the `get<Type>` of each declared resource. */
export const functions: Record<string, FunctionDefinition> & typeof handWrittenFunctions = {
  ...handWrittenFunctions,
  ...declaredFunctionsByName,
};

export {
  volumeSetDefinition,
  policyDefinition,
  locationDefinition,
  groupDefinition,
  serviceAccountDefinition,
  serviceAccountKeyDefinition,
  auditContextDefinition,
  cloudAccountDefinition,
  policyBindingDefinition,
};
export type { ResourceDefinition, ResourceTypeName, FieldRule } from "./resources/types.js";

/**
 * The data-source functions as the schema generator sees them: the provider's own argument schemas, and result
 * schemas assembled from the contract's record schemas. Each result schema is checked against the provider's result
 * type by the compiler (`z.ZodType<Result>`), so the schema cannot describe a shape the function does not return.
 */
import { z } from "zod";
import {
  accessReport,
  cloudAccount,
  group,
  location,
  permissionSchema,
  policy,
  queryDocumentOutput,
  quota,
  serviceAccount,
} from "../../api/schemas/index.js";
import {
  getCloudAccountPermissionsArgs,
  getGroupAccessReportArgs,
  getGroupsArgs,
  getLocationArgs,
  getMk8sJoinScriptArgs,
  getPolicyArgs,
  getQuotaArgs,
  getQuotasArgs,
  getServiceAccountsArgs,
  queryCloudAccountsArgs,
  type GetCloudAccountPermissionsResult,
  type GetGroupAccessReportResult,
  type GetGroupsResult,
  type GetLocationResult,
  type GetMk8sJoinScriptResult,
  type GetPolicyResult,
  type GetQuotaResult,
  type GetQuotasResult,
  type GetServiceAccountsResult,
  type QueryCloudAccountsResult,
} from "../../provider/functions/index.js";
import type { SchemaFunction } from "./generate.js";

const orgField = () => z.string().describe("The org that was read.");

/** A result schema whose output type must be the function's result type. */
function result<T>(schema: () => z.ZodType<T, unknown>): () => z.ZodType {
  return schema;
}

export function schemaFunctions(): SchemaFunction[] {
  return [
    {
      name: "getQuotas",
      description: "The org's quotas (GET /org/{org}/quota): each with its name, current usage, max and unit.",
      args: getQuotasArgs,
      result: result<GetQuotasResult>(() =>
        z.object({ org: orgField(), items: z.array(quota()).describe("Every quota of the org.") }),
      ),
    },
    {
      name: "getQuota",
      description: "One quota by its id (GET /org/{org}/quota/{id}); quota names repeat, ids do not.",
      args: getQuotaArgs,
      result: result<GetQuotaResult>(quota),
    },
    {
      name: "getCloudAccountPermissions",
      description:
        "The permission schema of cloud accounts (GET /org/{org}/cloudaccount/-schema/permissions): each permission and the ones it implies.",
      args: getCloudAccountPermissionsArgs,
      result: result<GetCloudAccountPermissionsResult>(permissionSchema),
    },
    {
      name: "queryCloudAccounts",
      description:
        "Cloud accounts matching a query (POST /org/{org}/cloudaccount/-query), every page fetched, with the query as the service evaluated it.",
      args: queryCloudAccountsArgs,
      result: result<QueryCloudAccountsResult>(() =>
        z.object({
          org: orgField(),
          items: z.array(cloudAccount()).describe("The matching cloud accounts, in the query's sort order."),
          query: queryDocumentOutput().describe("The query as evaluated, defaults filled."),
        }),
      ),
    },
    {
      name: "getServiceAccounts",
      description:
        "The org's service accounts the caller may view (GET /org/{org}/serviceaccount); key secrets are never listed.",
      args: getServiceAccountsArgs,
      result: result<GetServiceAccountsResult>(() =>
        z.object({ org: orgField(), items: z.array(serviceAccount()).describe("The service accounts.") }),
      ),
    },
    {
      name: "getGroups",
      description: "The org's groups the caller may view (GET /org/{org}/group), built-ins included.",
      args: getGroupsArgs,
      result: result<GetGroupsResult>(() =>
        z.object({ org: orgField(), items: z.array(group()).describe("The groups.") }),
      ),
    },
    {
      name: "getPolicy",
      description: "One policy by name (GET /org/{org}/policy/{name}), builtin ones included.",
      args: getPolicyArgs,
      result: result<GetPolicyResult>(policy),
    },
    {
      name: "getLocation",
      description: "One location by name (GET /org/{org}/location/{name}): provider, region, enabled, geo tags.",
      args: getLocationArgs,
      result: result<GetLocationResult>(location),
    },
    {
      name: "getGroupAccessReport",
      description:
        "Who may act on a group (GET /org/{org}/group/{name}/-accessreport): per permission, each principal with the policy and match that grant it.",
      args: getGroupAccessReportArgs,
      result: result<GetGroupAccessReportResult>(accessReport),
    },
    {
      name: "getMk8sJoinScript",
      description:
        "The script that joins a node to a generic or Hetzner mk8s cluster (POST /org/{org}/mk8s/{name}/-join). A secret: the Output form marks it so.",
      args: getMk8sJoinScriptArgs,
      result: result<GetMk8sJoinScriptResult>(() =>
        z.object({
          name: z.string().describe("The cluster's name."),
          script: z.string().describe("Bash script that joins a node; embeds a short-lived bootstrap token."),
        }),
      ),
      secretResultFields: ["script"],
    },
  ];
}

import { z } from "zod";
import { lazy } from "../../api/lazy.js";
import type { PermissionSchema } from "../../api/schemas/index.js";
import { connect, orgArg, parseArgs, type FunctionEnv } from "./common.js";

// ---- args schema ----

export const getCloudAccountPermissionsArgs = lazy(() =>
  z.strictObject({ org: orgArg() }).describe("Arguments of getCloudAccountPermissions."),
);
export type GetCloudAccountPermissionsArgs = z.input<ReturnType<typeof getCloudAccountPermissionsArgs>>;

// ---- result type ----

/** `{kind: 'permissions', targetKind: 'cloudaccount', items: [{name, description}], implied: {perm: [...]}}`. */
export type GetCloudAccountPermissionsResult = PermissionSchema;

// ---- the fetch ----

/** `GET /org/{org}/cloudaccount/-schema/permissions`. */
export async function getCloudAccountPermissions(
  args: GetCloudAccountPermissionsArgs | undefined,
  env: FunctionEnv = {},
): Promise<GetCloudAccountPermissionsResult> {
  const parsed = parseArgs("getCloudAccountPermissions", getCloudAccountPermissionsArgs(), args);
  const { client, org } = connect(parsed.org, env);
  return client.getCloudAccountPermissions({ org });
}

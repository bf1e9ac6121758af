import { z } from "zod";
import { lazy } from "../../api/lazy.js";
import type { ServiceAccount } from "../../api/schemas/index.js";
import { connect, orgArg, parseArgs, type FunctionEnv } from "./common.js";

// ---- args schema ----

export const getServiceAccountsArgs = lazy(() =>
  z.strictObject({ org: orgArg() }).describe("Arguments of getServiceAccounts."),
);
export type GetServiceAccountsArgs = z.input<ReturnType<typeof getServiceAccountsArgs>>;

// ---- result type ----

export interface GetServiceAccountsResult {
  org: string;
  /** The service accounts the caller may view; `keys` lists key names only (secrets are never readable). */
  items: ServiceAccount[];
}

// ---- the fetch ----

/** `GET /org/{org}/serviceaccount`. */
export async function getServiceAccounts(
  args: GetServiceAccountsArgs | undefined,
  env: FunctionEnv = {},
): Promise<GetServiceAccountsResult> {
  const parsed = parseArgs("getServiceAccounts", getServiceAccountsArgs(), args);
  const { client, org } = connect(parsed.org, env);
  return { org, items: await client.listServiceAccounts({ org }) };
}

import { z } from "zod";
import { lazy } from "../../api/lazy.js";
import type { Group } from "../../api/schemas/index.js";
import { connect, orgArg, parseArgs, type FunctionEnv } from "./common.js";

// ---- args schema ----

export const getGroupsArgs = lazy(() => z.strictObject({ org: orgArg() }).describe("Arguments of getGroups."));
export type GetGroupsArgs = z.input<ReturnType<typeof getGroupsArgs>>;

// ---- result type ----

export interface GetGroupsResult {
  org: string;
  /** The groups the caller may view (built-ins `superusers` and `viewers` included). */
  items: Group[];
}

// ---- the fetch ----

/** `GET /org/{org}/group`. */
export async function getGroups(args: GetGroupsArgs | undefined, env: FunctionEnv = {}): Promise<GetGroupsResult> {
  const parsed = parseArgs("getGroups", getGroupsArgs(), args);
  const { client, org } = connect(parsed.org, env);
  return { org, items: await client.listGroups({ org }) };
}

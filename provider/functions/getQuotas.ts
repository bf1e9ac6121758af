import { z } from "zod";
import { lazy } from "../../api/lazy.js";
import type { Quota } from "../../api/schemas/index.js";
import { connect, orgArg, parseArgs, type FunctionEnv } from "./common.js";

// ---- args schema ----

export const getQuotasArgs = lazy(() => z.strictObject({ org: orgArg() }).describe("Arguments of getQuotas."));
export type GetQuotasArgs = z.input<ReturnType<typeof getQuotasArgs>>;

// ---- result type ----

export interface GetQuotasResult {
  org: string;
  /** Every quota of the org (names repeat: per-gvc quotas have one record per gvc; `id` tells them apart). */
  items: Quota[];
}

// ---- the fetch ----

/** `GET /org/{org}/quota`. */
export async function getQuotas(args: GetQuotasArgs | undefined, env: FunctionEnv = {}): Promise<GetQuotasResult> {
  const parsed = parseArgs("getQuotas", getQuotasArgs(), args);
  const { client, org } = connect(parsed.org, env);
  return { org, items: await client.listQuotas({ org }) };
}

import { z } from "zod";
import { lazy } from "../../api/lazy.js";
import type { Quota } from "../../api/schemas/index.js";
import { connect, orgArg, parseArgs, type FunctionEnv } from "./common.js";

// ---- args schema ----

export const getQuotaArgs = lazy(() =>
  z
    .strictObject({
      id: z.string().min(1, "must not be empty").describe("The quota's id (UUID): names repeat, ids do not."),
      org: orgArg(),
    })
    .describe("Arguments of getQuota."),
);
export type GetQuotaArgs = z.input<ReturnType<typeof getQuotaArgs>>;

// ---- result type ----

export type GetQuotaResult = Quota;

// ---- the fetch ----

/** `GET /org/{org}/quota/{id}`. */
export async function getQuota(args: GetQuotaArgs, env: FunctionEnv = {}): Promise<GetQuotaResult> {
  const parsed = parseArgs("getQuota", getQuotaArgs(), args);
  const { client, org } = connect(parsed.org, env);
  return client.getQuota(parsed.id, { org });
}

import { z } from "zod";
import { lazy } from "../../api/lazy.js";
import type { AccessReport } from "../../api/schemas/index.js";
import { connect, orgArg, parseArgs, type FunctionEnv } from "./common.js";

// ---- args schema ----

export const getGroupAccessReportArgs = lazy(() =>
  z
    .strictObject({ name: z.string().min(1, "must not be empty").describe("Group name."), org: orgArg() })
    .describe("Arguments of getGroupAccessReport."),
);
export type GetGroupAccessReportArgs = z.input<ReturnType<typeof getGroupAccessReportArgs>>;

// ---- result type ----

/** Who may act on the group: per permission of the group kind, the (policy, principal) pairs that grant it. */
export type GetGroupAccessReportResult = AccessReport;

// ---- the fetch ----

/** `GET /org/{org}/group/{name}/-accessreport`. */
export async function getGroupAccessReport(
  args: GetGroupAccessReportArgs,
  env: FunctionEnv = {},
): Promise<GetGroupAccessReportResult> {
  const parsed = parseArgs("getGroupAccessReport", getGroupAccessReportArgs(), args);
  const { client, org } = connect(parsed.org, env);
  return client.getGroupAccessReport(parsed.name, { org });
}

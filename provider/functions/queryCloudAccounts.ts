import { z } from "zod";
import { lazy } from "../../api/lazy.js";
import { querySpec, type CloudAccount } from "../../api/schemas/index.js";
import { connect, orgArg, parseArgs, type FunctionEnv } from "./common.js";

// ---- args schema ----

export const queryCloudAccountsArgs = lazy(() =>
  z
    .strictObject({
      spec: querySpec()
        .optional()
        .describe(
          "The query: match (all | any | none), terms ({op, property | rel | tag, value}), sort ({by, order}).",
        ),
      org: orgArg(),
    })
    .describe("Arguments of queryCloudAccounts."),
);
export type QueryCloudAccountsArgs = z.input<ReturnType<typeof queryCloudAccountsArgs>>;

// ---- result type ----

export interface QueryCloudAccountsResult {
  org: string;
  /** The matching cloud accounts, in the query's sort order. */
  items: CloudAccount[];
  /** The query as the service evaluated it, defaults filled (match `all`, op `=`, order `asc`). */
  query: Record<string, unknown>;
}

// ---- the fetch ----

/** `POST /org/{org}/cloudaccount/-query` with `{kind: 'cloudaccount', spec}`; every page is fetched. */
export async function queryCloudAccounts(
  args: QueryCloudAccountsArgs | undefined,
  env: FunctionEnv = {},
): Promise<QueryCloudAccountsResult> {
  const parsed = parseArgs("queryCloudAccounts", queryCloudAccountsArgs(), args);
  const { client, org } = connect(parsed.org, env);
  const result = await client.queryCloudAccounts(
    { kind: "cloudaccount", fetch: "items", ...(parsed.spec === undefined ? {} : { spec: parsed.spec }) },
    { org },
  );
  const items = result.items.filter((item): item is CloudAccount => typeof item !== "string");
  return { org, items, query: result.query };
}

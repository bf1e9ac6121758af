import { z } from "zod";
import { lazy } from "../../api/lazy.js";
import type { Policy } from "../../api/schemas/index.js";
import { connect, orgArg, parseArgs, type FunctionEnv } from "./common.js";

// ---- args schema ----

export const getPolicyArgs = lazy(() =>
  z
    .strictObject({ name: z.string().min(1, "must not be empty").describe("Policy name."), org: orgArg() })
    .describe("Arguments of getPolicy."),
);
export type GetPolicyArgs = z.input<ReturnType<typeof getPolicyArgs>>;

// ---- result type ----

export type GetPolicyResult = Policy;

// ---- the fetch ----

/** `GET /org/{org}/policy/{name}`. */
export async function getPolicy(args: GetPolicyArgs, env: FunctionEnv = {}): Promise<GetPolicyResult> {
  const parsed = parseArgs("getPolicy", getPolicyArgs(), args);
  const { client, org } = connect(parsed.org, env);
  return client.getPolicy(parsed.name, { org });
}

/**
 * What every data-source function shares: argument validation (before any request) and a client for the resolved
 * org, endpoint and token. Functions run in the Pulumi program process (dynamic providers have no Invoke), so the
 * stack config comes from `new pulumi.Config("cpln")` in `sdk/functions.ts`, passed in as `stackConfig`.
 */
import { z } from "zod";
import { issuesFromZod } from "../../api/errors.js";
import { CplnClient, type RetryOptions } from "../client/index.js";
import { resolveConfig, type StackConfig } from "../config.js";
import { FunctionArgsError } from "./errors.js";

export { FunctionArgsError } from "./errors.js";

export interface FunctionEnv {
  /** Stack config by fully qualified key (`cpln:org`); env `CPLN_*` is the fallback. */
  stackConfig?: StackConfig;
  timeoutMs?: number;
  retry?: RetryOptions;
}

/** Parses the arguments; every problem is reported with its field path, before anything is sent. */
export function parseArgs<T extends z.ZodType>(functionName: string, schema: T, args: unknown): z.infer<T> {
  const result = schema.safeParse(args ?? {});
  if (!result.success) throw new FunctionArgsError(functionName, issuesFromZod(result.error));
  return result.data;
}

/** The optional `org` argument every function takes. */
export function orgArg() {
  return z
    .string()
    .min(1, "must not be empty")
    .optional()
    .describe("Org to read from; default: cpln:org, then CPLN_ORG.");
}

/** A client for the call's org (argument → stack config → env), and that org. */
export function connect(org: string | undefined, env: FunctionEnv): { client: CplnClient; org: string } {
  const config = resolveConfig({ inputOrg: org, stackConfig: env.stackConfig });
  const { endpoint, token, timeoutMs } = config;
  const client = new CplnClient({
    endpoint,
    token,
    org: config.org,
    timeoutMs: env.timeoutMs ?? timeoutMs,
    retry: env.retry,
  });
  return { client, org: config.org };
}

import { z } from "zod";
import { lazy } from "../../api/lazy.js";
import { mk8sJoinRequest } from "../../api/schemas/index.js";
import { connect, orgArg, parseArgs, type FunctionEnv } from "./common.js";

// ---- args schema ----

export const getMk8sJoinScriptArgs = lazy(() =>
  z
    .strictObject({
      name: z.string().min(1, "must not be empty").describe("Cluster name (its provider must be generic or hetzner)."),
      options: mk8sJoinRequest()
        .optional()
        .describe("Join options as flat key/value pairs, e.g. {nodePoolName: 'general'}."),
      org: orgArg(),
    })
    .describe("Arguments of getMk8sJoinScript."),
);
export type GetMk8sJoinScriptArgs = z.input<ReturnType<typeof getMk8sJoinScriptArgs>>;

// ---- result type ----

export interface GetMk8sJoinScriptResult {
  /** The cluster's name. */
  name: string;
  /** Bash script that joins a node to the cluster. It embeds a short-lived bootstrap token: a secret. */
  script: string;
}

// ---- the fetch ----

/**
 * `POST /org/{org}/mk8s/{name}/-join`. Clusters whose provider is not `generic` or `hetzner` are refused (400
 * `Unsupported`). The result is sensitive: never log it.
 */
export async function getMk8sJoinScript(
  args: GetMk8sJoinScriptArgs,
  env: FunctionEnv = {},
): Promise<GetMk8sJoinScriptResult> {
  const parsed = parseArgs("getMk8sJoinScript", getMk8sJoinScriptArgs(), args);
  const { client, org } = connect(parsed.org, env);
  const response = await client.getMk8sJoinScript(parsed.name, parsed.options ?? {}, { org });
  return { name: parsed.name, script: response.script };
}

/**
 * Where the org, endpoint and token come from, resolved at call time (nothing is read when the module loads, so a
 * serialized provider never captures a value):
 *
 *   resource input `org` → stack config `cpln:org|endpoint|token` → env `CPLN_ORG|CPLN_ENDPOINT|CPLN_TOKEN`
 *   → endpoint default `https://api.cpln.io`.
 *
 * Stack config reaches the dynamic provider through its `configure` hook, and the program process through
 * `new pulumi.Config("cpln")`; both are passed here as `stackConfig`.
 */

import { noteEndpointSource } from "./client/http.js";
import { ConfigError } from "./configError.js";

export const defaultEndpoint = "https://api.cpln.io";

/** Read access to stack config by fully qualified key (`cpln:org`). Secrets arrive unwrapped. */
export interface StackConfig {
  get(key: string): string | undefined;
}

export interface ResolveConfigOptions {
  /** The resource's or function's own `org` input. */
  inputOrg?: string;
  stackConfig?: StackConfig;
  /** Defaults to `process.env`, read at call time. */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface ResolvedConfig {
  org: string;
  endpoint: string;
  token: string;
  /** Where the endpoint came from: `cpln:endpoint`, `CPLN_ENDPOINT`, or `the default`. Named by "cannot reach" errors. */
  endpointSource: string;
  /** Limit for one API call, retries included: `cpln:timeoutSeconds` or `CPLN_TIMEOUT` (seconds); unset = client default. */
  timeoutMs: number | undefined;
}

export { ConfigError };

function present(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

function stackValue(options: ResolveConfigOptions, key: string): string | undefined {
  return present(options.stackConfig?.get(`cpln:${key}`));
}

/** The org alone, by the same precedence; needs no token (a provider's `check` sends no request). */
export function resolveOrg(options: ResolveConfigOptions = {}): string | undefined {
  return present(options.inputOrg) ?? stackValue(options, "org") ?? present((options.env ?? process.env).CPLN_ORG);
}

/** The endpoint, token and org (without requiring the org: some calls, like `about`, need none). */
export function resolveConnection(
  options: ResolveConfigOptions = {},
): Omit<ResolvedConfig, "org"> & { org: string | undefined } {
  const env = options.env ?? process.env;
  const stack = (key: string): string | undefined => stackValue(options, key);
  const org = resolveOrg(options);
  const fromStack = stack("endpoint");
  const fromEnv = present(env.CPLN_ENDPOINT);
  const endpoint = fromStack ?? fromEnv ?? defaultEndpoint;
  const endpointSource = fromStack ? "cpln:endpoint" : fromEnv ? "CPLN_ENDPOINT" : "the default";
  const timeoutMs = resolveTimeout(stack("timeoutSeconds"), present(env.CPLN_TIMEOUT));
  const token = stack("token") ?? present(env.CPLN_TOKEN);
  if (token === undefined) {
    throw new ConfigError(
      "No Control Plane token: set the stack config `cpln:token` (pulumi config set --secret cpln:token <token>) " +
        "or the environment variable CPLN_TOKEN",
    );
  }
  try {
    const url = new URL(endpoint);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http(s)");
  } catch {
    throw new ConfigError(`The Control Plane endpoint "${endpoint}" (from ${endpointSource}) is not an http(s) URL`);
  }
  noteEndpointSource(endpoint, endpointSource);
  return { org, endpoint, token, endpointSource, timeoutMs };
}

/** `cpln:timeoutSeconds` wins over `CPLN_TIMEOUT`; either must be a positive number of seconds. */
function resolveTimeout(fromStack: string | undefined, fromEnv: string | undefined): number | undefined {
  const [value, key] = fromStack !== undefined ? [fromStack, "cpln:timeoutSeconds"] : [fromEnv, "CPLN_TIMEOUT"];
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new ConfigError(`${key} must be a positive number of seconds, got "${value}"`);
  }
  return Math.round(seconds * 1000);
}

export function resolveConfig(options: ResolveConfigOptions = {}): ResolvedConfig {
  const { org, ...connection } = resolveConnection(options);
  if (org === undefined) {
    throw new ConfigError(
      "No Control Plane org: pass `org`, set the stack config `cpln:org` (pulumi config set cpln:org <org>) " +
        "or the environment variable CPLN_ORG",
    );
  }
  return { org, ...connection };
}

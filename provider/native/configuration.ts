/**
 * The native provider's configuration (`cpln-native:org|endpoint|token|timeoutSeconds`): the keys, the environment
 * variable each falls back to, the problems of a config (CheckConfig and Configure report the same), and the values
 * a Configure request sets.
 */
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { ConfigError } from "../configError.js";
import { NATIVE_PACKAGE } from "./identity.js";
import { unwrapProps, type Props } from "./values.js";

export const CONFIG_KEYS = ["org", "endpoint", "token", "timeoutSeconds"] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];
export type NativeConfig = Partial<Record<ConfigKey, string>>;

/** The environment variable each key falls back to (schema.json's `defaultInfo`). */
const CONFIG_ENV: Record<ConfigKey, string> = {
  org: "CPLN_ORG",
  endpoint: "CPLN_ENDPOINT",
  token: "CPLN_TOKEN",
  timeoutSeconds: "CPLN_TIMEOUT",
};

/** The engine's placeholder for a value not known yet (preview). */
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export function isUnknown(value: unknown): boolean {
  return value === UNKNOWN;
}

/** `CPLN_ORG`, `CPLN_ENDPOINT`, `CPLN_TOKEN` (the documented fallbacks), when set. */
function envConfig(key: ConfigKey): string | undefined {
  const value = process.env[CONFIG_ENV[key]];
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

/** Problems of a provider config (`org`, `endpoint`, `token`, `timeoutSeconds`), by key; other keys pass. */
export function configFailures(values: Props): provproto.CheckFailure[] {
  const failures: provproto.CheckFailure[] = [];
  const fail = (property: string, reason: string) => {
    const failure = new provproto.CheckFailure();
    failure.setProperty(property);
    failure.setReason(reason);
    failures.push(failure);
  };
  for (const key of CONFIG_KEYS) {
    const value = values[key];
    if (value === undefined || value === null || isUnknown(value)) continue;
    if (key === "timeoutSeconds") {
      // A typed input arrives as a number, `pulumi config set` as a string.
      const seconds = typeof value === "number" || typeof value === "string" ? Number(value) : NaN;
      if (!(Number.isFinite(seconds) && seconds > 0 && String(value).trim() !== "")) {
        fail(key, `${NATIVE_PACKAGE}:${key} must be a positive number of seconds, got ${JSON.stringify(value)}`);
      }
    } else if (typeof value !== "string") fail(key, `${NATIVE_PACKAGE}:${key} must be a string`);
  }
  const endpoint = values.endpoint;
  if (typeof endpoint === "string" && !isUnknown(endpoint) && endpoint.trim() !== "") {
    let valid: boolean;
    try {
      valid = ["http:", "https:"].includes(new URL(endpoint.trim()).protocol);
    } catch {
      valid = false;
    }
    if (!valid) fail("endpoint", `${NATIVE_PACKAGE}:endpoint must be an http(s) URL, got "${endpoint}"`);
  }
  return failures;
}

/**
 * The config a Configure request sets: `args` holds the provider's inputs by short key, `variables` the same by
 * `<pkg>:config:<key>`; a key set by neither falls back to its environment variable, read here once. A config with
 * problems is refused (`ConfigError`, every problem named).
 */
export function configOfRequest(request: provproto.ConfigureRequest): NativeConfig {
  const values: Props = {};
  request.getVariablesMap().forEach((value, key) => {
    const short = key.replace(`${NATIVE_PACKAGE}:config:`, "").replace(`${NATIVE_PACKAGE}:`, "");
    values[short] = value;
  });
  const args = unwrapProps(request.getArgs()).props;
  for (const key of CONFIG_KEYS) if (args[key] !== undefined) values[key] = args[key];
  const failures = configFailures(values);
  if (failures.length > 0) {
    throw new ConfigError(failures.map((failure) => `${failure.getProperty()}: ${failure.getReason()}`).join("; "));
  }
  const config: NativeConfig = {};
  for (const key of CONFIG_KEYS) {
    const value = typeof values[key] === "number" ? String(values[key]) : values[key];
    if (typeof value === "string" && value.trim() !== "" && !isUnknown(value)) config[key] = value;
  }
  // The environment is read here, once: after Configure the plugin never falls back to it.
  for (const key of CONFIG_KEYS) config[key] ??= envConfig(key);
  return config;
}

/** The config keys whose value differs between two configs (DiffConfig). */
export function changedConfigKeys(olds: Props, news: Props): ConfigKey[] {
  return CONFIG_KEYS.filter((key) => (olds[key] ?? undefined) !== (news[key] ?? undefined));
}

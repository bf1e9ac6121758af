/**
 * The real engine's environment for the tests and the engine bench: nothing in it reaches the network.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/**
 * Its own PULUMI_HOME and `file://` backend under `workDir`, `passphrase` for the secrets provider, no update check,
 * no plugin download, the engine's bin directory first on PATH.
 */
export function engineEnv(workDir: string, binDir: string, passphrase: string): Record<string, string> {
  const home = path.join(workDir, "pulumi-home");
  const backend = path.join(workDir, "backend");
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(backend, { recursive: true });
  return {
    PATH: `${binDir}${path.delimiter}${process.env.PATH ?? ""}`,
    HOME: process.env.HOME ?? os.homedir(),
    PULUMI_HOME: home,
    PULUMI_BACKEND_URL: `file://${backend}`,
    PULUMI_CONFIG_PASSPHRASE: passphrase,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
  };
}

/**
 * `env` without a node_modules/.bin on PATH (a test runner's or npm's): there the engine would take the checkout's
 * pulumi-resource-cpln-native ("using pulumi-resource-cpln-native from $PATH") instead of the plugin installed from
 * the release archive.
 */
export function withoutCheckoutBin(env: Record<string, string>): Record<string, string> {
  const dirs = (env.PATH ?? "").split(path.delimiter).filter((dir) => !dir.endsWith(`node_modules${path.sep}.bin`));
  return { ...env, PATH: dirs.join(path.delimiter) };
}

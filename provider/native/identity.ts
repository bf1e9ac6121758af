/**
 * The native plugin's identity. The package is `cpln-native`, not `cpln`: the Terraform-bridged provider
 * (pulumiverse/pulumi-cpln) is published as plugin `cpln`, so a plugin of that name would share the plugin-cache
 * directories `resource-cpln-v<version>` with it, `pulumi plugin install resource cpln` would fetch the other one, and
 * its tokens (`cpln:index/...`) and config keys (`cpln:token`) would be ambiguous in a program using both. The
 * `-native` suffix follows aws-native / azure-native / google-native (a provider built on the service's own API, not
 * bridged), so the binary is `pulumi-resource-cpln-native` and the tokens are `cpln-native:index:<Type>`.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export const NATIVE_PACKAGE = "cpln-native";

/**
 * Text written for the dynamic provider (descriptions, errors), for this plugin's users: the dynamic provider's
 * config keys (`cpln:token`) are `cpln-native:token` here.
 */
export function withNativeConfigKeys(text: string): string {
  return text.replace(/\bcpln:(org|endpoint|token)\b/g, `${NATIVE_PACKAGE}:$1`);
}

/** The package root (where package.json and schema.json live), from `dist/provider/native/`. */
export const packageRoot = path.resolve(__dirname, "..", "..", "..");

/** Node's single-executable API, when this Node has it (20.12+); the plugin binary is built with it. */
function singleExecutable(): typeof import("node:sea") | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- absent before Node 20.12, so not imported
    const sea = require("node:sea") as typeof import("node:sea");
    return sea.isSea() ? sea : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A file of the package (`package.json`, `schema.json`): an asset of the executable when the plugin runs as the
 * single executable (scripts/plugin-binary.sh embeds both), else the file beside dist/.
 */
export function packageFile(name: string): string {
  const sea = singleExecutable();
  return sea ? sea.getAsset(name, "utf8") : fs.readFileSync(path.join(packageRoot, name), "utf8");
}

/** `cpln-native:index:VolumeSet`, `cpln-native:index:getPolicy`. */
export function nativeToken(name: string): string {
  return `${NATIVE_PACKAGE}:index:${name}`;
}

/** The member name of a `cpln-native:index:<name>` token, or undefined for any other token. */
export function tokenMember(token: string): string | undefined {
  const prefix = `${NATIVE_PACKAGE}:index:`;
  return token.startsWith(prefix) ? token.slice(prefix.length) : undefined;
}

/** The plugin version: the package's. */
export function pluginVersion(): string {
  return (JSON.parse(packageFile("package.json")) as { version: string }).version;
}

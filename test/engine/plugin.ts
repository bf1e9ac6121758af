/**
 * The cpln-native plugin for the engine tests, made and installed once per build instead of once per test file: the
 * release archive (`npm run plugin:archive`, rebuilt only when what it was made from changed), and one real `pulumi
 * plugin install resource cpln-native <v> --file <archive>` of it into a PULUMI_HOME under .tmp/plugin/, which each
 * test's PULUMI_HOME then gets as a hard-linked copy of the installed directory. Test files run two at a time and
 * may both need it: one lock (test/support/cacheLock.ts) makes one of them do the work while the other waits for it.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { linkCopy, lockedSync } from "../support/cacheLock.js";

const repoRoot = path.resolve(__dirname, "..", "..");
export const pluginVersion = (
  JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }
).version;

const goOs: Record<string, string> = { linux: "linux", darwin: "darwin", win32: "windows" };
const goArch: Record<string, string> = { x64: "amd64", arm64: "arm64" };
const cacheDir = path.join(repoRoot, ".tmp", "plugin");
export const archivePath = path.join(
  cacheDir,
  `pulumi-resource-cpln-native-v${pluginVersion}-${goOs[process.platform] ?? process.platform}-${goArch[process.arch] ?? process.arch}.tar.gz`,
);
/** What the archive was made from, with digests: written by the archiver (`--stamp`) when it makes the archive. */
const stampPath = `${archivePath}.inputs.json`;

const digest = (file: string): string => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

/**
 * Whether the archive was made from the repository's files as they are now (dist/'s modules and the dependencies the
 * bundle inlines, the launcher, package.json, schema.json), so it serves the code under test. An archive with no
 * stamp (one made by `npm run plugin:archive`) is made again: that takes a second or two.
 */
function archiveIsCurrent(): boolean {
  if (!fs.existsSync(archivePath) || !fs.existsSync(stampPath)) return false;
  let stamped: { archive: string; inputs: Record<string, string> };
  try {
    stamped = JSON.parse(fs.readFileSync(stampPath, "utf8")) as typeof stamped;
  } catch {
    return false;
  }
  if (stamped.archive !== digest(archivePath)) return false;
  return Object.entries(stamped.inputs).every(([file, sum]) => {
    const mine = path.join(repoRoot, file);
    return fs.existsSync(mine) && digest(mine) === sum;
  });
}

/**
 * The plugin's release archive, made again when the files it was made from changed. Without the script's build: tests
 * never rewrite dist/, which the test files running beside this one load.
 */
export function pluginArchive(): string {
  return lockedSync(cacheDir, () => {
    if (!archiveIsCurrent()) {
      const archiver = path.join(repoRoot, "dist", "tools", "native", "archive.js");
      const result = spawnSync(process.execPath, [archiver, "--stamp", stampPath], { cwd: repoRoot, encoding: "utf8" });
      if (result.status !== 0) throw new Error(`the plugin archive (${archiver}) failed: ${result.stderr}`);
      if (!archiveIsCurrent()) throw new Error(`the plugin archive ${archivePath} is not current after a rebuild`);
    }
    return archivePath;
  });
}

/**
 * Gives the PULUMI_HOME `home` the plugin as `pulumi plugin install resource cpln-native <v> --file <archive>` installs
 * it: the current archive is installed once (by that command, with the engine `pulumi` and environment `env`) into
 * .tmp/plugin/home-<archive digest>, and `home` gets a hard-linked copy of that installation.
 */
export function installPluginInto(home: string, pulumi: string, env: Record<string, string>): void {
  const archive = pluginArchive();
  const installed = lockedSync(cacheDir, () => {
    const key = digest(archive).slice(0, 16);
    const cached = path.join(cacheDir, `home-${key}`);
    const plugins = path.join(cached, "plugins");
    if (!fs.existsSync(path.join(cached, "done"))) {
      // Earlier builds' installations go: one is kept.
      for (const old of fs.readdirSync(cacheDir).filter((name) => name.startsWith("home-"))) {
        fs.rmSync(path.join(cacheDir, old), { recursive: true, force: true });
      }
      fs.mkdirSync(cached, { recursive: true });
      const result = spawnSync(
        pulumi,
        ["plugin", "install", "resource", "cpln-native", pluginVersion, "--file", archive],
        { cwd: cached, env: { ...env, PULUMI_HOME: cached }, encoding: "utf8", timeout: 900_000 },
      );
      if (result.status !== 0) throw new Error(`pulumi plugin install failed: ${result.stderr}`);
      fs.writeFileSync(path.join(cached, "done"), "");
    }
    return plugins;
  });
  const target = path.join(home, "plugins");
  fs.mkdirSync(target, { recursive: true });
  for (const entry of fs.readdirSync(installed)) {
    if (entry.endsWith(".lastused")) continue;
    linkCopy(path.join(installed, entry), path.join(target, entry));
  }
}

/**
 * `npm run plugin:archive [-- --os linux|darwin|windows --arch amd64|arm64 --out <dir>]` (default .tmp/plugin/): builds the release archive
 * of the native plugin, `pulumi-resource-cpln-native-v<version>-<os>-<arch>.tar.gz` (Pulumi's naming), for
 *
 *   pulumi plugin install resource cpln-native <version> --file pulumi-resource-cpln-native-v<version>-<os>-<arch>.tar.gz
 *
 * The archive is the npm package (`npm pack`) with its production dependencies installed (`npm ci --omit=dev
 * --ignore-scripts`: the plugin needs no native module), and the `pulumi-resource-cpln-native` launcher at its root,
 * where the engine looks for it. It runs on any OS/arch with Node.js >= 20; the name only says where it was tested.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const repoRoot = path.resolve(__dirname, "..", "..", "..");
const PLUGIN = "pulumi-resource-cpln-native";

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 && process.argv[index + 1] !== undefined ? (process.argv[index + 1] as string) : fallback;
}

const goOs: Record<string, string> = { linux: "linux", darwin: "darwin", win32: "windows" };
const goArch: Record<string, string> = { x64: "amd64", arm64: "arm64" };

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
}

function main(): void {
  const version = (JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string })
    .version;
  const targetOs = option("os", goOs[process.platform] ?? process.platform);
  const targetArch = option("arch", goArch[process.arch] ?? process.arch);
  // Outside dist/: npm pack packs dist/, and must not pack an earlier archive.
  const outDir = path.resolve(option("out", path.join(repoRoot, ".tmp", "plugin")));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-native-archive-"));
  try {
    // npm pack packs exactly the published files. Without `prepare`: this file runs from the built dist/ (`npm run
    // plugin:archive` builds first), and a second build would rewrite dist/ under whatever runs from it meanwhile
    // (the tests, two files at a time: a module read while tsc rewrote it had no exports).
    const packed = run("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", work], repoRoot)
      .trim()
      .split("\n")
      .pop();
    if (packed === undefined || packed === "") throw new Error("npm pack printed no file name");
    run("tar", ["-xzf", path.join(work, packed), "-C", work], work);
    const staging = path.join(work, "package");
    fs.copyFileSync(path.join(repoRoot, "package-lock.json"), path.join(staging, "package-lock.json"));
    run("npm", ["ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--silent"], staging);
    fs.copyFileSync(path.join(staging, "bin", PLUGIN), path.join(staging, PLUGIN));
    fs.chmodSync(path.join(staging, PLUGIN), 0o755);
    fs.mkdirSync(outDir, { recursive: true });
    const archive = path.join(outDir, `${PLUGIN}-v${version}-${targetOs}-${targetArch}.tar.gz`);
    run("tar", ["-czf", archive, "-C", staging, "."], staging);
    console.log(archive);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main();

/**
 * `npm run plugin:archive [-- --os linux|darwin|windows --arch amd64|arm64 --out <dir> --stamp <file>]` (default
 * .tmp/plugin/): builds the release archive of the native plugin for a machine with Node.js,
 * `pulumi-resource-cpln-native-v<version>-<os>-<arch>.tar.gz` (Pulumi's naming), for
 *
 *   pulumi plugin install resource cpln-native <version> --file pulumi-resource-cpln-native-v<version>-<os>-<arch>.tar.gz
 *
 * The archive holds the `pulumi-resource-cpln-native` launcher at its root, where the engine looks for it (bin/'s
 * shell script: `node dist/provider/native/main.js`), that main.js as one esbuild bundle of the compiled plugin with
 * every dependency inlined (as scripts/plugin-binary.sh bundles it for the single executable), and package.json and
 * schema.json beside it, which the plugin reads (provider/native/identity.ts). One file to load instead of ~280
 * resolved, read and compiled one by one: the plugin reaches its port in about 0.6 of the time (bench/README.md §9).
 * It runs on any OS/arch with Node.js >= 20 and a POSIX shell; the name only says where it was tested.
 *
 * `--stamp <file>` also writes the files the archive was made from with their SHA-256 (JSON, paths relative to the
 * repository): the engine tests make the archive again when one of them changed (test/engine/plugin.ts).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { buildSync } from "esbuild";

const repoRoot = path.resolve(__dirname, "..", "..", "..");
const PLUGIN = "pulumi-resource-cpln-native";
const MAIN = path.join("dist", "provider", "native", "main.js");
/** Beside the bundle in the archive: what the plugin reads, and the documents Pulumi's own archives carry. */
const FILES = ["package.json", "schema.json", "LICENSE", "README.md"];

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 && process.argv[index + 1] !== undefined ? (process.argv[index + 1] as string) : fallback;
}

const goOs: Record<string, string> = { linux: "linux", darwin: "darwin", win32: "windows" };
const goArch: Record<string, string> = { x64: "amd64", arm64: "arm64" };

const digest = (file: string): string => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

/**
 * The compiled plugin (dist/, what the tests test) bundled into `outFile`; returns the files it was made from,
 * relative to the repository. node: built-ins stay outside; `node:sea` is required only inside a try.
 */
function bundle(outFile: string): string[] {
  const result = buildSync({
    absWorkingDir: repoRoot,
    entryPoints: [MAIN],
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    outfile: outFile,
    logLevel: "warning",
    metafile: true,
  });
  return Object.keys(result.metafile.inputs);
}

function main(): void {
  const version = (JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string })
    .version;
  const targetOs = option("os", goOs[process.platform] ?? process.platform);
  const targetArch = option("arch", goArch[process.arch] ?? process.arch);
  // Outside dist/: a later archive must not take in an earlier one.
  const outDir = path.resolve(option("out", path.join(repoRoot, ".tmp", "plugin")));
  const stamp = option("stamp", "");
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-native-archive-"));
  try {
    const inputs = bundle(path.join(staging, MAIN));
    const launcher = path.join("bin", PLUGIN);
    fs.copyFileSync(path.join(repoRoot, launcher), path.join(staging, PLUGIN));
    fs.chmodSync(path.join(staging, PLUGIN), 0o755);
    const files = FILES.filter((file) => fs.existsSync(path.join(repoRoot, file)));
    for (const file of files) fs.copyFileSync(path.join(repoRoot, file), path.join(staging, file));
    fs.mkdirSync(outDir, { recursive: true });
    const archive = path.join(outDir, `${PLUGIN}-v${version}-${targetOs}-${targetArch}.tar.gz`);
    execFileSync("tar", ["-czf", archive, "-C", staging, PLUGIN, "dist", ...files], { stdio: "inherit" });
    if (stamp !== "") {
      const sources = [...inputs, launcher, ...files].sort();
      const record = Object.fromEntries(sources.map((file) => [file, digest(path.join(repoRoot, file))]));
      fs.writeFileSync(stamp, JSON.stringify({ archive: digest(archive), inputs: record }));
    }
    console.log(archive);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

main();

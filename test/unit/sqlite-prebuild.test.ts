// scripts/sqlite-prebuild.sh (.ci/run): the better-sqlite3 binary an install compiled is kept by the file name
// prebuild-install looks for, and a later install's prebuild-install — run through sh, as npm runs install scripts —
// takes it from there with no network and no compiler; without the rc file it is left to its download (which fails
// here: GitHub is unreachable).
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = path.join(__dirname, "..", "..");
const script = path.join(root, "scripts", "sqlite-prebuild.sh");
const installed = path.join(root, "node_modules", "better-sqlite3");
const binary = path.join("build", "Release", "better_sqlite3.node");
const version = (JSON.parse(fs.readFileSync(path.join(installed, "package.json"), "utf8")) as { version: string })
  .version;
const archiveName = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;

let work: string;
const run = (...args: string[]): string =>
  execFileSync("bash", [script, ...args], { env: { ...process.env, CPLN_PULUMI_CACHE: work }, encoding: "utf8" });

/**
 * better-sqlite3's package without its build, as npm unpacks it under `tree`/node_modules, and its install script's
 * first half (`prebuild-install`) run by sh in it, as npm runs it.
 */
function freshInstall(tree: string): { dir: string; status: number | null; output: string } {
  const dir = path.join(work, tree, "node_modules", "better-sqlite3");
  fs.cpSync(installed, dir, { recursive: true, filter: (source) => !source.startsWith(path.join(installed, "build")) });
  const prebuildInstall = require.resolve("prebuild-install/bin.js");
  const result = spawnSync("sh", ["-c", `"${process.execPath}" "${prebuildInstall}" --verbose`], {
    cwd: dir,
    // An unroutable download host: a download cannot succeed, so a success is the local binary's.
    env: { PATH: process.env.PATH, HOME: work, npm_config_better_sqlite3_binary_host: "http://127.0.0.1:9" },
    encoding: "utf8",
    timeout: 120_000,
  });
  return { dir, status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe("scripts/sqlite-prebuild.sh", () => {
  beforeAll(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), "sqlite-prebuild-"));
  });
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  it("use writes an rc file naming the cache's prebuilds directory, and makes the directory", () => {
    fs.mkdirSync(path.join(work, "tree"));
    run("use", path.join(work, "tree"));
    expect(fs.readFileSync(path.join(work, "tree", ".prebuild-installrc"), "utf8")).toBe(
      `local-prebuilds=${path.join(work, "prebuilds")}\n`,
    );
    expect(fs.statSync(path.join(work, "prebuilds")).isDirectory()).toBe(true);
  });

  it("keep packs the installed binary once, under prebuild-install's file name, holding only the binary", () => {
    expect(run("keep")).toContain(`kept ${path.join(work, "prebuilds", archiveName)}`);
    const archive = path.join(work, "prebuilds", archiveName);
    expect(execFileSync("tar", ["-tzf", archive], { encoding: "utf8" }).trim()).toBe(binary);
    expect(fs.readdirSync(path.join(work, "prebuilds"))).toEqual([archiveName]);
    const written = fs.statSync(archive).mtimeMs;
    expect(run("keep")).toBe("");
    expect(fs.statSync(archive).mtimeMs).toBe(written);
  });

  it("a clean install under the rc file takes the kept binary, byte for byte, and loads it", () => {
    run("keep");
    const { dir, status, output } = freshInstall("tree");
    expect(output).toContain("found local prebuild");
    expect(status).toBe(0);
    expect(fs.readFileSync(path.join(dir, binary)).equals(fs.readFileSync(path.join(installed, binary)))).toBe(true);
  });

  it("without the rc file prebuild-install fails, so the install script compiles", () => {
    const { dir, status } = freshInstall("elsewhere");
    expect(status).not.toBe(0);
    expect(fs.existsSync(path.join(dir, binary))).toBe(false);
  });
});

// scripts/sqlite-prebuild.sh (.ci/run): the better-sqlite3 binary an install compiled is kept by the file name
// prebuild-install looks for, and a later install's prebuild-install takes it from there with no network and no
// compiler; a directory without it leaves prebuild-install to its download (which fails here: GitHub is unreachable).
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

/** better-sqlite3's package without its build, as npm unpacks it, and its prebuild-install run in it. */
function freshPackage(name: string, localPrebuilds: string): { dir: string; status: number | null; output: string } {
  const dir = path.join(work, name);
  fs.cpSync(installed, dir, { recursive: true, filter: (source) => !source.startsWith(path.join(installed, "build")) });
  const result = spawnSync(process.execPath, [require.resolve("prebuild-install/bin.js"), "--verbose"], {
    cwd: dir,
    // No proxy and an unroutable download host: a download cannot succeed, so a success is the local binary's.
    env: {
      PATH: process.env.PATH,
      HOME: work,
      "prebuild-install_local-prebuilds": localPrebuilds,
      npm_config_better_sqlite3_binary_host: "http://127.0.0.1:9",
    },
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

  it("dir names the cache's prebuilds directory and makes it", () => {
    expect(run("dir").trim()).toBe(path.join(work, "prebuilds"));
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

  it("a clean install's prebuild-install takes the kept binary, byte for byte, and loads it", () => {
    run("keep");
    const { dir, status, output } = freshPackage("with-cache", path.join(work, "prebuilds"));
    expect(output).toContain("found local prebuild");
    expect(status).toBe(0);
    expect(fs.readFileSync(path.join(dir, binary)).equals(fs.readFileSync(path.join(installed, binary)))).toBe(true);
  });

  it("without the kept binary prebuild-install fails, so the install script compiles", () => {
    const { dir, status } = freshPackage("without-cache", path.join(work, "empty"));
    expect(status).not.toBe(0);
    expect(fs.existsSync(path.join(dir, binary))).toBe(false);
  });
});

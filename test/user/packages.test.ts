/**
 * The two npm packages of a release (`npm run release:packages`, from npm test's build): the provider `cpln-pulumi`
 * installs into a fresh project from its tarball with no native module and nothing of the server (better-sqlite3,
 * fastify, jose) — its dependencies from the npm cache when it has them, else the registry — and loads; `cpln-local`
 * carries the server's dependencies and its bin; both, the plugin, schema.json and the generated SDKs' manifests
 * carry one version.
 */
import { execFile, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repoRoot = path.resolve(__dirname, "..", "..");
const rootManifest = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const SERVER_ONLY = ["better-sqlite3", "fastify", "jose", "light-my-request"];

type Manifest = {
  name: string;
  version: string;
  scripts?: Record<string, string>;
  dependencies: Record<string, string>;
  bin?: Record<string, string>;
};

let work: string;
let provider: string;
let local: string;
let project: string;
let install: { code: number; output: string; ms: number };

function tarEntries(tarball: string): string[] {
  return execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n");
}

function tarManifest(tarball: string): Manifest {
  return JSON.parse(execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" })) as Manifest;
}

/** Every package directory under node_modules (scoped and nested ones too). */
function installedPackages(modules: string): { name: string; dir: string }[] {
  const found: { name: string; dir: string }[] = [];
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir)) {
      if (entry.startsWith(".")) continue;
      const scoped = entry.startsWith("@");
      for (const name of scoped ? fs.readdirSync(path.join(dir, entry)).map((n) => `${entry}/${n}`) : [entry]) {
        const packageDir = path.join(dir, name);
        if (!fs.existsSync(path.join(packageDir, "package.json"))) continue;
        found.push({ name, dir: packageDir });
        walk(path.join(packageDir, "node_modules"));
      }
    }
  };
  walk(modules);
  return found;
}

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-packages-"));
  const printed = execFileSync(
    process.execPath,
    [path.join(repoRoot, "scripts", "release-packages.mjs"), "--out", path.join(work, "packed")],
    { cwd: repoRoot, encoding: "utf8" },
  )
    .trim()
    .split("\n");
  [provider, local] = printed as [string, string];
  project = path.join(work, "infra");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "package.json"), '{ "name": "infra", "private": true }\n');
  const started = performance.now();
  install = await new Promise((resolve) => {
    execFile(
      "npm",
      ["install", "--prefer-offline", "--no-audit", "--no-fund", provider],
      { cwd: project, timeout: 900_000, encoding: "utf8" },
      (error, stdout, stderr) =>
        resolve({
          code: error ? (typeof error.code === "number" ? error.code : 1) : 0,
          output: stdout + stderr,
          ms: performance.now() - started,
        }),
    );
  });
  if (install.code !== 0) throw new Error(`npm install of the provider tarball failed:\n${install.output}`);
}, 1_000_000);

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe("the release's npm packages", () => {
  it("the provider tarball declares only the provider's dependencies, no scripts, and holds no server code", () => {
    const manifest = tarManifest(provider);
    expect(path.basename(provider)).toBe(`cpln-pulumi-${rootManifest.version}.tgz`);
    expect(manifest.dependencies).toEqual(rootManifest.dependencies);
    expect(Object.keys(manifest.dependencies).filter((name) => SERVER_ONLY.includes(name))).toEqual([]);
    expect(manifest.scripts).toBeUndefined();
    expect(Object.keys(manifest.bin ?? {})).not.toContain("cpln-local");
    const entries = tarEntries(provider);
    expect(entries.filter((entry) => /^package\/dist\/(server|console)\//.test(entry))).toEqual([]);
    expect(entries).toContain("package/LICENSE");
    expect(entries).toContain("package/dist/sdk/native/index.js");
  });

  it("installs into a fresh project with no native module and nothing of the server, and loads", () => {
    const packages = installedPackages(path.join(project, "node_modules"));
    const names = new Set(packages.map((p) => p.name));
    expect(SERVER_ONLY.filter((name) => names.has(name))).toEqual([]);
    // A native module is a package with a binding.gyp (node-gyp builds it) or a prebuilt .node file.
    const native = packages.filter(
      ({ dir }) => fs.existsSync(path.join(dir, "binding.gyp")) || fs.existsSync(path.join(dir, "prebuilds")),
    );
    expect(native.map((p) => p.name)).toEqual([]);
    const loaded = execFileSync(
      process.execPath,
      [
        "-e",
        'const c = require("cpln-pulumi"), n = require("cpln-pulumi/native"); console.log(typeof c.VolumeSet, typeof n.VolumeSet)',
      ],
      { cwd: project, encoding: "utf8" },
    );
    expect(loaded.trim()).toBe("function function");
    console.log(
      `provider install: ${(install.ms / 1000).toFixed(1)} s, ${packages.length} packages in node_modules ` +
        `(${names.size} distinct)`,
    );
  });

  it("cpln-local carries the server's dependencies at the repository's ranges, and its bin", () => {
    const manifest = tarManifest(local);
    expect(path.basename(local)).toBe(`cpln-local-${rootManifest.version}.tgz`);
    const ranges = { ...rootManifest.devDependencies, ...rootManifest.dependencies };
    expect(manifest.dependencies).toEqual(
      Object.fromEntries(
        ["better-sqlite3", "fastify", "jose", "light-my-request", "re2js", "zod"].map((name) => [name, ranges[name]]),
      ),
    );
    expect(manifest.bin).toEqual({ "cpln-local": "dist/server/cli.js" });
    const entries = tarEntries(local);
    expect(entries).toContain("package/dist/server/cli.js");
    expect(entries).toContain("package/dist/console/index.html");
    expect(entries.filter((entry) => /^package\/dist\/(provider|sdk|tools)\//.test(entry))).toEqual([]);
    const cli = execFileSync("tar", ["-xzOf", local, "package/dist/server/cli.js"], { encoding: "utf8" });
    expect(cli.startsWith("#!/usr/bin/env node\n")).toBe(true);
  });

  it("one version: both packages, the plugin, schema.json and the SDKs generated from it", () => {
    const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, "schema.json"), "utf8")) as {
      version: string;
      pluginDownloadURL: string;
    };
    expect(tarManifest(provider).version).toBe(rootManifest.version);
    expect(tarManifest(local).version).toBe(rootManifest.version);
    expect(schema.version).toBe(rootManifest.version);
    expect(fs.readFileSync(path.join(repoRoot, "plugin", "package.json"), "utf8")).toContain(
      `"version": "${rootManifest.version}"`,
    );
  });
});

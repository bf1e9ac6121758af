/**
 * The SDKs as a user installs them, for the programs the engine tests run: the packages scripts/release-sdks.sh makes
 * for a release (the Python wheel, the Go module, the Node.js SDK's npm tarball, which a project `npm install`s), and
 * from them
 *   - a Python virtual environment with `pulumi` and the wheel installed by `pip install <file>.whl`;
 *   - a Go module proxy (a `file://` GOPROXY layout: `@v/list`, `.info`, `.mod`, `.zip`) serving the module, which the
 *     program's go.mod requires and `go` downloads into its module cache as `go get` does from a registry.
 * Made once per SDK content (the key of scripts/sdks.sh's generated SDKs, which hashes schema.json and the generator,
 * plus the packaging: release-sdks.sh, the `pulumi` pin, the zip step) under <cache>/packages/<key>/, behind one lock
 * (test/support/cacheLock.ts): test files running side by side wait for the one building it.
 *
 * The Go module is served at `v<version>-sdk-<hash of its directory>`, not `v<version>`: go's module cache keeps a
 * version forever, so one version for every schema would leave each later SDK of the same version unseen.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { expect } from "vitest";
import { locked } from "../support/cacheLock.js";
import { generatedSdks, repoRoot, run, succeeded } from "./languages-support.js";

export const GO_MODULE = "github.com/cpln-pulumi/cpln-pulumi/sdk/go";
export const PYTHON_PACKAGE = "pulumi_cpln_native";
export const NPM_PACKAGE = "@cpln-pulumi/cpln-native";
/** What release-sdks.sh packages for the tests (.NET and Java need toolchains this machine has not). */
const LANGUAGES = "python,go,nodejs";

export interface PackagedSdks {
  /** The release's wheel, as `pip install` took it. */
  wheel: string;
  /** A virtual environment with `pulumi` and the wheel. */
  venv: string;
  /** `file://` URL of the Go module proxy serving the module at `goVersion`. */
  goProxy: string;
  goVersion: string;
  /** The release's npm tarball of the Node.js SDK. */
  npmTarball: string;
}

const cacheRoot = (env: Record<string, string>): string =>
  env.CPLN_PULUMI_CACHE ??
  path.join(env.XDG_CACHE_HOME ?? path.join(env.HOME ?? os.homedir(), ".cache"), "cpln-pulumi");

const sha = (text: string | Buffer): string => createHash("sha256").update(text).digest("hex");

/** The packages of the current SDKs, built when missing (minutes: the SDKs, a wheel, a venv), else read from cache. */
export async function packagedSdks(env: Record<string, string>): Promise<PackagedSdks> {
  const packagesDir = path.join(cacheRoot(env), "packages");
  return locked(packagesDir, async () => {
    // scripts/sdks.sh is fast when its SDKs exist; run under this lock it never races release-sdks.sh's call of it.
    const generated = await generatedSdks(env);
    const script = path.join(repoRoot, "scripts", "release-sdks.sh");
    const sdkKey = path.basename(path.dirname(generated.python));
    // The `pulumi` release scripts/sdks.sh pins, read from its venv's name (`pulumi-<version>-<key>`).
    const pythonPulumi = /^pulumi-([^-]+)-/.exec(path.basename(generated.venv))?.[1];
    if (pythonPulumi === undefined) throw new Error(`scripts/sdks.sh's venv ${generated.venv} names no pulumi version`);
    const packaging = `${fs.readFileSync(script, "utf8")}\n${pythonPulumi}\n${ZIP_MODULE}\n${LANGUAGES}`;
    const key = `${sdkKey}-${sha(packaging).slice(0, 8)}`;
    const dir = path.join(packagesDir, key);
    const version = /^(\d+\.\d+\.\d+)-/.exec(sdkKey)?.[1];
    if (version === undefined) throw new Error(`scripts/sdks.sh's SDK directory ${sdkKey} names no version`);
    const goVersion = `v${version}-sdk-${sha(dir).slice(0, 12)}`;
    const packaged: PackagedSdks = {
      wheel: path.join(dir, "release", "python", `${PYTHON_PACKAGE}-${version}-py3-none-any.whl`),
      venv: path.join(dir, "venv"),
      goProxy: `file://${path.join(dir, "goproxy")}`,
      goVersion,
      npmTarball: path.join(dir, "release", "nodejs", `cpln-pulumi-cpln-native-${version}.tgz`),
    };
    if (fs.existsSync(path.join(dir, ".complete"))) return packaged;

    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const step = async (what: string, command: string, args: string[], timeoutMs = 900_000) =>
      succeeded(what, await run(command, args, { cwd: dir, env, timeoutMs }));
    await step("scripts/release-sdks.sh", "bash", [
      script,
      "--out",
      path.join(dir, "release"),
      "--languages",
      LANGUAGES,
    ]);
    for (const made of [packaged.wheel, packaged.npmTarball]) {
      if (!fs.existsSync(made)) throw new Error(`scripts/release-sdks.sh made no ${made}`);
    }

    await step("python3 -m venv", "python3", ["-m", "venv", packaged.venv]);
    await step("pip install", path.join(packaged.venv, "bin", "python"), [
      "-m",
      "pip",
      "install",
      "--quiet",
      "--disable-pip-version-check",
      `pulumi==${pythonPulumi}`,
      packaged.wheel,
    ]);

    await writeGoProxy(path.join(dir, "release", "go"), path.join(dir, "goproxy"), goVersion, env);
    fs.writeFileSync(path.join(dir, ".complete"), "");
    return packaged;
  });
}

/** Python's zipfile: every file under argv[1], named `<argv[3]>/<relative path>`, into the zip argv[2]. */
const ZIP_MODULE = `
import os, sys, zipfile
root, out, prefix = sys.argv[1:4]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zip:
    for base, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(base, name)
            zip.write(full, prefix + "/" + os.path.relpath(full, root).replace(os.sep, "/"))
`;

/**
 * A module proxy's files for `GO_MODULE@version` from the module's directory (the Go module protocol,
 * https://go.dev/ref/mod#goproxy-protocol): the zip holds every file under `<module>@<version>/`, the layout `go mod
 * download` checks before it records the zip's hash in go.sum.
 */
async function writeGoProxy(
  moduleDir: string,
  proxyDir: string,
  version: string,
  env: Record<string, string>,
): Promise<void> {
  const at = path.join(proxyDir, ...GO_MODULE.split("/"), "@v");
  fs.mkdirSync(at, { recursive: true });
  const goMod = fs.readFileSync(path.join(moduleDir, "go.mod"), "utf8");
  if (!goMod.startsWith(`module ${GO_MODULE}\n`)) throw new Error(`${moduleDir}/go.mod is not module ${GO_MODULE}`);
  fs.writeFileSync(path.join(at, `${version}.mod`), goMod);
  fs.writeFileSync(
    path.join(at, `${version}.info`),
    JSON.stringify({ Version: version, Time: "2026-01-01T00:00:00Z" }),
  );
  fs.writeFileSync(path.join(at, "list"), `${version}\n`);
  const zip = path.join(at, `${version}.zip`);
  succeeded(
    "the Go module's zip",
    await run("python3", ["-c", ZIP_MODULE, moduleDir, zip, `${GO_MODULE}@${version}`], {
      cwd: proxyDir,
      env,
      timeoutMs: 120_000,
    }),
  );
}

/**
 * The environment `go` needs to fetch the module from the proxy of `packaged` (its dependencies from the usual proxy):
 * the module is in no checksum database, and `-mod=mod` lets go.sum take its hash.
 */
export function goEnv(packaged: PackagedSdks, env: Record<string, string>): Record<string, string> {
  return {
    GOPROXY: `${packaged.goProxy},${env.GOPROXY ?? "https://proxy.golang.org,direct"}`,
    GONOSUMDB: GO_MODULE,
    GOFLAGS: ["-mod=mod", env.GOFLAGS ?? ""].join(" ").trim(),
  };
}

/** Where the venv's `python` imports the SDK from, and how pip installed it (PEP 610's direct_url.json). */
async function pythonSdkOrigin(
  python: string,
  env: Record<string, string>,
): Promise<{ file: string; sitePackages: string[]; directUrl: Record<string, unknown> }> {
  const script = [
    "import json, site, importlib.metadata as metadata",
    `import ${PYTHON_PACKAGE} as sdk`,
    `direct = metadata.distribution("${PYTHON_PACKAGE}").read_text("direct_url.json")`,
    "print(json.dumps({'file': sdk.__file__, 'sitePackages': site.getsitepackages(), 'directUrl': json.loads(direct or 'null')}))",
  ].join("\n");
  const result = succeeded(
    "the SDK's origin",
    await run(python, ["-c", script], { cwd: os.tmpdir(), env, timeoutMs: 60_000 }),
  );
  return JSON.parse(result.stdout) as { file: string; sitePackages: string[]; directUrl: Record<string, unknown> };
}

/**
 * Where a Go program's build takes the SDK's package from: `go list -deps` of the program (in its directory, with its
 * environment, so it resolves the imports exactly as the language host's `go build` does), the module's `replace` if
 * any, and the module cache.
 */
async function goSdkOrigin(
  programDir: string,
  env: Record<string, string>,
): Promise<{ packageDir: string | undefined; replace: unknown; modCache: string }> {
  const go = async (what: string, args: string[]) =>
    succeeded(what, await run("go", args, { cwd: programDir, env, timeoutMs: 300_000 })).stdout;
  const deps = await go("go list -deps", ["list", "-deps", "-f", "{{.ImportPath}}\t{{.Dir}}", "."]);
  const sdkPackage = deps
    .split("\n")
    .map((line) => line.split("\t"))
    .find(([importPath]) => importPath === `${GO_MODULE}/cplnnative`);
  const module = JSON.parse(await go("go list -m", ["list", "-m", "-json", GO_MODULE])) as { Replace?: unknown };
  return {
    packageDir: sdkPackage?.[1],
    replace: module.Replace,
    modCache: (await go("go env GOMODCACHE", ["env", "GOMODCACHE"])).trim(),
  };
}

/**
 * That the program run in the venv `venv` (the project's, a link to `packaged.venv`) imports the SDK pip unpacked from
 * the release's wheel: the module file in the venv's site-packages, and pip's record of installing this very wheel
 * file (its sha256); an SDK installed from a directory (scripts/sdks.sh's venv) would record `dir_info`.
 */
export async function expectWheelImported(
  venv: string,
  packaged: PackagedSdks,
  env: Record<string, string>,
): Promise<void> {
  const origin = await pythonSdkOrigin(path.join(venv, "bin", "python"), env);
  const file = fs.realpathSync(origin.file);
  expect(file).toBe(path.join(fs.realpathSync(origin.sitePackages[0]!), PYTHON_PACKAGE, "__init__.py"));
  expect(file.startsWith(`${fs.realpathSync(packaged.venv)}${path.sep}`), file).toBe(true);
  const wheelSha = sha(fs.readFileSync(packaged.wheel));
  expect(origin.directUrl).toEqual({
    url: `file://${packaged.wheel}`,
    archive_info: { hash: `sha256=${wheelSha}`, hashes: { sha256: wheelSha } },
  });
}

/**
 * That the Go program in `programDir` builds against the module `go` downloaded from the proxy of `packaged`: the
 * package's directory in the module cache at the proxy's version, no `replace`, and the zip's hash in go.sum (a
 * `replace` by a directory records none).
 */
export async function expectModuleImported(
  programDir: string,
  packaged: PackagedSdks,
  env: Record<string, string>,
): Promise<void> {
  const origin = await goSdkOrigin(programDir, env);
  expect(origin.packageDir).toBe(path.join(origin.modCache, `${GO_MODULE}@${packaged.goVersion}`, "cplnnative"));
  expect(origin.replace).toBeUndefined();
  expect(fs.readFileSync(path.join(programDir, "go.sum"), "utf8")).toMatch(
    new RegExp(`^${GO_MODULE.replace(/\./g, "\\.")} ${packaged.goVersion} h1:[A-Za-z0-9+/]{43}=$`, "m"),
  );
}

/**
 * That the Node.js project in `projectDir` has the SDK npm unpacked from the release's tarball: package-lock.json
 * records that file and its sha512 (a `file:` directory would be a link, recorded with no integrity), and the package
 * the program's `require` resolves is that copy in node_modules, at the schema's version.
 */
export function expectTarballInstalled(projectDir: string, packaged: PackagedSdks): void {
  const lock = JSON.parse(fs.readFileSync(path.join(projectDir, "package-lock.json"), "utf8")) as {
    packages: Record<string, { resolved?: string; integrity?: string; link?: boolean }>;
  };
  const entry = lock.packages[`node_modules/${NPM_PACKAGE}`];
  const integrity = `sha512-${createHash("sha512").update(fs.readFileSync(packaged.npmTarball)).digest("base64")}`;
  expect(entry).toMatchObject({ resolved: `file:${path.relative(projectDir, packaged.npmTarball)}`, integrity });
  expect(entry?.link).toBeUndefined();
  const resolved = require.resolve(`${NPM_PACKAGE}/package.json`, { paths: [projectDir] });
  expect(resolved).toBe(path.join(projectDir, "node_modules", ...NPM_PACKAGE.split("/"), "package.json"));
  expect(fs.lstatSync(path.dirname(resolved)).isSymbolicLink()).toBe(false);
  const version = /-(\d+\.\d+\.\d+)\.tgz$/.exec(packaged.npmTarball)![1];
  expect((JSON.parse(fs.readFileSync(resolved, "utf8")) as { version: string }).version).toBe(version);
}

#!/usr/bin/env node
// `npm run release:packages [-- --out DIR]` (default .tmp/packages/): packs the two npm packages of a release from
// one build (`npm run build` first), at the one version of package.json:
//
//   cpln-pulumi-<v>.tgz  the provider (SDK classes, native classes, functions, client, plugin launcher, import-file):
//                        the files this repository's package.json lists, with its manifest less what only a checkout
//                        uses (scripts — npm warns about a tarball's `prepare` —, devDependencies, allowScripts).
//                        No native module, nothing of the server.
//   cpln-local-<v>.tgz   the server (`npx cpln-local`): dist/api, dist/server and the console, with a manifest made
//                        here whose dependencies are exactly the packages that code imports, at the ranges this
//                        repository pins them to.
//
// Why not npm workspaces: the layering is already enforced inside one source tree (eslint's no-restricted-imports:
// server never imports provider code, and the reverse), one tsc build and one lockfile serve both, and moving the
// sources into packages/ would touch every import path for no change in what is published. What must hold is
// checked here, from the built code: each package's imports are declared in its manifest, and the provider's
// declare none of the server's.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import console from "node:console";
import process from "node:process";
import * as esbuild from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outIndex = process.argv.indexOf("--out");
const out = path.resolve(outIndex >= 0 ? process.argv[outIndex + 1] : path.join(root, ".tmp", "packages"));
const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const ranges = { ...manifest.devDependencies, ...manifest.dependencies };

/** The npm packages the code reachable from `entries` imports (node: built-ins and relative files left out). */
export async function importedPackages(entries) {
  const result = await esbuild.build({
    entryPoints: entries.map((entry) => path.join(root, entry)),
    bundle: true,
    platform: "node",
    packages: "external",
    write: false,
    metafile: true,
    outdir: path.join(out, ".analysis"),
    logLevel: "silent",
  });
  const names = new Set();
  for (const input of Object.values(result.metafile.inputs)) {
    for (const { path: spec, external } of input.imports) {
      if (!external || spec.startsWith("node:")) continue;
      names.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]);
    }
  }
  return [...names].sort();
}

/** The provider's entry points: everything package.json's bin and exports name. */
const providerEntries = [
  "dist/sdk/index.js",
  "dist/sdk/native/index.js",
  "dist/api/index.js",
  ...Object.values(manifest.bin),
];
const serverEntries = ["dist/server/index.js", "dist/server/cli.js"];
/** What cpln-local's server code must never need, and the provider must not install. */
const serverOnly = ["better-sqlite3", "fastify", "jose"];
/** fastify's light-my-request, pinned: its 6.6.x releases are the last that keep cookie 1.x, which runs on Node 20. */
const localPins = ["light-my-request"];

function copyLicense(dir) {
  fs.copyFileSync(path.join(root, "LICENSE"), path.join(dir, "LICENSE"));
}

function fail(message) {
  console.error(`release-packages: ${message}`);
  process.exit(1);
}

async function main() {
  for (const entry of [...providerEntries, ...serverEntries]) {
    if (!fs.existsSync(path.join(root, entry))) fail(`${entry} is missing: run \`npm run build\` first`);
  }
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });

  // The provider: its manifest is package.json; its imports must be its dependencies, none of them the server's.
  const providerImports = (await importedPackages(providerEntries)).filter((name) => name !== manifest.name);
  const declared = Object.keys(manifest.dependencies).sort();
  if (JSON.stringify(providerImports) !== JSON.stringify(declared)) {
    fail(`package.json's dependencies ${declared.join(", ")} are not what the provider imports: ${providerImports}`);
  }
  const leaked = declared.filter((name) => serverOnly.includes(name));
  if (leaked.length > 0) fail(`the provider package would install the server's ${leaked.join(", ")}`);

  // cpln-local: a manifest of its own, its dependencies from what its code imports.
  const staging = path.join(out, "cpln-local");
  const copy = (from, to = from) => fs.cpSync(path.join(root, from), path.join(staging, to), { recursive: true });
  for (const dir of ["dist/api", "dist/server"]) {
    fs.cpSync(path.join(root, dir), path.join(staging, dir), {
      recursive: true,
      filter: (file) => fs.statSync(file).isDirectory() || /\.(js|d\.ts)$/.test(file),
    });
  }
  copy("dist/console");
  copy("examples/seed.json");
  copy("docs/cpln-local.md", "README.md");
  copyLicense(staging);
  const localImports = await importedPackages(serverEntries);
  const dependencies = {};
  for (const name of [...localImports, ...localPins].sort()) {
    if (ranges[name] === undefined) fail(`cpln-local imports ${name}, which package.json does not pin`);
    dependencies[name] = ranges[name];
  }
  const local = {
    name: "cpln-local",
    version: manifest.version,
    description:
      "A self-hostable implementation of the Control Plane organization API, to develop and test against " +
      "(the official cpln CLI and the cpln-pulumi provider work with it).",
    license: manifest.license,
    repository: { type: "git", url: "git+https://github.com/cpln-pulumi/cpln-pulumi.git" },
    homepage: "https://github.com/cpln-pulumi/cpln-pulumi/blob/main/docs/cpln-local.md",
    bugs: "https://github.com/cpln-pulumi/cpln-pulumi/issues",
    keywords: ["cpln", "controlplane", "emulator", "pulumi"],
    type: "commonjs",
    main: "dist/server/index.js",
    types: "dist/server/index.d.ts",
    bin: { "cpln-local": "dist/server/cli.js" },
    exports: {
      ".": { types: "./dist/server/index.d.ts", default: "./dist/server/index.js" },
      "./package.json": "./package.json",
    },
    engines: manifest.engines,
    dependencies,
  };
  fs.writeFileSync(path.join(staging, "package.json"), `${JSON.stringify(local, null, 2)}\n`);

  const pack = (cwd, dryRun = false) => {
    const printed = execFileSync(
      "npm",
      ["pack", "--ignore-scripts", "--json", "--pack-destination", out, ...(dryRun ? ["--dry-run"] : [])],
      { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
    );
    return JSON.parse(printed.slice(printed.indexOf("[")))[0];
  };

  // The provider: the files npm would pack here, under the published manifest.
  const providerStaging = path.join(out, "cpln-pulumi");
  for (const { path: file } of pack(root, true).files) {
    if (file === "package.json") continue;
    fs.mkdirSync(path.dirname(path.join(providerStaging, file)), { recursive: true });
    fs.copyFileSync(path.join(root, file), path.join(providerStaging, file));
  }
  copyLicense(providerStaging);
  const { scripts: _scripts, devDependencies: _dev, allowScripts: _allow, ...published } = manifest;
  const provider = {
    ...published,
    repository: local.repository,
    homepage: "https://github.com/cpln-pulumi/cpln-pulumi",
    bugs: local.bugs,
  };
  fs.writeFileSync(path.join(providerStaging, "package.json"), `${JSON.stringify(provider, null, 2)}\n`);
  console.log(path.join(out, pack(providerStaging).filename));
  console.log(path.join(out, pack(staging).filename));
  fs.rmSync(path.join(out, ".analysis"), { recursive: true, force: true });
}

await main();

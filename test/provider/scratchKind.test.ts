// A kind is one declaration: this test adds a scratch kind to a copy of the sources as a maintainer would — one new
// file (api/kinds/<kind>.ts, example bodies included) and its entry in api/kinds/index.ts (an import and one element
// of the list) — then compiles the copy (tsc, type-checked), runs the generators (`npm run gen`'s steps) and runs the
// generic suites there. It shows, with no other edit: the copy compiles; the generators write schema.json, the docs
// tables, the migration guide, sdk/types.ts and the generated SDK files and nothing else; cpln-local serves the kind
// from the default server rules (the record is the create body, a count quota, -eventlog); import-file lists its
// objects; and the generic suites cover it (the server from its examples, both adapters' lifecycles, the contract,
// OpenAPI, quotas, the migration guide). What it cannot show: a kind with rules beyond its declaration (actions,
// other endpoints, server-owned fields) still needs server/domain/<kind>.ts; and the reliability suites (security
// matrix, crash, fuzz) are not run here for cost. Needs `npm run build` (for nothing but the package's node_modules).
import { execFile } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isKind, linkFormOf, type PolicyKind } from "../../api/kinds/index.js";
import type * as ServerModule from "../../server/index.js";
import { declarationOf, GENERATED, GENERIC_SUITES, typeNameOf } from "./scratchKind.js";

const run = promisify(execFile);
const repoRoot = path.resolve(__dirname, "..", "..");

// A kind the real API has (a policy may target it) that cpln-local does not store yet, its objects in the org.
const kind = (["ipset", "agent", "tenant", "memcachecluster", "spicedbcluster"] as PolicyKind[]).find(
  (candidate) => !isKind(candidate) && linkFormOf(candidate) === "orgItem",
)!;
const typeName = typeNameOf(kind);
let copy = "";
let before = new Map<string, string>();
const compiled: { code: number; output: string }[] = [];

const hash = (file: string) => crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
const read = (file: string) => fs.readFileSync(path.join(copy, file), "utf8");
const node = (args: string[], cwd = copy) =>
  run(process.execPath, args, { cwd, env: cleanEnv(), maxBuffer: 64 * 1024 * 1024 });

/** The environment without this test run's own vitest variables (a child vitest must not take them as its own). */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST")));
}

/** Every file of the checkout (tracked, or new and not ignored), as git lists them. */
async function sourceFiles(): Promise<string[]> {
  const { stdout } = await run("git", ["ls-files", "-co", "--exclude-standard", "-z"], { cwd: repoRoot });
  return stdout.split("\0").filter((file) => file !== "" && fs.existsSync(path.join(repoRoot, file)));
}

async function tsc(): Promise<void> {
  const args = [path.join("node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"];
  try {
    const { stdout } = await node([...args, "--incremental", "--tsBuildInfoFile", ".tmp/build.tsbuildinfo"]);
    compiled.push({ code: 0, output: stdout });
  } catch (error) {
    compiled.push({ code: 1, output: String((error as { stdout?: string }).stdout ?? error) });
  }
}

beforeAll(async () => {
  expect(kind, "a kind of the policy set that cpln-local does not store").toBeDefined();
  const started = performance.now();
  copy = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-scratch-kind-"));
  const files = await sourceFiles();
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    fs.copyFileSync(path.join(repoRoot, file), path.join(copy, file));
  }
  // The installed packages, shared; the package itself is the copy (the dynamic providers require it by name).
  const modules = path.join(copy, "node_modules");
  fs.mkdirSync(modules);
  for (const entry of fs.readdirSync(path.join(repoRoot, "node_modules"))) {
    if (entry !== "cpln-pulumi") fs.symlinkSync(path.join(repoRoot, "node_modules", entry), path.join(modules, entry));
  }
  fs.symlinkSync("..", path.join(modules, "cpln-pulumi"));
  before = new Map(files.map((file) => [file, hash(path.join(copy, file))]));

  // The maintainer's edit: the declaration, and its entry in the registry.
  fs.writeFileSync(path.join(copy, "api", "kinds", `${kind}.ts`), declarationOf(kind));
  const registry = path.join(copy, "api", "kinds", "index.ts");
  const text = fs.readFileSync(registry, "utf8");
  const lastImport = text.lastIndexOf("\nimport { ");
  const lineEnd = text.indexOf("\n", lastImport + 1);
  const withImport = `${text.slice(0, lineEnd + 1)}import { ${kind}Kind } from "./${kind}.js";\n${text.slice(lineEnd + 1)}`;
  fs.writeFileSync(registry, withImport.replace("\n] as const;", `\n  ${kind}Kind,\n] as const;`));

  // `npm run gen` (a build, then the generators), then the build of what they wrote.
  const copied = performance.now();
  await tsc();
  const built = performance.now();
  for (const tool of ["gen-schema", "gen-sdk", "gen-types", "migration-guide"]) await node([`dist/tools/${tool}.js`]);
  const generated = performance.now();
  await tsc();
  const seconds = (from: number, to: number) => `${((to - from) / 1000).toFixed(1)} s`;
  console.log(
    `[scratch-kind] ${kind}: copy ${seconds(started, copied)}, tsc ${seconds(copied, built)}, generators ` +
      `${seconds(built, generated)}, tsc again ${seconds(generated, performance.now())}`,
  );
}, 600_000);

afterAll(() => {
  if (copy !== "") fs.rmSync(copy, { recursive: true, force: true });
});

describe(`a scratch kind (${kind}) declared in one file`, () => {
  it("compiles with no other edit; the generators write exactly the generated files", () => {
    expect(compiled).toEqual([
      { code: 0, output: "" },
      { code: 0, output: "" },
    ]);
    const changed = [...before].filter(([file, digest]) => hash(path.join(copy, file)) !== digest).map(([f]) => f);
    expect(changed.sort()).toEqual(["api/kinds/index.ts", ...GENERATED].sort());
    const added = read("api/kinds/index.ts")
      .split("\n")
      .filter((line) => !fs.readFileSync(path.join(repoRoot, "api/kinds/index.ts"), "utf8").split("\n").includes(line));
    expect(added).toEqual([`import { ${kind}Kind } from "./${kind}.js";`, `  ${kind}Kind,`]);
  });

  it("schema.json, docs/resources.md, the migration guide and the SDK's types have it", () => {
    const schema = JSON.parse(read("schema.json")) as {
      resources: Record<string, { inputProperties: Record<string, unknown>; replaceOnChanges?: string[] }>;
      functions: Record<string, unknown>;
    };
    const resource = schema.resources[`cpln-native:index:${typeName}`];
    expect(Object.keys(resource?.inputProperties ?? {}).sort()).toEqual(
      ["adopt", "cidrs", "description", "name", "org", "region", "tags"].sort(),
    );
    expect(schema.functions[`cpln-native:index:get${typeName}`]).toBeDefined();
    expect(read("docs/resources.md")).toContain(`| \`cpln.${typeName}\` | A scratch kind`);
    expect(read("docs/resources.md")).toContain(`| \`cpln.get${typeName}\` / \`get${typeName}Output\` |`);
    // The guide places it once: beside pulumiverse's resource of the same name (case aside), or as only here.
    const guide = read("docs/migrating-from-pulumiverse.md").split("\n");
    const theirs = guide.find((line) => line.toLowerCase().startsWith(`| \`cpln:index/${kind}:`));
    const onlyHere = guide.find((line) => line.startsWith("Only in this package:")) ?? "";
    if (theirs !== undefined) {
      expect(theirs).toContain(`\`cpln-native:index:${typeName}\``);
      expect(onlyHere).not.toContain(`\`cpln-native:index:${typeName}\``);
    } else expect(onlyHere).toContain(`\`cpln-native:index:${typeName}\``);
    expect(read("sdk/types.ts")).toContain(`| "${kind}"`);
    expect(read("sdk/declared.ts")).toContain(`export const ${typeName} = declaredResource<${typeName}Args`);
    expect(read("sdk/native/declared.ts")).toContain(`export const ${typeName} = nativeResource<${typeName}Args`);
  });

  it("cpln-local serves it from the default rules: the record is the create body, a count quota, -eventlog, OpenAPI", async () => {
    const { startServer } = createRequire(__filename)(path.join(copy, "dist/server/index.js")) as typeof ServerModule;
    const server = await startServer({});
    try {
      const headers = { authorization: `Bearer ${server.adminKey}`, "content-type": "application/json" };
      const inject = async (method: "GET" | "POST", url: string, body?: unknown) => {
        const answer = await server.app.inject({ method, url, headers, payload: JSON.stringify(body ?? {}) });
        return { status: answer.statusCode, body: answer.json<Record<string, unknown>>() };
      };
      const base = `/org/${server.org}/${kind}`;
      const body = { name: "one", spec: { region: "north", cidrs: ["10.0.0.0/8"] } };
      const created = await inject("POST", base, body);
      expect(created).toEqual({
        status: 201,
        body: {
          kind,
          id: expect.any(String),
          name: "one",
          description: "one",
          version: 1,
          tags: {},
          created: expect.any(String),
          lastModified: expect.any(String),
          spec: body.spec,
          links: [
            { rel: "self", href: `${base}/one` },
            { rel: "org", href: `/org/${server.org}` },
          ],
        },
      });
      const quotas = (await inject("GET", `/org/${server.org}/quota`)).body["items"] as Record<string, unknown>[];
      expect(quotas.find((quota) => quota["name"] === `${kind}s`)).toMatchObject({ current: 1, max: 100 });
      expect((await inject("GET", `${base}/one/-eventlog`)).body).toMatchObject({ kind: "list", items: [] });
      const doc = (await inject("GET", "/openapi.json")).body as { paths: Record<string, Record<string, unknown>> };
      expect(Object.keys(doc.paths[`/org/{org}/${kind}`] ?? {}).sort()).toEqual(["get", "post", "put"]);
      expect(Object.keys(doc.paths[`/org/{org}/${kind}/{name}`] ?? {}).sort()).toEqual([
        "delete",
        "get",
        "patch",
        "put",
      ]);

      // import-file: the org's objects of the kind, as resources of the native plugin.
      const importFile = ["dist/tools/cpln-pulumi.js", "import-file", "--org", server.org, "--endpoint", server.url];
      const { stdout } = await run(process.execPath, importFile, {
        cwd: copy,
        env: { ...cleanEnv(), CPLN_TOKEN: server.adminKey },
      });
      expect(JSON.parse(stdout).resources).toContainEqual({
        type: `cpln-native:index:${typeName}`,
        name: `${kind}_one`,
        id: `${base}/one`,
        logicalName: "one",
      });
    } finally {
      await server.close();
    }
  });

  it("the SDK's compile-time check covers it: passes as generated, fails naming it when its args drift", async () => {
    // test/provider/sdkArgs.typecheck.ts alone (tsconfig.build.json leaves the tests out), as `npm run typecheck` does.
    const config = path.join(copy, ".tmp", "sdkArgs.tsconfig.json");
    fs.mkdirSync(path.dirname(config), { recursive: true });
    fs.writeFileSync(
      config,
      JSON.stringify({
        extends: "../tsconfig.json",
        compilerOptions: { noEmit: true },
        include: [],
        files: ["../test/provider/sdkArgs.typecheck.ts"],
      }),
    );
    const check = () =>
      node([path.join("node_modules", "typescript", "bin", "tsc"), "-p", config, "--noErrorTruncation"]).then(
        () => "",
        (error: unknown) => String((error as { stdout?: string }).stdout ?? error),
      );
    expect(await check()).toBe("");
    // The generated args drift from the provider's: region (one of two names) typed as any string.
    const sdkFile = path.join(copy, "sdk", "declared.ts");
    const generated = fs.readFileSync(sdkFile, "utf8");
    const args = new RegExp(`(export interface ${typeName}Args \\{[\\s\\S]*?\\n  region\\??: )[^\\n]*;`);
    const drifted = generated.replace(args, "$1pulumi.Input<string>;");
    expect(drifted).not.toBe(generated);
    fs.writeFileSync(sdkFile, drifted);
    try {
      const output = await check();
      for (const sdk of ["cpln-pulumi", "cpln-pulumi/native"]) {
        expect(output).toContain(`failed: ${typeName} (${sdk}): an arg the provider does not accept as typed: region`);
      }
    } finally {
      fs.writeFileSync(sdkFile, generated);
    }
  }, 300_000);

  it("the generic suites, run in the copy, cover it: every test of the kind passes, none fails", async () => {
    const report = path.join(copy, ".tmp", "generic.json");
    const vitest = path.join("node_modules", "vitest", "vitest.mjs");
    const started = performance.now();
    await node([vitest, "run", ...GENERIC_SUITES, "--reporter=json", `--outputFile=${report}`]).catch(() => undefined);
    console.log(`[scratch-kind] the generic suites: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const results = JSON.parse(fs.readFileSync(report, "utf8")) as {
      testResults: { name: string; assertionResults: { fullName: string; status: string }[] }[];
    };
    const outcomes = results.testResults.flatMap((file) =>
      file.assertionResults.map((test) => `${path.relative(copy, file.name)} > ${test.fullName}: ${test.status}`),
    );
    expect(outcomes.filter((outcome) => outcome.endsWith(": failed"))).toEqual([]);
    expect(results.testResults.map((file) => path.relative(copy, file.name)).sort()).toEqual(
      [...GENERIC_SUITES].sort(),
    );
    const ofKind = (file: string, title: string) =>
      outcomes.filter((outcome) => outcome.startsWith(`${file} > ${title}`));
    // Each suite that tests kind by kind has the scratch kind's tests, all passed (none skipped).
    for (const [file, title, count] of [
      ["test/server/declared.test.ts", `${kind} from its declaration's examples`, 6],
      ["test/provider/declared.lifecycle.test.ts", `declared resource of kind ${kind}`, 9],
      ["test/native/declared.test.ts", `declared native resource of kind ${kind}`, 6],
      ["test/provider/dataSources.test.ts", `'get${typeName}' `, 2],
    ] as const) {
      expect([file, ofKind(file, title).filter((outcome) => outcome.endsWith(": passed")).length]).toEqual([
        file,
        count,
      ]);
    }
  }, 600_000);
});

/**
 * A Pulumi user's first hour, outside the repository tree: `npm pack` → the tarball's file list against an allow-list
 * → a fresh project installs the tarball, `@pulumi/pulumi` and the TypeScript 5 that Pulumi's template pins (without
 * EBADENGINE on Node 20) → its own program compiles with the template tsconfig, verbatim. test/engine/project.test.ts
 * runs that project with the plain `pulumi` command.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packedProject, run } from "../support/packedProject.js";

const repoRoot = path.resolve(__dirname, "..", "..");

/** What a user runs, and nothing else: no tests, benchmarks, fixtures, source maps or dev tools. */
const allowed = [
  /^package\/package\.json$/,
  /^package\/README\.md$/,
  /^package\/LICENSE$/,
  // The reference pages the README links to.
  /^package\/docs\/[^/]+\.md$/,
  /^package\/schema\.json$/,
  /^package\/examples\/seed\.json$/,
  /^package\/examples\/ci\/(README\.md|pulumi-cpln\.yml)$/,
  // The server (cpln-local) is a package of its own (scripts/release-packages.mjs), not part of the provider's.
  /^package\/dist\/(api|provider|sdk)\/.+\.(js|d\.ts)$/,
  // The native plugin: its launcher for PATH and its source-based plugin folder (`pulumi package add`).
  /^package\/bin\/pulumi-resource-cpln-native$/,
  /^package\/plugin\/(PulumiPlugin\.yaml|index\.cjs|package\.json)$/,
  // `cpln-pulumi import-file`: an org as a `pulumi import --file` document.
  /^package\/dist\/tools\/cpln-pulumi\.js$/,
  /^package\/dist\/tools\/importFile\/[^/]+\.js$/,
];

describe("a user's project built from the packed package", () => {
  let work: string;
  let packed: string[];
  let project: string;
  let installLog: string;

  beforeAll(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-user-project-"));
    ({ packed, project, installLog } = await packedProject(work));
  }, 1_200_000);

  afterAll(() => {
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it("the tarball holds only what users run (allow-list), including the seed file the CI recipe uses", () => {
    expect(packed.filter((file) => !allowed.some((re) => re.test(file)))).toEqual([]);
    expect(packed).toContain("package/examples/seed.json");
    expect(packed).toContain("package/dist/sdk/index.d.ts");
    // Every page the README links to is in the package, so its links work where npm shows it.
    const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8");
    const linked = [...new Set([...readme.matchAll(/\]\((docs\/[^)#]+\.md)/g)].map((m) => `package/${m[1]}`))];
    expect(linked.length).toBeGreaterThan(5);
    expect(linked.filter((page) => !packed.includes(page))).toEqual([]);
    expect(packed.some((f) => /\/dist\/(test|bench)\//.test(f) || f.endsWith(".map"))).toBe(false);
  });

  it("installs on Node 20 without EBADENGINE, and without a typescript of the package's own", () => {
    expect(installLog).not.toMatch(/EBADENGINE/);
    const pkg = JSON.parse(fs.readFileSync(path.join(project, "node_modules", "cpln-pulumi", "package.json"), "utf8"));
    expect(pkg.bin).toEqual({
      "cpln-pulumi": "dist/tools/cpln-pulumi.js",
      "pulumi-resource-cpln-native": "dist/provider/native/main.js",
    });
    expect(Object.keys(pkg.dependencies ?? {})).not.toContain("typescript");
  });

  it("the user's program compiles with Pulumi's template tsconfig, unchanged, and the TypeScript 5 it pins", async () => {
    const tsc = path.join(project, "node_modules", "typescript", "bin", "tsc");
    const result = await run(process.execPath, [tsc, "-p", project, "--noEmit", "--pretty", "false"], { cwd: project });
    expect(result.stdout + result.stderr).toBe("");
    expect(result.code).toBe(0);
  });

  it("the native classes (`cpln-pulumi/native`) resolve and compile under the commonjs/node template too", async () => {
    // A second program beside the first, with the template's tsconfig verbatim: `moduleResolution: node` ignores the
    // package's `exports`, so the subpath's types come from `typesVersions`.
    const dir = path.join(project, "native-entry");
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(
      path.join(repoRoot, "test", "fixtures", "pulumi-template", "commonjs", "tsconfig.json"),
      path.join(dir, "tsconfig.json"),
    );
    fs.writeFileSync(
      path.join(dir, "index.ts"),
      'import * as cpln from "cpln-pulumi";\nimport * as native from "cpln-pulumi/native";\n' +
        "export const classes = [cpln.VolumeSet.name, native.VolumeSet.name, native.PolicyBinding.name];\n",
    );
    const tsc = path.join(project, "node_modules", "typescript", "bin", "tsc");
    const result = await run(process.execPath, [tsc, "-p", dir, "--noEmit", "--pretty", "false"], { cwd: dir });
    expect(result.stdout + result.stderr).toBe("");
    expect(result.code).toBe(0);
  });
});

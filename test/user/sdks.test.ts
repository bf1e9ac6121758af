/**
 * The SDK packages the release workflow publishes, made here by its script (scripts/release-sdks.sh) for the
 * languages this machine can build: the Python wheel and the Go module. Each carries the version and the plugin's
 * download address of schema.json, so installing the SDK is enough for the engine to fetch the plugin; the Go module's
 * path is the one `go get` resolves. The .NET SDK is generated here (scripts/sdks.sh dotnet) and checked without a
 * .NET SDK: a C# file per resource and function, C# that parses (tree-sitter's C# grammar), the .csproj the docs
 * install; `dotnet pack` is the release workflow's.
 */
import { execFile, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCSharp } from "../support/csharp.js";

const repoRoot = path.resolve(__dirname, "..", "..");
const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, "schema.json"), "utf8")) as {
  name: string;
  version: string;
  pluginDownloadURL: string;
  resources: Record<string, unknown>;
  functions: Record<string, unknown>;
  language: {
    go: { importBasePath: string };
    python: { packageName: string };
    csharp: { rootNamespace: string };
  };
};
const work = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-sdks-"));
const out = path.join(work, "sdks");
const expectedPlugin = { resource: true, name: schema.name, version: schema.version, server: schema.pluginDownloadURL };

function script(args: string[], env: NodeJS.ProcessEnv = process.env) {
  return new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(
      "bash",
      [path.join(repoRoot, "scripts", "release-sdks.sh"), ...args],
      { env, timeout: 900_000 },
      (e, _o, stderr) => resolve({ code: e ? (typeof e.code === "number" ? e.code : 1) : 0, stderr }),
    );
  });
}

/** Pulumi's .NET names: `cpln-native` → `CplnNative`, `getQuota` → `GetQuota`. */
const pascal = (name: string): string =>
  name
    .split(/[-_]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");

/** Where the .NET generator writes a token's class: `<Module>/<Member>.cs`, the `index` module at the root. */
function csharpFile(token: string): string {
  const [, module, member] = token.split(":");
  return path.join(module === "index" ? "" : pascal(module!), `${pascal(member!)}.cs`);
}

/** Every file under `dir`, relative and sorted. */
const filesUnder = (dir: string): string[] =>
  (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();

/** The Pulumi package range codegen/dotnet writes when the schema names none, read from its source at the pin. */
function generatorPulumiRange(): string {
  const goMod = fs.readFileSync(path.join(repoRoot, "tools", "engine", "gen-dotnet", "go.mod"), "utf8");
  const pinned = /^\tgithub\.com\/pulumi\/pulumi\/pkg\/v3 (v\S+)$/m.exec(goMod)?.[1];
  const download = JSON.parse(
    execFileSync("go", ["mod", "download", "-json", `github.com/pulumi/pulumi/pkg/v3@${pinned}`], {
      cwd: os.tmpdir(),
      encoding: "utf8",
    }),
  ) as { Dir: string };
  const source = fs.readFileSync(path.join(download.Dir, "codegen", "dotnet", "gen.go"), "utf8");
  const range = /packageReferences\["Pulumi"\] = "([^"]+)"/.exec(source)?.[1];
  if (range === undefined) throw new Error(`codegen/dotnet at ${pinned} sets no default Pulumi reference`);
  return range;
}

let made: { code: number; stderr: string };
let dotnet = "";
beforeAll(async () => {
  made = await script(["--out", out, "--languages", "python,go"]);
  // The .NET generator (a cold Go build takes minutes) and the SDK, cached by scripts/sdks.sh.
  const generated = await new Promise<string>((resolve, reject) =>
    execFile(
      "bash",
      [path.join(repoRoot, "scripts", "sdks.sh"), "dotnet"],
      { timeout: 900_000 },
      (e, stdout, stderr) => (e ? reject(new Error(`scripts/sdks.sh dotnet: ${stderr}`)) : resolve(stdout)),
    ),
  );
  dotnet = /^dotnet=(.+)$/m.exec(generated)?.[1] ?? "";
  if (!fs.existsSync(path.join(dotnet, `${schema.language.csharp.rootNamespace}.${pascal(schema.name)}.csproj`)))
    throw new Error(`scripts/sdks.sh dotnet printed ${generated}`);
}, 1_800_000);

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe("scripts/release-sdks.sh", () => {
  it("builds the Python wheel, whose pulumi-plugin.json asks for this plugin version from the release host", () => {
    expect(made.code, made.stderr).toBe(0);
    const wheel = `${schema.language.python.packageName}-${schema.version}-py3-none-any.whl`;
    expect(fs.readdirSync(path.join(out, "python"))).toEqual([wheel]);
    const plugin = execFileSync(
      "python3",
      [
        "-c",
        "import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())",
        path.join(out, "python", wheel),
        `${schema.language.python.packageName}/pulumi-plugin.json`,
      ],
      { encoding: "utf8" },
    );
    expect(JSON.parse(plugin)).toEqual(expectedPlugin);
  });

  it("lays out the Go module at the path `go get` resolves, with the same plugin manifest", () => {
    const goMod = fs.readFileSync(path.join(out, "go", "go.mod"), "utf8");
    const modulePath = path.posix.dirname(schema.language.go.importBasePath);
    expect(goMod.split("\n")[0]).toBe(`module ${modulePath}`);
    expect(modulePath).toMatch(/^github\.com\/[^/]+\/[^/]+\/sdk\/go$/);
    const plugin = fs.readFileSync(
      path.join(out, "go", path.posix.basename(schema.language.go.importBasePath), "pulumi-plugin.json"),
      "utf8",
    );
    expect(JSON.parse(plugin)).toEqual(expectedPlugin);
    expect(fs.existsSync(path.join(out, "go", "LICENSE"))).toBe(true);
  });

  it("writes the .NET sources beside where the NuGet package goes, and names what packing it needs", async () => {
    // No `dotnet` here: nuget.org, where `dotnet pack` restores Pulumi from, does not resolve on this machine either.
    const env = {
      ...process.env,
      PATH:
        path.dirname(process.execPath) === "/usr/bin"
          ? "/usr/bin:/bin"
          : `${path.dirname(process.execPath)}:/usr/bin:/bin`,
    };
    const release = path.join(work, "dotnet");
    const result = await script(["--out", release, "--languages", "dotnet"], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `release-sdks: the .NET SDK is generated in ${release}/dotnet/src; packing ` +
        `CplnPulumi.CplnNative.${schema.version}.nupkg needs the .NET SDK (dotnet) on PATH`,
    );
    expect(filesUnder(path.join(release, "dotnet", "src"))).toEqual(filesUnder(dotnet));
  });
});

describe(".NET SDK (scripts/sdks.sh dotnet: Pulumi's codegen/dotnet, checked without a .NET SDK)", () => {
  const csharp = schema.language.csharp;
  // NuGet's package id and the C# namespace: the project file's name (no <PackageId> or <AssemblyName> overrides it).
  const packageId = `${csharp.rootNamespace}.${pascal(schema.name)}`;

  it("has a C# file for every resource and function of schema.json, declaring its class and its token", async () => {
    expect(Object.keys(schema.resources).length).toBeGreaterThan(10);
    const missing: string[] = [];
    const parse = async (token: string) => {
      const file = path.join(dotnet, csharpFile(token));
      return fs.existsSync(file) ? parseCSharp(fs.readFileSync(file, "utf8")) : undefined;
    };
    for (const token of Object.keys(schema.resources)) {
      const name = pascal(token.split(":")[2]!);
      const parsed = await parse(token);
      if (
        !parsed?.classAttributes.get(name)?.includes(`${pascal(schema.name)}ResourceType("${token}")`) ||
        !parsed.classBases.get(name)?.includes("global::Pulumi.CustomResource")
      )
        missing.push(token);
    }
    for (const token of Object.keys(schema.functions)) {
      const parsed = await parse(token);
      if (!parsed?.classes.includes(pascal(token.split(":")[2]!)) || !parsed.strings.includes(token))
        missing.push(token);
    }
    expect(missing).toEqual([]);
  });

  it("every generated C# file parses with no syntax error (tree-sitter's C# grammar), in the package's namespace", async () => {
    const files = filesUnder(dotnet).filter((file) => file.endsWith(".cs"));
    expect(files.length).toBeGreaterThan(Object.keys(schema.resources).length + Object.keys(schema.functions).length);
    const errors: Record<string, string[]> = {};
    for (const file of files) {
      const source = fs.readFileSync(path.join(dotnet, file), "utf8");
      const parsed = await parseCSharp(source);
      if (parsed.errors.length > 0) errors[file] = parsed.errors;
      expect(source, file).toMatch(new RegExp(`^namespace ${packageId.replace(/\./g, "\\.")}(\\.|$)`, "m"));
    }
    expect(errors).toEqual({});
  });

  it("the parse check finds a truncated file and a dropped closing brace", async () => {
    const source = fs.readFileSync(path.join(dotnet, "Policy.cs"), "utf8");
    expect((await parseCSharp(source)).errors).toEqual([]);
    expect((await parseCSharp(source.slice(0, Math.floor(source.length / 2)))).errors).not.toEqual([]);
    expect((await parseCSharp(source.replace(/}\s*$/, ""))).errors).not.toEqual([]);
  });

  it("the .csproj is the NuGet package the docs install, referencing the Pulumi range the generator writes", () => {
    expect(filesUnder(dotnet).filter((file) => file.endsWith(".csproj"))).toEqual([`${packageId}.csproj`]);
    const project = fs.readFileSync(path.join(dotnet, `${packageId}.csproj`), "utf8");
    expect(project).not.toMatch(/<PackageId>|<AssemblyName>/);
    expect(project).toContain(`<Version>${schema.version}</Version>`);
    const references = [...project.matchAll(/<PackageReference Include="([^"]+)" Version="([^"]+)"/g)];
    expect(Object.fromEntries(references.map((m) => [m[1], m[2]]))).toEqual({
      "Microsoft.SourceLink.GitHub": "1.0.0",
      Pulumi: generatorPulumiRange(),
    });
    const install = fs.readFileSync(path.join(repoRoot, "docs", "installation-configuration.md"), "utf8");
    expect(install).toContain(`dotnet add package ${packageId}\n`);
    expect(install).toContain(`(https://www.nuget.org/packages/${packageId})`);
    expect(fs.readFileSync(path.join(repoRoot, "docs", "_index.md"), "utf8")).toContain(`using Cpln = ${packageId};`);
    expect(JSON.parse(fs.readFileSync(path.join(dotnet, "pulumi-plugin.json"), "utf8"))).toEqual(expectedPlugin);
    // The NuGet icon: the repository's PNG, not a download.
    expect(fs.readFileSync(path.join(dotnet, "logo.png"))).toEqual(
      fs.readFileSync(path.join(repoRoot, "docs", "logo.png")),
    );
  });

  it("the docs' C# program uses the SDK's classes, their args' properties and their outputs, and parses", async () => {
    const index = fs.readFileSync(path.join(repoRoot, "docs", "_index.md"), "utf8");
    const program = /\{\{% choosable language csharp %\}\}\s*```csharp\n([\s\S]*?)```/.exec(index)?.[1];
    expect(program).toBeDefined();
    const parsed = await parseCSharp(program!);
    expect(parsed.errors).toEqual([]);
    const sdkClass = async (name: string) => {
      const file = path.join(dotnet, `${name}.cs`);
      return fs.existsSync(file) ? (await parseCSharp(fs.readFileSync(file, "utf8"))).classProperties : undefined;
    };
    const unknown: string[] = [];
    const typeOf = new Map<string, string>();
    const resources = parsed.creations.filter((creation) => creation.type.startsWith("Cpln."));
    expect(resources.length).toBeGreaterThan(1);
    for (const { type, variable, assigned } of resources) {
      const name = type.slice("Cpln.".length);
      const properties = await sdkClass(name);
      if (properties === undefined) unknown.push(type);
      for (const member of assigned)
        if (!properties?.get(`${name}Args`)?.includes(member)) unknown.push(`${name}Args.${member}`);
      if (variable !== undefined) typeOf.set(variable, name);
    }
    for (const { object, member } of parsed.memberAccesses) {
      const name = typeOf.get(object);
      if (name !== undefined && !(await sdkClass(name))?.get(name)?.includes(member)) unknown.push(`${name}.${member}`);
    }
    expect(unknown).toEqual([]);
  });
});

/**
 * The SDK packages the release workflow publishes, made here by its script (scripts/release-sdks.sh) for the
 * languages this machine can build: the Python wheel and the Go module. Each carries the version and the plugin's
 * download address of schema.json, so installing the SDK is enough for the engine to fetch the plugin; the Go module's
 * path is the one `go get` resolves. .NET and Java need the CLI's language plugins: without them the script says so.
 */
import { execFile, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repoRoot = path.resolve(__dirname, "..", "..");
const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, "schema.json"), "utf8")) as {
  name: string;
  version: string;
  pluginDownloadURL: string;
  language: { go: { importBasePath: string }; python: { packageName: string } };
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

let made: { code: number; stderr: string };
beforeAll(async () => {
  made = await script(["--out", out, "--languages", "python,go"]);
}, 900_000);

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

  it("names what is missing for .NET when there is no pulumi CLI with its language plugin", async () => {
    const env = {
      ...process.env,
      PATH:
        path.dirname(process.execPath) === "/usr/bin"
          ? "/usr/bin:/bin"
          : `${path.dirname(process.execPath)}:/usr/bin:/bin`,
    };
    const result = await script(["--out", path.join(work, "dotnet"), "--languages", "dotnet"], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /the dotnet SDK needs the pulumi CLI on PATH|pulumi package gen-sdk --language dotnet failed/,
    );
  });
});

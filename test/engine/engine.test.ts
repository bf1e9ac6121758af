/**
 * The engine that scripts/engine.sh builds: the pinned CLI reports its pinned version; the YAML, Node.js, Python and
 * Go language hosts (each old host behind the project's front, tools/engine/langhost) and the launchers sit beside it.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { requireEngine, skipWithoutEngine } from "./support.js";

const goMod = (module: string): string =>
  fs.readFileSync(path.resolve(__dirname, "..", "..", "tools", "engine", module, "go.mod"), "utf8");

describe.skipIf(skipWithoutEngine)("the real Pulumi engine (scripts/engine.sh)", () => {
  it("builds the CLI version pinned in tools/engine/cli/go.mod and stamps it", () => {
    const pinned = /github\.com\/pulumi\/pulumi\/pkg\/v3 (v\S+)/.exec(goMod("cli"))![1];
    const { pulumi } = requireEngine();
    const result = spawnSync(pulumi, ["version"], {
      encoding: "utf8",
      env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" },
    });
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(pinned);
  });

  it("puts the language hosts and the launchers beside it", () => {
    const { binDir } = requireEngine();
    const names = ["pulumi-language-yaml", "pulumi-resource-pulumi-nodejs", "pulumi-language-python-exec"];
    for (const language of ["nodejs", "python", "go"]) {
      const pinned = /github\.com\/pulumi\/pulumi\/sdk\/v3 (v\S+)/.exec(goMod(path.join("hosts", language)))![1];
      names.push(`pulumi-language-${language}`, `pulumi-language-${language}-${pinned}`);
    }
    for (const name of names) expect(fs.statSync(path.join(binDir, name)).mode & 0o111, name).not.toBe(0);
    expect(fs.readdirSync(binDir).sort()).toEqual(["pulumi", ...names].sort());
  });

  it("the Node.js, Python and Go hosts are one front (tools/engine/langhost) that names its old host when it is missing", () => {
    const { binDir } = requireEngine();
    const front = fs.readFileSync(path.join(binDir, "pulumi-language-nodejs"));
    for (const language of ["python", "go"]) {
      expect(fs.readFileSync(path.join(binDir, `pulumi-language-${language}`)).equals(front), language).toBe(true);
    }
    // Alone in a directory, the front says what it needs, in one line, and exits non-zero.
    const alone = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-front-"));
    try {
      fs.copyFileSync(path.join(binDir, "pulumi-language-python"), path.join(alone, "pulumi-language-python"));
      fs.chmodSync(path.join(alone, "pulumi-language-python"), 0o755);
      const result = spawnSync(path.join(alone, "pulumi-language-python"), [], { encoding: "utf8", timeout: 60_000 });
      expect(result.status).not.toBe(0);
      expect(result.stderr).toMatch(
        /expected one pulumi-language-python-v<version> beside .* found 0 \(run `npm run engine`\)/,
      );
    } finally {
      fs.rmSync(alone, { recursive: true, force: true });
    }
  });

  it("is reused, not rebuilt: a second run prints the same directory at once", () => {
    const { binDir } = requireEngine();
    const started = Date.now();
    const result = spawnSync("bash", [path.resolve(__dirname, "..", "..", "scripts", "engine.sh")], {
      encoding: "utf8",
    });
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(binDir);
    expect(result.stderr).not.toMatch(/go build|building/);
    // A guard against a rebuild (minutes), not a measure of speed.
    expect(Date.now() - started).toBeLessThan(60_000);
  });
});

/**
 * The engine that scripts/engine.sh builds: the pinned CLI reports its pinned version, and the YAML language host and
 * the dynamic-provider launcher sit beside it.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
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

  it("puts the YAML language host and the dynamic-provider launcher beside it", () => {
    const { binDir } = requireEngine();
    for (const name of ["pulumi-language-yaml", "pulumi-resource-pulumi-nodejs"]) {
      expect(fs.statSync(path.join(binDir, name)).mode & 0o111).not.toBe(0);
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
    expect(result.stderr).not.toMatch(/building/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

/**
 * The real Pulumi engine for the tests: the CLI, its YAML, Node.js, Python and Go language hosts and the launchers that
 * `npm run engine` (scripts/engine.sh) builds from the Go module proxy into a cache. Tests that need it call
 * `describe.skipIf(!engine.available)` and print `engine.reason` once; on the project's machines and in CI
 * (`.ci/run` builds the engine first) they run.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { engineEnv as engineEnvOf } from "../../dist/tools/automation/env.js";

const repoRoot = path.resolve(__dirname, "..", "..");

export type Engine = { available: true; binDir: string; pulumi: string } | { available: false; reason: string };

function findEngine(): Engine {
  const result = spawnSync("bash", [path.join(repoRoot, "scripts", "engine.sh"), "--print-dir"], { encoding: "utf8" });
  if (result.status !== 0) {
    return { available: false, reason: result.stderr.trim() || "engine: scripts/engine.sh --print-dir failed" };
  }
  const binDir = result.stdout.trim();
  return { available: true, binDir, pulumi: path.join(binDir, "pulumi") };
}

/** Found once per test file (at collection, synchronously). */
export const engine: Engine = findEngine();

/** The engine's environment for a test (tools/automation/env.ts). */
export const engineEnv = (workDir: string, binDir: string): Record<string, string> =>
  engineEnvOf(workDir, binDir, "engine-tests");

/**
 * Whether the real-engine tests of a file skip: only where the engine is missing and this is not CI (in CI a
 * missing engine is a failure — `.ci/run` builds it — so the tests run and fail on `requireEngine`).
 */
export const skipWithoutEngine: boolean = !engine.available && process.env.CI !== "true";
if (!engine.available && skipWithoutEngine) console.log(`Skipping the real-engine tests: ${engine.reason}`);

/** The engine's bin directory, or an error naming what is missing. */
export function requireEngine(): { binDir: string; pulumi: string } {
  if (!engine.available) throw new Error(engine.reason);
  return engine;
}

/**
 * Benchmark "app-yaml" (only with `--only=app-yaml`, and `CPLN_BENCH_PULUMIVERSE` set): the app of bench/app.ts as a
 * Pulumi YAML program (bench/programs/app-yaml/{native,pulumiverse}), run as a user runs it — `pulumi up --yes
 * --skip-preview` and `pulumi destroy --yes --skip-preview` in the program's directory, no Automation API — against
 * cpln-local answering every API request 50 ms late (`CPLN_BENCH_APP_DELAY_MS`). The YAML language host is a Go
 * binary that asks each plugin for its schema; no Node.js program runs, so what differs between the two is the
 * provider alone. Steps `up`, `edit` (app:greeting), `destroy`, the adapters one after the other in each step,
 * `CPLN_BENCH_APP_ROUNDS` rounds (3): medians, and the speed-up (pulumiverse / native) as the median of the per-round
 * ones. The native plugin is the released single executable (scripts/plugin-binary.sh).
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import path from "node:path";
import type { RunningServer } from "../server/index.js";
import { engineEnv, withoutCheckoutBin } from "../tools/automation/env.js";
import { DELAY_MS, delayedServer, installPulumiverse, nativeArchive, pulumiverseDir } from "./app.js";
import type { BenchContext } from "./context.js";
import { engineBinDir, installPlugin } from "./engine.js";
import { countByMethod } from "./lib/app-world.js";
import { repoRoot } from "./lib/procs.js";
import { median, type Report } from "./lib/report.js";

const ROUNDS = Number(process.env.CPLN_BENCH_APP_ROUNDS ?? 3);
const adapters = ["native", "pulumiverse"] as const;
type Adapter = (typeof adapters)[number];
const steps = ["up", "edit", "destroy"] as const;
type Step = (typeof steps)[number];

/** Runs `pulumi <args>` in `cwd` (asynchronously: cpln-local answers from this process), failing on a non-zero exit. */
function pulumi(binDir: string, env: Record<string, string>, cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(binDir, "pulumi"), args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve(output) : reject(new Error(`pulumi ${args.join(" ")} exited ${code}:\n${output}`)),
    );
  });
}

/** A stack of the adapter's YAML program in a directory of its own, with both providers' config. */
async function stackDir(
  binDir: string,
  env: Record<string, string>,
  workDir: string,
  adapter: Adapter,
  server: RunningServer,
): Promise<string> {
  const dir = path.join(workDir, adapter);
  fs.mkdirSync(dir);
  fs.copyFileSync(
    path.join(repoRoot, "bench", "programs", "app-yaml", adapter, "Pulumi.yaml"),
    path.join(dir, "Pulumi.yaml"),
  );
  const run = (args: string[]) => pulumi(binDir, env, dir, [...args, "--non-interactive"]);
  await run(["stack", "init", `yaml-${adapter}`]);
  const namespace = adapter === "native" ? "cpln-native" : "cpln";
  await run(["config", "set", `${namespace}:org`, server.org]);
  await run(["config", "set", `${namespace}:endpoint`, server.url]);
  await run(["config", "set", "--secret", `${namespace}:token`, server.adminKey]);
  await run(["config", "set", "domain", `${adapter}-yaml.app.example.com`]);
  return dir;
}

export async function appYamlRuns(ctx: BenchContext, report: Report): Promise<void> {
  const found = engineBinDir();
  const pulumiverse = pulumiverseDir();
  if ("reason" in found || !pulumiverse) {
    process.stdout.write(
      `# app-yaml: skipped — ${"reason" in found ? found.reason : "CPLN_BENCH_PULUMIVERSE not set"}\n`,
    );
    return;
  }
  const { binDir } = found;
  const workDir = ctx.tempFile("app-yaml");
  fs.mkdirSync(workDir, { recursive: true });
  const env = withoutCheckoutBin(engineEnv(workDir, binDir, "app-yaml-bench"));
  installPlugin(binDir, env, workDir, "cpln-native", "0.1.0", nativeArchive(ctx.tempFile("sea")));
  installPulumiverse(ctx, pulumiverse, binDir, env, workDir);
  const server = await delayedServer(ctx);
  try {
    const dirs = {} as Record<Adapter, string>;
    for (const adapter of adapters) dirs[adapter] = await stackDir(binDir, env, workDir, adapter, server);
    const seconds = Object.fromEntries(
      adapters.map((adapter) => [adapter, Object.fromEntries(steps.map((step) => [step, [] as number[]]))]),
    ) as Record<Adapter, Record<Step, number[]>>;
    const requests = {} as Record<Adapter, Record<Step, Record<string, number>>>;
    for (let round = 0; round < ROUNDS; round++) {
      for (const step of steps) {
        for (const adapter of adapters) {
          const run = (args: string[]) => pulumi(binDir, env, dirs[adapter], [...args, "--non-interactive"]);
          if (step !== "destroy")
            await run(["config", "set", "greeting", step === "up" ? "hello" : `bonjour ${round}`]);
          server.clearRequests();
          const started = performance.now();
          await run(step === "destroy" ? ["destroy", "--yes", "--skip-preview"] : ["up", "--yes", "--skip-preview"]);
          const took = (performance.now() - started) / 1000;
          seconds[adapter][step].push(took);
          (requests[adapter] ??= {} as Record<Step, Record<string, number>>)[step] = countByMethod(server.requests());
          process.stdout.write(
            `# app-yaml: round ${round + 1} ${step} ${adapter} ${took.toFixed(2)} s ${JSON.stringify(requests[adapter][step])}\n`,
          );
        }
      }
    }
    for (const step of steps) {
      for (const adapter of adapters) {
        report.add({
          name: `app-yaml.${adapter}.${step}.seconds`,
          value: median(seconds[adapter][step]),
          unit: "s",
          n: ROUNDS,
          rounds: seconds[adapter][step],
          byMethod: requests[adapter][step],
          delayMs: DELAY_MS,
        });
      }
      const speedups = seconds.native[step].map((ours, round) => seconds.pulumiverse[step][round]! / ours);
      report.add({
        name: `app-yaml.native.${step}.speedup-over-pulumiverse`,
        value: median(speedups),
        unit: "ratio",
        n: speedups.length,
        rounds: speedups,
        what: "median over rounds of @pulumiverse/cpln's `pulumi up`/`destroy` wall time / the native plugin's, YAML",
        target: ">= 2",
        met: median(speedups) >= 2,
      });
    }
  } finally {
    await server.close();
  }
}

/**
 * Benchmark "app-yaml" (only with `--only=app-yaml`, and `CPLN_BENCH_PULUMIVERSE` set): the app of bench/app.ts as a
 * Pulumi YAML program (bench/programs/app-yaml/{native,pulumiverse}), run as a user runs it — `pulumi up --yes
 * --skip-preview` and `pulumi destroy --yes --skip-preview` in the program's directory, no Automation API — against
 * cpln-local answering every API request 50 ms late (`CPLN_BENCH_APP_DELAY_MS`). The YAML language host is a Go
 * binary that asks each plugin for its schema; no Node.js program runs, so what differs between the two is the
 * provider alone. A third program, `floor` (bench/programs/app-yaml/floor), is the same graph of 7 resources, edges
 * and edit made of the Go provider's random strings (bench/go-provider: answers at once, sends no request): what the
 * CLI and the engine cost on this graph with a provider that costs nothing.
 *
 * Steps `up`, `edit` (app:greeting), `destroy`, the programs one after the other in each step (every other round in
 * reverse order), `CPLN_BENCH_APP_ROUNDS` rounds (3): medians, each ratio the median of the per-round ones — the
 * speed-up (pulumiverse / native), the best any provider could reach (pulumiverse / floor), and the speed-up of what
 * a provider controls (pulumiverse − floor) / (native − floor). The native plugin is the released single executable
 * (scripts/plugin-binary.sh).
 * `CPLN_BENCH_APP_LOG_DIR=<dir>` writes each command's engine log there (lib/cli-timer.ts, for bench/log-phases.ts).
 * `CPLN_BENCH_APP_BASE_ARCHIVE=<plugin archive>` adds `native-base`, the native program on that plugin (e.g. the
 * single executable of the commit before a change, in a PULUMI_HOME of its own), to the same rounds: before and after
 * side by side, its ratio native-base / native per step.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import path from "node:path";
import type { RunningServer } from "../server/index.js";
import { engineEnv, withoutCheckoutBin } from "../tools/automation/env.js";
import { DELAY_MS, delayedServer, installPulumiverse, nativeArchive, pulumiverseDir } from "./app.js";
import { goArchive } from "./coldstart.js";
import type { BenchContext } from "./context.js";
import { engineBinDir, installPlugin } from "./engine.js";
import { countByMethod } from "./lib/app-world.js";
import { cliTimer } from "./lib/cli-timer.js";
import { repoRoot } from "./lib/procs.js";
import { median, type Report } from "./lib/report.js";

const ROUNDS = Number(process.env.CPLN_BENCH_APP_ROUNDS ?? 3);
const BASE_ARCHIVE = process.env.CPLN_BENCH_APP_BASE_ARCHIVE;
type Adapter = "floor" | "native" | "native-base" | "pulumiverse";
const adapters: readonly Adapter[] = BASE_ARCHIVE
  ? ["floor", "native", "native-base", "pulumiverse"]
  : ["floor", "native", "pulumiverse"];
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
    path.join(repoRoot, "bench", "programs", "app-yaml", adapter === "native-base" ? "native" : adapter, "Pulumi.yaml"),
    path.join(dir, "Pulumi.yaml"),
  );
  const run = (args: string[]) => pulumi(binDir, env, dir, [...args, "--non-interactive"]);
  await run(["stack", "init", `yaml-${adapter}`]);
  await run(["config", "set", "domain", `${adapter}-yaml.app.example.com`]);
  // The floor's provider gets a secret token too (and ignores it): every stack decrypts one secret of config.
  if (adapter === "floor") {
    await run(["config", "set", "--secret", "gorandom:token", server.adminKey]);
    return dir;
  }
  const namespace = adapter === "pulumiverse" ? "cpln" : "cpln-native";
  await run(["config", "set", `${namespace}:org`, server.org]);
  await run(["config", "set", `${namespace}:endpoint`, server.url]);
  await run(["config", "set", "--secret", `${namespace}:token`, server.adminKey]);
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
  const workDir = ctx.tempFile("app-yaml");
  fs.mkdirSync(workDir, { recursive: true });
  const logDir = process.env.CPLN_BENCH_APP_LOG_DIR;
  // With a log directory, the timed `pulumi` of lib/cli-timer.ts writes each up/destroy's engine log there.
  const binDir = logDir ? cliTimer(found.binDir, path.join(workDir, "cli"), logDir).binDir : found.binDir;
  const env = withoutCheckoutBin(engineEnv(workDir, binDir, "app-yaml-bench"));
  installPlugin(binDir, env, workDir, "cpln-native", "0.1.0", nativeArchive(ctx.tempFile("sea")));
  installPulumiverse(ctx, pulumiverse, binDir, env, workDir);
  const goDir = ctx.tempFile("go");
  fs.mkdirSync(goDir, { recursive: true });
  installPlugin(binDir, env, workDir, "gorandom", "0.1.0", goArchive(goDir, "0.1.0"));
  // native-base: the same plugin name and version, so a PULUMI_HOME of its own (the backend is shared).
  const envOf = (adapter: Adapter): Record<string, string> =>
    adapter === "native-base" ? { ...env, PULUMI_HOME: path.join(workDir, "pulumi-home-base") } : env;
  if (BASE_ARCHIVE) {
    fs.mkdirSync(envOf("native-base").PULUMI_HOME!);
    installPlugin(binDir, envOf("native-base"), workDir, "cpln-native", "0.1.0", path.resolve(BASE_ARCHIVE));
  }
  const server = await delayedServer(ctx);
  try {
    const dirs = {} as Record<Adapter, string>;
    for (const adapter of adapters) dirs[adapter] = await stackDir(binDir, envOf(adapter), workDir, adapter, server);
    const seconds = Object.fromEntries(
      adapters.map((adapter) => [adapter, Object.fromEntries(steps.map((step) => [step, [] as number[]]))]),
    ) as Record<Adapter, Record<Step, number[]>>;
    const requests = {} as Record<Adapter, Record<Step, Record<string, number>>>;
    for (let round = 0; round < ROUNDS; round++) {
      for (const step of steps) {
        // Every other round in reverse order, so that no program always runs right after another one.
        for (const adapter of round % 2 ? [...adapters].reverse() : adapters) {
          const adapterEnv = { ...envOf(adapter), CPLN_BENCH_APP_ADAPTER: `yaml-${adapter}` };
          const run = (args: string[]) => pulumi(binDir, adapterEnv, dirs[adapter], [...args, "--non-interactive"]);
          if (step !== "destroy")
            await run(["config", "set", "greeting", step === "up" ? "hello" : `bonjour ${round}`]);
          server.clearRequests();
          const started = performance.now();
          const output = await run(
            step === "destroy" ? ["destroy", "--yes", "--skip-preview"] : ["up", "--yes", "--skip-preview"],
          );
          const took = (performance.now() - started) / 1000;
          seconds[adapter][step].push(took);
          const log = server.requests();
          // The floor's provider sends nothing; a request here would mean the graph is not what is measured.
          if (adapter === "floor" && log.length > 0) throw new Error(`app-yaml floor ${step}: ${log.length} requests`);
          checkSummary(adapter, step, output);
          (requests[adapter] ??= {} as Record<Step, Record<string, number>>)[step] = countByMethod(log);
          process.stdout.write(
            `# app-yaml: round ${round + 1} ${step} ${adapter} ${took.toFixed(2)} s ${JSON.stringify(requests[adapter][step])}\n`,
          );
        }
      }
    }
    reportSteps(report, seconds, requests);
  } finally {
    await server.close();
  }
}

/**
 * The engine's summary must say the step did what it is for (7 created, 1 updated, 7 deleted; the stack itself is
 * counted beside the 7) for the floor and ours; @pulumiverse/cpln's edit updates the domain too, so it is not held.
 */
function checkSummary(adapter: Adapter, step: Step, output: string): void {
  if (adapter === "pulumiverse") return;
  const count = (op: string): number => Number(new RegExp(`(\\d+) ${op}`).exec(output)?.[1] ?? 0);
  const ok = step === "up" ? count("created") >= 7 : step === "edit" ? count("updated") === 1 : count("deleted") >= 7;
  if (!ok) throw new Error(`app-yaml ${adapter} ${step}: not what the step is for:\n${output}`);
}

/** The requests a provider cannot avoid on the app's critical path: gvc → identity → policy → workload → domain. */
const serialAnswers: Record<Step, number> = { up: 5, edit: 1, destroy: 5 };

/** Per step the medians of each program, and the ratios round by round (their median the figure). */
function reportSteps(
  report: Report,
  seconds: Record<Adapter, Record<Step, number[]>>,
  requests: Record<Adapter, Record<Step, Record<string, number>>>,
): void {
  for (const step of steps) {
    for (const adapter of adapters) {
      report.add({
        name: `app-yaml.${adapter}.${step}.seconds`,
        value: median(seconds[adapter][step]),
        unit: "s",
        n: ROUNDS,
        rounds: seconds[adapter][step],
        byMethod: requests[adapter][step],
        delayMs: adapter === "floor" ? 0 : DELAY_MS,
      });
    }
    const { floor, native, pulumiverse } = {
      floor: seconds.floor[step],
      native: seconds.native[step],
      pulumiverse: seconds.pulumiverse[step],
    };
    const ratios = (name: string, what: string, of: (round: number) => number, target?: string): void => {
      const rounds = native.map((_, round) => Number(of(round).toFixed(3)));
      report.add({
        name: `app-yaml.${name}.${step}`,
        value: median(rounds),
        unit: "ratio",
        n: rounds.length,
        rounds,
        what,
        ...(target ? { target, met: median(rounds) >= 2 } : {}),
      });
    };
    ratios(
      "native.speedup-over-pulumiverse",
      "median over rounds of @pulumiverse/cpln's `pulumi up`/`destroy` wall time / the native plugin's, YAML",
      (round) => pulumiverse[round]! / native[round]!,
      ">= 2",
    );
    ratios(
      "floor.best-possible-speedup",
      "pulumiverse / floor: the speed-up of a provider that costs nothing (below 2: 2x is out of reach on this engine)",
      (round) => pulumiverse[round]! / floor[round]!,
    );
    ratios(
      "floor.best-possible-speedup-with-requests",
      `pulumiverse / (floor + ${serialAnswers[step]} serial answers of ${DELAY_MS} ms): a provider that sends only ` +
        "the requests on the critical path and costs nothing else",
      (round) => pulumiverse[round]! / (floor[round]! + (serialAnswers[step] * DELAY_MS) / 1000),
    );
    ratios(
      "native.controlled-speedup",
      "(pulumiverse - floor) / (native - floor): the speed-up of the time above the floor, which a provider controls",
      (round) => (pulumiverse[round]! - floor[round]!) / (native[round]! - floor[round]!),
    );
    if (BASE_ARCHIVE) {
      ratios(
        "native.speedup-over-base",
        "native-base / native: the plugin of CPLN_BENCH_APP_BASE_ARCHIVE against this checkout's, same rounds",
        (round) => seconds["native-base"][step][round]! / native[round]!,
      );
    }
  }
}

/**
 * Benchmark "app" (only with `--only=app`): examples/app — a gvc, a secret, an identity, a policy, a volume set, a
 * stateful workload and a domain — through the REAL Pulumi engine (scripts/engine.sh) against cpln-local answering
 * every API request 50 ms late (fault injection `rate=1,modes=delay,delayMs=50`, `CPLN_BENCH_APP_DELAY_MS` for
 * another delay; its own routes `/_cpln-local/*` are never delayed), as a remote API would. Adapters: the package's `dynamic` classes and the `native` plugin, and,
 * when `CPLN_BENCH_PULUMIVERSE` names a directory holding a build of `@pulumiverse/cpln` (bench/README.md §10:
 * `plugin/pulumi-resource-cpln`, and the same program written with its classes in `app/` and `pair/`), `pulumiverse`.
 *
 * Steps, each one engine command (tools/automation): `up` (creates the 7), `edit` (an up that changes one container's
 * env: `app:greeting`), `no-op` (an up with nothing to change: what an engine command costs with no request, the
 * floor under the others), `destroy`. Wall time as the bench process sees it (the Automation API's call: the engine
 * command, then `stack output` twice and `stack history`), the engine command's own (`pulumi up` / `pulumi destroy`,
 * timed by lib/cli-timer.ts: what a CLI user waits for), and every request cpln-local received during the step,
 * counted by method. `native` is the plugin as released (scripts/plugin-binary.sh, one executable);
 * `CPLN_BENCH_APP_LAUNCHER=1` adds `native-launcher`, the `npm run plugin:archive` archive (node on PATH). Within a step the adapters run one after the other, so load from elsewhere
 * drifts over all alike; the four steps run ROUNDS times (3, or `CPLN_BENCH_APP_ROUNDS`), each figure is the median
 * over the rounds, and a speed-up (pulumiverse time / ours) the median of the per-round ones (target ≥ 2).
 *
 * Then the concurrent edit (app-concurrent.ts): per adapter, two stacks manage one existing workload of two
 * containers, each changes a different container, both ups at once; the server's record says whether both edits were
 * kept.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import path from "node:path";
import { startServer, type RunningServer, type SeedDocument } from "../server/index.js";
import type { EngineDriver, DriverReply } from "../tools/automation/client.js";
import { engineEnv, withoutCheckoutBin } from "../tools/automation/env.js";
import { concurrentEdit } from "./app-concurrent.js";
import { countByMethod, startDriver, type AppAdapter, type AppWorld } from "./lib/app-world.js";
import { cliTimer, type CliRun, type CliTimer } from "./lib/cli-timer.js";
import type { BenchContext } from "./context.js";
import { engineBinDir, installPlugin } from "./engine.js";
import { distDir, repoRoot } from "./lib/procs.js";
import { median, type Report } from "./lib/report.js";

/** The delay added to every API answer: 50 ms, or `CPLN_BENCH_APP_DELAY_MS`. */
export const DELAY_MS = Number(process.env.CPLN_BENCH_APP_DELAY_MS ?? 50);
if (!(DELAY_MS >= 0))
  throw new Error(`CPLN_BENCH_APP_DELAY_MS must be >= 0 (got ${process.env.CPLN_BENCH_APP_DELAY_MS})`);
const ROUNDS = Number(process.env.CPLN_BENCH_APP_ROUNDS ?? 3);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) {
  throw new Error(`CPLN_BENCH_APP_ROUNDS must be a positive integer (got ${process.env.CPLN_BENCH_APP_ROUNDS})`);
}
/** @pulumiverse/cpln's version: the SDK asks the engine for plugin `cpln` at the version of its package.json. */
export const PULUMIVERSE_VERSION = "0.0.89";
const NATIVE_VERSION = "0.1.0";

const steps = ["up", "edit", "no-op", "destroy"] as const;
type Step = (typeof steps)[number];
const RESOURCES = 7;
const expectedSummary: Record<Step, Record<string, number>> = {
  up: { create: RESOURCES },
  edit: { update: 1, same: RESOURCES - 1 },
  "no-op": { same: RESOURCES },
  destroy: { delete: RESOURCES },
};

interface Measured {
  seconds: number;
  /** The engine command's own time (`pulumi up` / `pulumi destroy`), without the Automation API's later CLI runs. */
  engineSeconds: number;
  /** Every CLI run of the step (the engine command, then the Automation API's reads). */
  cli: CliRun[];
  requests: number;
  byMethod: Record<string, number>;
  /** `METHOD path` of every request, in the order received. */
  calls: string[];
  /** The engine's summary of the step. */
  summary: Record<string, number>;
  /** Whether the summary is what the step is for (see checkSummary). */
  asExpected: boolean;
}

/** Where a build of @pulumiverse/cpln is, if one is given. */
export function pulumiverseDir(): string | undefined {
  const dir = process.env.CPLN_BENCH_PULUMIVERSE;
  if (!dir) return undefined;
  for (const file of ["plugin/pulumi-resource-cpln", "app/Pulumi.yaml", "pair/Pulumi.yaml"]) {
    if (!fs.existsSync(path.join(dir, file))) throw new Error(`CPLN_BENCH_PULUMIVERSE=${dir} has no ${file}`);
  }
  return path.resolve(dir);
}

/**
 * Whether the engine did what the step is for. Ours must (the run fails otherwise); @pulumiverse/cpln's summary is
 * kept beside its figures when it did more (e.g. an update in a no-op: a diff it sees in what the server answered).
 */
function checkSummary(adapter: AppAdapter, step: Step, reply: Extract<DriverReply, { ok: true }>): boolean {
  for (const [op, count] of Object.entries(expectedSummary[step])) {
    // Besides the program's resources the engine counts the stack itself (and a default provider).
    const got = reply.summary?.[op] ?? 0;
    if (got < count || got > count + 2) {
      const text = `app ${adapter} ${step}: the engine's summary is ${JSON.stringify(reply.summary)}, not ${op}: ${count}`;
      if (adapter !== "pulumiverse") throw new Error(text);
      process.stdout.write(`# ${text}\n`);
      return false;
    }
  }
  return true;
}

/** Every answer of the API (not of `/_cpln-local`) must be at least DELAY_MS late, or the figures mean nothing. */
async function checkDelay(server: RunningServer): Promise<number> {
  const started = performance.now();
  const answer = await fetch(`${server.url}/org/${server.org}`, {
    headers: { authorization: `Bearer ${server.adminKey}` },
  });
  await answer.arrayBuffer();
  const ms = performance.now() - started;
  if (answer.status !== 200 || ms < DELAY_MS) {
    throw new Error(
      `GET /org/${server.org} answered ${answer.status} in ${ms.toFixed(1)} ms: not delayed by ${DELAY_MS} ms`,
    );
  }
  return ms;
}

/**
 * The native plugin's archive: the single executable as released (scripts/plugin-binary.sh), or with `launcher` the
 * archive of `npm run plugin:archive` (a shell launcher running `node` on the bundled plugin).
 * `CPLN_BENCH_PLUGIN_ARCHIVE` names another archive for `native`.
 */
export function nativeArchive(outDir: string, launcher = false): string {
  const given = process.env.CPLN_BENCH_PLUGIN_ARCHIVE;
  if (given && !launcher) return path.resolve(given);
  const [command, args] = launcher
    ? [process.execPath, [path.join(distDir, "tools", "native", "archive.js"), "--out", outDir]]
    : ["bash", [path.join(repoRoot, "scripts", "plugin-binary.sh"), "--out", outDir]];
  const printed = execFileSync(command, args, {
    cwd: repoRoot,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  return printed.trim().split("\n").pop()!;
}

/** Installs the @pulumiverse/cpln build's plugin (`cpln` at its SDK's version) into `env`'s PULUMI_HOME. */
export function installPulumiverse(
  ctx: BenchContext,
  pulumiverse: string,
  binDir: string,
  env: Record<string, string>,
  workDir: string,
): void {
  const archive = path.join(ctx.tempDir, `pulumi-resource-cpln-v${PULUMIVERSE_VERSION}.tar.gz`);
  execFileSync("tar", ["-czf", archive, "-C", path.join(pulumiverse, "plugin"), "pulumi-resource-cpln"]);
  installPlugin(binDir, env, workDir, "cpln", PULUMIVERSE_VERSION, archive);
}

/** cpln-local with the examples' seed, recording requests and answering every API request `DELAY_MS` late. */
export function delayedServer(ctx: BenchContext): Promise<RunningServer> {
  const seed = JSON.parse(fs.readFileSync(path.join(repoRoot, "examples", "seed.json"), "utf8")) as SeedDocument;
  return startServer({
    host: "127.0.0.1",
    port: 0,
    org: ctx.org,
    adminKey: ctx.adminKey,
    seed,
    recordRequests: true,
    faults: { rate: 1, modes: ["delay"], delayMs: DELAY_MS },
  });
}

/** The engine's environment with both plugins installed, and cpln-local answering every API request late. */
async function appWorld(ctx: BenchContext, realBinDir: string, timer: CliTimer): Promise<AppWorld> {
  const pulumiverse = pulumiverseDir();
  const workDir = ctx.tempFile("app");
  fs.mkdirSync(workDir, { recursive: true });
  // The dynamic-provider host starts in the workspace's directory and resolves @pulumi/pulumi and cpln-pulumi there.
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(workDir, "node_modules"));
  const binDir = timer.binDir;
  const env = withoutCheckoutBin(engineEnv(workDir, binDir, "app-bench"));
  installPlugin(binDir, env, workDir, "cpln-native", NATIVE_VERSION, nativeArchive(ctx.tempFile("sea")));
  const envOf: AppWorld["envOf"] = {};
  if (process.env.CPLN_BENCH_APP_LAUNCHER === "1") {
    // Same plugin name and version, so a PULUMI_HOME of its own (the backend is shared).
    const home = path.join(workDir, "pulumi-home-launcher");
    fs.mkdirSync(home);
    envOf["native-launcher"] = { ...env, PULUMI_HOME: home };
    const archive = nativeArchive(ctx.tempFile("launcher"), true);
    installPlugin(binDir, envOf["native-launcher"], workDir, "cpln-native", NATIVE_VERSION, archive);
  }
  if (pulumiverse) installPulumiverse(ctx, pulumiverse, binDir, env, workDir);
  const server = await delayedServer(ctx);
  const adapters: AppAdapter[] = ["dynamic", "native"];
  if (envOf["native-launcher"]) adapters.push("native-launcher");
  if (pulumiverse) adapters.push("pulumiverse");
  return { binDir, workDir, env, envOf, server, adapters, pulumiverse };
}

/** Per step and adapter the medians of both times, and each of ours against pulumiverse's (median of the per-round ratios). */
function reportRounds(
  report: Report,
  rounds: Record<AppAdapter, Record<Step, Measured>>[],
  adapters: AppAdapter[],
  pulumiverse: boolean,
): void {
  for (const step of steps) {
    for (const adapter of adapters) {
      const seconds = rounds.map((measured) => measured[adapter][step].seconds);
      const engineSeconds = rounds.map((measured) => measured[adapter][step].engineSeconds);
      report.add({
        name: `app.${adapter}.${step}.seconds`,
        value: median(seconds),
        unit: "s",
        n: seconds.length,
        rounds: seconds,
        engineSeconds: median(engineSeconds),
        engineRounds: engineSeconds,
        cli: rounds[rounds.length - 1]![adapter][step].cli,
        requests: rounds.map((measured) => measured[adapter][step].requests),
        byMethod: rounds[rounds.length - 1]![adapter][step].byMethod,
        calls: rounds[rounds.length - 1]![adapter][step].calls,
        summaries: rounds.map((measured) => measured[adapter][step].summary),
        asExpected: rounds.every((measured) => measured[adapter][step].asExpected),
        delayMs: DELAY_MS,
      });
    }
    if (!pulumiverse || step === "no-op") continue;
    for (const adapter of adapters.filter((name) => name !== "pulumiverse")) {
      for (const [suffix, time, what] of [
        ["", (m: Measured) => m.seconds, "the Automation API's call"],
        [".engine", (m: Measured) => m.engineSeconds, "the engine command alone (pulumi up / destroy)"],
      ] as const) {
        const speedups = rounds.map((measured) => time(measured.pulumiverse[step]) / time(measured[adapter][step]));
        const speedup = median(speedups);
        report.add({
          name: `app.${adapter}.${step}.speedup-over-pulumiverse${suffix}`,
          value: speedup,
          unit: "ratio",
          n: speedups.length,
          rounds: speedups,
          what: `median over rounds of @pulumiverse/cpln's wall time / this adapter's: ${what}`,
          target: ">= 2",
          met: speedup >= 2,
        });
      }
    }
  }
}

export async function appRuns(ctx: BenchContext, report: Report): Promise<void> {
  const found = engineBinDir();
  if ("reason" in found) {
    process.stdout.write(`# app: skipped — ${found.reason}\n`);
    return;
  }
  const timer = cliTimer(found.binDir, ctx.tempFile("cli"), process.env.CPLN_BENCH_APP_LOG_DIR);
  const world = await appWorld(ctx, found.binDir, timer);
  const { server, adapters } = world;
  if (!world.pulumiverse) report.note("app: CPLN_BENCH_PULUMIVERSE not set: dynamic and native only");
  const drivers = new Map<AppAdapter, EngineDriver>();
  try {
    report.note(`app: GET /org answered in ${(await checkDelay(server)).toFixed(1)} ms (${DELAY_MS} ms added)`);
    for (const adapter of adapters) {
      const config = { "app:greeting": "hello", "app:domain": `${adapter}.app.example.com` };
      drivers.set(adapter, await startDriver(world, adapter, "app", `app-${adapter}`, config));
    }
    const rounds: Record<AppAdapter, Record<Step, Measured>>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const measured = {} as Record<AppAdapter, Record<Step, Measured>>;
      for (const step of steps) {
        for (const adapter of adapters) {
          const driver = drivers.get(adapter)!;
          const greeting = step === "up" ? "hello" : `bonjour ${round}`;
          if (step !== "destroy") await driver.run({ cmd: "config", config: { "app:greeting": greeting } });
          server.clearRequests();
          timer.take();
          const started = performance.now();
          const reply = await driver.run(step === "destroy" ? { cmd: "destroy" } : { cmd: "up" });
          const seconds = (performance.now() - started) / 1000;
          const log = server.requests();
          const cli = timer.take();
          const engine = cli.find((run) => run.command.startsWith(step === "destroy" ? "destroy" : "up"));
          if (!engine) throw new Error(`app ${adapter} ${step}: no engine command among ${JSON.stringify(cli)}`);
          const asExpected = checkSummary(adapter, step, reply);
          (measured[adapter] ??= {} as Record<Step, Measured>)[step] = {
            seconds,
            engineSeconds: engine.seconds,
            cli,
            requests: log.length,
            byMethod: countByMethod(log),
            calls: log.map((request) => `${request.method} ${request.path}`),
            summary: reply.summary ?? {},
            asExpected,
          };
          process.stdout.write(
            `# app: round ${round + 1} ${step} ${adapter} ${seconds.toFixed(2)} s (engine ${engine.seconds.toFixed(2)} s) ` +
              `${JSON.stringify(countByMethod(log))}\n`,
          );
        }
      }
      rounds.push(measured);
    }
    reportRounds(report, rounds, adapters, world.pulumiverse !== undefined);
  } finally {
    for (const driver of drivers.values()) await driver.close();
  }
  try {
    // native-launcher is the same provider code as native: its concurrent edit would say nothing new.
    for (const adapter of adapters.filter((name) => name !== "native-launcher")) {
      await concurrentEdit(world, adapter, report);
    }
  } finally {
    await server.close();
  }
}

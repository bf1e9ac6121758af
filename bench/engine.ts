/**
 * Benchmark "engine" (`--only=engine`, never by default in `--quick`): whole runs by the REAL Pulumi engine
 * (scripts/engine.sh) of one program — 100 volume sets and 20 policies, each policy on five of them
 * (bench/programs/engine) — through three providers against one cpln-local:
 *
 * - `dynamic`: the package's dynamic resources (the engine starts Pulumi's dynamic-provider host);
 * - `native`: the cpln-native plugin, installed from its release archive (`pulumi plugin install ... --file`);
 * - `thin`: the thinnest provider (bench/servers/thinnest-provider.ts: one POST per create, one PATCH per update,
 *   one DELETE per delete, nothing else), installed the same way as `pulumi-resource-thin`, so the engine starts
 *   it exactly as it starts the native plugin.
 *
 * Steps, each one engine command run through the Automation API (tools/automation): `up` (create all), `edit`
 * (an up that changes every description), `no-op` (an up with nothing to do), `destroy`. Wall time per step as the
 * bench process sees it (CLI start, the inline program, the plugins, the requests), and the requests cpln-local's
 * request log (`GET /_cpln-local/requests`) received during the step, all and mutating. Steps run adapter by adapter
 * within a step (thin, native, dynamic), so load from elsewhere on the machine drifts over all three alike; the four
 * steps run ROUNDS times (3, or `CPLN_BENCH_ENGINE_ROUNDS`) and each figure is the median over the rounds (a ratio:
 * the median of the per-round ratios). The engine
 * runs with its default `--parallel`: GOMAXPROCS × 4 (pulumi/pulumi pkg/cmd/pulumi/operations/up.go,
 * `defaultParallel`, v3.274.1), 8 on a 2-core machine. Ratio = thin time / adapter time (target ≥ 0.8 for native).
 *
 * Skipped, with one line, when the engine is not built (`npm run engine`). The native plugin's archive is built
 * (`dist/tools/native/archive.js`) unless `CPLN_BENCH_PLUGIN_ARCHIVE` names one already built from this dist/.
 */
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import path from "node:path";
import { startServer, type RunningServer } from "../server/index.js";
import { EngineDriver, type DriverReply } from "../tools/automation/client.js";
import { engineEnv, withoutCheckoutBin } from "../tools/automation/env.js";
import type { BenchContext } from "./context.js";
import { Http } from "./lib/http.js";
import { distDir, repoRoot } from "./lib/procs.js";
import { median, type Report } from "./lib/report.js";
import { createGvc } from "./lib/setup.js";

const VOLUME_SETS = 100;
const POLICIES = 20;
const RESOURCES = VOLUME_SETS + POLICIES;
const GROUP = "bench-readers";
const VERSION = "0.1.0";
/** Rounds of the four steps (each round destroys what it created); figures are medians over the rounds. */
const ROUNDS = Number(process.env.CPLN_BENCH_ENGINE_ROUNDS ?? 3);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) {
  throw new Error(`CPLN_BENCH_ENGINE_ROUNDS must be a positive integer (got ${process.env.CPLN_BENCH_ENGINE_ROUNDS})`);
}

const adapters = ["thin", "native", "dynamic"] as const;
type Adapter = (typeof adapters)[number];
const steps = ["up", "edit", "no-op", "destroy"] as const;
type Step = (typeof steps)[number];

/** What each step must do to every resource (the engine's summary), so a run that did other work is not reported. */
const expectedSummary: Record<Step, Record<string, number>> = {
  up: { create: RESOURCES },
  edit: { update: RESOURCES },
  "no-op": { same: RESOURCES },
  destroy: { delete: RESOURCES },
};

interface Measured {
  seconds: number;
  requests: number;
  writes: number;
  byMethod: Record<string, number>;
}

interface LoggedRequest {
  method: string;
  path: string;
  status: number;
}

const isMutating = (request: LoggedRequest): boolean =>
  ["POST", "PUT", "PATCH", "DELETE"].includes(request.method) && !/\/-(query|join|cloudinit)$/.test(request.path);

export function engineBinDir(): { binDir: string } | { reason: string } {
  const result = spawnSync("bash", [path.join(repoRoot, "scripts", "engine.sh"), "--print-dir"], { encoding: "utf8" });
  if (result.status !== 0) return { reason: result.stderr.trim() || "scripts/engine.sh --print-dir failed" };
  return { binDir: result.stdout.trim() };
}

function nativeArchive(outDir: string): string {
  const given = process.env.CPLN_BENCH_PLUGIN_ARCHIVE;
  if (given) return path.resolve(given);
  const printed = execFileSync(
    process.execPath,
    [path.join(distDir, "tools", "native", "archive.js"), "--out", outDir],
    { cwd: repoRoot, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
  );
  return printed.trim().split("\n").pop()!;
}

/**
 * The thinnest provider as a plugin archive: one executable, `pulumi-resource-thin`, that runs its compiled file with
 * the `node` on PATH — the same way bin/pulumi-resource-cpln-native starts the native plugin.
 */
function thinArchive(dir: string, profileDir: string | undefined): string {
  const staging = path.join(dir, "thin-plugin");
  fs.mkdirSync(staging, { recursive: true });
  const script = path.join(staging, "pulumi-resource-thin");
  const entry = path.join(distDir, "bench", "servers", "thinnest-provider.js");
  fs.writeFileSync(script, launcher(entry, "thin", profileDir), { mode: 0o755 });
  const archive = path.join(dir, `pulumi-resource-thin-v${VERSION}.tar.gz`);
  execFileSync("tar", ["-czf", archive, "-C", staging, "."]);
  return archive;
}

const quote = (word: string): string => `'${word.replace(/'/g, "'\\''")}'`;

/**
 * A plugin executable: `node <entry>` with the engine's arguments. With `--profile`, node preloads
 * bench/servers/profile-preload.js, which writes `<name>-<pid>.cpuprofile` into `profileDir` when the engine stops the
 * plugin (SIGINT; `--cpu-prof` would write nothing, as the process does not exit by itself).
 */
function launcher(entry: string, name: string, profileDir: string | undefined): string {
  const preload = path.join(distDir, "bench", "servers", "profile-preload.js");
  const profile = profileDir
    ? `BENCH_PROFILE_DIR=${quote(profileDir)} BENCH_PROFILE_NAME=${name} exec node --require ${quote(preload)}`
    : "exec node";
  return `#!/bin/sh\n${profile} ${quote(entry)} "$@"\n`;
}

/** With `--profile`: the installed native plugin's executable is the profiling launcher too. */
function profileNativePlugin(home: string, profileDir: string): void {
  const dir = path.join(home, "plugins", `resource-cpln-native-v${VERSION}`);
  const entry = path.join(dir, "dist", "provider", "native", "main.js");
  if (!fs.existsSync(entry)) throw new Error(`--profile: no ${entry} in the installed plugin`);
  fs.writeFileSync(path.join(dir, "pulumi-resource-cpln-native"), launcher(entry, "native", profileDir), {
    mode: 0o755,
  });
}

function install(pulumi: string, env: Record<string, string>, cwd: string, name: string, file: string): void {
  installPlugin(path.dirname(pulumi), env, cwd, name, VERSION, file);
}

/** `pulumi plugin install resource <name> <version> --file <archive>` into the PULUMI_HOME of `env`. */
export function installPlugin(
  binDir: string,
  env: Record<string, string>,
  cwd: string,
  name: string,
  version: string,
  file: string,
): void {
  const result = spawnSync(
    path.join(binDir, "pulumi"),
    ["plugin", "install", "resource", name, version, "--file", file],
    {
      cwd,
      env,
      encoding: "utf8",
      timeout: 300_000,
    },
  );
  if (result.status !== 0) throw new Error(`pulumi plugin install resource ${name} failed: ${result.stderr}`);
}

/** Requests since the last call, from cpln-local's request log (which the call then clears). */
async function takeLog(admin: Http): Promise<LoggedRequest[]> {
  const listed = await admin.expect(200, "GET", "/_cpln-local/requests");
  const body = listed.body as { items: LoggedRequest[]; capacity: number };
  if (body.items.length >= body.capacity) {
    throw new Error(`the request log is full (${body.capacity}): requests were dropped, counts would be wrong`);
  }
  await admin.expect(204, "DELETE", "/_cpln-local/requests");
  return body.items;
}

function checkSummary(adapter: Adapter, step: Step, reply: Extract<DriverReply, { ok: true }>): void {
  // Besides our resources the engine counts the stack itself (and a default provider): up to two more.
  for (const [op, count] of Object.entries(expectedSummary[step])) {
    const got = reply.summary?.[op] ?? 0;
    if (got < count || got > count + 2) {
      throw new Error(
        `${adapter} ${step}: the engine's summary is ${JSON.stringify(reply.summary)}, expected ${op}: ${count}`,
      );
    }
  }
}

export async function engineRuns(ctx: BenchContext, report: Report): Promise<void> {
  const found = engineBinDir();
  if ("reason" in found) {
    process.stdout.write(`# engine: skipped — ${found.reason}\n`);
    return;
  }
  const { binDir } = found;
  const pulumi = path.join(binDir, "pulumi");
  const workDir = ctx.tempFile("engine");
  fs.mkdirSync(workDir, { recursive: true });
  // The engine starts the dynamic-provider host in the inline program's directory (the workspace's): it resolves
  // @pulumi/pulumi and cpln-pulumi from there.
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(workDir, "node_modules"));
  const env = withoutCheckoutBin(engineEnv(workDir, binDir, "engine-bench"));
  install(pulumi, env, workDir, "cpln-native", nativeArchive(ctx.tempDir));
  install(pulumi, env, workDir, "thin", thinArchive(ctx.tempDir, ctx.profileDir));
  if (ctx.profileDir) profileNativePlugin(env.PULUMI_HOME!, ctx.profileDir);

  const org = ctx.org;
  const server: RunningServer = await startServer({
    host: "127.0.0.1",
    port: 0,
    org,
    adminKey: ctx.adminKey,
    seed: { records: [{ kind: "group", name: GROUP, description: "Readers of the bench's volume sets" }] },
    inspectedRequests: 20_000,
  });
  const admin = new Http(server.url, ctx.adminKey, 2);
  const drivers = new Map<Adapter, EngineDriver>();
  try {
    for (const adapter of adapters) {
      await createGvc(admin, org, adapter);
      const config: Record<string, { value: string; secret?: boolean }> = {
        "bench:adapter": { value: adapter === "thin" ? "thin" : "cpln" },
        "bench:org": { value: org },
        "bench:gvc": { value: adapter },
        "bench:prefix": { value: adapter },
        "bench:volumeSets": { value: String(VOLUME_SETS) },
        "bench:policies": { value: String(POLICIES) },
        "bench:description": { value: "created" },
        "bench:group": { value: GROUP },
      };
      for (const namespace of adapter === "thin" ? ["thin"] : ["cpln", "cpln-native"]) {
        config[`${namespace}:endpoint`] = { value: server.url };
        config[`${namespace}:token`] = { value: ctx.adminKey, secret: true };
        if (namespace !== "thin") config[`${namespace}:org`] = { value: org };
      }
      drivers.set(
        adapter,
        await EngineDriver.start({
          programDir: path.join(repoRoot, "bench", "programs", "engine"),
          workDir,
          binDir,
          stackName: adapter,
          provider: adapter === "native" ? "native" : "dynamic",
          config,
          env,
        }),
      );
    }
    await takeLog(admin);

    // rounds[r][adapter][step]
    const rounds: Record<Adapter, Record<Step, Measured>>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const measured = { thin: {}, native: {}, dynamic: {} } as Record<Adapter, Record<Step, Measured>>;
      for (const step of steps) {
        for (const adapter of adapters) {
          const driver = drivers.get(adapter)!;
          const description = step === "up" ? "created" : step === "edit" ? "edited" : undefined;
          if (description) await driver.run({ cmd: "config", config: { "bench:description": description } });
          await takeLog(admin);
          const started = performance.now();
          const reply = await driver.run(step === "destroy" ? { cmd: "destroy" } : { cmd: "up" });
          const seconds = (performance.now() - started) / 1000;
          const log = await takeLog(admin);
          checkSummary(adapter, step, reply);
          const byMethod: Record<string, number> = {};
          for (const request of log) byMethod[request.method] = (byMethod[request.method] ?? 0) + 1;
          measured[adapter][step] = { seconds, requests: log.length, writes: log.filter(isMutating).length, byMethod };
          process.stdout.write(`# engine: round ${round + 1} ${step} ${adapter} ${seconds.toFixed(1)} s\n`);
        }
      }
      rounds.push(measured);
    }

    const total = (measured: Record<Adapter, Record<Step, Measured>>, adapter: Adapter) =>
      steps.reduce((sum, step) => sum + measured[adapter][step].seconds, 0);
    for (const step of steps) {
      for (const adapter of adapters) {
        const seconds = rounds.map((measured) => measured[adapter][step].seconds);
        const last = rounds[rounds.length - 1]![adapter][step];
        report.add({
          name: `engine.${adapter}.${step}.seconds`,
          value: median(seconds),
          unit: "s",
          n: seconds.length,
          rounds: seconds,
          requests: rounds.map((measured) => measured[adapter][step].requests),
          writes: rounds.map((measured) => measured[adapter][step].writes),
          byMethod: last.byMethod,
          resources: RESOURCES,
        });
      }
      for (const adapter of ["native", "dynamic"] as const) {
        const ratios = rounds.map((measured) => measured.thin[step].seconds / measured[adapter][step].seconds);
        const ratio = median(ratios);
        report.add({
          name: `engine.${adapter}.${step}.ratio-to-thinnest`,
          value: ratio,
          unit: "ratio",
          n: ratios.length,
          rounds: ratios,
          what: "median over rounds of the thinnest provider's wall time / this adapter's",
          ...(adapter === "native" ? { target: ">= 0.8", met: ratio >= 0.8 } : {}),
        });
      }
    }
    for (const adapter of ["native", "dynamic"] as const) {
      const ratios = rounds.map((measured) => total(measured, "thin") / total(measured, adapter));
      const ratio = median(ratios);
      report.add({
        name: `engine.${adapter}.all-steps.ratio-to-thinnest`,
        value: ratio,
        unit: "ratio",
        n: ratios.length,
        rounds: ratios,
        what: "median over rounds of the four steps' summed wall times, thinnest / this adapter",
        ...(adapter === "native" ? { target: ">= 0.8", met: ratio >= 0.8 } : {}),
      });
    }
  } finally {
    for (const driver of drivers.values()) await driver.close();
    await admin.close();
    await server.close();
  }
}

/**
 * Benchmark "coldstart" (`--only=coldstart`, never by default in `--quick`): how long the real engine takes to start a
 * provider, for three plugins installed from release archives (`pulumi plugin install ... --file`):
 *
 * - `go`: a provider written in Go with Pulumi's Go SDK (bench/go-provider: one resource, `gorandom:RandomString`),
 *   built with `go build` from the module proxy — the proxy refuses pulumi-random's provider module here (403);
 * - `sea`: the cpln-native plugin as one executable (scripts/plugin-binary.sh, a Node.js single executable);
 * - `launcher`: the archive for a machine with Node.js (dist/tools/native/archive.js: a shell launcher running `node`
 *   on one esbuild bundle of the plugin).
 * With `CPLN_BENCH_COLDSTART_BASE=<a built checkout of another commit>`, also `sea-base` and `launcher-base`, the same
 * two built from that checkout by its own scripts: before and after a change, side by side in one run; with
 * `CPLN_BENCH_COLDSTART_BASE_SEA=<a single executable's archive>` (scripts/plugin-binary.sh's of the commit before)
 * only `sea-base`, that archive.
 *
 * Three measures, each over ROUNDS rounds (7, or `CPLN_BENCH_COLDSTART_ROUNDS`) with the plugins in turn inside a
 * round (every other round in reverse order), so load from elsewhere on the machine falls on all of them alike:
 * - `preview`: the wall time of `pulumi preview` of a one-resource YAML stack (a volume set for cpln-native, a random
 *   string for Go) — the CLI, the YAML language host, the plugin started for the schema and for the resource;
 * - `spawn`: the plugin alone, from spawn to its port on stdout (tools/providerhost's ProviderProcess, as the engine waits);
 * - `calls` (cpln-native only): a fresh plugin's first call of each kind for one workload (bench/coldstart-calls.ts):
 *   port, Configure, Check, Create, Diff, Read, Delete, each and their sum.
 * Each figure is the median over rounds; a ratio is the median of the per-round ratios to the Go provider
 * (this plugin's time / Go's: the target is ≤ 2 for `sea`), or for `calls` to `sea`. One warm-up preview per plugin
 * is run first and not counted.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import path from "node:path";
import { startServer } from "../server/index.js";
import { engineEnv, withoutCheckoutBin } from "../tools/automation/env.js";
import { ProviderProcess } from "../tools/providerhost/providerProcess.js";
import type { BenchContext } from "./context.js";
import { engineBinDir, installPlugin } from "./engine.js";
import { repoRoot } from "./lib/procs.js";
import { median, ratioOfRounds, type Report } from "./lib/report.js";
import { callNames, firstCalls, type CallName } from "./coldstart-calls.js";

const ROUNDS = Number(process.env.CPLN_BENCH_COLDSTART_ROUNDS ?? 7);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) {
  throw new Error(
    `CPLN_BENCH_COLDSTART_ROUNDS must be a positive integer (got ${process.env.CPLN_BENCH_COLDSTART_ROUNDS})`,
  );
}
type Plugin = "go" | "sea" | "launcher" | "sea-base" | "launcher-base";
/** A checkout of another commit, built (`npm run build`), whose plugins run beside this one's. */
const BASE = process.env.CPLN_BENCH_COLDSTART_BASE;
/** Or the single executable's archive of another commit alone. */
const BASE_SEA = process.env.CPLN_BENCH_COLDSTART_BASE_SEA;
const plugins: readonly Plugin[] = BASE
  ? ["go", "sea", "launcher", "sea-base", "launcher-base"]
  : BASE_SEA
    ? ["go", "sea", "launcher", "sea-base"]
    : ["go", "sea", "launcher"];

interface Installed {
  plugin: Plugin;
  projectDir: string;
  env: Record<string, string>;
  /** The executable as installed in PULUMI_HOME. */
  executable: string;
}

const lastLine = (text: string): string => text.trim().split("\n").pop() ?? "";

/** The Go provider built (go's build cache makes a second build seconds) and archived as Pulumi expects. */
export function goArchive(dir: string, version: string): string {
  const staging = path.join(dir, "go-plugin");
  fs.mkdirSync(staging, { recursive: true });
  execFileSync("go", ["build", "-o", path.join(staging, "pulumi-resource-gorandom"), "."], {
    cwd: path.join(repoRoot, "bench", "go-provider"),
    env: { ...process.env, GOFLAGS: "-mod=readonly" },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const archive = path.join(dir, `pulumi-resource-gorandom-v${version}-linux-amd64.tar.gz`);
  execFileSync("tar", ["-czf", archive, "-C", staging, "pulumi-resource-gorandom"]);
  return archive;
}

/** The single executable's and the launcher's archives, each made by the scripts of checkout `root`. */
function nodeArchives(root: string, dir: string): { sea: string; launcher: string } {
  fs.mkdirSync(dir, { recursive: true });
  const sea = execFileSync("bash", [path.join(root, "scripts", "plugin-binary.sh"), "--out", dir], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  const launcher = execFileSync(
    process.execPath,
    [path.join(root, "dist", "tools", "native", "archive.js"), "--out", dir],
    {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return { sea: lastLine(sea), launcher: lastLine(launcher) };
}

function archives(dir: string, version: string): Partial<Record<Plugin, string>> {
  const mine = nodeArchives(repoRoot, path.join(dir, "archives"));
  const base = BASE ? nodeArchives(path.resolve(BASE), path.join(dir, "archives-base")) : undefined;
  return {
    go: goArchive(dir, version),
    ...mine,
    ...(base ? { "sea-base": base.sea, "launcher-base": base.launcher } : {}),
    ...(BASE_SEA && !base ? { "sea-base": path.resolve(BASE_SEA) } : {}),
  };
}

/** A one-resource YAML project with its stack, in a world (PULUMI_HOME, file backend) of its own per plugin. */
function prepare(
  dir: string,
  binDir: string,
  plugin: Plugin,
  archive: string,
  version: string,
  server: { url: string; org: string; adminKey: string },
): Installed {
  const workDir = path.join(dir, plugin);
  const projectDir = path.join(workDir, "project");
  fs.mkdirSync(projectDir, { recursive: true });
  const env = withoutCheckoutBin(engineEnv(workDir, binDir, "coldstart-bench"));
  const name = plugin === "go" ? "gorandom" : "cpln-native";
  installPlugin(binDir, env, workDir, name, version, archive);
  const resource =
    plugin === "go"
      ? "  word:\n    type: gorandom:index:RandomString\n    properties:\n      length: 16\n"
      : "  data:\n    type: cpln-native:index:VolumeSet\n    properties:\n      gvc: default\n" +
        "      initialCapacity: 10\n      performanceClass: general-purpose-ssd\n";
  fs.writeFileSync(path.join(projectDir, "Pulumi.yaml"), `name: coldstart\nruntime: yaml\nresources:\n${resource}`);
  const cli = (args: string[]) => {
    const result = spawnSync(path.join(binDir, "pulumi"), args, { cwd: projectDir, env, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`pulumi ${args.join(" ")}: ${result.stdout}${result.stderr}`);
  };
  cli(["stack", "init", "bench"]);
  if (plugin !== "go") {
    cli(["config", "set", "cpln-native:endpoint", server.url]);
    cli(["config", "set", "cpln-native:org", server.org]);
    cli(["config", "set", "--secret", "cpln-native:token", server.adminKey]);
  }
  const executable = path.join(env.PULUMI_HOME!, "plugins", `resource-${name}-v${version}`, `pulumi-resource-${name}`);
  return { plugin, projectDir, env, executable };
}

/** One `pulumi preview`, its wall time in ms; fails unless it planned exactly one create. */
function preview(binDir: string, installed: Installed): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(path.join(binDir, "pulumi"), ["preview", "--non-interactive", "--json"], {
      cwd: installed.projectDir,
      env: installed.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - started;
      if (code !== 0) return reject(new Error(`${installed.plugin}: pulumi preview exited ${code}\n${out}`));
      const summary = (JSON.parse(out) as { changeSummary?: Record<string, number> }).changeSummary ?? {};
      if (summary.create !== 2) {
        // The stack and the one resource.
        return reject(new Error(`${installed.plugin}: preview planned ${JSON.stringify(summary)}, not 2 creates`));
      }
      resolve(ms);
    });
  });
}

/** The plugin alone: spawn to port, then stopped. */
async function spawnToPort(installed: Installed): Promise<number> {
  const started = performance.now();
  const plugin = await ProviderProcess.start({
    label: installed.plugin,
    command: installed.executable,
    args: [],
    cwd: installed.projectDir,
    env: installed.env,
    onLine: () => undefined,
  });
  const ms = performance.now() - started;
  await plugin.stop();
  return ms;
}

export async function coldStart(ctx: BenchContext, report: Report): Promise<void> {
  const found = engineBinDir();
  if ("reason" in found) {
    process.stdout.write(`# coldstart: skipped — ${found.reason}\n`);
    return;
  }
  if (process.platform !== "linux" || process.arch !== "x64") {
    process.stdout.write(`# coldstart: skipped — the Go provider's archive is built for linux-amd64 only\n`);
    return;
  }
  const version = (JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string })
    .version;
  const dir = ctx.tempFile("coldstart");
  fs.mkdirSync(dir, { recursive: true });
  const built = archives(dir, version);
  const server = await startServer({ host: "127.0.0.1", port: 0, org: ctx.org, adminKey: ctx.adminKey });
  try {
    const installed = Object.fromEntries(
      plugins.map((plugin) => [plugin, prepare(dir, found.binDir, plugin, built[plugin]!, version, server)]),
    ) as Record<Plugin, Installed>;
    const nodePlugins = plugins.filter((plugin) => plugin !== "go");
    for (const plugin of plugins) await preview(found.binDir, installed[plugin]);
    const perPlugin = () =>
      Object.fromEntries(plugins.map((plugin) => [plugin, [] as number[]])) as Record<Plugin, number[]>;
    const previews = perPlugin();
    const spawns = perPlugin();
    const calls = Object.fromEntries(
      nodePlugins.map((plugin) => [
        plugin,
        Object.fromEntries([...callNames, "total"].map((c) => [c, [] as number[]])),
      ]),
    ) as Record<Plugin, Record<CallName | "total", number[]>>;
    for (let round = 0; round < ROUNDS; round++) {
      // Every other round in reverse order: a plugin's place in the round moved its first calls by 100 ms here.
      const inTurn = <T>(list: readonly T[]): readonly T[] => (round % 2 ? [...list].reverse() : list);
      for (const plugin of inTurn(plugins)) previews[plugin].push(await preview(found.binDir, installed[plugin]));
      for (const plugin of inTurn(plugins)) spawns[plugin].push(await spawnToPort(installed[plugin]));
      for (const plugin of inTurn(nodePlugins)) {
        const { executable, projectDir, env } = installed[plugin];
        const ms = await firstCalls(executable, projectDir, env, server, `cold-${plugin}-${round}`);
        for (const call of callNames) calls[plugin][call].push(ms[call]);
        calls[plugin].total.push(callNames.reduce((sum, call) => sum + ms[call], 0));
      }
    }
    for (const [measure, samples] of [
      ["preview", previews],
      ["spawn", spawns],
    ] as const) {
      for (const plugin of plugins) {
        report.add({
          name: `coldstart.${plugin}.${measure}.ms`,
          value: median(samples[plugin]),
          unit: "ms",
          n: ROUNDS,
          samples: samples[plugin],
          what:
            measure === "preview"
              ? "median wall time of `pulumi preview` of a one-resource YAML stack"
              : "median time from spawn to the port on stdout",
        });
        if (plugin === "go") continue;
        const { value, ratiosPerRound } = ratioOfRounds(samples[plugin], samples.go);
        report.add({
          name: `coldstart.${plugin}.${measure}.ratio-to-go`,
          value,
          unit: "×",
          n: ROUNDS,
          ratiosPerRound,
          what: "median over rounds of this plugin's time / the Go provider's",
          ...(plugin === "sea" && measure === "preview" ? { target: "≤ 2", met: value <= 2 } : {}),
        });
      }
    }
    for (const plugin of nodePlugins) {
      for (const call of [...callNames, "total"] as const) {
        report.add({
          name: `coldstart.${plugin}.calls.${call}.ms`,
          value: median(calls[plugin][call]),
          unit: "ms",
          n: ROUNDS,
          samples: calls[plugin][call],
          what:
            call === "total"
              ? "median over rounds of a fresh plugin's spawn to port and first Configure, Check, Create, Diff, Read, Delete"
              : `median time of a fresh plugin's first ${call === "port" ? "spawn to port" : call} (one workload)`,
        });
      }
      if (plugin === "sea") continue;
      const { value, ratiosPerRound } = ratioOfRounds(calls[plugin].total, calls.sea.total);
      report.add({
        name: `coldstart.${plugin}.calls.ratio-to-sea`,
        value,
        unit: "×",
        n: ROUNDS,
        ratiosPerRound,
        what: "median over rounds of this plugin's first-calls total / the single executable's",
      });
    }
  } finally {
    await server.close();
  }
}

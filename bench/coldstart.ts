/**
 * Benchmark "coldstart" (`--only=coldstart`, never by default in `--quick`): how long the real engine takes to start a
 * provider, for three plugins installed from release archives (`pulumi plugin install ... --file`):
 *
 * - `go`: a provider written in Go with Pulumi's Go SDK (bench/go-provider: one resource, `gorandom:RandomString`),
 *   built with `go build` from the module proxy — the proxy refuses pulumi-random's provider module here (403);
 * - `sea`: the cpln-native plugin as one executable (scripts/plugin-binary.sh, a Node.js single executable);
 * - `launcher`: today's archive (dist/tools/native/archive.js: the npm package and a shell launcher running `node`).
 *
 * Two measures, each over ROUNDS rounds (7, or `CPLN_BENCH_COLDSTART_ROUNDS`) with the three plugins in turn inside a
 * round, so load from elsewhere on the machine falls on all three alike:
 * - `preview`: the wall time of `pulumi preview` of a one-resource YAML stack (a volume set for cpln-native, a random
 *   string for Go) — the CLI, the YAML language host, the plugin started for the schema and for the resource;
 * - `spawn`: the plugin alone, from spawn to its port on stdout (tools/providerhost's ProviderProcess, as the engine waits).
 * Each figure is the median over rounds; a ratio is the median of the per-round ratios to the Go provider
 * (this plugin's time / Go's: the target is ≤ 2 for `sea`). One warm-up preview per plugin is run first and not counted.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import path from "node:path";
import { startServer } from "../server/index.js";
import { engineEnv, withoutCheckoutBin } from "../tools/automation/env.js";
import { ProviderProcess } from "../tools/providerhost/providerProcess.js";
import type { BenchContext } from "./context.js";
import { engineBinDir, installPlugin } from "./engine.js";
import { distDir, repoRoot } from "./lib/procs.js";
import { median, ratioOfRounds, type Report } from "./lib/report.js";

const ROUNDS = Number(process.env.CPLN_BENCH_COLDSTART_ROUNDS ?? 7);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) {
  throw new Error(
    `CPLN_BENCH_COLDSTART_ROUNDS must be a positive integer (got ${process.env.CPLN_BENCH_COLDSTART_ROUNDS})`,
  );
}
const plugins = ["go", "sea", "launcher"] as const;
type Plugin = (typeof plugins)[number];

interface Installed {
  plugin: Plugin;
  projectDir: string;
  env: Record<string, string>;
  /** The executable as installed in PULUMI_HOME. */
  executable: string;
}

const lastLine = (text: string): string => text.trim().split("\n").pop() ?? "";

/** The Go provider built (go's build cache makes a second build seconds) and archived as Pulumi expects. */
function goArchive(dir: string, version: string): string {
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

function archives(dir: string, version: string): Record<Plugin, string> {
  const sea = execFileSync("bash", [path.join(repoRoot, "scripts", "plugin-binary.sh"), "--out", dir], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  const launcher = execFileSync(process.execPath, [path.join(distDir, "tools", "native", "archive.js"), "--out", dir], {
    cwd: repoRoot,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  return { go: goArchive(dir, version), sea: lastLine(sea), launcher: lastLine(launcher) };
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
      plugins.map((plugin) => [plugin, prepare(dir, found.binDir, plugin, built[plugin], version, server)]),
    ) as Record<Plugin, Installed>;
    for (const plugin of plugins) await preview(found.binDir, installed[plugin]);
    const previews: Record<Plugin, number[]> = { go: [], sea: [], launcher: [] };
    const spawns: Record<Plugin, number[]> = { go: [], sea: [], launcher: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const plugin of plugins) previews[plugin].push(await preview(found.binDir, installed[plugin]));
      for (const plugin of plugins) spawns[plugin].push(await spawnToPort(installed[plugin]));
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
  } finally {
    await server.close();
  }
}

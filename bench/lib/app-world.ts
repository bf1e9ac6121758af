/**
 * What bench/app.ts and bench/app-concurrent.ts share: the adapters, the engine's world (its environment, cpln-local
 * answering late, the installed plugins), the programs, and a stack's driver.
 */
import * as fs from "node:fs";
import path from "node:path";
import type { RunningServer } from "../../server/index.js";
import { EngineDriver } from "../../tools/automation/client.js";
import { repoRoot } from "./procs.js";

/**
 * `native` is the plugin as released (the single executable of scripts/plugin-binary.sh); `native-launcher` the
 * archive for a machine with Node.js (`npm run plugin:archive`), in a PULUMI_HOME of its own (same plugin name and
 * version), only when asked for (`CPLN_BENCH_APP_LAUNCHER=1`).
 */
export type AppAdapter = "dynamic" | "native" | "native-launcher" | "pulumiverse";

/** The stack config every adapter reads: our providers' (`cpln`, `cpln-native`) and pulumiverse's (`cpln`). */
export function providerConfig(server: RunningServer): Record<string, { value: string; secret?: boolean }> {
  const config: Record<string, { value: string; secret?: boolean }> = {};
  for (const namespace of ["cpln", "cpln-native"]) {
    config[`${namespace}:org`] = { value: server.org };
    config[`${namespace}:endpoint`] = { value: server.url };
    config[`${namespace}:token`] = { value: server.adminKey, secret: true };
  }
  return config;
}

/** Requests counted by method: `{"POST": 7}`. */
export function countByMethod(requests: readonly { method: string }[]): Record<string, number> {
  const byMethod: Record<string, number> = {};
  for (const request of requests) byMethod[request.method] = (byMethod[request.method] ?? 0) + 1;
  return byMethod;
}

/** The engine's bin dir and environment (PULUMI_HOME with the plugins installed), and cpln-local answering late. */
export interface AppWorld {
  binDir: string;
  workDir: string;
  env: Record<string, string>;
  /** An adapter's own environment where it differs from `env` (native-launcher's PULUMI_HOME). */
  envOf?: Partial<Record<AppAdapter, Record<string, string>>>;
  server: RunningServer;
  adapters: AppAdapter[];
  pulumiverse: string | undefined;
}

/** The program of an adapter: examples/app (ours; the driver swaps in the native classes), or pulumiverse's copy. */
export function programOf(world: AppWorld, adapter: AppAdapter, name: "app" | "pair"): string {
  if (adapter === "pulumiverse") return path.join(world.pulumiverse!, name);
  return name === "app" ? path.join(repoRoot, "examples", "app") : path.join(repoRoot, "bench", "programs", "app-pair");
}

/** One stack of `program` for `adapter`, in a workspace directory of its own, with the providers' config and `config`. */
export async function startDriver(
  world: AppWorld,
  adapter: AppAdapter,
  program: "app" | "pair",
  stackName: string,
  config: Record<string, string>,
): Promise<EngineDriver> {
  const workDir = path.join(world.workDir, stackName);
  fs.mkdirSync(workDir);
  const plain = Object.fromEntries(Object.entries(config).map(([key, value]) => [key, { value }]));
  return EngineDriver.start({
    programDir: programOf(world, adapter, program),
    workDir,
    binDir: world.binDir,
    stackName,
    provider: adapter === "native" || adapter === "native-launcher" ? "native" : "dynamic",
    config: { ...providerConfig(world.server), ...plain },
    // The adapter's name for lib/cli-timer.ts's engine logs.
    env: { ...(world.envOf?.[adapter] ?? world.env), CPLN_BENCH_APP_ADAPTER: adapter },
  });
}

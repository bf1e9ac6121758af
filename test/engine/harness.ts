/**
 * What the real-engine tests share: one engine environment per test file (its own PULUMI_HOME with the cpln-native
 * plugin installed from the release archive, as a user installs it, and a file backend), cpln-local in process with
 * its request log, and drivers (dist/tools/automation) that run the examples' TypeScript programs as inline
 * Automation API programs through the real CLI.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { startServer, type RunningServer, type SeedDocument } from "../../dist/server/index.js";
import { EngineDriver } from "../../dist/tools/automation/client.js";
import { withoutCheckoutBin } from "../../dist/tools/automation/env.js";
import {
  adminApi,
  filesUnder,
  isMutating,
  orgSnapshot as snapshotOf,
  forgetUndeletable,
  type Recorded,
} from "../support/org.js";
import { installPluginInto } from "./plugin.js";
import { engineEnv, requireEngine } from "./support.js";

export { EngineDriver };
export type { RunningServer };

export const repoRoot = path.resolve(__dirname, "..", "..");
export const ORG = "test";
export const ADMIN_KEY = "engine-admin.4c2e8a1f0b9d7c6e5a4b3c2d1e0f9a8b";
export const seed = JSON.parse(fs.readFileSync(path.join(repoRoot, "examples", "seed.json"), "utf8")) as SeedDocument;
export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface EngineWorld {
  workDir: string;
  binDir: string;
  env: Record<string, string>;
  /**
   * Runs the CLI itself in this environment (cwd: `cwd`, default the work dir). Asynchronous: the plugins it starts
   * call cpln-local, which serves from this process.
   */
  pulumi(args: string[], cwd?: string): Promise<CliResult>;
  close(): void;
}

/**
 * A work dir with the engine's environment; `withPlugin` installs cpln-native from the archive (`pulumi plugin
 * install resource cpln-native <v> --file <archive>`, once per archive: plugin.ts). The work dir links the repository's node_modules: the engine
 * starts the dynamic-provider plugin in the program's directory (the inline workspace's), where it resolves
 * @pulumi/pulumi, as in a user's project.
 */
export function engineWorld(name: string, withPlugin: boolean): EngineWorld {
  const { binDir, pulumi } = requireEngine();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), `cpln-engine-${name}-`));
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(workDir, "node_modules"));
  const env = withoutCheckoutBin(engineEnv(workDir, binDir));
  const run = (args: string[], cwd = workDir): Promise<CliResult> =>
    new Promise((resolve) => {
      execFile(
        pulumi,
        args,
        { cwd, env, encoding: "utf8", timeout: 900_000, maxBuffer: 1 << 28 },
        (error, stdout, stderr) =>
          resolve({ status: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr }),
      );
    });
  if (withPlugin) installPluginInto(env.PULUMI_HOME!, pulumi, env);
  return {
    workDir,
    binDir,
    env,
    pulumi: run,
    close: () => fs.rmSync(workDir, { recursive: true, force: true }),
  };
}

export function startCplnLocal(): Promise<RunningServer> {
  return startServer({ host: "127.0.0.1", port: 0, org: ORG, adminKey: ADMIN_KEY, seed, recordRequests: true });
}

export interface EngineSuite {
  /** cpln-local, in this process, with its request log. */
  server: RunningServer;
  world: EngineWorld;
}

/**
 * For the calling `describe`: cpln-local and an engine world (`engineWorld(name, withPlugin)`) started before its
 * tests, then `setUp` (objects made outside Pulumi, a project), and both stopped after its tests.
 */
export function engineSuite(
  name: string,
  withPlugin: boolean,
  setUp?: (suite: EngineSuite) => Promise<void>,
): EngineSuite {
  const suite = {} as EngineSuite;
  beforeAll(async () => {
    suite.server = await startCplnLocal();
    suite.world = engineWorld(name, withPlugin);
    await setUp?.(suite);
  });
  afterAll(async () => {
    await suite.server?.close();
    suite.world?.close();
  });
  return suite;
}

export interface StackProject {
  dir: string;
  /** Runs the CLI in the project's directory; fails with its output when it fails. */
  pulumi(args: string[]): Promise<CliResult>;
}

/**
 * A project in `dir` under the suite's work dir (its `Pulumi.yaml` is `pulumiYaml`), with its stack `stack` made and
 * given the plugin's config (`cpln-native:*`): where `pulumi import` runs.
 */
export async function nativeStackProject(
  suite: EngineSuite,
  dir: string,
  stack: string,
  pulumiYaml: string,
): Promise<StackProject> {
  const projectDir = path.join(suite.world.workDir, dir);
  fs.mkdirSync(projectDir);
  fs.writeFileSync(path.join(projectDir, "Pulumi.yaml"), pulumiYaml);
  const pulumi = async (args: string[]): Promise<CliResult> => {
    const result = await suite.world.pulumi(args, projectDir);
    if (result.status !== 0)
      throw new Error(`pulumi ${args.join(" ")} → ${result.status}\n${result.stdout}${result.stderr}`);
    return result;
  };
  await pulumi(["stack", "init", stack]);
  // One `pulumi config set-all` for the three keys (each a CLI run of its own would cost a second or more).
  const config = Object.entries(stackConfig(suite.server)).filter(([key]) => key.startsWith("cpln-native:"));
  await pulumi([
    "config",
    "set-all",
    ...config.flatMap(([key, { value, secret }]) => [secret ? "--secret" : "--plaintext", `${key}=${value}`]),
  ]);
  return { dir: projectDir, pulumi };
}

/** The stack config of both adapters: `cpln:*` (dynamic classes, functions) and `cpln-native:*` (the plugin). */
export function stackConfig(
  server: RunningServer,
  extra: Record<string, string> = {},
): Record<string, { value: string; secret?: boolean }> {
  const config: Record<string, { value: string; secret?: boolean }> = {};
  for (const namespace of ["cpln", "cpln-native"]) {
    config[`${namespace}:org`] = { value: ORG };
    config[`${namespace}:endpoint`] = { value: server.url };
    config[`${namespace}:token`] = { value: ADMIN_KEY, secret: true };
  }
  for (const [key, value] of Object.entries(extra)) config[key] = { value };
  return config;
}

export { filesUnder, isMutating, type Recorded };

/** Requests recorded since the last call. */
export function requestLog(server: RunningServer): () => Recorded[] {
  let seen = server.requests().length;
  return () => {
    const all = server.requests() as Recorded[];
    const fresh = all.slice(seen);
    seen = all.length;
    return fresh;
  };
}

export function api(server: RunningServer, method: string, urlPath: string, body?: unknown): Promise<unknown> {
  return adminApi(server, ADMIN_KEY, method, urlPath, body);
}

/** Every record a user can list in the org (see test/harness/org.ts). */
export function orgSnapshot(server: RunningServer): Promise<Record<string, unknown>> {
  return snapshotOf(server, ORG, ADMIN_KEY);
}

/**
 * The org after a destroy, less the objects it created that cannot be deleted (audit contexts: destroy forgets them
 * and they stay, as on the real API) and their share of the org's count quotas (`forgetUndeletable`). Everything else
 * must be as `before`.
 */
export async function orgAfterDestroy(
  server: RunningServer,
  before: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const after = await orgSnapshot(server);
  forgetUndeletable(before, after);
  return after;
}

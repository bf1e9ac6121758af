// The offline program runner: runs a Pulumi TypeScript program without the Pulumi CLI. It is a stand-in for the
// Pulumi engine, not the engine: each run forks a fresh program process (child.ts) whose `setMocks` routes dynamic
// resources to the real dynamic-provider host (and, with `provider: "native"`, the native classes' registrations to the
// native plugin), and a MiniEngine plans and applies the steps against a JSON state file.
import { fork, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseAdoptionNotice } from "../../provider/adoptNotice.js";
import type { Step, StepOp } from "./engine.js";
import type { HostCall } from "./host.js";
import { readProject } from "./project.js";
import {
  resourceLabel,
  type ChildMessage,
  type ChildRunOptions,
  type ParentMessage,
  type ProgressMessage,
  type ProviderKind,
} from "./protocol.js";
import { redactSecrets, type PropertyMap } from "./values.js";

export type { Step, StepOp } from "./engine.js";
export type { HostCall } from "./host.js";
export { resourceLabel } from "./protocol.js";
export type { ProgressMessage, ProviderKind } from "./protocol.js";

export const runnerLabel = "offline runner: stand-in for the Pulumi engine";

export interface RunProgramOptions {
  /** Directory holding Pulumi.yaml and the program. Omit together with `destroy: true` to delete everything. */
  programDir?: string;
  stateFile: string;
  /**
   * Stack config to set, namespaced keys (`cpln:org`): merged into the config recorded in the state file (like
   * `pulumi config set`), recorded only when the run succeeds. Omit to use the recorded config as it is.
   */
  config?: Record<string, string>;
  /** `config` is the whole stack config: the recorded keys it does not name are dropped. */
  replaceConfig?: boolean;
  secretConfigKeys?: string[];
  preview?: boolean;
  /** Run an empty program: every resource in state is deleted. */
  destroy?: boolean;
  /** Read every resource in state from the provider and record what it finds (no program is run). */
  refresh?: boolean;
  /** Record the HTTP requests the provider sends, per step (`Step.requests`; for `--diff`). */
  recordRequests?: boolean;
  stack?: string;
  /** Project name; defaults to Pulumi.yaml `name` (needed for destroy when the state file does not exist). */
  project?: string;
  /** Extra environment for the program process and the provider host (e.g. CPLN_ENDPOINT, PULUMI_CONFIG_PASSPHRASE). */
  env?: Record<string, string>;
  /** Directory the provider host runs in; defaults to this package's root. */
  hostCwd?: string;
  /** Forward the program's and host's console output to this process (default: collect only). */
  echo?: boolean;
  /** Give up after this long (ms, default 5 minutes): a last resort, the error says what the run was waiting for. */
  timeoutMs?: number;
  /** Called as the run progresses: its start, each resource declared, each step started and completed. */
  onProgress?(event: ProgressMessage): void;
  /** Aborting ends the run at once: the program and every provider process are stopped (e.g. on Ctrl-C). */
  signal?: AbortSignal;
  /**
   * `native`: the program's `cpln-pulumi` resource classes are the native ones (`cpln-pulumi/native`, same args) and
   * their `cpln-native:index:*` registrations go to the native plugin (bin/pulumi-resource-cpln-native), configured
   * with the stack's `cpln:*` config as `cpln-native:*`. Default `dynamic`. Resources in state are always served by
   * the provider of their type, so a destroy or refresh needs no option.
   */
  provider?: ProviderKind;
}

export interface RunProgramResult {
  project: string;
  stack: string;
  preview: boolean;
  destroy: boolean;
  refresh: boolean;
  steps: Step[];
  /** Stack outputs for printing: secret values replaced by `{ secret: true }`, unknowns (preview) by `{ unknown: true }`. */
  outputs: PropertyMap;
  /** Stack outputs with secret values in wire form (`{ [secretSigKey]: secretSig, value }`). Do not print. */
  outputsWithSecrets: PropertyMap;
  /** gRPC calls made to the provider host, with durations. */
  requests: HostCall[];
  /** Counts per step kind. */
  summary: Record<StepOp, number>;
  /** What the program process printed. */
  logs: string[];
  timings: { totalMs: number; hostStartMs: number | undefined };
}

/**
 * Raised when the program or a provider call fails; carries the steps completed before the failure, and `problems`:
 * one line per problem a user can act on (resource, property path, rule), without stack frames (`stack` has them).
 */
export class ProgramRunError extends Error {
  readonly problems: string[];
  constructor(
    message: string,
    readonly steps: Step[],
    readonly requests: HostCall[],
    readonly logs: string[],
    problems?: string[],
    readonly detail?: string,
    /** The resources not run because of the failure: `<resource>: <why>` (a dependency failed, the run stopped). */
    readonly skipped: string[] = [],
  ) {
    super(message);
    this.name = "ProgramRunError";
    this.problems = problems ?? [message.split("\n")[0] ?? message];
  }
}

/** The package root (dist/tools/runner → ../../..). */
export const packageRoot = path.resolve(__dirname, "..", "..", "..");

/** Steps per kind, every kind present (0 when none). */
function countSteps(steps: readonly Step[]): Record<StepOp, number> {
  const counts: Record<StepOp, number> = {
    create: 0,
    adopt: 0,
    update: 0,
    replace: 0,
    same: 0,
    delete: 0,
    read: 0,
    refresh: 0,
  };
  for (const step of steps) counts[step.op] += 1;
  return counts;
}

export async function runProgram(options: RunProgramOptions): Promise<RunProgramResult> {
  const started = performance.now();
  if (!options.programDir && !options.destroy) throw new Error("runProgram: programDir is required (or destroy: true)");
  const givenDir = options.programDir ? path.resolve(options.programDir) : undefined;
  if (givenDir && !fs.existsSync(path.join(givenDir, "Pulumi.yaml"))) {
    throw new Error(`runProgram: ${givenDir} has no Pulumi.yaml`);
  }
  // Destroy runs an empty program, refresh none; the program directory only names the project.
  const programDir = options.destroy || options.refresh ? undefined : givenDir;
  const stateFile = path.resolve(options.stateFile);
  const stack = options.stack ?? "dev";
  let project =
    options.project ?? ((options.destroy || options.refresh) && givenDir ? readProject(givenDir).name : undefined);
  if ((options.destroy || options.refresh) && !fs.existsSync(stateFile)) {
    // Nothing was ever deployed with this state file: nothing to delete, nothing to start.
    const summary = countSteps([]);
    const timings = { totalMs: performance.now() - started, hostStartMs: undefined };
    const none = { steps: [], outputs: {}, outputsWithSecrets: {}, requests: [], summary, logs: [], timings };
    const destroy = options.destroy ?? false;
    const refresh = !destroy && (options.refresh ?? false);
    return { project: project ?? "", stack, preview: options.preview ?? false, destroy, refresh, ...none };
  }
  if (!project && !programDir) {
    project = (JSON.parse(fs.readFileSync(stateFile, "utf8")) as { project?: string }).project;
  }
  const childOptions: ChildRunOptions = {
    programDir,
    stateFile,
    config: options.config,
    replaceConfig: options.replaceConfig ?? false,
    secretConfigKeys: options.secretConfigKeys ?? [],
    preview: options.preview ?? false,
    stack,
    project,
    hostCwd: options.hostCwd ?? packageRoot,
    env: options.env ?? {},
    refresh: (options.refresh ?? false) && !options.destroy,
    provider: options.provider ?? "dynamic",
    requestLog: options.recordRequests
      ? path.join(fs.mkdtempSync(path.join(os.tmpdir(), "cpln-requests-")), "requests.jsonl")
      : undefined,
  };

  const logs: string[] = [];
  // The program process leads its own process group, and each provider process leads one: the run ends them all,
  // whatever way it ends (a terminal's Ctrl-C reaches only this process, which ends the rest).
  const child = fork(path.join(__dirname, "child.js"), [], {
    cwd: programDir ?? path.dirname(stateFile),
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    execArgv: [],
    detached: true,
  });
  const collect = (stream: NodeJS.WritableStream) => (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    logs.push(...text.split(/\r?\n/).filter((l) => l.length > 0));
    if (options.echo) stream.write(text);
  };
  child.stdout?.on("data", collect(process.stdout));
  child.stderr?.on("data", collect(process.stderr));
  const groups = new Set<number>();
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  // What the run is doing, for a timeout's message.
  const declared = new Map<string, string[]>();
  const completed = new Set<string>();
  let inFlight: string | undefined;

  const message = await new Promise<ChildMessage>((resolve, reject) => {
    const timeoutMs = options.timeoutMs ?? 300_000;
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      return true;
    };
    const timer = setTimeout(() => {
      if (!settle()) return;
      // The resources whose own inputs are late (not those waiting for another late resource).
      const pending = [...declared.keys()].filter((urn) => !completed.has(urn) && urn !== inFlight);
      const late = pending.filter((urn) => (declared.get(urn) ?? []).every((dep) => completed.has(dep)));
      const behind = pending.filter((urn) => !late.includes(urn));
      const waiting = [
        ...(inFlight ? [`the provider's answer for ${resourceLabel(inFlight)}`] : []),
        ...(late.length > 0 ? [`the inputs of ${late.map(resourceLabel).join(", ")}`] : []),
        ...(behind.length > 0 ? [`(and, behind them, ${behind.map(resourceLabel).join(", ")})`] : []),
      ];
      const what = waiting.length > 0 ? waiting.join("; ") : "the program's stack outputs";
      reject(
        new ProgramRunError(
          `offline runner: the program did not finish within ${timeoutMs} ms; it was waiting for ${what}`,
          [],
          [],
          logs,
        ),
      );
    }, timeoutMs);
    function onAbort(): void {
      if (!settle()) return;
      reject(
        new ProgramRunError(
          "offline runner: interrupted; the program and the provider processes were stopped",
          [],
          [],
          logs,
        ),
      );
    }
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener("abort", onAbort);
    child.on("message", (m: ChildMessage) => {
      if (m.kind === "result" || m.kind === "error") {
        if (settle()) resolve(m);
        return;
      }
      if (m.kind === "process") groups.add(m.pid);
      else if (m.kind === "declared") declared.set(m.urn, m.dependsOn);
      else if (m.kind === "stepStart") inFlight = m.urn;
      else if (m.kind === "step") {
        completed.add(m.step.urn);
        if (inFlight === m.step.urn) inFlight = undefined;
      }
      options.onProgress?.(m);
    });
    child.once("error", (error) => {
      if (settle()) reject(error);
    });
    child.once("exit", (code, signal) => {
      if (!settle()) return;
      const detail = logs.slice(-20).join("\n");
      reject(
        new ProgramRunError(`offline runner: program process exited (${signal ?? code})\n${detail}`, [], [], logs),
      );
    });
    child.send({ kind: "run", options: childOptions } satisfies ParentMessage);
  }).finally(() => endProcesses(child, exited, groups));

  if (childOptions.requestLog) fs.rmSync(path.dirname(childOptions.requestLog), { recursive: true, force: true });
  if (message.kind === "error") {
    throw new ProgramRunError(
      message.message,
      message.steps,
      message.requests,
      logs,
      message.problems,
      message.stack,
      message.skipped,
    );
  }
  if (message.kind !== "result") throw new Error(`offline runner: unexpected message ${message.kind}`);
  const { result } = message;
  const summary = countSteps(result.steps);
  return {
    project: result.project,
    stack: result.stack,
    preview: result.preview,
    destroy: options.destroy ?? false,
    refresh: childOptions.refresh,
    steps: result.steps,
    outputs: redactSecrets(result.outputs) as PropertyMap,
    outputsWithSecrets: result.outputs,
    requests: result.requests,
    summary,
    logs,
    timings: { totalMs: performance.now() - started, hostStartMs: result.hostStartMs },
  };
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Gone already.
  }
}

/**
 * Ends the program process (it exits by itself after replying; else SIGTERM, which makes it stop its provider
 * processes, then SIGKILL) and then every provider process group it reported, so that nothing the run started
 * outlives it.
 */
async function endProcesses(child: ChildProcess, exited: Promise<void>, groups: Set<number>): Promise<void> {
  const pid = child.pid;
  const wait = (ms: number) =>
    Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
  if (pid !== undefined) {
    if (!(await wait(2_000))) {
      killGroup(pid, "SIGTERM");
      if (!(await wait(2_000))) {
        killGroup(pid, "SIGKILL");
        await exited;
      }
    }
    // Anything the program itself started in its group.
    killGroup(pid, "SIGKILL");
  }
  for (const group of groups) killGroup(group, "SIGKILL");
}

/** Where a `pulumi` CLI is installed (PATH or ~/.pulumi/bin), if anywhere. */
export function findPulumiCli(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = [...(env.PATH ?? "").split(path.delimiter), path.join(os.homedir(), ".pulumi", "bin")];
  for (const dir of dirs) {
    if (!dir) continue;
    const candidate = path.join(dir, "pulumi");
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

const symbols: Record<StepOp, string> = {
  create: "+",
  adopt: "+~",
  update: "~",
  replace: "+-",
  same: "=",
  delete: "-",
  read: ">",
  refresh: "<",
};

/** The line that names the run: `Update of stack proj/dev`, `Previewing destroy of stack ...`. */
export function formatHeader(run: {
  project: string;
  stack: string;
  preview: boolean;
  destroy: boolean;
  refresh: boolean;
}): string {
  const verb = run.destroy ? "destroy" : run.refresh ? "refresh" : "update";
  const action = `${run.preview ? "Previewing " : ""}${verb}`;
  const stack = run.project ? `${run.project}/${run.stack}` : `${run.stack} (no state file: nothing deployed)`;
  return `${action[0]?.toUpperCase()}${action.slice(1)} of stack ${stack}`;
}

/** A step's line (with `diff`, also the paths that change and the requests the provider sent). */
export function formatStep(step: Step, options: { diff?: boolean } = {}): string[] {
  const [, , type, name] = step.urn.split("::");
  const lines = [`  ${symbols[step.op].padEnd(2)} ${step.op.padEnd(7)} ${type} ${name}  ${step.detail}`];
  // What the provider logged, as the engine shows it under the resource (an adoption's notice is its detail already).
  for (const line of step.diagnostics ?? []) {
    const message = line.slice(line.indexOf(": ") + 2);
    if (!(step.op === "adopt" && parseAdoptionNotice(message))) lines.push(`       ${line}`);
  }
  if (!options.diff) return lines;
  if (step.changedPaths && step.changedPaths.length > 0) {
    lines.push(`       changes: ${step.changedPaths.join(", ")}`);
  }
  const detailed = Object.entries(step.detailedDiff ?? {});
  if (detailed.length > 0) {
    lines.push(`       detailed diff: ${detailed.map(([p, kind]) => `${p} ${kind}`).join(", ")}`);
  }
  if (step.replaces && step.replaces.length > 0) lines.push(`       replaces because of: ${step.replaces.join(", ")}`);
  for (const request of step.requests ?? []) {
    const body = request.body === undefined ? "" : ` ${JSON.stringify(request.body)}`;
    lines.push(`       sent: ${request.method} ${request.path}${body} → ${request.status}`);
  }
  return lines;
}

/** The end of a run: the outputs (secrets hidden) and the summary line. */
export function formatFooter(result: RunProgramResult): string[] {
  const lines: string[] = [];
  const outputKeys = Object.keys(result.outputs).sort();
  if (outputKeys.length > 0) {
    lines.push("Outputs:");
    for (const key of outputKeys) lines.push(`  ${key}: ${JSON.stringify(result.outputs[key])}`);
  }
  const counts = (Object.keys(result.summary) as StepOp[])
    .filter((op) => result.summary[op] > 0)
    .map((op) => {
      const n = result.summary[op];
      if (op === "same") return `${n} unchanged`;
      if (op === "read") return `${n} read`;
      if (op === "refresh") return result.preview ? `${n} to refresh` : `${n} refreshed`;
      if (op === "adopt") return result.preview ? `${n} to adopt` : `${n} adopted`;
      return result.preview ? `${n} to ${op}` : `${n} ${op}d`;
    });
  lines.push(`Resources: ${counts.length > 0 ? counts.join(", ") : "none"}`);
  return lines;
}

/**
 * The run as a user would read it: the stand-in label, one line per step, the outputs (secrets hidden), a summary.
 * With `diff`, each changed resource also lists the property paths that change and the requests the provider sent.
 */
export function formatRun(result: RunProgramResult, options: { cliPath?: string; diff?: boolean } = {}): string {
  const cli = options.cliPath ? `Pulumi CLI found at ${options.cliPath} but not used` : "Pulumi CLI not found";
  const lines = [`${runnerLabel} (${cli})`, formatHeader(result)];
  for (const step of result.steps) lines.push(...formatStep(step, options));
  lines.push(...formatFooter(result));
  return lines.join("\n");
}

// The offline program runner: runs a Pulumi TypeScript program without the Pulumi CLI. It is a stand-in for the
// Pulumi engine, not the engine: each run forks a fresh program process (child.ts) whose `setMocks` routes dynamic
// resources to the real dynamic-provider host, and a MiniEngine plans and applies the steps against a JSON state file.
import { fork } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Step, StepOp } from "./engine.js";
import type { HostCall } from "./host.js";
import { readProject } from "./project.js";
import type { ChildMessage, ChildRunOptions, ParentMessage } from "./protocol.js";
import { redactSecrets, type PropertyMap } from "./values.js";

export type { Step, StepOp } from "./engine.js";
export type { HostCall } from "./host.js";

export const runnerLabel = "offline runner: stand-in for the Pulumi engine";

export interface RunProgramOptions {
  /** Directory holding Pulumi.yaml and the program. Omit together with `destroy: true` to delete everything. */
  programDir?: string;
  stateFile: string;
  /** The whole stack config, namespaced keys (`cpln:org`); recorded in the state file. Omit to reuse the recorded config. */
  config?: Record<string, string>;
  secretConfigKeys?: string[];
  preview?: boolean;
  /** Run an empty program: every resource in state is deleted. */
  destroy?: boolean;
  stack?: string;
  /** Project name; defaults to Pulumi.yaml `name` (needed for destroy when the state file does not exist). */
  project?: string;
  /** Extra environment for the program process and the provider host (e.g. CPLN_ENDPOINT, PULUMI_CONFIG_PASSPHRASE). */
  env?: Record<string, string>;
  /** Directory the provider host runs in; defaults to this package's root. */
  hostCwd?: string;
  /** Forward the program's and host's console output to this process (default: collect only). */
  echo?: boolean;
  /** Give up after this long (ms, default 5 minutes). */
  timeoutMs?: number;
}

export interface RunProgramResult {
  project: string;
  stack: string;
  preview: boolean;
  destroy: boolean;
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

/** Raised when the program or a provider call fails; carries the steps completed before the failure. */
export class ProgramRunError extends Error {
  constructor(
    message: string,
    readonly steps: Step[],
    readonly requests: HostCall[],
    readonly logs: string[],
  ) {
    super(message);
    this.name = "ProgramRunError";
  }
}

/** The package root (dist/tools/runner → ../../..). */
export const packageRoot = path.resolve(__dirname, "..", "..", "..");

export async function runProgram(options: RunProgramOptions): Promise<RunProgramResult> {
  const started = performance.now();
  if (!options.programDir && !options.destroy) throw new Error("runProgram: programDir is required (or destroy: true)");
  const givenDir = options.programDir ? path.resolve(options.programDir) : undefined;
  if (givenDir && !fs.existsSync(path.join(givenDir, "Pulumi.yaml"))) {
    throw new Error(`runProgram: ${givenDir} has no Pulumi.yaml`);
  }
  // Destroy runs an empty program; the program directory only names the project.
  const programDir = options.destroy ? undefined : givenDir;
  const stateFile = path.resolve(options.stateFile);
  const stack = options.stack ?? "dev";
  let project = options.project ?? (options.destroy && givenDir ? readProject(givenDir).name : undefined);
  if (options.destroy && !fs.existsSync(stateFile)) {
    // Nothing was ever deployed with this state file: nothing to delete, nothing to start.
    const summary: Record<StepOp, number> = { create: 0, update: 0, replace: 0, same: 0, delete: 0, read: 0 };
    const timings = { totalMs: performance.now() - started, hostStartMs: undefined };
    const none = { steps: [], outputs: {}, outputsWithSecrets: {}, requests: [], summary, logs: [], timings };
    return { project: project ?? "", stack, preview: options.preview ?? false, destroy: true, ...none };
  }
  if (!project && !programDir) {
    project = (JSON.parse(fs.readFileSync(stateFile, "utf8")) as { project?: string }).project;
  }
  const childOptions: ChildRunOptions = {
    programDir,
    stateFile,
    config: options.config,
    secretConfigKeys: options.secretConfigKeys ?? [],
    preview: options.preview ?? false,
    stack,
    project,
    hostCwd: options.hostCwd ?? packageRoot,
    env: options.env ?? {},
  };

  const logs: string[] = [];
  const child = fork(path.join(__dirname, "child.js"), [], {
    cwd: programDir ?? path.dirname(stateFile),
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    execArgv: [],
  });
  const collect = (stream: NodeJS.WritableStream) => (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    logs.push(...text.split(/\r?\n/).filter((l) => l.length > 0));
    if (options.echo) stream.write(text);
  };
  child.stdout?.on("data", collect(process.stdout));
  child.stderr?.on("data", collect(process.stderr));

  const message = await new Promise<ChildMessage>((resolve, reject) => {
    const timeoutMs = options.timeoutMs ?? 300_000;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new ProgramRunError(`offline runner: the program did not finish within ${timeoutMs} ms`, [], [], logs));
    }, timeoutMs);
    let answer: ChildMessage | undefined;
    child.once("message", (m: ChildMessage) => (answer = m));
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (answer) resolve(answer);
      else {
        const detail = logs.slice(-20).join("\n");
        reject(
          new ProgramRunError(`offline runner: program process exited (${signal ?? code})\n${detail}`, [], [], logs),
        );
      }
    });
    child.send({ kind: "run", options: childOptions } satisfies ParentMessage);
  });

  if (message.kind === "error") throw new ProgramRunError(message.message, message.steps, message.requests, logs);
  const { result } = message;
  const summary: Record<StepOp, number> = { create: 0, update: 0, replace: 0, same: 0, delete: 0, read: 0 };
  for (const step of result.steps) summary[step.op] += 1;
  return {
    project: result.project,
    stack: result.stack,
    preview: result.preview,
    destroy: options.destroy ?? false,
    steps: result.steps,
    outputs: redactSecrets(result.outputs) as PropertyMap,
    outputsWithSecrets: result.outputs,
    requests: result.requests,
    summary,
    logs,
    timings: { totalMs: performance.now() - started, hostStartMs: result.hostStartMs },
  };
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

const symbols: Record<StepOp, string> = { create: "+", update: "~", replace: "+-", same: "=", delete: "-", read: ">" };

/** The run as a user would read it: the stand-in label, one line per step, the outputs (secrets hidden), a summary. */
export function formatRun(result: RunProgramResult, options: { cliPath?: string } = {}): string {
  const cli = options.cliPath ? `Pulumi CLI found at ${options.cliPath} but not used` : "Pulumi CLI not found";
  const lines = [`${runnerLabel} (${cli})`];
  const action = `${result.preview ? "Previewing " : ""}${result.destroy ? "destroy" : "update"}`;
  const stack = result.project
    ? `${result.project}/${result.stack}`
    : `${result.stack} (no state file: nothing deployed)`;
  lines.push(`${action[0]?.toUpperCase()}${action.slice(1)} of stack ${stack}`);
  for (const step of result.steps) {
    const [, , type, name] = step.urn.split("::");
    lines.push(`  ${symbols[step.op].padEnd(2)} ${step.op.padEnd(7)} ${type} ${name}  ${step.detail}`);
  }
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
      return result.preview ? `${n} to ${op}` : `${n} ${op}d`;
    });
  lines.push(`Resources: ${counts.length > 0 ? counts.join(", ") : "none"}`);
  return lines.join("\n");
}

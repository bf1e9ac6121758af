/**
 * `cpln-local` as a user runs it (`npx cpln-local`: the compiled dist/server/cli.js in its own process), for the tests
 * of the command itself: its output, its exit, and the URL it prints. Every process started here is killed by
 * `killStarted()` (call it from `afterEach`). Needs `npm run build`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const CLI = path.join(__dirname, "..", "..", "dist", "server", "cli.js");
const started: ChildProcess[] = [];

export interface CplnLocalProcess {
  child: ChildProcess;
  /** Its exit code (null after a signal). */
  exited: Promise<number | null>;
  output(): { stdout: string; stderr: string };
  /** The first match of `pattern` in its stdout, waiting up to 15 s; fails with its output when it exits first. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  /** The URL it serves on (its "listening on" line). */
  url(): Promise<string>;
}

/**
 * Starts `cpln-local <args>` with the test's environment plus `env` (CPLN_TOKEN and CPLN_LOCAL_JWT_SECRET empty unless
 * given), and `stdin` written to its standard input when given.
 */
export function startCplnLocalProcess(
  args: string[],
  options: { env?: Record<string, string>; stdin?: string } = {},
): CplnLocalProcess {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, CPLN_TOKEN: "", CPLN_LOCAL_JWT_SECRET: "", ...options.env },
    stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  started.push(child);
  if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  // "close", not "exit": the child's output may still be arriving when it has exited (Node's child_process docs).
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const waitFor = async (pattern: RegExp): Promise<RegExpExecArray> => {
    for (let i = 0; i < 300; i++) {
      const match = pattern.exec(stdout);
      if (match) return match;
      if (child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no ${pattern} in output: ${stdout} ${stderr}`);
  };
  return {
    child,
    exited,
    output: () => ({ stdout, stderr }),
    waitFor,
    url: async () => (await waitFor(/listening on (http:\/\/\S+)\n/))[1]!,
  };
}

/** Kills every process `startCplnLocalProcess` started that is still running. */
export function killStarted(): void {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
}

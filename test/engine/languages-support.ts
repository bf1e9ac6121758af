/**
 * Shared by the language tests (test/engine/languages.test.ts): the programs of docs/languages.md, the generated SDKs
 * (scripts/sdks.sh), the plugin installed from its release archive the way a user installs it (once per build), and a
 * child-process runner with a time limit whose output never reaches the test log unless it fails.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { installPluginInto, pluginVersion } from "./plugin.js";

export const repoRoot = path.resolve(__dirname, "..", "..");

/** The fenced block after `<!-- languages.test: <name> -->` in docs/languages.md, verbatim. */
export function docProgram(name: string): string {
  const doc = fs.readFileSync(path.join(repoRoot, "docs", "languages.md"), "utf8");
  const marker = `<!-- languages.test: ${name} -->`;
  const at = doc.indexOf(marker);
  if (at < 0) throw new Error(`docs/languages.md has no ${marker}`);
  const block = /```[a-z]+\n([\s\S]*?)\n```/.exec(doc.slice(at + marker.length));
  if (!block) throw new Error(`docs/languages.md has no code block after ${marker}`);
  return `${block[1]}\n`;
}

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion (killing its process group after `timeoutMs`), feeding `input` on stdin. */
export function run(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; input?: string; timeoutMs: number },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    }, options.timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    // A child that exits before reading its input fails this write with EPIPE: its status and output are what the
    // caller judges, so that failure is not an error of the run (unhandled, it would fail the whole test run).
    child.stdin.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") reject(error);
    });
    child.stdin.end(options.input ?? "");
  });
}

/** The result, or an error carrying the command's output (the only place it is shown). */
export function succeeded(what: string, result: RunResult): RunResult {
  if (result.status !== 0) {
    throw new Error(`${what} exited ${result.status}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
  }
  return result;
}

/** `python=`, `go=`, `venv=` from scripts/sdks.sh (which builds what is missing). */
export async function generatedSdks(
  env: Record<string, string>,
): Promise<{ python: string; go: string; venv: string }> {
  const result = succeeded(
    "scripts/sdks.sh",
    await run("bash", [path.join(repoRoot, "scripts", "sdks.sh")], { cwd: repoRoot, env, timeoutMs: 900_000 }),
  );
  const dirs = Object.fromEntries(
    result.stdout
      .trim()
      .split("\n")
      .map((line) => line.split("=", 2) as [string, string]),
  );
  return { python: dirs.python!, go: dirs.go!, venv: dirs.venv! };
}

/**
 * Installs the plugin's release archive into the PULUMI_HOME of `env` the way a user does, `pulumi plugin install
 * resource cpln-native <version> --file <archive>`: the archive CPLN_PLUGIN_ARCHIVE names (built from this checkout),
 * else the one the engine tests share, made from dist/ and installed once per build (plugin.ts). Returns the version.
 */
export async function installPlugin(pulumi: string, env: Record<string, string>): Promise<string> {
  const archive = process.env.CPLN_PLUGIN_ARCHIVE;
  if (!archive) {
    installPluginInto(env.PULUMI_HOME!, pulumi, env);
    return pluginVersion;
  }
  const version = /-v([^-]+)-[a-z]+-[a-z0-9]+\.tar\.gz$/.exec(archive)?.[1];
  if (version === undefined) throw new Error(`the archive ${archive} does not name a version`);
  succeeded(
    "pulumi plugin install",
    await run(pulumi, ["plugin", "install", "resource", "cpln-native", version, "--file", archive], {
      cwd: env.PULUMI_HOME!,
      env,
      timeoutMs: 900_000,
    }),
  );
  return version;
}

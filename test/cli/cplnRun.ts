/**
 * Runs the official Control Plane CLI (`@controlplane/cli`, a pinned dev dependency) against any Control Plane API:
 * its endpoint, token, org and gvc from the environment, its profiles and caches in a HOME of the caller's. Shared by
 * the test/cli files (officialCli.ts, a cpln-local of their own) and the real-engine tests that read back what a
 * program made on theirs. Its time limit guards against a hang, not load.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";

const CPLN = join(__dirname, "..", "..", "node_modules", "@controlplane", "cli", "dist", "src", "cpln.js");

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CplnTarget {
  /** The API's URL (CPLN_ENDPOINT). */
  url: string;
  token: string;
  org: string;
  gvc: string;
  /** The CLI's HOME. */
  home: string;
}

/** `cpln <args>` against `target`. */
export function runCpln(target: CplnTarget, args: string[]): Promise<Run> {
  const env = {
    PATH: process.env["PATH"] ?? "",
    HOME: target.home,
    CPLN_ENDPOINT: target.url,
    CPLN_TOKEN: target.token,
    CPLN_ORG: target.org,
    CPLN_GVC: target.gvc,
    NO_COLOR: "1",
  };
  return new Promise((resolve) => {
    execFile(process.execPath, [CPLN, ...args], { env, timeout: 600_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** `cpln <args> -o json` against `target`, which must succeed; its output parsed. */
export async function cplnJson<T = Record<string, unknown>>(target: CplnTarget, args: string[]): Promise<T> {
  const run = await runCpln(target, [...args, "-o", "json"]);
  if (run.code !== 0) throw new Error(`cpln ${args.join(" ")} exited ${run.code}: ${run.stderr}${run.stdout}`);
  return JSON.parse(run.stdout) as T;
}

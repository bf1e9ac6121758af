import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** What every benchmark gets: the mode, the org and admin key its servers use, and a scratch directory. */
export class BenchContext {
  readonly org = "bench";
  readonly adminKey = "bench-admin-key-0123456789abcdef";
  readonly tempDir: string;

  /**
   * Node flags for every server process the benchmarks start: `--cpu-prof` into `bench/results/profiles/` when the
   * run was asked to `--profile`.
   */
  readonly serverNodeArgs: string[];
  /** Where `--profile` puts CPU profiles (servers and the dynamic-provider host); undefined when not profiling. */
  readonly profileDir: string | undefined;

  constructor(
    readonly quick: boolean,
    profileDir?: string,
  ) {
    this.serverNodeArgs = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
    this.profileDir = profileDir;
    this.tempDir = mkdtempSync(path.join(os.tmpdir(), "cpln-bench-"));
  }

  tempFile(name: string): string {
    return path.join(this.tempDir, name);
  }

  cleanup(): void {
    rmSync(this.tempDir, { recursive: true, force: true });
  }
}

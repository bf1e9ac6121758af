import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** What every benchmark gets: the mode, the org and admin key its servers use, and a scratch directory. */
export class BenchContext {
  readonly org = "bench";
  readonly adminKey = "bench-admin-key-0123456789abcdef";
  readonly tempDir: string;

  constructor(readonly quick: boolean) {
    this.tempDir = mkdtempSync(path.join(os.tmpdir(), "cpln-bench-"));
  }

  tempFile(name: string): string {
    return path.join(this.tempDir, name);
  }

  cleanup(): void {
    rmSync(this.tempDir, { recursive: true, force: true });
  }
}

/**
 * `npm run lint` refuses import circles (dependency-cruiser with .dependency-cruiser.cjs): the check is live — it
 * names a circle of two modules, a type-only one included — and the sources hold none.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const repoRoot = path.resolve(__dirname, "..", "..");
const depcruise = path.join(repoRoot, "node_modules", "dependency-cruiser", "bin", "dependency-cruise.mjs");
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-circles-"));

afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

function cruise(targets: string[]): Promise<{ code: number; output: string }> {
  const args = [depcruise, "--config", path.join(repoRoot, ".dependency-cruiser.cjs"), "--output-type", "err"];
  return new Promise((resolve) => {
    execFile(process.execPath, [...args, ...targets], { cwd: repoRoot }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

describe("import circles", () => {
  it("a circle of two modules, one side importing only a type, fails the check and is named", async () => {
    fs.writeFileSync(path.join(scratch, "a.ts"), 'import type { B } from "./b.js";\nexport type A = { b?: B };\n');
    fs.writeFileSync(path.join(scratch, "b.ts"), 'import type { A } from "./a.js";\nexport type B = { a?: A };\n');
    const result = await cruise([path.relative(repoRoot, scratch)]);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("no-circular");
    expect(result.output).toMatch(/a\.ts/);
  });

  it("the sources hold none", async () => {
    const result = await cruise(["api", "server", "provider", "sdk", "tools", "bench", "test", "console"]);
    expect(result.output).toContain("no dependency violations found");
    expect(result.code).toBe(0);
  });
});

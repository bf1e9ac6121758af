import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Code that Pulumi serializes (closures) must be loaded from tsc's dist/, never through vite's transform.
    server: { deps: { external: [/\/dist\//] } },
    testTimeout: 60_000,
    // expect.poll's default of 1 s is too short for a browser page on a loaded CI machine to settle.
    expect: { poll: { timeout: 15_000 } },
    hookTimeout: 60_000,
    pool: "forks",
    // Vitest's default (cores − 1) is one worker on a 2-core machine. Most files spend their time waiting on child
    // processes (the Pulumi CLI, language hosts, plugins, cpln-local), so two files at a time on 2 cores took the
    // suite from 1,895 s to 1,092 s with the same 1,351 tests passing (README, "npm test").
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});

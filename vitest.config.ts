import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * The suite in tiers, each runnable alone (`npm run test:<tier>`, which is `vitest run --project <tier>`); `npm test`
 * runs them all. `quick` needs no build: nothing in it loads dist/ (the other tiers need `npm run build` first).
 */
const needsBuild = [
  // tsc's declarations of dist/ compiled in a user's project
  "test/unit/publicTypes.test.ts",
  // run dist/server/cli.js, as `npx cpln-local` does
  "test/server/cli.test.ts",
  "test/server/cli-secrets.test.ts",
  "test/server/data-lock.test.ts",
  "test/server/stalls.test.ts",
];

const tiers = {
  /** Unit, contract and in-process server tests. */
  quick: ["test/unit/**/*.test.ts", "test/server/**/*.test.ts", "test/fidelity/**/*.test.ts"],
  /** The provider (dynamic classes and native plugin), the packed package, the CLIs. */
  provider: [
    "test/provider/**/*.test.ts",
    "test/native/**/*.test.ts",
    "test/harness/**/*.test.ts",
    "test/cli/**/*.test.ts",
    "test/user/**/*.test.ts",
    ...needsBuild,
  ],
  /** Through the real Pulumi CLI and its language hosts (`npm run engine`): the examples, a user's project, the demo. */
  engine: ["test/engine/**/*.test.ts"],
  /** cpln-local's console in Chromium (`bash scripts/browser.sh`). */
  browser: ["test/console/**/*.test.ts"],
  /** Crashes, faults, fuzzing, concurrency, security. */
  reliability: ["test/reliability/**/*.test.ts"],
};

export default defineConfig({
  test: {
    // Code that Pulumi serializes (closures) must be loaded from tsc's dist/, never through vite's transform.
    server: { deps: { external: [/\/dist\//] } },
    // Limits that catch a hang, not a slow machine: a test waits on child processes (the Pulumi CLI, compilers,
    // plugins) whose time grows with the machine's load (7 tests failed at a 60 s limit with the load at 20–28).
    // A test that measures speed belongs in bench/.
    testTimeout: 900_000,
    hookTimeout: 900_000,
    teardownTimeout: 120_000,
    // expect.poll's default of 1 s is too short for a browser page on a loaded CI machine to settle.
    expect: { poll: { timeout: 60_000 } },
    pool: "forks",
    // Kills what a test file started when its worker ends or is interrupted (test/support/reap.ts).
    setupFiles: ["test/support/reap.ts"],
    // Vitest's default (cores − 1) is one worker on a 2-core machine. Most files spend their time waiting on child
    // processes (the Pulumi CLI, language hosts, plugins, cpln-local), so two files at a time on 2 cores took the
    // suite from 1,895 s to 1,092 s with the same 1,351 tests passing (README, "npm test").
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: Object.entries(tiers).map(([name, include]) => ({
      extends: true,
      test: { name, include, exclude: name === "quick" ? needsBuild : [] },
    })),
  },
});

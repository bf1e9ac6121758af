// test/support/reap.ts (every worker's setup file): a test worker whose vitest is gone — interrupted by a signal sent
// to it alone, or killed — stops, and so does what its test started, instead of running its file on to the end with
// parent 1 (issue 38: "no process outlives an interrupted run"); and a run whose whole process group gets SIGTERM (a
// cancelled CI job) ends with nothing left.
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repoRoot = path.resolve(__dirname, "..", "..");
let dir: string;
const leftovers: number[] = [];

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Polls `check` every 100 ms until it holds or `ms` pass; whether it held. */
async function within(ms: number, check: () => boolean): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline;) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

/** A vitest run of one test that starts `sleep 300` and waits forever; its worker's and the sleep's pids. */
async function startProbe(
  name: string,
  detached = false,
): Promise<{ vitest: ChildProcess; worker: number; child: number }> {
  const pids = path.join(dir, `${name}.json`);
  const vitest = spawn(
    process.execPath,
    [
      path.join(repoRoot, "node_modules", "vitest", "vitest.mjs"),
      "run",
      "--root",
      dir,
      "--config",
      "vitest.config.mjs",
    ],
    // Not this run's environment: vitest's own variables and vite's (NODE_ENV, MODE, FORCE_TTY, ...) change how the
    // child vitest runs.
    {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, REAP_PROBE_PIDS: pids },
      stdio: "ignore",
      detached,
    },
  );
  leftovers.push(vitest.pid!);
  const started = await within(120_000, () => fs.existsSync(pids));
  expect(started, "the probe test started").toBe(true);
  const { worker, child } = JSON.parse(fs.readFileSync(pids, "utf8")) as { worker: number; child: number };
  leftovers.push(worker, child);
  expect(alive(worker) && alive(child)).toBe(true);
  return { vitest, worker, child };
}

describe("a test worker whose vitest is gone", () => {
  beforeAll(() => {
    // Under the checkout (.tmp/ is ignored), so that the probe's `import "vitest"` finds the project's node_modules.
    fs.mkdirSync(path.join(repoRoot, ".tmp"), { recursive: true });
    dir = fs.mkdtempSync(path.join(repoRoot, ".tmp", "reap-"));
    fs.writeFileSync(
      path.join(dir, "probe.test.mjs"),
      `import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { it } from "vitest";
it("waits", async () => {
  const child = spawn("sleep", ["300"], { stdio: "ignore" });
  writeFileSync(process.env.REAP_PROBE_PIDS, JSON.stringify({ worker: process.pid, child: child.pid }));
  await new Promise(() => {});
}, 600000);
`,
    );
    fs.writeFileSync(
      path.join(dir, "vitest.config.mjs"),
      `export default { test: { pool: "forks", include: ["probe.test.mjs"], setupFiles: [${JSON.stringify(
        path.join(repoRoot, "test", "support", "reap.ts"),
      )}] } };\n`,
    );
  });
  afterAll(() => {
    for (const pid of leftovers) if (alive(pid)) process.kill(pid, "SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const signal of ["SIGINT", "SIGKILL"] as const) {
    it(`stops, with what its test started, when vitest alone gets ${signal}`, async () => {
      const { vitest, worker, child } = await startProbe(signal);
      // Past the worker's first messages to vitest: a message sent to a gone vitest ends a worker on its own (vitest's
      // ERR_IPC_CHANNEL_CLOSED handler), a test waiting on its children sends none.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      vitest.kill(signal);
      expect(await within(60_000, () => !alive(worker) && !alive(child)), "worker and its child gone").toBe(true);
    });
  }

  it("stops whole when its process group gets SIGTERM, as when a CI job is cancelled", async () => {
    const { vitest, worker, child } = await startProbe("group", true);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    process.kill(-vitest.pid!, "SIGTERM");
    expect(
      await within(60_000, () => !alive(vitest.pid!) && !alive(worker) && !alive(child)),
      "vitest, its worker and the worker's child gone",
    ).toBe(true);
  });
});

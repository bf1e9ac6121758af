/**
 * One server per data file (issue 21 item 7): `cpln-local --data f` holds SQLite's exclusive lock on f while it runs
 * (WAL kept); a second server on the same file fails at start with one clear line and exit 1, and the first keeps
 * serving. Needs `npm run build` (runs dist/server/cli.js as `npx cpln-local` does).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { killStarted, startCplnLocalProcess } from "../support/cplnLocalProcess.js";
import { startServer } from "../../server/index.js";

const ADMIN = "lockadmin.data-lock-admin-key-0123456789";
const dirs: string[] = [];

afterEach(() => {
  killStarted();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function dataFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-lock-"));
  dirs.push(dir);
  return path.join(dir, "data.db");
}

function cli(data: string) {
  return startCplnLocalProcess(["--port", "0", "--org", "lock", "--data", data], { env: { CPLN_TOKEN: ADMIN } });
}

const admin = { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" };

describe("one cpln-local per data file", () => {
  it("a second server on the same file exits 1 at once with one line; the first keeps serving", async () => {
    const data = dataFile();
    const first = cli(data);
    const url = await first.url();
    expect(fs.existsSync(`${data}-wal`)).toBe(true);
    const started = Date.now();
    const second = cli(data);
    expect(await second.exited).toBe(1);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(second.output().stdout).toBe("");
    expect(second.output().stderr).toBe(
      `cpln-local: data file ${data} is in use by another process (another cpln-local?); one server per data file ` +
        "(several servers need a shared database, not a shared SQLite file)\n",
    );
    const created = await fetch(`${url}/org/lock/group`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ name: "after-second" }),
    });
    expect(created.status).toBe(201);
    await created.text();
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    // The lock goes with the process: a new server opens the file and sees the first one's write.
    const third = cli(data);
    const again = await fetch(`${await third.url()}/org/lock/group/after-second`, { headers: admin });
    expect(again.status).toBe(200);
    await again.text();
  });

  it("startServer on a file another server holds rejects; after close the file opens", async () => {
    const data = dataFile();
    const first = await startServer({ org: "lock", adminKey: ADMIN, data });
    try {
      await expect(startServer({ org: "lock", adminKey: ADMIN, data })).rejects.toThrow(
        `data file ${data} is in use by another process`,
      );
    } finally {
      await first.close();
    }
    const second = await startServer({ org: "lock", adminKey: ADMIN, data });
    await second.close();
  });
});

/**
 * Durability under SIGKILL. A real `cpln-local` child process (dist/server/cli.js) with a file database takes
 * concurrent writes from several undici clients — policy creates followed by `$append/targetLinks` patches, volume set
 * creates followed by tag patches — and is killed with SIGKILL at a random moment. After each kill:
 *   - the file passes `PRAGMA integrity_check` (opened read-only with better-sqlite3 while no server runs);
 *   - after a restart on the same file, every write answered 2xx is present, in every iteration so far;
 *   - each record is consistent: a client writes its record sequentially, so the committed changes are a prefix
 *     1..m of the ones it attempted, with m ≥ the last acknowledged one, m ≤ the last attempted one, and the record's
 *     version is exactly 1 + m (1 + acknowledged changes, or more when an unacknowledged write committed; never less).
 *
 * Needs `npm run build` (the child runs dist/server/cli.js). CI: 5 kills. CPLN_LONG_TESTS=1: 20 kills.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createInterface } from "node:readline";
import Database from "better-sqlite3";
import { Pool } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kindNames } from "../../api/kinds/index.js";
import { parseJsonOrUndefined, report, sized, sleep } from "./support.js";

const ORG = "crash";
const ADMIN_KEY = "crashadmin.kill-9-durability-admin-key-0123";
const KILLS = sized(5, 20);
const WRITERS = 4;
/** Per writer per life of the server: creates are bounded so quotas (100 volume sets per gvc) are never reached. */
const POLICIES_PER_LIFE = 2;
const VOLUMESETS_PER_LIFE = 1;
/** targetLinks holds at most 200 links. */
const MAX_CHANGES = 190;
const SEED = Number(process.env.CPLN_CRASH_SEED ?? Date.now() % 1_000_000);

const repoRoot = path.resolve(__dirname, "..", "..");
const cli = path.join(repoRoot, "dist", "server", "cli.js");

/** What the clients know about one record they write. */
interface Ledger {
  kind: "policy" | "volumeset";
  path: string;
  /** The create was answered 201. */
  createAcked: boolean;
  /** Changes are numbered 1, 2, ... in the order sent; the highest answered 2xx, and the highest sent. */
  ackedChange: number;
  attemptedChange: number;
  /** Version in the last 2xx answer. */
  ackedVersion: number;
}

function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Child {
  process: ChildProcess;
  url: string;
  exited: Promise<void>;
}

async function startChild(dataFile: string): Promise<Child> {
  const child = spawn(process.execPath, [cli, "--port", "0", "--data", dataFile, "--org", ORG], {
    env: { ...process.env, CPLN_TOKEN: ADMIN_KEY },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const errors: string[] = [];
  child.stderr?.on("data", (chunk: Buffer) => errors.push(chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`cpln-local printed no URL within 120 s: ${errors.join("")}`)),
      120_000,
    );
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`cpln-local exited (${signal ?? code}) before listening: ${errors.join("")}`));
    });
  });
  return { process: child, url, exited };
}

async function send(
  pool: Pool,
  method: "GET" | "POST" | "PATCH",
  urlPath: string,
  body?: unknown,
): Promise<{ status: number; json: unknown; text: string }> {
  const response = await pool.request({
    method,
    path: urlPath,
    headers: {
      authorization: `Bearer ${ADMIN_KEY}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const text = await response.body.text();
  return { status: response.statusCode, json: parseJsonOrUndefined(text), text };
}

const linkOf = (change: number): string => `/org/${ORG}/group/l${change}`;

/**
 * One writer for one life of the server: creates its records (two policies, one volume set) one after another, then
 * patches them round-robin until the server dies. Writes to one record are sequential (each waits for its answer), so
 * the committed changes of a record are always a prefix of the ones sent. Stops at the first failed request.
 */
async function writer(url: string, life: number, w: number, ledger: Ledger[], unexpected: string[]): Promise<number> {
  const pool = new Pool(url, { connections: 1 });
  const mine: Ledger[] = [];
  let acked = 0;
  const expectOk = (status: number, text: string, want: number, what: string): boolean => {
    if (status === want) return true;
    unexpected.push(`${what}: ${status} ${text.slice(0, 200)}`);
    return false;
  };
  const create = async (isPolicy: boolean, index: number): Promise<boolean> => {
    const name = `${isPolicy ? "p" : "v"}-l${life}-w${w}-${index}`;
    const entry: Ledger = {
      kind: isPolicy ? "policy" : "volumeset",
      path: isPolicy ? `/org/${ORG}/policy/${name}` : `/org/${ORG}/gvc/default/volumeset/${name}`,
      createAcked: false,
      ackedChange: 0,
      attemptedChange: 0,
      ackedVersion: 0,
    };
    ledger.push(entry);
    const created = isPolicy
      ? await send(pool, "POST", `/org/${ORG}/policy`, {
          name,
          targetKind: "group",
          bindings: [{ permissions: ["view"], principalLinks: ["//group/viewers"] }],
        })
      : await send(pool, "POST", `/org/${ORG}/gvc/default/volumeset`, {
          name,
          spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" },
        });
    if (!expectOk(created.status, created.text, 201, `create ${entry.path}`)) return false;
    entry.createAcked = true;
    entry.ackedVersion = (created.json as { version: number }).version;
    mine.push(entry);
    acked++;
    return true;
  };
  const change = async (entry: Ledger): Promise<boolean> => {
    const number = entry.attemptedChange + 1;
    entry.attemptedChange = number;
    const body =
      entry.kind === "policy" ? { "$append/targetLinks": [`//group/l${number}`] } : { tags: { counter: number } };
    const answer = await send(pool, "PATCH", entry.path, body);
    if (!expectOk(answer.status, answer.text, 200, `patch ${entry.path} #${number}`)) return false;
    entry.ackedChange = number;
    entry.ackedVersion = (answer.json as { version: number }).version;
    acked++;
    return true;
  };
  try {
    const plan = [true, false, true].slice(0, POLICIES_PER_LIFE + VOLUMESETS_PER_LIFE);
    for (const [index, isPolicy] of plan.entries()) {
      if (!(await create(isPolicy, index))) return acked;
      for (let i = 0; i < 5; i++) if (!(await change(mine[mine.length - 1] as Ledger))) return acked;
    }
    for (let round = 0; ; round++) {
      const entry = mine[round % mine.length] as Ledger;
      if (entry.attemptedChange >= MAX_CHANGES) return acked;
      if (!(await change(entry))) return acked;
    }
  } catch {
    // The server was killed under this request: its outcome is unknown.
    return acked;
  } finally {
    await pool.destroy().catch(() => undefined);
  }
}

interface Verified {
  writes: number;
  /** Writes whose answer never arrived (the kill came first) but that had committed. */
  unacknowledgedCommitted: number;
  problems: string[];
}

/** Checks every record of the ledger against the restarted server. */
async function verify(url: string, ledger: Ledger[]): Promise<Verified> {
  const pool = new Pool(url, { connections: 4 });
  const problems: string[] = [];
  let writes = 0;
  let unacknowledgedCommitted = 0;
  try {
    for (const entry of ledger) {
      const answer = await send(pool, "GET", entry.path);
      if (answer.status === 404) {
        if (entry.createAcked) problems.push(`${entry.path}: acknowledged create is missing`);
        continue;
      }
      if (answer.status !== 200) {
        problems.push(`${entry.path}: GET answered ${answer.status} ${answer.text.slice(0, 200)}`);
        continue;
      }
      const record = answer.json as { version: number; targetLinks?: string[]; tags?: Record<string, unknown> };
      let committed: number;
      if (entry.kind === "policy") {
        const links = record.targetLinks ?? [];
        committed = links.length;
        const prefix = Array.from({ length: committed }, (_, i) => linkOf(i + 1));
        if ([...links].sort().join() !== [...prefix].sort().join()) {
          problems.push(`${entry.path}: targetLinks are not the prefix l1..l${committed}: ${links.join(", ")}`);
        }
        if (new Set(links).size !== links.length) problems.push(`${entry.path}: duplicate targetLinks`);
      } else {
        const counter = record.tags?.["counter"];
        committed = counter === undefined ? 0 : Number(counter);
      }
      if (committed < entry.ackedChange) {
        problems.push(`${entry.path}: change ${entry.ackedChange} was acknowledged but only ${committed} are present`);
      }
      if (committed > entry.attemptedChange) {
        problems.push(`${entry.path}: ${committed} changes present but only ${entry.attemptedChange} were sent`);
      }
      if (record.version !== 1 + committed) {
        problems.push(
          `${entry.path}: version ${record.version} with ${committed} committed changes (want ${1 + committed})`,
        );
      }
      if (record.version < entry.ackedVersion) {
        problems.push(`${entry.path}: version ${record.version} is below the acknowledged ${entry.ackedVersion}`);
      }
      writes += (entry.createAcked ? 1 : 0) + entry.ackedChange;
      unacknowledgedCommitted += (entry.createAcked ? 0 : 1) + Math.max(0, committed - entry.ackedChange);
    }
  } finally {
    await pool.close();
  }
  return { writes, unacknowledgedCommitted, problems };
}

let workDir: string;
let running: Child | undefined;

beforeAll(() => {
  if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first`);
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-crash-"));
});

afterAll(async () => {
  if (running && running.process.exitCode === null && running.process.signalCode === null) {
    running.process.kill("SIGKILL");
    await running.exited;
  }
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

describe("cpln-local killed with SIGKILL under concurrent writes", () => {
  it(
    `survives ${KILLS} kills: integrity_check ok, every acknowledged write present, versions consistent`,
    async () => {
      const dataFile = path.join(workDir, "crash.db");
      const random = seededRandom(SEED);
      const ledger: Ledger[] = [];
      const unexpected: string[] = [];
      let crashes = 0;
      let acknowledged = 0;
      let verifiedWrites = 0;
      let lateCommits = 0;
      const started = performance.now();

      for (let life = 0; life < KILLS; life++) {
        running = await startChild(dataFile);
        const child = running;
        const writers = Array.from({ length: WRITERS }, (_, w) => writer(child.url, life, w, ledger, unexpected));
        // Kill somewhere between 300 ms and 1.5 s into the writes (a fresh process answers its first requests slowly).
        await sleep(300 + Math.floor(random() * 1200));
        child.process.kill("SIGKILL");
        await child.exited;
        expect(child.process.signalCode).toBe("SIGKILL");
        crashes++;
        acknowledged += (await Promise.all(writers)).reduce((a, b) => a + b, 0);
        expect(unexpected, `answers other than the expected 2xx (seed ${SEED})`).toEqual([]);

        const db = new Database(dataFile, { readonly: true, fileMustExist: true });
        try {
          expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
        } finally {
          db.close();
        }

        running = await startChild(dataFile);
        const { writes, unacknowledgedCommitted, problems } = await verify(running.url, ledger);
        expect(problems, `after kill ${life + 1} (seed ${SEED})`).toEqual([]);
        verifiedWrites = writes;
        lateCommits = unacknowledgedCommitted;
        running.process.kill("SIGTERM");
        await running.exited;
      }
      const ms = performance.now() - started;
      expect(verifiedWrites).toBe(acknowledged);
      // The kills must land while writes are in flight, or the test proves nothing.
      expect(acknowledged).toBeGreaterThan(KILLS * WRITERS);
      report(
        `crash: ${crashes} SIGKILLs survived, ${verifiedWrites} acknowledged writes verified after restart ` +
          `(${ledger.length} records; ${lateCommits} unacknowledged writes had committed; seed ${SEED}) in ${(ms / 1000).toFixed(1)} s`,
      );
    },
    sized(900_000, 1_800_000),
  );

  it("killed during its first start (while seeding), it starts cleanly afterwards with the whole seed", async () => {
    const random = seededRandom(SEED + 1);
    const outcomes: string[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const dataFile = path.join(workDir, `first-start-${attempt}.db`);
      // Spawn and kill after 40–340 ms: before, during or just after the schema and seed transactions.
      const early = spawn(process.execPath, [cli, "--port", "0", "--data", dataFile, "--org", ORG], {
        env: { ...process.env, CPLN_TOKEN: ADMIN_KEY },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const earlyExit = new Promise<void>((resolve) => early.once("exit", () => resolve()));
      let listened = false;
      early.stdout.on("data", (chunk: Buffer) => (listened ||= chunk.toString().includes("listening on")));
      const delay = 40 + Math.floor(random() * 300);
      await sleep(delay);
      early.kill("SIGKILL");
      await earlyExit;
      if (fs.existsSync(dataFile)) {
        const db = new Database(dataFile, { readonly: true, fileMustExist: true });
        try {
          expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
        } finally {
          db.close();
        }
      }
      running = await startChild(dataFile);
      const pool = new Pool(running.url, { connections: 1 });
      try {
        const policies = await send(pool, "GET", `/org/${ORG}/policy`);
        expect(policies.status, policies.text).toBe(200);
        const builtin = (policies.json as { items: { origin: string }[] }).items.filter((p) => p.origin === "builtin");
        // superusers-<kind> and viewers-<kind> for every kind: the seed is all there or was redone.
        expect(builtin.length).toBe(2 * kindNames.length);
        const gvc = await send(pool, "GET", `/org/${ORG}/gvc/default`);
        expect(gvc.status).toBe(200);
      } finally {
        await pool.close();
      }
      running.process.kill("SIGTERM");
      await running.exited;
      outcomes.push(`${delay} ms (${listened ? "after listening" : "before listening"})`);
    }
    report(`crash: killed during the first start after ${outcomes.join(", ")}; every restart had the whole seed`);
  });
});

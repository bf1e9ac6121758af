import { fork, spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { request } from "undici";

/** The repository root, from `dist/bench/lib/` (compiled) — benchmarks always run on the tsc output. */
export const repoRoot = path.resolve(__dirname, "..", "..", "..");
export const distDir = path.join(repoRoot, "dist");

/** A port nobody listens on right now (bound then released), so a child can be told its port up front. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers 200; resolves with the milliseconds since `since` (a `performance.now()`). */
export async function waitForOk(url: string, since: number, headers: Record<string, string> = {}, timeoutMs = 30_000) {
  const deadline = since + timeoutMs;
  let lastError = "no answer";
  while (performance.now() < deadline) {
    try {
      const res = await request(url, { headers });
      await res.body.dump();
      if (res.statusCode === 200) return performance.now() - since;
      lastError = `status ${res.statusCode}`;
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    await sleep(2);
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms (${lastError})`);
}

/** Resident set size of a process in bytes, from /proc (Linux); NaN where /proc is not available. */
export function rssBytes(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match?.[1] ? Number(match[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/**
 * Starts a cpln-local CLI (`cli`: a path, so a benchmark can run another build's) with `args` on port 0, the admin key
 * in its environment, and resolves with the URL it prints (within 20 s).
 */
export async function startCliChild(
  cli: string,
  args: readonly string[],
  adminKey: string,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [cli, "--port", "0", ...args], {
    env: { ...process.env, CPLN_TOKEN: adminKey },
    stdio: ["ignore", "pipe", "ignore"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no URL within 20 s")), 20_000);
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
  });
  return { child, url };
}

/** SIGKILL (a stalled event loop ignores SIGTERM), then waits for the exit; a child already gone is left alone. */
export async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

/** Keeps the last lines a child wrote, so a failure can say why. */
function tail(child: ChildProcess): () => string {
  let text = "";
  const keep = (chunk: Buffer) => {
    text = (text + chunk.toString("utf8")).slice(-4000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return () => text;
}

export interface ChildServer {
  url: string;
  pid: number;
  child: ChildProcess;
  /** Milliseconds from spawn to the first 200. */
  startupMs: number;
  output(): string;
  stop(): Promise<void>;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

export interface CplnLocalOptions {
  data: string;
  org: string;
  adminKey: string;
  /** Extra node flags for the server process (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
}

/** Starts `cpln-local` (the compiled CLI) as a child process and waits for its first 200 on `/about`. */
export async function startCplnLocal(options: CplnLocalOptions): Promise<ChildServer> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...(options.nodeArgs ?? []),
      path.join(distDir, "server", "cli.js"),
      "--port",
      String(port),
      "--host",
      "127.0.0.1",
      "--data",
      options.data,
      "--org",
      options.org,
    ],
    {
      cwd: repoRoot,
      env: { ...process.env, CPLN_TOKEN: options.adminKey, CPLN_ORG: options.org },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  return answering(child, port, started);
}

/** The child server once it answers 200 on `/about`; its output in the error when it exits first. */
async function answering(child: ChildProcess, port: number, started: number): Promise<ChildServer> {
  const output = tail(child);
  const url = `http://127.0.0.1:${port}`;
  const exitedEarly = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`${url} exited (${code}) before answering:\n${output()}`))),
  );
  const startupMs = await Promise.race([waitForOk(`${url}/about`, started), exitedEarly]);
  child.removeAllListeners("exit");
  return { url, pid: child.pid ?? -1, child, startupMs, output, stop: () => stopChild(child) };
}

/** Starts one of `bench/servers/` as a child process on a port of its own and waits for its first 200 on `/about`. */
async function startBenchServer(script: string, args: string[]): Promise<ChildServer> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(distDir, "bench", "servers", script), String(port), ...args], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return answering(child, port, started);
}

/**
 * Starts the bare fastify server (one constant JSON route) as a child process; with `bytes`, its answer is a JSON
 * text of that many bytes.
 */
export async function startBareServer(bytes?: number): Promise<ChildServer> {
  return startBenchServer("bare.js", bytes === undefined ? [] : [String(bytes)]);
}

/**
 * Starts the storing route (`bench/servers/storing.ts`: each POST and PATCH stored through cpln-local's SQLite store
 * in `data`, nothing else) as a child process.
 */
export async function startStoringServer(data: string): Promise<ChildServer> {
  return startBenchServer("storing.js", [data]);
}

/**
 * Starts cpln-local's HTTP stack without its domain (`bench/servers/http-floor.ts`: its app and hooks, authentication
 * with `adminKey` in `org`, one create route answering without storing) as a child process.
 */
export async function startHttpFloorServer(org: string, adminKey: string): Promise<ChildServer> {
  return startBenchServer("http-floor.js", [org, adminKey]);
}

/** What `inProcessWrites` measured: the child's CPU per write in each round (µs), and how many callers wrote at once. */
export interface InProcessWrites {
  cpuUsPerRound: number[];
  callers: number;
}

/**
 * Runs `rounds` rounds of `perRound` writes of the service bench's `shape` through cpln-local's record service in a
 * process of its own, no HTTP (`bench/servers/in-process-writes.ts`, data in `data`).
 */
export async function inProcessWrites(
  data: string,
  shape: "post" | "patch",
  perRound: number,
  rounds: number,
): Promise<InProcessWrites> {
  const script = path.join(distDir, "bench", "servers", "in-process-writes.js");
  const child = spawn(process.execPath, [script, data, shape, String(perRound), String(rounds)], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stdout: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
  const output = tail(child);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`in-process writes exited (${code}):\n${output()}`);
  return JSON.parse(Buffer.concat(stdout).toString("utf8")) as InProcessWrites;
}

/** Messages between the bench and the forked store server (`bench/servers/store-server.ts`). */
export type StoreServerCommand =
  | { id: number; op: "clone"; template: CloneTemplate; count: number; prefix: string; start: number }
  | { id: number; op: "stats" }
  | { id: number; op: "close" };

/**
 * A stored record to copy (read from the store by its key): its name and id are replaced in its JSON text by each
 * copy's own, so links and references that carry the template's name follow the copy.
 */
export interface CloneTemplate {
  org: string;
  kind: string;
  scope: string;
  name: string;
  /** Tags set per copy, by copy index: `tags[key] = values[index % values.length]`. */
  cycleTags?: Record<string, string[]>;
}

export type StoreServerReply =
  { id: number; ok: true; result: Record<string, number> } | { id: number; ok: false; error: string };

export interface ForkedStoreServer extends ChildServer {
  call(command: Omit<Extract<StoreServerCommand, { op: "clone" }>, "id">): Promise<Record<string, number>>;
  call(command: { op: "stats" | "close" }): Promise<Record<string, number>>;
}

/**
 * Forks `bench/servers/store-server.js`: `startServer()` in a process of its own, which also writes records straight
 * through its `store` when the bench asks (over the IPC channel) — populating 100k records over HTTP would take
 * minutes and measure nothing of interest.
 */
export async function forkStoreServer(options: {
  data: string;
  org: string;
  adminKey: string;
  nodeArgs?: string[];
}): Promise<ForkedStoreServer> {
  const port = await freePort();
  const started = performance.now();
  const child = fork(
    path.join(distDir, "bench", "servers", "store-server.js"),
    [String(port), options.data, options.org, options.adminKey],
    { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe", "ipc"], execArgv: ["--expose-gc", ...(options.nodeArgs ?? [])] },
  );
  const output = tail(child);
  const url = `http://127.0.0.1:${port}`;
  const exitedEarly = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`store server exited (${code}) before answering:\n${output()}`))),
  );
  const startupMs = await Promise.race([waitForOk(`${url}/about`, started), exitedEarly]);
  child.removeAllListeners("exit");
  let nextId = 1;
  const pending = new Map<number, { resolve: (r: Record<string, number>) => void; reject: (e: Error) => void }>();
  child.on("message", (message: StoreServerReply) => {
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (message.ok) waiter.resolve(message.result);
    else waiter.reject(new Error(message.error));
  });
  child.on("exit", () => {
    for (const waiter of pending.values()) waiter.reject(new Error(`store server exited:\n${output()}`));
    pending.clear();
  });
  const call = (command: Record<string, unknown>) =>
    new Promise<Record<string, number>>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.send({ ...command, id });
    });
  return {
    url,
    pid: child.pid ?? -1,
    child,
    startupMs,
    output,
    call: call as ForkedStoreServer["call"],
    stop: () => stopChild(child),
  };
}

/** CPU time (user + system) a process has used so far, in ms, from /proc (Linux; 10 ms resolution); NaN elsewhere. */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces, so split after its closing parenthesis).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Child processes of this one whose command line contains `match` (Linux). */
export function childPids(match: string): number[] {
  try {
    const children = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, "utf8").trim().split(/\s+/);
    return children
      .map(Number)
      .filter((pid) => pid > 0 && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(match));
  } catch {
    return [];
  }
}

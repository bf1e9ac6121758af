/**
 * How one request goes out: Node's own HTTP client (`node:http`, `node:https`) with a keep-alive agent per endpoint
 * origin, bearer authentication, a send bounded by the call's deadline on the monotonic clock, and the
 * `CPLN_REQUEST_LOG` line of each send. Whether and when to send again is `http.ts`'s.
 *
 * Not undici: its HTTP parser is llhttp compiled to WebAssembly, which V8 compiles in the process's first request —
 * with loading undici's files, 60–180 ms of the first request of every plugin process (a `pulumi destroy` starts one
 * and waits for it; bench/README.md §10, the floor). Node's client parses with llhttp built into the binary.
 */
import { appendFileSync } from "node:fs";
import type * as http from "node:http";
import { networkError, timeoutError } from "./errors.js";
import type { HttpMethod, RawResponse } from "./responses.js";

export interface Connection {
  /** `https://api.cpln.io`, or `http://127.0.0.1:8080`; a path prefix (`https://host/api`) is kept. */
  endpoint: string;
  token: string;
}

/** Appends one JSON line per send to `CPLN_REQUEST_LOG` when it is set (method, path, body and status; no headers). */
export function logRequest(method: HttpMethod, path: string, body: unknown, status: number | string): void {
  const file = process.env.CPLN_REQUEST_LOG;
  if (file === undefined || file === "") return;
  appendFileSync(file, `${JSON.stringify({ method, path, ...(body === undefined ? {} : { body }), status })}\n`);
}

// ---- agents ----

/** The client module of a protocol, loaded at its first request (`node:https` loads TLS). */
function clientModule(protocol: string): typeof http {
  /* eslint-disable @typescript-eslint/no-require-imports */
  if (protocol === "https:") return require("node:https") as typeof http;
  if (protocol === "http:") return require("node:http") as typeof http;
  /* eslint-enable @typescript-eslint/no-require-imports */
  throw new Error(`unsupported protocol ${protocol}`);
}

interface Origin {
  module: typeof http;
  agent: http.Agent;
}

let agents: Map<string, Origin> | undefined;

/**
 * The agent of an origin: up to 32 connections kept alive, an idle one closed after 10 s (or sooner when the server's
 * `Keep-Alive: timeout=` says so, which Node's agent reads), unref'd so that it never holds the process open.
 */
function originFor(url: URL): Origin {
  agents ??= new Map();
  let origin = agents.get(url.origin);
  if (origin === undefined) {
    const module = clientModule(url.protocol);
    origin = { module, agent: new module.Agent({ keepAlive: true, maxSockets: 32, timeout: 10_000 }) };
    agents.set(url.origin, origin);
  }
  return origin;
}

/** Closes the connections of `endpoint`'s origin (in-flight requests finish first); a later request opens new ones. */
export async function closePool(endpoint: string): Promise<void> {
  const key = new URL(endpoint).origin;
  const origin = agents?.get(key);
  if (origin === undefined) return;
  agents?.delete(key);
  const { agent } = origin;
  const busy = (): number => Object.values(agent.sockets).reduce((sum, list) => sum + (list?.length ?? 0), 0);
  while (busy() > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  agent.destroy();
}

// ---- one attempt ----

function authorization(token: string): string {
  return /^bearer /i.test(token) ? token : `Bearer ${token}`;
}

/** One request and its whole answer; rejects on a network error, an abort, or a connection closed mid-answer. */
function exchange(
  url: URL,
  path: string,
  method: HttpMethod,
  headers: Record<string, string>,
  payload: string | undefined,
  signal: AbortSignal,
): Promise<RawResponse> {
  const { module, agent } = originFor(url);
  return new Promise<RawResponse>((resolve, reject) => {
    // The path goes out as given (no URL normalisation), as the host, port and protocol of the endpoint's origin.
    const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1"); // an IPv6 literal without its brackets
    const target = { protocol: url.protocol, hostname, port: url.port, path };
    const request = module.request({ ...target, method, headers, agent, signal }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("error", reject);
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
      response.on("close", () => {
        if (!response.complete) reject(new Error("the connection closed before the whole answer arrived"));
      });
    });
    request.on("error", reject);
    request.end(payload);
  });
}

export async function sendOnce(
  connection: Connection,
  method: HttpMethod,
  path: string,
  body: unknown,
  deadline: number,
  timeoutMs: number,
): Promise<RawResponse> {
  if (deadline - performance.now() <= 0) throw timeoutError(method, path, timeoutMs);
  const endpoint = new URL(connection.endpoint);
  const prefix = endpoint.pathname.replace(/\/+$/, "");
  const headers: Record<string, string> = {
    accept: "application/json",
    authorization: authorization(connection.token),
    "user-agent": "cpln-pulumi",
  };
  const payload = body === undefined ? undefined : JSON.stringify(body);
  if (payload !== undefined) {
    headers["content-type"] = "application/json";
    headers["content-length"] = String(Buffer.byteLength(payload));
  }
  const controller = new AbortController();
  let timedOut = false;
  // The deadline alone ends the call: no socket timeout on an active request.
  const cancelTimer = atDeadline(deadline, () => {
    timedOut = true;
    controller.abort();
  });
  try {
    return await exchange(endpoint, prefix + path, method, headers, payload, controller.signal);
  } catch (error) {
    if (timedOut) throw timeoutError(method, path, timeoutMs);
    throw networkError(method, path, error);
  } finally {
    cancelTimer();
  }
}

/** Waits `ms` by the monotonic clock (see `atDeadline`). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => atDeadline(performance.now() + ms, resolve));
}

/**
 * Calls `onExpiry` once the monotonic clock (`performance.now()`) has reached `deadline`; returns the cancel. A timer
 * alone is not trusted to be late enough: in CI, on a loaded 2-core machine, a 1 s limit armed with `setTimeout` (and
 * undici's header timer) ended a call after 883 ms of that clock. The timer is re-armed until the clock agrees.
 */
function atDeadline(deadline: number, onExpiry: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const check = (): void => {
    const left = deadline - performance.now();
    if (left > 0) timer = setTimeout(check, Math.ceil(left));
    else onExpiry();
  };
  check();
  return () => clearTimeout(timer);
}

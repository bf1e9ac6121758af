/**
 * How one request goes out: an undici `Pool` per endpoint origin (undici loaded at the first request, by path),
 * bearer authentication, a send bounded by the call's deadline on the monotonic clock, and the `CPLN_REQUEST_LOG`
 * line of each send. Whether and when to send again is `http.ts`'s.
 */
import { appendFileSync } from "node:fs";
import type { Dispatcher, Pool } from "undici";
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

// ---- pools ----

let pools: Map<string, Pool> | undefined;

function poolFor(origin: string): Pool {
  pools ??= new Map();
  let pool = pools.get(origin);
  if (pool === undefined || pool.closed || pool.destroyed) {
    pool = new (undici().Pool)(origin, { keepAliveTimeout: 10_000, connections: 32 });
    pools.set(origin, pool);
  }
  return pool;
}

let undiciParts: { Pool: typeof import("undici").Pool; request: Dispatcher["request"] } | undefined;

/**
 * The two parts of undici this client uses, loaded at the first request, not with the provider: a plugin's start (and
 * a preview, which sends nothing) does not pay for evaluating them. Not undici's index: it loads fetch, WebSocket,
 * the caches and the mocks too, and its cookies module touches the global `Headers`, which makes Node load its own
 * built-in copy of undici as well — together 150–250 ms of a plugin's first request here, for nothing used. undici 7
 * has no `exports` map, so these files are reachable by path; `request` is what the index installs on
 * `Dispatcher.prototype` (`Object.assign(Dispatcher.prototype, api)`), called here with the pool as `this` instead
 * of installed. test/native/startup.test.ts fails if either path moves; package.json allows patch releases only.
 */
function undici(): NonNullable<typeof undiciParts> {
  /* eslint-disable @typescript-eslint/no-require-imports */
  undiciParts ??= {
    Pool: require("undici/lib/dispatcher/pool.js") as typeof import("undici").Pool,
    request: require("undici/lib/api/api-request.js") as Dispatcher["request"],
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
  return undiciParts;
}

/** Closes the pool of `endpoint`'s origin (in-flight requests finish first); a later request opens a new one. */
export async function closePool(endpoint: string): Promise<void> {
  const origin = new URL(endpoint).origin;
  const pool = pools?.get(origin);
  if (pool === undefined) return;
  pools?.delete(origin);
  await pool.close();
}

// ---- one attempt ----

function splitEndpoint(endpoint: string): { origin: string; prefix: string } {
  const url = new URL(endpoint);
  return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, "") };
}

function authorization(token: string): string {
  return /^bearer /i.test(token) ? token : `Bearer ${token}`;
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
  const { origin, prefix } = splitEndpoint(connection.endpoint);
  const headers: Record<string, string> = {
    accept: "application/json",
    authorization: authorization(connection.token),
    "user-agent": "cpln-pulumi",
  };
  if (body !== undefined) headers["content-type"] = "application/json";
  const controller = new AbortController();
  let timedOut = false;
  const cancelTimer = atDeadline(deadline, () => {
    timedOut = true;
    controller.abort();
  });
  try {
    const response = await undici().request.call(poolFor(origin), {
      method,
      path: prefix + path,
      headers,
      body: body === undefined ? null : JSON.stringify(body),
      signal: controller.signal,
      // The deadline alone ends the call (atDeadline, below); undici's coarse timers would be a second, earlier limit.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    const text = await response.body.text();
    return { status: response.statusCode, headers: response.headers, text };
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

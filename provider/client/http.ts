/**
 * The one HTTP primitive of the client: JSON in and out, zod parsing of responses, an overall deadline, retries with
 * backoff, and recognition of writes whose outcome is unknown. Each send goes out through `transport.ts` (Node's HTTP
 * client with a keep-alive agent per endpoint origin, bearer authentication, the send's own deadline).
 *
 * This module is loaded by `require` in the process that runs it (the program, or the dynamic-provider host); it is
 * never serialized. Pools are created lazily, inside functions, so nothing is built at load time.
 *
 * Retry rules (see `execute`):
 * - Transient failures: a network error (refused, reset, cut mid-response), 429 whose code is not `QuotaExceeded`,
 *   and 502/503/504. Nothing else is retried (a 500 is a bug; 4xx are answers).
 * - 429 means the request was turned away unprocessed: every method is retried.
 * - A network error or 502/503/504 leaves a write's outcome unknown ("ambiguous"):
 *   GET, PUT, DELETE and PATCH bodies without `$append/` are retried as they are (they are idempotent);
 *   POST creating a named object (path = collection, body has `name`) is recognised: GET `<collection>/<name>`,
 *   an object containing every field sent is the result, 404 sends the POST again, and a retried POST answered 409
 *   is checked the same way; PATCH with `$append/` is recognised: GET the object, drop the appended items already
 *   present (by the array's key rule), succeed with the object if the rest changes nothing, else send the rest;
 *   other POSTs are retried only when declared idempotent (queries, join scripts), otherwise the error is raised.
 * - A DELETE answered 404 after an ambiguous attempt counts as done.
 * - Delays: full jitter, `random(0, min(maxDelayMs, minDelayMs·2^n))`, or exactly `Retry-After` when the server
 *   sends it. No delay or attempt goes past the deadline: when the next one would, the last error is raised.
 * - An unreachable endpoint (connection refused, host not found, DNS failure, no route) is not a busy server: it is
 *   retried for at most `unreachableBudgetMs` (2 s), then fails with one line naming the endpoint and the setting that
 *   chose it (`cpln:endpoint`, `CPLN_ENDPOINT` or the default).
 * - Every retry of a transient failure prints one line on stderr (`cpln: retry 2/10 of GET /org/... in 1.3 s: 503
 *   ServiceUnavailable`); `CPLN_LOG_RETRIES=0` silences them.
 * - With `CPLN_REQUEST_LOG=<file>`, every send appends one JSON line `{method, path, body, status}` to that file (for
 *   a bug report: docs/installation-configuration.md). Headers, and so the token, are never written.
 * - `timeoutMs` bounds the whole call (every attempt, every delay, every recognition GET); when it runs out the call
 *   fails with code `Timeout`.
 */
import type { z } from "zod";
import { parseLink } from "../../api/links.js";
import { safeParseOnce } from "../../api/parseOnce.js";
import { CplnApiError, LocalErrorCode, invalidResponseError } from "./errors.js";
import { deepContains, hasAppendDirective, reduceAppendPatch } from "./recognise.js";
import {
  backoffMs,
  errorFromResponse,
  successBody,
  type HttpMethod,
  type RawResponse,
  type RetryOptions,
} from "./responses.js";
import { logRequest, sendOnce, sleep, type Connection } from "./transport.js";

export type { HttpMethod, RetryOptions } from "./responses.js";
export { closePool, type Connection } from "./transport.js";

export const defaultRetry: Required<RetryOptions> = { retries: 10, minDelayMs: 250, maxDelayMs: 8000 };
/** Default limit for one call, attempts and delays included. */
export const defaultTimeoutMs = 60_000;
/** How long an unreachable endpoint is retried before the call fails (a restarting server comes back within it). */
export const unreachableBudgetMs = 2_000;

/** Network error codes that mean nothing is listening there, or the name does not resolve. */
const unreachableReasons: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "DNS lookup failed",
  EAI_NONAME: "host not found",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
};

let endpointSources: Map<string, string> | undefined;

/** Records which setting chose `endpoint` (`cpln:endpoint`, `CPLN_ENDPOINT`, `the default`), for "cannot reach" errors. */
export function noteEndpointSource(endpoint: string, source: string): void {
  endpointSources ??= new Map();
  endpointSources.set(endpoint, source);
}

function unreachableError(connection: Connection, method: HttpMethod, path: string, cause: string): CplnApiError {
  const source = endpointSources?.get(connection.endpoint);
  const setBy =
    source === undefined ? "" : source === "the default" ? " (the default endpoint)" : ` (set by ${source})`;
  return new CplnApiError({
    status: 0,
    code: LocalErrorCode.NetworkError,
    apiMessage: `cannot reach ${connection.endpoint}${setBy}: ${unreachableReasons[cause] ?? cause} (${cause})`,
    method,
    path,
    details: { cause },
    retryable: false,
  });
}

/** One stderr line per retry: which call, which attempt, why, and the wait. */
function logRetry(
  method: HttpMethod,
  path: string,
  retryNumber: number,
  retries: number,
  error: CplnApiError,
  delayMs: number,
): void {
  if (process.env.CPLN_LOG_RETRIES === "0") return;
  const why =
    error.status > 0
      ? `${error.status} ${error.code}`
      : `${error.code} ${String((error.details as { cause?: unknown } | undefined)?.cause ?? "")}`.trim();
  process.stderr.write(
    `cpln: retry ${retryNumber}/${retries} of ${method} ${path} in ${(delayMs / 1000).toFixed(1)} s: ${why}\n`,
  );
}

export interface RequestOptions<T> {
  method: HttpMethod;
  /** API path (`/org/acme/policy/p`), appended to the endpoint's path prefix. */
  path: string;
  body?: unknown;
  /** Parses a 2xx body; a mismatch is an `InvalidResponse` error. Without it the body is returned as parsed JSON. */
  schema?: z.ZodType<T>;
  timeoutMs?: number;
  retry?: RetryOptions;
  /** A POST with no side effect beyond its answer (a query): retried like a GET. */
  idempotent?: boolean;
}

export interface HttpResponse<T> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  /** Sends of the request itself (recognition GETs not counted). */
  attempts: number;
  /**
   * Set when the result was established by reading the object back after an ambiguous failure (the body is then
   * the object as read), or, for a DELETE, when a retry found it gone.
   */
  recognised: boolean;
}

// ---- the request loop ----

type Outcome = { raw: RawResponse } | { error: CplnApiError; raw?: RawResponse };

async function attempt(
  connection: Connection,
  method: HttpMethod,
  path: string,
  body: unknown,
  deadline: number,
  timeoutMs: number,
): Promise<Outcome> {
  try {
    const raw = await sendOnce(connection, method, path, body, deadline, timeoutMs);
    logRequest(method, path, body, raw.status);
    if (raw.status >= 200 && raw.status < 300) return { raw };
    return { error: errorFromResponse(method, path, raw), raw };
  } catch (error) {
    if (error instanceof CplnApiError) {
      logRequest(method, path, body, error.code);
      return { error };
    }
    throw error;
  }
}

/** 429 (not quota): the service turned the request away unprocessed. */
function isRefused(outcome: { error: CplnApiError }): boolean {
  return outcome.error.status === 429 && outcome.error.code !== "QuotaExceeded";
}

/** Network error or 502/503/504: the request may or may not have been applied. Timeouts end the call instead. */
function isAmbiguous(outcome: { error: CplnApiError }): boolean {
  const { status, code } = outcome.error;
  return (status === 0 && code === "NetworkError") || status === 502 || status === 503 || status === 504;
}

function createTarget(method: HttpMethod, path: string, body: unknown): { org: string; path: string } | undefined {
  if (method !== "POST") return undefined;
  const parsed = parseLink(path);
  const name = (body as { name?: unknown } | null | undefined)?.name;
  if (parsed === undefined || parsed.name !== undefined || typeof name !== "string" || name === "") return undefined;
  return { org: parsed.org, path: `${path}/${encodeURIComponent(name)}` };
}

export function request<T = unknown>(connection: Connection, options: RequestOptions<T>): Promise<HttpResponse<T>> {
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  return execute(connection, options, performance.now() + timeoutMs, timeoutMs);
}

async function execute<T>(
  connection: Connection,
  options: RequestOptions<T>,
  deadline: number,
  timeoutMs: number,
): Promise<HttpResponse<T>> {
  const { method, path, schema } = options;
  const retry = { ...defaultRetry, ...options.retry };
  const create = createTarget(method, path, options.body);
  let body = options.body;
  let sends = 0;
  let ambiguousSeen = false;

  const done = (raw: RawResponse, recognised = false): HttpResponse<T> => ({
    status: raw.status,
    headers: raw.headers,
    body: successBody(method, path, raw, schema),
    attempts: sends,
    recognised,
  });
  const readBack = (target: string): Promise<HttpResponse<unknown>> =>
    execute(connection, { method: "GET", path: target, retry: options.retry }, deadline, timeoutMs);
  const recognisedAs = (record: unknown, status: number): HttpResponse<T> => {
    const parsed = schema === undefined ? { success: true as const, data: record as T } : safeParseOnce(schema, record);
    if (!parsed.success) throw invalidResponseError("GET", path, status, parsed.error.message);
    return { status, headers: {}, body: parsed.data, attempts: sends, recognised: true };
  };
  /** Waits before the next send; false when the deadline does not leave room for it. */
  const pause = async (failure: { error: CplnApiError; raw?: RawResponse }): Promise<boolean> => {
    if (sends > retry.retries) return false;
    const delay = backoffMs(retry, sends - 1, failure.raw);
    if (performance.now() + delay >= deadline) return false;
    logRetry(method, path, sends, retry.retries, failure.error, delay);
    await sleep(delay);
    return true;
  };
  let unreachableSince: number | undefined;

  for (;;) {
    sends += 1;
    const outcome = await attempt(connection, method, path, body, deadline, timeoutMs);
    if ("raw" in outcome && !("error" in outcome)) return done(outcome.raw);
    const failure = outcome as { error: CplnApiError; raw?: RawResponse };

    // Nothing listening, or no such host: a short budget of its own, then one clear line.
    const cause = (failure.error.details as { cause?: unknown } | undefined)?.cause;
    if (
      failure.error.code === LocalErrorCode.NetworkError &&
      typeof cause === "string" &&
      cause in unreachableReasons
    ) {
      const now = performance.now();
      unreachableSince ??= now;
      const delay = Math.min(retry.maxDelayMs, retry.minDelayMs * 2 ** (sends - 1));
      const spent = now + delay - unreachableSince > unreachableBudgetMs;
      if (spent || sends > retry.retries || now + delay >= deadline) {
        throw unreachableError(connection, method, path, cause);
      }
      logRetry(method, path, sends, retry.retries, failure.error, delay);
      await sleep(delay);
      continue;
    }
    unreachableSince = undefined;

    if (method === "DELETE" && ambiguousSeen && failure.error.status === 404) {
      return {
        status: 404,
        headers: failure.raw?.headers ?? {},
        body: undefined as T,
        attempts: sends,
        recognised: true,
      };
    }

    // A retried create answered 409: ours if the object holds what we sent.
    if (create !== undefined && ambiguousSeen && failure.error.status === 409) {
      const existing = await readBack(create.path).catch(() => undefined);
      if (existing !== undefined && deepContains(body, existing.body, create.org)) {
        return recognisedAs(existing.body, existing.status);
      }
      throw failure.error;
    }

    if (isRefused(failure)) {
      if (!(await pause(failure))) throw failure.error;
      continue;
    }
    if (!isAmbiguous(failure)) throw failure.error;

    ambiguousSeen = true;
    if (method === "POST" && !options.idempotent) {
      if (create === undefined) throw failure.error;
      if (!(await pause(failure))) throw failure.error;
      let existing: HttpResponse<unknown> | undefined;
      try {
        existing = await readBack(create.path);
      } catch (readError) {
        if (!(readError instanceof CplnApiError) || readError.status !== 404) throw failure.error;
      }
      if (existing !== undefined && deepContains(body, existing.body, create.org)) {
        return recognisedAs(existing.body, existing.status);
      }
      // Absent: it was not created, send it again. Present but different: the next POST's answer (409) tells.
      continue;
    }

    if (method === "PATCH" && hasAppendDirective(body)) {
      if (!(await pause(failure))) throw failure.error;
      const parsed = parseLink(path);
      const current = await readBack(path);
      const reduced = parsed === undefined ? undefined : reduceAppendPatch(parsed.kind, parsed.org, body, current.body);
      if (reduced === undefined) throw failure.error;
      if (reduced.changesNothing) return recognisedAs(current.body, current.status);
      body = reduced.patch;
      continue;
    }

    if (!(await pause(failure))) throw failure.error;
  }
}

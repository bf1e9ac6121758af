/**
 * Errors raised by the client. Every failure — an error response, a timeout, a cut connection, a response that does
 * not match the contract — is a `CplnApiError` carrying the request's method and path, so callers handle one type.
 *
 * None of them ever holds a header or the token: messages are built from the method, the path, the status and the
 * server's error body only, and a wrapped low-level error contributes its code and message, never the object itself.
 */

export interface CplnApiErrorInit {
  status: number;
  code: string;
  /** The server's explanation (or a description of the local failure); the full message adds method and path. */
  apiMessage: string;
  method: string;
  path: string;
  details?: unknown;
  requestId?: string;
  retryable?: boolean;
}

/** Codes for failures that have no HTTP status (`status` 0). */
export const LocalErrorCode = {
  Timeout: "Timeout",
  NetworkError: "NetworkError",
  /** The response was not JSON, or did not match the contract schema. */
  InvalidResponse: "InvalidResponse",
} as const;

export class CplnApiError extends Error {
  /** HTTP status; 0 when no response was received (timeout, network error). */
  readonly status: number;
  /** The error body's `code` (`NotFound`, `QuotaExceeded`, ...) or a `LocalErrorCode`. */
  readonly code: string;
  /** The server's message (without method and path). */
  readonly apiMessage: string;
  readonly details: unknown;
  /** The server's request id (error body `id`, or the `x-request-id` header). */
  readonly requestId: string | undefined;
  readonly method: string;
  readonly path: string;
  /** Whether the client considered the failure transient (it retried it, or would have with retries left). */
  readonly retryable: boolean;

  constructor(init: CplnApiErrorInit) {
    const head = init.status > 0 ? `${init.status} ${init.code}` : init.code;
    // The request id lets the service's operators find the request; it is part of the one line a user sees.
    const id = init.requestId ? ` [request id ${init.requestId}]` : "";
    super(`${init.method} ${init.path} failed (${head}): ${init.apiMessage}${id}`);
    this.name = "CplnApiError";
    this.status = init.status;
    this.code = init.code;
    this.apiMessage = init.apiMessage;
    this.details = init.details;
    this.requestId = init.requestId;
    this.method = init.method;
    this.path = init.path;
    this.retryable = init.retryable ?? false;
  }

  /** True for `NotFound` answers (status 404). */
  get isNotFound(): boolean {
    return this.status === 404;
  }
}

/** The call did not complete within its time limit (which covers every attempt and every backoff delay). */
export function timeoutError(method: string, path: string, timeoutMs: number): CplnApiError {
  return new CplnApiError({
    status: 0,
    code: LocalErrorCode.Timeout,
    apiMessage: `no complete response within the time limit of ${timeoutMs} ms`,
    method,
    path,
    retryable: false,
  });
}

/** Network-level failure (refused, reset, cut mid-response). Only the cause's code and message are kept. */
export function networkError(method: string, path: string, cause: unknown): CplnApiError {
  const code = errorProperty(cause, "code");
  const message = errorProperty(cause, "message") ?? String(cause);
  return new CplnApiError({
    status: 0,
    code: LocalErrorCode.NetworkError,
    apiMessage: code !== undefined && !message.includes(code) ? `${code}: ${message}` : message,
    method,
    path,
    details: code !== undefined ? { cause: code } : undefined,
    retryable: true,
  });
}

/** The response body was not what the contract says; `problem` names what was wrong. */
export function invalidResponseError(
  method: string,
  path: string,
  status: number,
  problem: string,
  requestId?: string,
): CplnApiError {
  return new CplnApiError({
    status,
    code: LocalErrorCode.InvalidResponse,
    apiMessage: `the response does not match the API contract: ${problem}`,
    method,
    path,
    requestId,
    retryable: false,
  });
}

function errorProperty(value: unknown, key: "code" | "message"): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const property = (value as Record<string, unknown>)[key];
  return typeof property === "string" && property !== "" ? property : undefined;
}

export function isCplnApiError(value: unknown): value is CplnApiError {
  return value instanceof CplnApiError;
}

/**
 * What the client makes of an answer: the API's error (`CplnApiError` with the server's code and message), a success
 * body parsed by its zod schema, which statuses are transient, and how long to wait before the next attempt.
 */
import type { z } from "zod";
import { apiError } from "../../api/errors.js";
import { safeParseOnce } from "../../api/parseOnce.js";
import { CplnApiError, invalidResponseError } from "./errors.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface RetryOptions {
  /**
   * Attempts after the first one. Default 10: at a 15% rate of refused or cut attempts, 5 attempts fail ~7% of
   * 1,000-request stack updates; 11 outlast any realistic burst. The overall deadline still bounds the call.
   */
  retries?: number;
  /** Base of the exponential backoff. Default 250 ms. */
  minDelayMs?: number;
  /** Cap of one backoff delay (not of `Retry-After`). Default 8000 ms. */
  maxDelayMs?: number;
}

/** One answer as received: status, headers and the body's text. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

// ---- responses ----

function header(raw: RawResponse, name: string): string | undefined {
  const value = raw.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === "") return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

const statusCodes: Readonly<Record<number, string>> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  409: "Conflict",
  413: "PayloadTooLarge",
  415: "UnsupportedMediaType",
  429: "TooManyRequests",
  500: "InternalError",
  502: "BadGateway",
  503: "ServiceUnavailable",
  504: "GatewayTimeout",
};

/** The error a non-2xx answer stands for; a body that is not the error shape (a proxy's page) still gives one. */
export function errorFromResponse(method: HttpMethod, path: string, raw: RawResponse): CplnApiError {
  const parsed = parseJson(raw.text);
  const shaped = parsed.ok ? apiError().safeParse(parsed.value) : undefined;
  const requestId = header(raw, "x-request-id");
  if (shaped?.success === true) {
    return new CplnApiError({
      status: raw.status,
      code: shaped.data.code,
      apiMessage: shaped.data.message,
      details: shaped.data.details,
      requestId: shaped.data.id || requestId,
      method,
      path,
      retryable: isTransientStatus(raw.status, shaped.data.code),
    });
  }
  const snippet = raw.text.replace(/\s+/g, " ").trim().slice(0, 200);
  const code = statusCodes[raw.status] ?? `Http${raw.status}`;
  return new CplnApiError({
    status: raw.status,
    code,
    apiMessage: snippet === "" ? `HTTP ${raw.status} with no error body` : snippet,
    method,
    path,
    requestId,
    retryable: isTransientStatus(raw.status, code),
  });
}

function isTransientStatus(status: number, code: string): boolean {
  return (status === 429 && code !== "QuotaExceeded") || status === 502 || status === 503 || status === 504;
}

export function successBody<T>(
  method: HttpMethod,
  path: string,
  raw: RawResponse,
  schema: z.ZodType<T> | undefined,
): T {
  const parsed = parseJson(raw.text);
  if (!parsed.ok) {
    throw invalidResponseError(method, path, raw.status, "the body is not JSON", header(raw, "x-request-id"));
  }
  if (schema === undefined) return parsed.value as T;
  const result = safeParseOnce(schema, parsed.value);
  if (result.success) return result.data;
  const problems = result.error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.map(String).join(".") || "(body)"}: ${issue.message}`)
    .join("; ");
  throw invalidResponseError(method, path, raw.status, problems, header(raw, "x-request-id"));
}

// ---- delays ----

function retryAfterMs(raw: RawResponse | undefined): number | undefined {
  const value = raw === undefined ? undefined : header(raw, "retry-after");
  if (value === undefined || value.trim() === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export function backoffMs(retry: Required<RetryOptions>, retryIndex: number, raw: RawResponse | undefined): number {
  const told = retryAfterMs(raw);
  if (told !== undefined) return told;
  const ceiling = Math.min(retry.maxDelayMs, retry.minDelayMs * 2 ** retryIndex);
  return Math.random() * ceiling;
}

import { z } from "zod";
import { lazy } from "./lazy.js";

/** Machine-readable error codes carried in the `code` field of every error body. */
export const ErrorCode = {
  BadRequest: "BadRequest",
  Unauthorized: "Unauthorized",
  Forbidden: "Forbidden",
  NotFound: "NotFound",
  AlreadyExists: "AlreadyExists",
  VersionConflict: "VersionConflict",
  InUse: "InUse",
  QuotaExceeded: "QuotaExceeded",
  Unsupported: "Unsupported",
  Conflict: "Conflict",
  PayloadTooLarge: "PayloadTooLarge",
  UnsupportedMediaType: "UnsupportedMediaType",
  MethodNotAllowed: "MethodNotAllowed",
  TooManyRequests: "TooManyRequests",
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export const errorCodes: readonly ErrorCode[] = Object.values(ErrorCode);

/** The HTTP status each code is sent with. */
export const errorStatus: Readonly<Record<ErrorCode, number>> = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  AlreadyExists: 409,
  VersionConflict: 409,
  InUse: 409,
  QuotaExceeded: 429,
  // mk8s join on a cluster whose provider has no join script: the API document this project implements says 400
  // ("Join script requested for a provider that does not support it | 400"; endpoint 4), and it decides (issue 39).
  Unsupported: 400,
  // An update valid in itself that the stored object rules out (an immutable field, a value its immutable fields do
  // not admit): details.issues names each field, RFC 9110 §15.5.10.
  Conflict: 409,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
  MethodNotAllowed: 405,
  TooManyRequests: 429,
};

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && (errorCodes as readonly string[]).includes(value);
}

/** One validation problem: `path` is dotted (`spec.autoscaling.maxCapacity`, `bindings.0.permissions`). */
export interface Issue {
  path: string;
  message: string;
}

export interface ApiErrorDetails {
  /** Present on 400 BadRequest: every offending path with the rule it broke. */
  issues?: Issue[];
  [key: string]: unknown;
}

/** The body of every error response. `id` is the request id (also logged by the server). */
export interface ApiErrorBody {
  status: number;
  message: string;
  code: ErrorCode;
  details?: ApiErrorDetails;
  id: string;
}

export const issue = lazy(() =>
  z
    .object({
      path: z.string().describe("Dotted path of the offending field ('' for the whole body)."),
      message: z.string().describe("The rule the value broke."),
    })
    .describe("One validation problem."),
);

/**
 * Error body as the server sends it. `details` tolerates extra keys; `code` accepts any string so that clients can
 * parse errors from a newer server (use `isErrorCode` to narrow).
 */
export const apiError = lazy(() =>
  z
    .object({
      status: z.number().int().min(400).max(599).describe("HTTP status code."),
      message: z.string().describe("Human-readable explanation."),
      code: z.string().describe(`Machine-readable code: one of ${errorCodes.join(", ")}.`),
      details: z
        .looseObject({
          issues: z.array(issue()).optional().describe("Every offending path (400 BadRequest)."),
        })
        .optional()
        .describe("Extra, code-specific information."),
      id: z.string().describe("Request id."),
    })
    .describe("Error response body."),
);

/** Joins a path (array of keys or indexes) into the dotted form used in issues. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.map((segment) => String(segment)).join(".");
}

/** Converts zod issues into API issues, with `prefix` prepended to every path (e.g. `spec`). */
/** zod's message for one issue, except a missing value, which "is required" (not "expected number, received undefined"). */
export function issueMessage(zodIssue: z.core.$ZodIssue): string {
  if (zodIssue.code === "invalid_type" && /received undefined$/.test(zodIssue.message)) return "is required";
  return zodIssue.message;
}

export function issuesFromZod(error: z.ZodError, prefix: readonly PropertyKey[] = []): Issue[] {
  return error.issues.flatMap((zodIssue): Issue[] => {
    // An unknown field is reported at the field itself, one issue per key, so the path names it.
    if (zodIssue.code === "unrecognized_keys") {
      return zodIssue.keys.map((key) => ({
        path: issuePath([...prefix, ...zodIssue.path, key]),
        message: `Unknown field "${key}"`,
      }));
    }
    // A bad record key: zod's own message is "Invalid key in record"; the key schema's message names the rule.
    if (zodIssue.code === "invalid_key") {
      const key = String(zodIssue.path.at(-1));
      const rules = zodIssue.issues.map((inner) => inner.message).join("; ");
      return [{ path: issuePath([...prefix, ...zodIssue.path]), message: `Key "${key}" ${rules}` }];
    }
    return [{ path: issuePath([...prefix, ...zodIssue.path]), message: issueMessage(zodIssue) }];
  });
}

export type Validated<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };

/** Parses `input` with `schema`; on failure returns every problem as an issue with its dotted path. */
export function validate<T>(schema: z.ZodType<T>, input: unknown, prefix: readonly PropertyKey[] = []): Validated<T> {
  const result = schema.safeParse(input);
  return result.success ? { ok: true, value: result.data } : { ok: false, issues: issuesFromZod(result.error, prefix) };
}

import { ErrorCode, errorStatus, type ApiErrorBody, type ApiErrorDetails, type Issue } from "../api/errors.js";

/** A failure that the error handler turns into the error shape `{status, message, code, details?, id}`. */
export class ApiFailure extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: ApiErrorDetails | undefined;
  /** Extra response headers (e.g. `Retry-After`). */
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, details?: ApiErrorDetails, headers?: Record<string, string>) {
    super(message);
    this.name = "ApiFailure";
    this.code = code;
    this.status = errorStatus[code];
    this.details = details;
    this.headers = headers;
  }
}

/** The issues as one line: `path: message; ...`. */
function summaryOf(issues: Issue[]): string {
  return issues.map((i) => (i.path === "" ? i.message : `${i.path}: ${i.message}`)).join("; ");
}

export function badRequest(issues: Issue[], message?: string): ApiFailure {
  return new ApiFailure(ErrorCode.BadRequest, message ?? `Invalid request: ${summaryOf(issues)}`, { issues });
}

/**
 * A 409 for an update that is valid in itself but conflicts with the stored object (it changes an immutable field,
 * or holds a value the object's immutable fields rule out): `issues` name each field and rule, as a 400's do.
 */
export function stateConflict(issues: Issue[]): ApiFailure {
  return new ApiFailure(ErrorCode.Conflict, `Conflicts with the stored object: ${summaryOf(issues)}`, { issues });
}

/**
 * A 409 for a write to an existing object whose body is valid but whose result would not be a valid object (a merge
 * creating an object field without the fields it requires, an appended item whose key the array holds, tags added
 * past the limit): what the same body does depends on the stored object (RFC 5789 §2.2, "conflicting state").
 */
export function resultConflict(kind: string, issues: Issue[]): ApiFailure {
  return new ApiFailure(ErrorCode.Conflict, `The ${kind} would not be valid after this change: ${summaryOf(issues)}`, {
    issues,
  });
}

export function notFound(what: string): ApiFailure {
  return new ApiFailure(ErrorCode.NotFound, `${what} not found`);
}

export function forbidden(message: string): ApiFailure {
  return new ApiFailure(ErrorCode.Forbidden, message);
}

export function unauthorized(message = "Missing or invalid credentials"): ApiFailure {
  return new ApiFailure(ErrorCode.Unauthorized, message);
}

export function conflict(code: "AlreadyExists" | "VersionConflict" | "InUse", message: string): ApiFailure {
  return new ApiFailure(ErrorCode[code], message);
}

/** The error shape `{status, message, code, details?, id}` of an answer to `request` (its id is the answer's). */
export function errorBody(request: { id: string }, status: number, code: string, message: string, details?: unknown) {
  const body: Record<string, unknown> = { status, message, code };
  if (details !== undefined) body["details"] = details;
  body["id"] = request.id;
  return body as unknown as ApiErrorBody;
}

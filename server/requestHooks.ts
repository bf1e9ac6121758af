import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ErrorCode } from "../api/errors.js";
import { anonymous, type Authenticator } from "./auth/authn.js";
import { errorBody } from "./errors.js";
import type { FaultInjector } from "./faults.js";
import { CLIENT_HEADER, CONSOLE_CLIENT, logLine, type PushedRequest, type RequestLog } from "./inspect.js";
import { jsonOf } from "./json.js";
import type { Store } from "./store/store.js";

/**
 * What every request goes through besides its route: authentication before its body is read, fault injection,
 * no answer before the writes it may have seen are durable, and the request log, request inspection and log lines.
 * The fastify instance these hooks are added to, its body parser and its error shape are `app.ts`'s.
 */

/** One request as the request log keeps it (never headers). */
export interface RecordedRequest {
  method: string;
  path: string;
  /** The parsed JSON body, or undefined when there was none. */
  body: unknown;
  status: number;
}

/** What the request hooks use: who calls, which faults to inject, where requests are logged and kept. */
export interface RequestHooksContext {
  authenticator: Authenticator;
  faults: FaultInjector;
  /** The org whose JWT users call routes without an org in the path (`GET /org`). */
  defaultOrg: string;
  logger: boolean;
  /** `text`: one readable line per request (default); `json`: pino's JSON lines. */
  logFormat?: "text" | "json";
  /** Where log lines go when `logger` is on (default stdout). */
  logStream?: NodeJS.WritableStream;
  /** When set, every request is appended here. */
  requestLog: RecordedRequest[] | undefined;
  /** The last requests, for request inspection (`GET /_cpln-local/requests`). */
  recent?: RequestLog;
  /** Where request inspection reads the object a PATCH changes, before the change. */
  store?: Store;
}

/** Whether the request announced a body (a Content-Length above 0, or chunked transfer encoding). */
export function announcesBody(request: FastifyRequest): boolean {
  const length = request.headers["content-length"];
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The body as request logs keep it: the route's `redactBody` fields (secret values) as `[redacted]`. */
function loggedBody(request: FastifyRequest): { body: unknown; text: string | undefined } {
  const fields = request.routeOptions.config.redactBody;
  const body = request.body;
  if (fields === undefined || typeof body !== "object" || body === null || Array.isArray(body)) {
    return { body, text: request.bodyText };
  }
  const present = fields.filter((field) => Object.hasOwn(body, field));
  if (present.length === 0) return { body, text: request.bodyText };
  const redacted: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const field of present) redacted[field] = "[redacted]";
  return { body: redacted, text: JSON.stringify(redacted) };
}

/** Adds the hooks every request goes through to `app`. */
export function addRequestHooks(app: FastifyInstance, context: RequestHooksContext): void {
  // Authentication comes first, before a byte of the body is read: a request without valid credentials is answered
  // 401 at once, and its connection is closed rather than drained when a body was announced, so an unauthenticated
  // client can make the server neither buffer nor wait for a body.
  app.addHook("onRequest", async (request, reply) => {
    request.principal = anonymous;
    const mode = request.routeOptions.config.auth ?? "required";
    if (mode === "none") return;
    const header = request.headers.authorization;
    if (mode === "optional" && (header === undefined || header.trim() === "")) return;
    const params = request.params as { org?: string } | undefined;
    try {
      request.principal = await context.authenticator.authenticate(header, params?.org ?? context.defaultOrg);
    } catch (error) {
      if (announcesBody(request)) void reply.header("connection", "close");
      throw error;
    }
  });

  // After body parsing (so the request log keeps the body) and before the handler. Callback style: no promise per
  // request while injection is off.
  app.addHook("preValidation", (request, reply, done) => {
    const fault = request.routeOptions.config.noFaults ? undefined : context.faults.pick();
    if (fault === undefined) {
      done();
      return;
    }
    request.fault = fault;
    if (fault === "503" || fault === "429") {
      const status = Number(fault);
      const code = status === 429 ? ErrorCode.TooManyRequests : "ServiceUnavailable";
      const message = status === 429 ? "Too many requests (injected fault)" : "Service unavailable (injected fault)";
      void reply
        .code(status)
        .header("retry-after", context.faults.retryAfter())
        .send(errorBody(request, status, code, message));
      return;
    }
    done();
  });

  // One hook before every answer is sent: request inspection keeps a PATCH's answer (the record after the change;
  // the route has kept the record before it, `patchCallOf`), the request log its entry, fault injection delays or
  // cuts; and no answer leaves before the writes it may have seen are durable (the store commits writes in groups, see
  // `Store.settled`).
  const { recent, store } = context;
  const inspecting = recent !== undefined;
  app.addHook("onSend", (request: FastifyRequest, reply: FastifyReply, payload, done) => {
    // Kept as the JSON text sent (the answer is the record after the change): parsed only when listed.
    if (inspecting && request.recordBefore !== undefined && reply.statusCode === 200 && typeof payload === "string") {
      request.recordAfter = payload;
    }
    if (context.requestLog) {
      const path = request.url;
      context.requestLog.push({
        method: request.method,
        path,
        body: loggedBody(request).body,
        status: reply.statusCode,
      });
    }
    const settled = store?.settled?.();
    if (settled === undefined && request.fault === undefined) {
      done(null, payload);
      return;
    }
    void (async () => {
      if (settled !== undefined) await settled;
      if (request.fault === "delay") await sleep(context.faults.delayMs);
      if (request.fault === "cut") {
        // The handler has committed its write; the client never hears about it.
        request.raw.socket?.destroy();
      }
    })().then(
      () => done(null, payload),
      (error: unknown) => done(error as FastifyError),
    );
  });

  const textLog = context.logger && context.logFormat !== "json" ? (context.logStream ?? process.stdout) : undefined;
  if (context.recent || textLog) {
    app.addHook("onResponse", (request, reply, done) => {
      const durationMs = reply.elapsedTime;
      const logged = loggedBody(request);
      if (textLog)
        textLog.write(`${logLine(request.method, request.url, reply.statusCode, durationMs, logged.body)}\n`);
      if (context.recent && !request.routeOptions.config.emulator) {
        const pushed: PushedRequest = {
          method: request.method,
          path: request.url,
          status: reply.statusCode,
          durationMs: Math.round(durationMs * 10) / 10,
        };
        if (request.principal) pushed.principal = request.principal.link;
        if (request.headers[CLIENT_HEADER] === CONSOLE_CLIENT) pushed.client = CONSOLE_CLIENT;
        // The pair as JSON text: the record before as stored (its remembered text), the answer as sent.
        if (typeof request.recordAfter === "string") {
          pushed.changeText = `{"before":${jsonOf(request.recordBefore)},"after":${request.recordAfter}}`;
        }
        context.recent.push(pushed, { text: logged.text, bytes: request.bodyBytes });
      }
      done();
    });
  }
}

import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { ErrorCode } from "../api/errors.js";
import type { Principal } from "./auth/authn.js";
import { ApiFailure, badRequest, errorBody } from "./errors.js";
import type { FaultMode } from "./faults.js";
import { MAX_JSON_DEPTH, nestsDeeperThan, replyPayload, reservedKeyPathInText } from "./json.js";
import { addRequestHooks, type RequestHooksContext } from "./requestHooks.js";

export { announcesBody, type RecordedRequest } from "./requestHooks.js";

/** How a route authenticates: `required` (401 without credentials), `optional` (anonymous allowed), `none`. */
export type AuthMode = "required" | "optional" | "none";

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal;
    fault: FaultMode | undefined;
    /** The JSON text of the body as parsed (byte-order mark removed); undefined when there was none. */
    bodyText: string | undefined;
    /** Bytes of the body actually received (chunked bodies have no Content-Length). */
    bodyBytes: number;
    /** The stored record a successful PATCH changed, as the PATCH found it (for request inspection). */
    recordBefore: unknown;
    /** The JSON text of the record a PATCH returned (request inspection only). */
    recordAfter: string | undefined;
  }
  interface FastifyContextConfig {
    auth?: AuthMode;
    /** Fault injection never applies to this route. */
    noFaults?: boolean;
    /** The route only answers 405 (a method its path does not serve). */
    methodNotAllowed?: boolean;
    /** An emulator route (`/_cpln-local/...`): not kept by request inspection. */
    emulator?: boolean;
    /** A web page (the console), not an API operation: not in the OpenAPI document. */
    page?: boolean;
    /** Top-level body fields request logs keep as `[redacted]` (secret values). */
    redactBody?: readonly string[];
  }
}

/** The hooks' context, and the limits of the connections. */
export interface AppContext extends RequestHooksContext {
  /** Connection limits (defaults: `DEFAULT_CONNECTION_LIMITS`). */
  connections?: Partial<ConnectionLimits>;
}

/** How long a client may take, and how many connections it may hold: what keeps slow clients from holding sockets. */
export interface ConnectionLimits {
  /** The whole request (headers and body) must arrive within this (then 408 and the connection is closed). */
  requestTimeoutMs: number;
  /** The headers must arrive within this. */
  headersTimeoutMs: number;
  /** A connection with no traffic for this long is closed. */
  idleTimeoutMs: number;
  /** A kept-alive connection waiting for its next request is closed after this. */
  keepAliveTimeoutMs: number;
  /** Connections open at once; further ones are closed as soon as they are accepted. */
  maxConnections: number;
  /** How often Node checks the request and headers timeouts (its default, 30 s, would let a slow client stay 30 s longer). */
  checkIntervalMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  idleTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1_000,
  checkIntervalMs: 1_000,
};

export const BODY_LIMIT = 1024 * 1024;

/** Maps fastify's own errors (body parsing, limits) to the API's codes. */
function frameworkCode(status: number): ErrorCode | undefined {
  switch (status) {
    case 400:
      return ErrorCode.BadRequest;
    case 404:
      return ErrorCode.NotFound;
    case 405:
      return ErrorCode.MethodNotAllowed;
    case 413:
      return ErrorCode.PayloadTooLarge;
    case 415:
      return ErrorCode.UnsupportedMediaType;
    default:
      return undefined;
  }
}

function frameworkMessage(error: FastifyError, request: FastifyRequest): string {
  switch (error.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return "The request body is not valid JSON";
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return `The request body is larger than ${request.routeOptions.bodyLimit ?? BODY_LIMIT} bytes`;
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return "Unsupported content type: send application/json";
    default:
      return error.message;
  }
}

/** Longest path segment the router accepts (names are at most 64 characters, emails at most 254). */
export const MAX_PARAM_LENGTH = 300;

/**
 * Errors Node's HTTP parser reports before fastify sees a request (oversized headers, malformed requests): answered
 * in the error shape too, then the connection is closed as Node would.
 */
function clientErrorHandler(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const [status, code, message] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? [431, "HeaderFieldsTooLarge", "The request headers are too large"]
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "RequestTimeout", "The request took too long to arrive"]
        : [400, ErrorCode.BadRequest, "The HTTP request is malformed"];
  const body = JSON.stringify({ status, message, code, id: randomUUID() });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** The fastify instance with JSON parsing, the error shape, authentication, fault injection and the request log. */
export function buildApp(context: AppContext): FastifyInstance {
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...context.connections };
  const app = Fastify({
    logger:
      context.logger && context.logFormat === "json"
        ? {
            level: "info",
            ...(context.logStream ? { stream: context.logStream } : {}),
            // Credentials never reach the log, whatever serializer is in use.
            redact: { paths: ["req.headers.authorization", "headers.authorization"], censor: "[redacted]" },
          }
        : false,
    bodyLimit: BODY_LIMIT,
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: { headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: limits.checkIntervalMs },
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    clientErrorHandler,
    // Router-level failures (undecodable percent-escapes, overlong path segments) get the error shape too.
    frameworkErrors: (error, request, reply) => {
      const message =
        error.code === "FST_ERR_MAX_PARAM_LENGTH"
          ? `A path segment is longer than ${MAX_PARAM_LENGTH} characters`
          : "The URL is not valid (bad percent-encoding)";
      void (reply as FastifyReply)
        .code(400)
        .send(
          errorBody(request as FastifyRequest, 400, ErrorCode.BadRequest, message, { issues: [{ path: "", message }] }),
        );
    },
  });

  app.server.maxConnections = limits.maxConnections;

  // Lists and queries reuse the stored JSON text of their items instead of serializing each one again, and a list page
  // sent again goes out as the bytes it was encoded to the first time. fastify sends a Buffer from the serializer as
  // it is (lib/reply.js `onSendEnd` takes a string or a Buffer), though its type names only string.
  app.setReplySerializer((payload) => replyPayload(payload) as string);

  // Reference-type decorations are not allowed; every request gets its principal in onRequest.
  app.decorateRequest("principal", null as unknown as Principal);
  app.decorateRequest("fault", undefined);
  app.decorateRequest("bodyText", undefined);
  app.decorateRequest("bodyBytes", 0);
  app.decorateRequest("recordBefore", undefined);
  app.decorateRequest("recordAfter", undefined);

  // JSON only; an empty body is "no body" (clients send content-type on bodyless DELETEs), but whitespace alone is
  // not JSON (RFC 8259: a JSON text holds a value), so it is refused as malformed (Schemathesis ST201, issue 39: a
  // query answered 200 to the body "\n" as if none had been sent). Bodies nesting deeper
  // than MAX_JSON_DEPTH are refused before parsing, and keys that could poison prototypes after parsing, each with
  // a message saying so.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    request.bodyBytes = typeof body === "string" ? Buffer.byteLength(body) : body.length;
    let text = typeof body === "string" ? body : body.toString("utf8");
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a UTF-8 byte-order mark is not part of the JSON
    if (text === "") {
      done(null, undefined);
      return;
    }
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      const message = `The request body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels (the limit)`;
      done(badRequest([{ path: "", message }], message), undefined);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      const message = "The request body is not valid JSON";
      done(badRequest([{ path: "", message }], message), undefined);
      return;
    }
    const reserved = reservedKeyPathInText(text, parsed);
    if (reserved !== undefined) {
      const key = reserved.endsWith("constructor.prototype") ? "constructor.prototype" : "__proto__";
      done(
        badRequest([{ path: reserved, message: `the key "${key}" is reserved (it could alter object prototypes)` }]),
        undefined,
      );
      return;
    }
    request.bodyText = text;
    done(null, parsed);
  });

  app.setErrorHandler((error: FastifyError | ApiFailure, request, reply) => {
    if (error instanceof ApiFailure) {
      if (error.headers) void reply.headers(error.headers);
      return reply.code(error.status).send(errorBody(request, error.status, error.code, error.message, error.details));
    }
    const status = error.statusCode ?? 500;
    const code = frameworkCode(status);
    if (code !== undefined) {
      const message = frameworkMessage(error, request);
      const details = code === ErrorCode.BadRequest ? { issues: [{ path: "", message }] } : undefined;
      return reply.code(status).send(errorBody(request, status, code, message, details));
    }
    request.log.error({ err: error }, "unhandled error");
    return reply.code(500).send(errorBody(request, 500, "InternalError", "Internal server error"));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?", 1)[0] ?? "";
    return reply.code(404).send(errorBody(request, 404, ErrorCode.NotFound, `No route ${request.method} ${path}`));
  });

  addRequestHooks(app, context);
  return app;
}

import { request as httpRequest } from "node:http";

/** What a raw request came to: the status and body text when a response arrived, or the socket error instead. */
export interface RawOutcome {
  status?: number;
  text?: string;
  headers?: Record<string, string | string[] | undefined>;
  /** The socket error (ECONNRESET, EPIPE) when the server closed the connection before answering. */
  error?: string;
  /** Bytes of the body this client managed to write before the answer or the error. */
  written: number;
  ms: number;
}

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** The body, sent with chunked transfer encoding (no Content-Length) unless `contentLength` is set. */
  body?: Buffer;
  /** Bytes per chunk written (default 64 KiB). */
  chunk?: number;
  /** Milliseconds between chunks (default 0: as fast as the socket takes them). */
  delayMs?: number;
  /** Send this Content-Length header instead of chunked encoding. */
  contentLength?: number;
  /** Give up after this long (the outcome then has error `client timeout`). */
  timeoutMs?: number;
}

/**
 * One request on its own connection, its body streamed in chunks: what `fetch` cannot do (slow bodies, bodies that
 * the server refuses half way). Never rejects: the outcome says what happened.
 */
export function rawRequest(baseUrl: string, spec: RawRequest): Promise<RawOutcome> {
  const url = new URL(spec.path, baseUrl);
  const started = performance.now();
  return new Promise((resolve) => {
    let written = 0;
    let done = false;
    const finish = (outcome: Omit<RawOutcome, "written" | "ms">) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...outcome, written, ms: performance.now() - started });
      req.destroy();
    };
    const headers: Record<string, string> = { "content-type": "application/json", ...spec.headers };
    if (spec.contentLength !== undefined) headers["content-length"] = String(spec.contentLength);
    else if (spec.body !== undefined) headers["transfer-encoding"] = "chunked";
    const req = httpRequest(url, { method: spec.method, headers, agent: false });
    const timer = setTimeout(() => finish({ error: "client timeout" }), spec.timeoutMs ?? 30_000);
    req.on("response", (response) => {
      const parts: Buffer[] = [];
      response.on("data", (part: Buffer) => parts.push(part));
      response.on("end", () =>
        finish({
          status: response.statusCode,
          text: Buffer.concat(parts).toString("utf8"),
          headers: response.headers,
        }),
      );
      response.on("error", () =>
        finish({ status: response.statusCode, text: Buffer.concat(parts).toString("utf8"), headers: response.headers }),
      );
    });
    req.on("error", (error: NodeJS.ErrnoException) => finish({ error: error.code ?? error.message }));
    const body = spec.body;
    if (body === undefined) {
      req.end();
      return;
    }
    const size = spec.chunk ?? 64 * 1024;
    const writeFrom = (offset: number) => {
      if (done || req.destroyed) return;
      if (offset >= body.length) {
        req.end();
        return;
      }
      const piece = body.subarray(offset, offset + size);
      req.write(piece, (error) => {
        if (error) return;
        written += piece.length;
        if (spec.delayMs) setTimeout(() => writeFrom(offset + size), spec.delayMs);
        else writeFrom(offset + size);
      });
    };
    writeFrom(0);
  });
}

/** A valid JSON document of about `bytes` bytes: `{"description":"xxxx…"}`. */
export function jsonOfSize(bytes: number, field = "description"): Buffer {
  const overhead = `{"${field}":""}`.length;
  return Buffer.from(JSON.stringify({ [field]: "x".repeat(Math.max(0, bytes - overhead)) }), "utf8");
}

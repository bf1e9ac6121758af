import { Pool } from "undici";
import { distribution, type Distribution } from "./report.js";

export interface JsonResponse {
  status: number;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
  bytes: number;
}

/** A small JSON client for setting up benchmark data and timing single requests (keep-alive pool per origin). */
export class Http {
  private readonly pool: Pool;

  constructor(
    readonly origin: string,
    private readonly token: string,
    connections = 16,
  ) {
    this.pool = new Pool(origin, { connections, pipelining: 1 });
  }

  async send(
    method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
    path: string,
    body?: unknown,
    options: { parse?: boolean } = {},
  ): Promise<JsonResponse> {
    const res = await this.pool.request({
      method,
      path,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (options.parse === false) {
      // Timing runs: read every byte (time to the last byte) but leave JSON parsing, a client cost, out of it.
      let bytes = 0;
      for await (const chunk of res.body) bytes += (chunk as Buffer).length;
      return { status: res.statusCode, body: undefined, headers: res.headers, bytes };
    }
    const text = await res.body.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.statusCode, body: parsed, headers: res.headers, bytes: Buffer.byteLength(text) };
  }

  /** Sends and insists on one of `expected`, with the server's answer in the error otherwise. */
  async expect(
    expected: number | number[],
    method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
    path: string,
    body?: unknown,
  ): Promise<JsonResponse> {
    const res = await this.send(method, path, body);
    const ok = Array.isArray(expected) ? expected.includes(res.status) : res.status === expected;
    if (!ok) throw new Error(`${method} ${path} → ${res.status}: ${JSON.stringify(res.body).slice(0, 500)}`);
    return res;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** Runs `fn` over `items` with at most `concurrency` in flight; returns each call's milliseconds and the wall time. */
export async function runConcurrent<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<{ latencies: number[]; wallMs: number }> {
  const latencies: number[] = new Array<number>(items.length);
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      const t0 = performance.now();
      await fn(items[index] as T, index);
      latencies[index] = performance.now() - t0;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return { latencies, wallMs: performance.now() - started };
}

/**
 * Times one request shape sequentially (one in flight, after warm-up), until `minSamples` and `minMs` are both
 * reached or `maxMs` passes. Every answer must carry `expectStatus`.
 */
export async function timeSequential(
  call: () => Promise<JsonResponse>,
  options: { warmup?: number; minSamples?: number; minMs?: number; maxMs?: number; expectStatus?: number } = {},
): Promise<Distribution & { bytes: number }> {
  const { warmup = 2, minSamples = 10, minMs = 1_000, maxMs = 8_000, expectStatus = 200 } = options;
  let bytes = 0;
  for (let i = 0; i < warmup; i++) {
    const res = await call();
    if (res.status !== expectStatus)
      throw new Error(`warm-up got ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
  }
  const samples: number[] = [];
  const started = performance.now();
  for (;;) {
    const elapsed = performance.now() - started;
    if (samples.length >= 3 && elapsed >= maxMs) break;
    if (samples.length >= minSamples && elapsed >= minMs) break;
    const t0 = performance.now();
    const res = await call();
    samples.push(performance.now() - t0);
    if (res.status !== expectStatus) throw new Error(`got ${res.status} (expected ${expectStatus})`);
    bytes = res.bytes;
  }
  return { ...distribution(samples), bytes };
}

/**
 * Shared helpers of the reliability suite: HTTP over undici and over raw sockets, the error-shape check, valid bodies
 * for every kind, a bounded-concurrency runner, and the CI/long switch.
 *
 * `CPLN_LONG_TESTS=1` selects the long run (more resources, requests, crashes and rounds); without it every file stays
 * within the CI budget.
 */
import { createRequire } from "node:module";
import * as net from "node:net";
import * as path from "node:path";
import { Agent, request } from "undici";
import { apiError } from "../../api/errors.js";
import { isKind, kinds } from "../../api/kinds/index.js";

export const LONG = process.env.CPLN_LONG_TESTS === "1";

/** `ci` normally, `long` with CPLN_LONG_TESTS=1. */
export function sized<T>(ci: T, long: T): T {
  return LONG ? long : ci;
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The parsed body, or undefined when it is empty or not JSON. */
  json: unknown;
}

export interface HttpCall {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** A string or Buffer is sent as is; anything else as JSON (with `content-type: application/json` unless given). */
  body?: unknown;
  raw?: boolean;
}

const agent = new Agent({ connections: 64, keepAliveTimeout: 5_000, headersTimeout: 30_000, bodyTimeout: 30_000 });

export function parseJsonOrUndefined(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** One request over real HTTP (undici, keep-alive). */
export async function http(baseUrl: string, call: HttpCall): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...call.headers };
  let body: string | Buffer | undefined;
  if (call.body !== undefined) {
    if (typeof call.body === "string" || Buffer.isBuffer(call.body)) body = call.body;
    else {
      body = JSON.stringify(call.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type"))
        headers["content-type"] = "application/json";
    }
  }
  const response = await request(new URL(call.path, baseUrl), {
    method: call.method as "GET",
    headers,
    body,
    dispatcher: agent,
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text, json: parseJsonOrUndefined(text) };
}

/**
 * One request written byte for byte on a fresh socket (for what undici refuses to send: invalid header bytes,
 * malformed request lines, unnormalised paths). `Connection: close`; the whole answer is read until the server closes.
 */
export function rawHttp(
  baseUrl: string,
  head: string,
  body: Buffer | string = "",
  timeoutMs = 10_000,
): Promise<HttpAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`raw request got no complete answer within ${timeoutMs} ms: ${head.split("\r\n")[0]}`));
    }, timeoutMs);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks).toString("latin1");
      const split = all.indexOf("\r\n\r\n");
      const statusLine = all.slice(0, all.indexOf("\r\n"));
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
      const headers: Record<string, string> = {};
      for (const line of all.slice(0, split).split("\r\n").slice(1)) {
        const colon = line.indexOf(":");
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let rawBody = split < 0 ? "" : all.slice(split + 4);
      if (headers["transfer-encoding"] === "chunked") rawBody = dechunk(rawBody);
      const text = Buffer.from(rawBody, "latin1").toString("utf8");
      resolve({ status, headers, text, json: parseJsonOrUndefined(text) });
    });
    socket.on("connect", () => {
      socket.write(Buffer.concat([Buffer.from(head, "latin1"), Buffer.isBuffer(body) ? body : Buffer.from(body)]));
    });
  });
}

function dechunk(text: string): string {
  let out = "";
  let rest = text;
  for (;;) {
    const lineEnd = rest.indexOf("\r\n");
    if (lineEnd < 0) return out;
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!(size > 0)) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

/**
 * Why an answer breaks the rule "2xx, or 4xx with the error shape whose status matches", or undefined when it keeps it.
 */
export function answerProblem(answer: { status: number; json: unknown; text: string }): string | undefined {
  if (answer.status >= 200 && answer.status < 300) return undefined;
  if (answer.status < 400 || answer.status >= 500) return `status ${answer.status}: ${answer.text.slice(0, 300)}`;
  const parsed = apiError().safeParse(answer.json);
  if (!parsed.success) return `status ${answer.status} without the error shape: ${answer.text.slice(0, 300)}`;
  if (parsed.data.status !== answer.status) {
    return `status ${answer.status} but the body says ${parsed.data.status}: ${answer.text.slice(0, 300)}`;
  }
  return undefined;
}

/** Runs `tasks` with at most `limit` at once; results in task order. */
export async function runLimited<T>(limit: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results = new Array<T>(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const index = next++;
      if (index >= tasks.length) return;
      results[index] = await (tasks[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Prints a figure line for the report (vitest shows console output of the file). */
export function report(line: string): void {
  console.log(`[reliability] ${line}`);
}

// ---- bodies ---------------------------------------------------------------------------------------------------------

export const GVC = "default";

/** A valid create body of `kind` naming the object `name`: the kind's declared example; undefined if it has none. */
export function validCreateBody(kind: string, name: string): Record<string, unknown> | undefined {
  return isKind(kind) ? kinds[kind].examples.create?.(name) : undefined;
}

/**
 * The name (addressing field) of the object `validCreateBody(kind, name)` creates: `name` itself, or what the kind's
 * name rule makes of it (a user's `<name>@example.com`, a domain's `<name>.example.com`).
 */
export function exampleName(kind: string, name: string): string {
  const body = validCreateBody(kind, name);
  if (body === undefined || !isKind(kind)) return name;
  const value = body[kinds[kind].addressing.field];
  return typeof value === "string" ? value : name;
}

/** A valid PATCH body of `kind` (the declared example: a description and a tag, or one more link). */
export function validPatchBody(kind: string, marker: string): Record<string, unknown> {
  if (!isKind(kind)) throw new Error(`validPatchBody: ${kind} is not a kind`);
  return kinds[kind].examples.patch(marker);
}

// ---- the provider through Pulumi's real dynamic-provider host (everything loaded from dist/) ------------------------

export interface CheckFailure {
  property: string;
  reason: string;
}
export type Props = Record<string, unknown>;

/** The parts of `DynamicProviderHost` (tools/providerhost/host.ts) these tests use. */
export interface ProviderHost {
  configure(config: Record<string, string>, secretKeys?: readonly string[]): Promise<unknown>;
  check(urn: string, olds: Props, news: Props): Promise<{ inputs: Props; failures: CheckFailure[] }>;
  diff(
    id: string,
    urn: string,
    oldOutputs: Props,
    news: Props,
    oldInputs?: Props,
  ): Promise<{ changes: boolean | undefined; replaces: string[] }>;
  create(urn: string, inputs: Props): Promise<{ id: string; outputs: Props }>;
  read(id: string, urn: string, props: Props, inputs?: Props): Promise<{ id: string; props: Props }>;
  update(id: string, urn: string, oldOutputs: Props, news: Props, oldInputs?: Props): Promise<Props>;
  delete(id: string, urn: string, props: Props, oldInputs?: Props): Promise<void>;
  logs(): string[];
  stop(): Promise<void>;
}

interface HarnessModule {
  startHost(options?: Props): Promise<ProviderHost>;
  captureDynamicRegistration(construct: () => void): Promise<{ type: string; inputs: Props }>;
  urnFor(type: string, name: string): string;
  repoRoot: string;
}

interface SdkModule {
  VolumeSet: new (name: string, args: Props) => unknown;
  Policy: new (name: string, args: Props) => unknown;
}

export interface ProviderKit {
  harness: HarnessModule;
  sdk: SdkModule;
  /** The `__provider` text of each resource type, captured from a real SDK resource construction. */
  providerText: { VolumeSet: string; Policy: string };
  urn(type: "VolumeSet" | "Policy", name: string): string;
}

/** Loads the harness and the SDK from dist/ (vitest's transform breaks closure serialization) and captures `__provider`. */
export async function loadProviderKit(): Promise<ProviderKit> {
  const repoRoot = path.resolve(__dirname, "..", "..");
  const requireDist = createRequire(path.join(repoRoot, "dist", "package.json"));
  const harness = requireDist("./test/harness/index.js") as HarnessModule;
  const sdk = requireDist("./sdk/index.js") as SdkModule;
  const volumeSet = await harness.captureDynamicRegistration(
    () => new sdk.VolumeSet("capture", { gvc: GVC, initialCapacity: 10, performanceClass: "general-purpose-ssd" }),
  );
  const policy = await harness.captureDynamicRegistration(
    () =>
      new sdk.Policy("capture", {
        targetKind: "group",
        target: "all",
        bindings: [{ permissions: ["view"], principalLinks: ["//group/viewers"] }],
      }),
  );
  return {
    harness,
    sdk,
    providerText: {
      VolumeSet: volumeSet.inputs["__provider"] as string,
      Policy: policy.inputs["__provider"] as string,
    },
    urn: (type, name) => harness.urnFor(`pulumi-nodejs:dynamic/cpln:${type}`, name),
  };
}

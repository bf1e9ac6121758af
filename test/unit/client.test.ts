import util from "node:util";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { patchRules } from "../../api/kinds/index.js";
import { applyPatch, type JsonObject } from "../../api/patch/index.js";
import { CplnApiError } from "../../provider/client/errors.js";
import { closePool, request, type Connection } from "../../provider/client/http.js";
import { CplnClient } from "../../provider/client/index.js";
import { resolveConfig } from "../../provider/config.js";
import { FaultInjector, type FaultMode } from "../../server/faults.js";
import { startServer, type RunningServer, type SeedDocument } from "../../server/index.js";

// ---------------------------------------------------------------------------------------------------------------
// Part 1: the retry, timeout and recognition rules, against a small server whose answers each test scripts.
// ---------------------------------------------------------------------------------------------------------------

interface Seen {
  method: string;
  url: string;
  body: unknown;
  authorization: string | undefined;
}

type Action =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | "cut" // destroy the connection without answering
  | "hang"; // never answer

type Script = (seen: Seen, index: number) => Action | Promise<Action>;

const token = "sk-test-DO-NOT-LEAK-7f3a9c";
const fastRetry = { retries: 3, minDelayMs: 1, maxDelayMs: 5 };

let app: FastifyInstance;
let connection: Connection;
let seen: Seen[] = [];
let script: Script = () => ({ status: 500 });

function errorBody(status: number, code: string, message: string) {
  return { status, code, message, id: `req-${status}` };
}

function record(name: string, extra: Record<string, unknown> = {}) {
  return {
    kind: "policy",
    id: "5f0c7b0e-93f4-4d51-9a8c-2f1f8a3c9d11",
    name,
    version: 1,
    created: "2026-01-01T00:00:00.000Z",
    lastModified: "2026-01-01T00:00:00.000Z",
    links: [{ rel: "self", href: `/org/acme/policy/${name}` }],
    ...extra,
  };
}

async function answer(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const entry: Seen = {
    method: req.method,
    url: req.url,
    body: req.body,
    authorization: req.headers.authorization,
  };
  seen.push(entry);
  const action = await script(entry, seen.length - 1);
  if (action === "cut") {
    reply.hijack();
    req.raw.socket.destroy();
    return;
  }
  if (action === "hang") {
    reply.hijack();
    return;
  }
  void reply
    .code(action.status)
    .headers(action.headers ?? {})
    .send(action.body);
}

async function expectError(promise: Promise<unknown>): Promise<CplnApiError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(CplnApiError);
    return error as CplnApiError;
  }
  throw new Error("expected the call to fail");
}

beforeAll(async () => {
  app = Fastify({ forceCloseConnections: true });
  app.route({ method: ["GET", "POST", "PUT", "PATCH", "DELETE"], url: "/*", handler: answer });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  connection = { endpoint: url, token };
});

afterAll(async () => {
  await closePool(connection.endpoint);
  await app.close();
});

afterEach(() => {
  seen = [];
  script = () => ({ status: 500 });
});

describe("request: retries", () => {
  it("retries a GET on 503 and 502 and returns the first success; the server sees exactly 3 requests", async () => {
    script = (_, i) => (i === 0 ? { status: 503 } : i === 1 ? { status: 502 } : { status: 200, body: { ok: 1 } });
    const response = await request(connection, { method: "GET", path: "/org/acme/policy/p", retry: fastRetry });
    expect(response.body).toEqual({ ok: 1 });
    expect(response.attempts).toBe(3);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      "GET /org/acme/policy/p",
      "GET /org/acme/policy/p",
      "GET /org/acme/policy/p",
    ]);
    expect(seen.every((s) => s.authorization === `Bearer ${token}`)).toBe(true);
  });

  it("gives up after `retries` retries: 1 + 2 requests, then the last 504 as a retryable CplnApiError", async () => {
    script = () => ({ status: 504, body: errorBody(504, "GatewayTimeout", "upstream slow") });
    const error = await expectError(
      request(connection, { method: "GET", path: "/org/acme/quota", retry: { ...fastRetry, retries: 2 } }),
    );
    expect(seen).toHaveLength(3);
    expect(error.status).toBe(504);
    expect(error.retryable).toBe(true);
    expect(error.message).toBe("GET /org/acme/quota failed (504 GatewayTimeout): upstream slow [request id req-504]");
  });

  it("honours Retry-After (1 s) on a 429 even when the backoff settings are a few milliseconds", async () => {
    script = (_, i) =>
      i === 0
        ? { status: 429, headers: { "retry-after": "1" }, body: errorBody(429, "TooManyRequests", "slow down") }
        : { status: 200, body: { ok: true } };
    const started = performance.now();
    const response = await request(connection, { method: "GET", path: "/org/acme/group", retry: fastRetry });
    const elapsed = performance.now() - started;
    expect(response.body).toEqual({ ok: true });
    expect(seen).toHaveLength(2);
    expect(elapsed).toBeGreaterThanOrEqual(1_000);
    // Not seconds more (a Retry-After misread): the bound leaves room for a CI machine that stalls this process.
    expect(elapsed).toBeLessThan(10_000);
  });

  it("does not retry a 429 QuotaExceeded: one request, the error names the quota", async () => {
    script = () => ({ status: 429, body: errorBody(429, "QuotaExceeded", "quota 'gvcs' (max 20) exceeded") });
    const error = await expectError(
      request(connection, { method: "POST", path: "/org/acme/policy", body: { name: "p" }, retry: fastRetry }),
    );
    expect(seen).toHaveLength(1);
    expect(error.status).toBe(429);
    expect(error.code).toBe("QuotaExceeded");
    expect(error.retryable).toBe(false);
    expect(error.requestId).toBe("req-429");
  });

  it("retries a POST answered 429 (not quota): the request was refused unprocessed", async () => {
    script = (_, i) =>
      i === 0 ? { status: 429, body: errorBody(429, "TooManyRequests", "busy") } : { status: 201, body: record("p") };
    const response = await request(connection, {
      method: "POST",
      path: "/org/acme/policy",
      body: { name: "p" },
      retry: fastRetry,
    });
    expect(response.status).toBe(201);
    expect(seen.map((s) => s.method)).toEqual(["POST", "POST"]);
  });

  it("does not retry 500 or 400", async () => {
    for (const status of [500, 400]) {
      seen = [];
      script = () => ({ status, body: errorBody(status, status === 400 ? "BadRequest" : "Internal", "no") });
      const error = await expectError(request(connection, { method: "GET", path: "/x", retry: fastRetry }));
      expect(error.status).toBe(status);
      expect(seen).toHaveLength(1);
    }
  });

  it("retries a GET after a cut connection", async () => {
    script = (_, i) => (i === 0 ? "cut" : { status: 200, body: [1] });
    const response = await request(connection, { method: "GET", path: "/org/acme/group", retry: fastRetry });
    expect(response.body).toEqual([1]);
    expect(seen).toHaveLength(2);
  });

  it("retries a PATCH without $append/ as it is after a cut connection (same body twice)", async () => {
    const patch = { description: "new", "$drop/targetLinks": ["/org/acme/group/a"] };
    script = (_, i) => (i === 0 ? "cut" : { status: 200, body: record("p", { description: "new" }) });
    await request(connection, { method: "PATCH", path: "/org/acme/policy/p", body: patch, retry: fastRetry });
    expect(seen.map((s) => [s.method, s.body])).toEqual([
      ["PATCH", patch],
      ["PATCH", patch],
    ]);
  });

  it("reports a refused connection as a NetworkError with status 0, after retrying", async () => {
    const closed = Fastify();
    const url = await closed.listen({ host: "127.0.0.1", port: 0 });
    await closed.close();
    const error = await expectError(
      request({ endpoint: url, token }, { method: "GET", path: "/about", retry: { ...fastRetry, retries: 1 } }),
    );
    expect(error.status).toBe(0);
    expect(error.code).toBe("NetworkError");
    expect(error.message).toMatch(/^GET \/about failed \(NetworkError\): .*ECONNREFUSED/);
    await closePool(url);
  });
});

describe("request: responses", () => {
  it("parses the body with the schema; a mismatch is an InvalidResponse error naming the field", async () => {
    script = () => ({ status: 200, body: { name: 42 } });
    const error = await expectError(
      request(connection, { method: "GET", path: "/org/acme/group/g", schema: z.object({ name: z.string() }) }),
    );
    expect(error.code).toBe("InvalidResponse");
    expect(error.status).toBe(200);
    expect(error.message).toMatch(/^GET \/org\/acme\/group\/g failed \(200 InvalidResponse\): .*name: /);
  });

  it("turns a non-JSON error page into an error with the status and a snippet", async () => {
    script = () => ({ status: 404, headers: { "content-type": "text/html" }, body: "<h1>nope</h1>" });
    const error = await expectError(request(connection, { method: "GET", path: "/x" }));
    expect(error.status).toBe(404);
    expect(error.code).toBe("NotFound");
    expect(error.message).toBe("GET /x failed (404 NotFound): <h1>nope</h1>");
  });

  it("fails a call to a server that stops answering within the time limit, with a Timeout error", async () => {
    script = () => "hang";
    const started = performance.now();
    const error = await expectError(
      request(connection, { method: "GET", path: "/org/acme/quota", timeoutMs: 400, retry: fastRetry }),
    );
    const elapsed = performance.now() - started;
    expect(error.code).toBe("Timeout");
    expect(error.status).toBe(0);
    expect(error.message).toBe(
      "GET /org/acme/quota failed (Timeout): no complete response within the time limit of 400 ms",
    );
    expect(elapsed).toBeGreaterThanOrEqual(400);
    // The server never answers: the limit ended the call. The bound leaves room for a CI machine that stalls this
    // process (1,564 ms seen under induced 2 s stalls).
    expect(elapsed).toBeLessThan(10_000);
    expect(seen).toHaveLength(1);
  });

  it("keeps the deadline across retries: 503s with Retry-After 30 s end at the deadline, not after", async () => {
    script = () => ({ status: 503, headers: { "retry-after": "30" } });
    const started = performance.now();
    const error = await expectError(
      request(connection, { method: "GET", path: "/x", timeoutMs: 3_000, retry: fastRetry }),
    );
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(error.status).toBe(503);
    expect(seen).toHaveLength(1);
  });
});

describe("request: recognising writes with an unknown outcome", () => {
  /** A one-collection store the scripts below use: POST creates, GET reads, PATCH applies directives. */
  let objects: Map<string, JsonObject>;
  const created = (name: string, body: JsonObject) => {
    const stored = { ...record(name), ...body, tags: { ...(body.tags as JsonObject), "cpln/managed": "yes" } };
    objects.set(name, stored);
    return stored;
  };
  const getAnswer = (name: string): Action => {
    const found = objects.get(name);
    return found ? { status: 200, body: found } : { status: 404, body: errorBody(404, "NotFound", "not found") };
  };
  const nameOf = (url: string) => url.split("/")[4] ?? "";

  it("POST cut after the server created the object: one GET recognises it, no second POST", async () => {
    objects = new Map();
    const body = { name: "p", description: "d", tags: { team: "a" }, targetKind: "group" };
    script = (s) => {
      if (s.method === "POST") {
        created("p", s.body as JsonObject);
        return "cut";
      }
      return getAnswer(nameOf(s.url));
    };
    const response = await request(connection, { method: "POST", path: "/org/acme/policy", body, retry: fastRetry });
    expect(response.recognised).toBe(true);
    expect(response.body).toMatchObject({ name: "p", description: "d", tags: { team: "a", "cpln/managed": "yes" } });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(["POST /org/acme/policy", "GET /org/acme/policy/p"]);
    expect(objects.size).toBe(1);
  });

  it("POST cut before the server created anything: GET 404, then the POST is sent again", async () => {
    objects = new Map();
    const body = { name: "q", targetKind: "group" };
    script = (s, i) => {
      if (s.method === "POST") {
        if (i === 0) return "cut";
        return { status: 201, body: created("q", s.body as JsonObject) };
      }
      return getAnswer(nameOf(s.url));
    };
    const response = await request(connection, { method: "POST", path: "/org/acme/policy", body, retry: fastRetry });
    expect(response.status).toBe(201);
    expect(response.recognised).toBe(false);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      "POST /org/acme/policy",
      "GET /org/acme/policy/q",
      "POST /org/acme/policy",
    ]);
    expect(objects.size).toBe(1);
  });

  it("a retried POST answered 409 is ours when the object holds what was sent (relative links included)", async () => {
    objects = new Map();
    const body = { name: "r", targetKind: "group", targetLinks: ["//group/a"] };
    let visible = false;
    script = (s, i) => {
      if (s.method === "POST" && i === 0) {
        // Created, but the gateway timed out; and the read replica does not see it yet.
        created("r", { ...(s.body as JsonObject), targetLinks: ["/org/acme/group/a"] });
        return { status: 502 };
      }
      if (s.method === "POST") {
        visible = true;
        return { status: 409, body: errorBody(409, "AlreadyExists", "policy 'r' already exists") };
      }
      return visible ? getAnswer("r") : { status: 404, body: errorBody(404, "NotFound", "not found") };
    };
    const response = await request(connection, { method: "POST", path: "/org/acme/policy", body, retry: fastRetry });
    expect(response.recognised).toBe(true);
    expect(response.body).toMatchObject({ name: "r", targetLinks: ["/org/acme/group/a"] });
    expect(seen.map((s) => s.method)).toEqual(["POST", "GET", "POST", "GET"]);
  });

  it("a retried POST answered 409 for a different object raises the 409", async () => {
    objects = new Map();
    script = (s, i) => {
      if (s.method === "POST" && i === 0) return "cut";
      if (s.method === "POST") {
        created("s", { name: "s", description: "someone else's" });
        return { status: 409, body: errorBody(409, "AlreadyExists", "policy 's' already exists") };
      }
      return getAnswer("s");
    };
    const error = await expectError(
      request(connection, {
        method: "POST",
        path: "/org/acme/policy",
        body: { name: "s", description: "mine" },
        retry: fastRetry,
      }),
    );
    expect(error.status).toBe(409);
    expect(error.code).toBe("AlreadyExists");
    expect(seen.map((s) => s.method)).toEqual(["POST", "GET", "POST", "GET"]);
  });

  it("a first POST answered 409 is raised as it is (no read-back)", async () => {
    script = () => ({ status: 409, body: errorBody(409, "AlreadyExists", "exists") });
    const error = await expectError(
      request(connection, { method: "POST", path: "/org/acme/policy", body: { name: "t" }, retry: fastRetry }),
    );
    expect(error.code).toBe("AlreadyExists");
    expect(seen).toHaveLength(1);
  });

  it("a POST without a name (addKey) is not retried after a cut", async () => {
    script = () => "cut";
    const error = await expectError(
      request(connection, {
        method: "POST",
        path: "/org/acme/serviceaccount/sa/-addKey",
        body: { description: "k" },
        retry: fastRetry,
      }),
    );
    expect(error.code).toBe("NetworkError");
    expect(seen).toHaveLength(1);
  });

  it("an idempotent POST (a query) is retried like a GET", async () => {
    script = (_, i) => (i === 0 ? { status: 503 } : { status: 200, body: { items: [] } });
    await request(connection, {
      method: "POST",
      path: "/org/acme/cloudaccount/-query",
      body: {},
      idempotent: true,
      retry: fastRetry,
    });
    expect(seen.map((s) => s.method)).toEqual(["POST", "POST"]);
  });

  const policyWith = (principals: string[], description = "d") =>
    record("p", {
      description,
      targetKind: "group",
      bindings: [
        { permissions: ["view"], principalLinks: principals },
        { permissions: ["edit"], principalLinks: ["/org/acme/group/x"] },
      ],
    }) as unknown as JsonObject;

  it("PATCH with $append/ cut after the server applied it: a GET shows it done; not applied twice", async () => {
    let stored = policyWith(["/org/acme/group/a"]);
    const patch = {
      "$patch/bindings": [{ permissions: ["view"], "$append/principalLinks": ["/org/acme/group/b"] }],
    };
    script = (s) => {
      if (s.method === "PATCH") {
        stored = applyPatch(stored, s.body as JsonObject, patchRules.policy!);
        return "cut";
      }
      return { status: 200, body: stored };
    };
    const response = await request(connection, {
      method: "PATCH",
      path: "/org/acme/policy/p",
      body: patch,
      retry: fastRetry,
    });
    expect(response.recognised).toBe(true);
    expect(seen.map((s) => s.method)).toEqual(["PATCH", "GET"]);
    const bindings = stored.bindings as Array<{ principalLinks: string[] }>;
    expect(bindings[0]!.principalLinks).toEqual(["/org/acme/group/a", "/org/acme/group/b"]);
    expect(response.body).toEqual(stored);
  });

  it("PATCH with $append/ cut before it was applied: the GET shows nothing done, the same patch is sent again", async () => {
    let stored = policyWith(["/org/acme/group/a"]);
    const patch = {
      description: "changed",
      "$patch/bindings": [{ permissions: ["view"], "$append/principalLinks": ["/org/acme/group/b"] }],
    };
    script = (s, i) => {
      if (s.method === "PATCH") {
        if (i === 0) return "cut";
        stored = applyPatch(stored, s.body as JsonObject, patchRules.policy!);
        return { status: 200, body: stored };
      }
      return { status: 200, body: stored };
    };
    const response = await request(connection, {
      method: "PATCH",
      path: "/org/acme/policy/p",
      body: patch,
      retry: fastRetry,
    });
    expect(response.recognised).toBe(false);
    expect(seen.map((s) => s.method)).toEqual(["PATCH", "GET", "PATCH"]);
    expect(seen[2]!.body).toEqual(patch);
    expect(stored.description).toBe("changed");
    expect((stored.bindings as Array<{ principalLinks: string[] }>)[0]!.principalLinks).toEqual([
      "/org/acme/group/a",
      "/org/acme/group/b",
    ]);
  });

  it("PATCH with $append/ after a 502: the items already present are dropped from the patch sent again", async () => {
    // Another writer added group/b meanwhile; our patch appends b and c: only c is sent again.
    let stored = policyWith(["/org/acme/group/a"]);
    const patch = { "$append/targetLinks": ["/org/acme/group/b", "/org/acme/group/c"] };
    script = (s, i) => {
      if (s.method === "PATCH" && i === 0) {
        stored = { ...stored, targetLinks: ["/org/acme/group/b"] };
        return { status: 502 };
      }
      if (s.method === "PATCH") {
        stored = applyPatch(stored, s.body as JsonObject, patchRules.policy!);
        return { status: 200, body: stored };
      }
      return { status: 200, body: stored };
    };
    await request(connection, { method: "PATCH", path: "/org/acme/policy/p", body: patch, retry: fastRetry });
    expect(seen.map((s) => s.method)).toEqual(["PATCH", "GET", "PATCH"]);
    expect(seen[2]!.body).toEqual({ "$append/targetLinks": ["/org/acme/group/c"] });
    expect(stored.targetLinks).toEqual(["/org/acme/group/b", "/org/acme/group/c"]);
  });

  it("DELETE cut after the server deleted: the retry's 404 counts as deleted", async () => {
    script = (_, i) => (i === 0 ? "cut" : { status: 404, body: errorBody(404, "NotFound", "gone") });
    const response = await request(connection, { method: "DELETE", path: "/org/acme/policy/p", retry: fastRetry });
    expect(response.recognised).toBe(true);
    expect(seen.map((s) => s.method)).toEqual(["DELETE", "DELETE"]);
  });

  it("a first DELETE answered 404 is an error (nothing suggests it was ours)", async () => {
    script = () => ({ status: 404, body: errorBody(404, "NotFound", "policy 'p' not found") });
    const error = await expectError(request(connection, { method: "DELETE", path: "/org/acme/policy/p" }));
    expect(error.status).toBe(404);
    expect(seen).toHaveLength(1);
  });
});

describe("CplnClient create", () => {
  it("returns the 201 body when it is the record: exactly one request", async () => {
    const client = new CplnClient({ endpoint: connection.endpoint, token, org: "acme", retry: fastRetry });
    script = () => ({
      status: 201,
      headers: { location: "/org/acme/policy/p" },
      body: record("p", { targetKind: "group", origin: "default" }),
    });
    const created = await client.createPolicy({ name: "p", targetKind: "group" });
    expect(created.name).toBe("p");
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(["POST /org/acme/policy"]);
  });

  it("follows the Location header with one GET when the 201 body is not the record", async () => {
    const client = new CplnClient({ endpoint: connection.endpoint, token, org: "acme", retry: fastRetry });
    script = (s) =>
      s.method === "POST"
        ? { status: 201, headers: { location: "/org/acme/policy/p" }, body: { created: true } }
        : { status: 200, body: record("p", { targetKind: "group", origin: "default" }) };
    const created = await client.createPolicy({ name: "p", targetKind: "group" });
    expect(created).toMatchObject({ name: "p", targetKind: "group" });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(["POST /org/acme/policy", "GET /org/acme/policy/p"]);
  });
});

describe("secrets", () => {
  it("the token appears in no error: response errors, network errors, timeouts", async () => {
    const errors: CplnApiError[] = [];
    script = () => ({ status: 401, body: errorBody(401, "Unauthorized", "bad credentials") });
    errors.push(await expectError(request(connection, { method: "GET", path: "/org/acme/group" })));
    script = () => "cut";
    errors.push(await expectError(request(connection, { method: "GET", path: "/x", retry: { retries: 0 } })));
    script = () => "hang";
    errors.push(await expectError(request(connection, { method: "GET", path: "/x", timeoutMs: 100 })));
    expect(errors.map((e) => e.code)).toEqual(["Unauthorized", "NetworkError", "Timeout"]);
    for (const error of errors) {
      for (const text of [
        error.message,
        String(error.stack),
        util.inspect(error, { depth: 10 }),
        JSON.stringify(error),
      ]) {
        expect(text).not.toContain(token);
        expect(text).not.toContain("DO-NOT-LEAK");
      }
    }
  });

  it("the token is in neither JSON.stringify(client) nor util.inspect(client), even with hidden fields shown", () => {
    const client = new CplnClient({ endpoint: connection.endpoint, token, org: "acme" });
    for (const text of [
      JSON.stringify(client),
      util.inspect(client),
      util.inspect(client, { showHidden: true, depth: 10, customInspect: false }),
      String(client),
      JSON.stringify(Object.entries(client)),
    ]) {
      expect(text).not.toContain(token);
    }
    expect(JSON.parse(JSON.stringify(client))).toEqual({ endpoint: connection.endpoint, org: "acme" });
  });

  it("the client sends the token only as the Authorization header, and its errors do not carry it", async () => {
    const client = new CplnClient({ endpoint: connection.endpoint, token, org: "acme", retry: fastRetry });
    script = () => ({ status: 403, body: errorBody(403, "Forbidden", "forbidden") });
    const error = await expectError(client.getPolicy("p"));
    expect(seen).toEqual([
      { method: "GET", url: "/org/acme/policy/p", body: undefined, authorization: `Bearer ${token}` },
    ]);
    expect(error.message).toBe("GET /org/acme/policy/p failed (403 Forbidden): forbidden [request id req-403]");
    expect(util.inspect(error)).not.toContain(token);
    expect(JSON.stringify(error)).not.toContain(token);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Part 2: every client method against a real cpln-local, and recognition against its "cut after commit" fault.
// ---------------------------------------------------------------------------------------------------------------

describe("CplnClient against cpln-local", () => {
  const seed: SeedDocument = {
    records: [
      { kind: "cloudaccount", name: "aws-prod", provider: "aws" },
      { kind: "cloudaccount", name: "gcp-main", provider: "gcp" },
      {
        kind: "mk8s",
        name: "edge",
        spec: {
          version: "1.28.4",
          provider: { generic: { location: "aws-eu-central-1", nodePools: [{ name: "general" }] } },
        },
      },
      { kind: "group", name: "ops", description: "Operators" },
      { kind: "serviceaccount", name: "ci", description: "CI runner" },
      { kind: "auditctx", name: "custom", description: "Custom audit context" },
    ],
  };
  let live: RunningServer;
  let client: CplnClient;

  /** A fault seed whose first picks are exactly `pattern` (then no fault for a while), found with the server's own RNG. */
  function faultSeed(modes: FaultMode[], pattern: (FaultMode | undefined)[]): number {
    const wanted = [...pattern, undefined, undefined, undefined, undefined];
    for (let candidate = 1; candidate < 100_000; candidate++) {
      const injector = new FaultInjector({ rate: 0.5, modes, seed: candidate });
      if (wanted.every((mode) => injector.pick() === mode)) return candidate;
    }
    throw new Error("no seed gives that fault pattern");
  }

  const lines = () => live.requests().map((r) => `${r.method} ${r.path} ${r.status}`);

  beforeAll(async () => {
    live = await startServer({ org: "acme", seed, recordRequests: true });
    client = new CplnClient({ endpoint: live.url, token: live.adminKey, org: "acme", retry: fastRetry });
  });

  afterAll(async () => {
    await client.close();
    await live.close();
  });

  afterEach(() => {
    live.setFaults(undefined);
    live.clearRequests();
  });

  it("policies: create (one POST), get, list, patch with $append/, delete, then reads see it gone", async () => {
    const created = await client.createPolicy({
      name: "ops-view",
      targetKind: "group",
      targetLinks: ["//group/ops"],
      bindings: [{ permissions: ["view"], principalLinks: ["//group/viewers"] }],
    });
    expect(created).toMatchObject({
      kind: "policy",
      name: "ops-view",
      version: 1,
      targetLinks: ["/org/acme/group/ops"],
    });
    expect(lines()).toEqual(["POST /org/acme/policy 201"]);

    expect(await client.getPolicy("ops-view")).toEqual(created);
    expect((await client.listPolicies()).map((p) => p.name)).toContain("ops-view");
    const patched = await client.patchPolicy("ops-view", {
      description: "ops can be viewed",
      "$patch/bindings": [{ permissions: ["view"], "$append/principalLinks": ["//group/ops"] }],
    });
    expect(patched.version).toBe(2);
    expect(patched.bindings).toEqual([
      { permissions: ["view"], principalLinks: ["/org/acme/group/viewers", "/org/acme/group/ops"] },
    ]);
    live.clearRequests();
    await client.deletePolicy("ops-view");
    expect(await client.getByLink("/org/acme/policy/ops-view")).toBeUndefined();
    expect(await client.deleteByLink("//policy/ops-view")).toBe(false);
    expect(lines()).toEqual([
      "DELETE /org/acme/policy/ops-view 202",
      "GET /org/acme/policy/ops-view 404",
      "DELETE /org/acme/policy/ops-view 404",
    ]);
  });

  it("volume sets: create in a gvc, get, list, patch, delete by link", async () => {
    const created = await client.createVolumeSet("default", {
      name: "data",
      spec: { initialCapacity: 20, performanceClass: "general-purpose-ssd" },
    });
    expect(created).toMatchObject({
      kind: "volumeset",
      name: "data",
      spec: { initialCapacity: 20, fileSystemType: "ext4" },
    });
    expect(await client.getVolumeSet("default", "data")).toEqual(created);
    expect((await client.listVolumeSets("default")).map((v) => v.name)).toEqual(["data"]);
    const patched = await client.patchVolumeSet("default", "data", { spec: { initialCapacity: 40 } });
    expect(patched.spec.initialCapacity).toBe(40);
    const link = "/org/acme/gvc/default/volumeset/data";
    expect((await client.getByLink(link))?.version).toBe(2);
    expect((await client.patchByLink(link, { description: "by link" })).description).toBe("by link");
    expect(await client.deleteByLink(link)).toBe(true);
    await client.deleteVolumeSet("default", "data").then(
      () => expect.unreachable("a second delete by name is a 404"),
      (error: CplnApiError) => expect(error.status).toBe(404),
    );
  });

  it("locations: get, list, patch (and restore)", async () => {
    const before = await client.getLocation("aws-us-west-2");
    expect(before).toMatchObject({ origin: "builtin", provider: "aws", region: "us-west-2", spec: { enabled: true } });
    expect((await client.listLocations()).some((l) => l.name === "aws-us-west-2")).toBe(true);
    const disabled = await client.patchLocation("aws-us-west-2", { spec: { enabled: false } });
    expect(disabled.spec.enabled).toBe(false);
    const restored = await client.patchLocation("aws-us-west-2", { spec: { enabled: true } });
    expect(restored.spec.enabled).toBe(true);
  });

  it("cloud accounts, permissions, queries by kind", async () => {
    const result = await client.queryCloudAccounts({ spec: { terms: [{ property: "provider", value: "gcp" }] } });
    expect(result.items.map((a) => (typeof a === "string" ? a : a.name))).toEqual(["gcp-main"]);
    expect((await client.getCloudAccountPermissions()).targetKind).toBe("cloudaccount");
    expect((await client.getPermissions("policy")).items.map((p) => p.name)).toEqual([
      "create",
      "delete",
      "edit",
      "manage",
      "view",
    ]);
    const volumeSetPermissions = await client.getPermissions("volumeset", { gvc: "default" });
    expect(volumeSetPermissions.targetKind).toBe("volumeset");
    await expect(client.getPermissions("volumeset")).rejects.toThrow(/volumeset objects live in a gvc: pass \{ gvc \}/);
    const policies = await client.query("policy", { spec: { terms: [{ property: "name", value: "viewers-policy" }] } });
    expect(policies.items).toHaveLength(1);
    expect(policies.items[0]).toMatchObject({ name: "viewers-policy", kind: "policy" });
  });

  it("mk8s join script, service accounts and a new key that authenticates", async () => {
    const join = await client.getMk8sJoinScript("edge", { nodePoolName: "general" });
    expect(join.script).toContain("#!/bin/bash");
    const key = await client.addServiceAccountKey("ci", "test key");
    expect(key.description).toBe("test key");
    expect(key.key.startsWith(`${key.name}.`)).toBe(true);
    const ci = (await client.listServiceAccounts()).find((sa) => sa.name === "ci");
    expect(ci?.keys?.map((k) => k.name)).toEqual([key.name]);
    expect(JSON.stringify(ci)).not.toContain(key.key);
    // The new principal has no grants: it authenticates, and sees nothing.
    const asCi = new CplnClient({ endpoint: live.url, token: key.key, org: "acme" });
    expect(await asCi.listGroups()).toEqual([]);
    const badKey = new CplnClient({ endpoint: live.url, token: `${key.key}x`, org: "acme" });
    const error = await expectError(badKey.listGroups());
    expect(error.status).toBe(401);
    expect(error.message).not.toContain(key.key);
  });

  it("groups and access reports, audit contexts, quotas, about, and the per-call org", async () => {
    expect((await client.listGroups()).map((g) => g.name).sort()).toEqual(["ops", "superusers", "viewers"]);
    const report = await client.getGroupAccessReport("ops");
    expect(report.permissions.map((p) => p.name)).toEqual(["create", "delete", "edit", "manage", "view"]);
    expect((await client.getAccessReport("//policy/viewers-group")).kind).toBe("accessreport");
    // Audit contexts cannot be deleted, custom or builtin: 403, and they stay.
    const custom = await expectError(client.deleteAuditContext("custom"));
    expect(custom.status).toBe(403);
    expect(await client.getByLink("//auditctx/custom")).toBeDefined();
    const builtin = await expectError(client.deleteAuditContext("cpln"));
    expect(builtin.status).toBe(403);
    const quotas = await client.listQuotas();
    const gvcs = quotas.find((q) => q.name === "gvcs")!;
    expect(await client.getQuota(gvcs.id)).toEqual(gvcs);
    expect(typeof (await client.about())).toBe("object");
    const elsewhere = new CplnClient({ endpoint: live.url, token: live.adminKey, org: "other" });
    expect((await elsewhere.listGroups({ org: "acme" })).length).toBe(3);
  });

  it("a create whose connection is cut after the commit is recognised by one GET: one object, no second POST", async () => {
    live.setFaults({ rate: 0.5, modes: ["cut"], seed: faultSeed(["cut"], ["cut"]) });
    const created = await client.createPolicy({
      name: "cut-create",
      targetKind: "group",
      target: "all",
      bindings: [{ permissions: ["view"], principalLinks: ["//group/ops"] }],
    });
    expect(created).toMatchObject({ name: "cut-create", version: 1 });
    expect(lines()).toEqual(["POST /org/acme/policy 201", "GET /org/acme/policy/cut-create 200"]);
    live.setFaults(undefined);
    const named = (await client.listPolicies()).filter((p) => p.name === "cut-create");
    expect(named).toHaveLength(1);
  });

  it("a PATCH with $append/ whose connection is cut after the commit is not applied twice", async () => {
    await client.createPolicy({
      name: "cut-patch",
      targetKind: "group",
      target: "all",
      bindings: [{ permissions: ["view"], principalLinks: ["//group/viewers"] }],
    });
    live.clearRequests();
    live.setFaults({ rate: 0.5, modes: ["cut"], seed: faultSeed(["cut"], ["cut"]) });
    const patched = await client.patchPolicy("cut-patch", {
      "$patch/bindings": [{ permissions: ["view"], "$append/principalLinks": ["//group/ops"] }],
    });
    expect(lines()).toEqual(["PATCH /org/acme/policy/cut-patch 200", "GET /org/acme/policy/cut-patch 200"]);
    expect(patched.version).toBe(2);
    expect(patched.bindings).toEqual([
      { permissions: ["view"], principalLinks: ["/org/acme/group/viewers", "/org/acme/group/ops"] },
    ]);
  });

  it("503 and 429 faults are retried: the server sees each failed attempt and the success", async () => {
    live.setFaults({ rate: 0.5, modes: ["503", "429"], seed: faultSeed(["503", "429"], ["503", "429"]) });
    const groups = await client.listGroups();
    expect(groups).toHaveLength(3);
    expect(lines()).toEqual(["GET /org/acme/group 503", "GET /org/acme/group 429", "GET /org/acme/group 200"]);
  });
});

describe("resolveConfig", () => {
  const stack = (values: Record<string, string>) => ({ get: (key: string) => values[key] });

  it("input org → stack config → env → default endpoint", () => {
    const env = { CPLN_ORG: "env-org", CPLN_ENDPOINT: "http://env:1", CPLN_TOKEN: "env-token" };
    expect(resolveConfig({ env })).toEqual({
      org: "env-org",
      endpoint: "http://env:1",
      token: "env-token",
      endpointSource: "CPLN_ENDPOINT",
      timeoutMs: undefined,
    });
    expect(
      resolveConfig({
        env,
        stackConfig: stack({ "cpln:org": "s", "cpln:endpoint": "http://s:2", "cpln:token": "st" }),
      }),
    ).toEqual({ org: "s", endpoint: "http://s:2", token: "st", endpointSource: "cpln:endpoint", timeoutMs: undefined });
    expect(resolveConfig({ env, inputOrg: "input", stackConfig: stack({ "cpln:org": "s" }) }).org).toBe("input");
    expect(resolveConfig({ env: { CPLN_ORG: "o", CPLN_TOKEN: "t" } })).toMatchObject({
      endpoint: "https://api.cpln.io",
      endpointSource: "the default",
    });
  });

  it("cpln:timeoutSeconds wins over CPLN_TIMEOUT (seconds → ms); a bad value names its key; neither: 60 s", () => {
    // Neither set: the config leaves the limit to the client, whose default is 60 s (docs/installation-configuration.md).
    expect(resolveConfig({ env: { CPLN_ORG: "o", CPLN_TOKEN: "t" } }).timeoutMs).toBeUndefined();
    expect(new CplnClient({ endpoint: "http://127.0.0.1:9", token: "t", org: "o" }).timeoutMs).toBe(60_000);
    const env = { CPLN_ORG: "o", CPLN_TOKEN: "t", CPLN_TIMEOUT: "7" };
    expect(resolveConfig({ env }).timeoutMs).toBe(7000);
    expect(resolveConfig({ env, stackConfig: stack({ "cpln:timeoutSeconds": "2.5" }) }).timeoutMs).toBe(2500);
    expect(() => resolveConfig({ env: { ...env, CPLN_TIMEOUT: "soon" } })).toThrow(
      'CPLN_TIMEOUT must be a positive number of seconds, got "soon"',
    );
    expect(() => resolveConfig({ env, stackConfig: stack({ "cpln:timeoutSeconds": "0" }) })).toThrow(
      'cpln:timeoutSeconds must be a positive number of seconds, got "0"',
    );
  });

  it("an unreachable endpoint fails within 5 s, naming the endpoint and the setting that chose it", async () => {
    const config = resolveConfig({
      env: { CPLN_TOKEN: "t" },
      stackConfig: stack({ "cpln:org": "o", "cpln:endpoint": "http://127.0.0.1:1" }),
    });
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    const started = performance.now();
    let error: unknown;
    try {
      await new CplnClient(config).listPolicies().catch((e: unknown) => (error = e));
    } finally {
      process.stderr.write = write;
    }
    expect(performance.now() - started).toBeLessThan(5000);
    expect(error).toBeInstanceOf(CplnApiError);
    expect((error as CplnApiError).message).toBe(
      "GET /org/o/policy failed (NetworkError): cannot reach http://127.0.0.1:1 (set by cpln:endpoint): connection refused (ECONNREFUSED)",
    );
    expect(written.length).toBeGreaterThanOrEqual(1);
    for (const line of written) {
      expect(line).toMatch(/^cpln: retry \d+\/10 of GET \/org\/o\/policy in \d+\.\d s: NetworkError ECONNREFUSED\n$/);
    }
  });

  it("a missing org or token names the config key and the env var; a bad endpoint is refused", () => {
    expect(() => resolveConfig({ env: { CPLN_ORG: "o" } })).toThrow(/`cpln:token`.*CPLN_TOKEN/);
    expect(() => resolveConfig({ env: { CPLN_TOKEN: "t" } })).toThrow(/`cpln:org`.*CPLN_ORG/);
    expect(() => resolveConfig({ env: { CPLN_TOKEN: "t", CPLN_ORG: "o", CPLN_ENDPOINT: "ftp://x" } })).toThrow(
      /endpoint "ftp:\/\/x".*not an http\(s\) URL/,
    );
  });
});

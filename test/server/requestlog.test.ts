// Request inspection cannot be turned into a memory sink: bodies are measured by the bytes actually received
// (chunked bodies have no Content-Length), the ring has a byte budget, and unauthenticated requests keep no body.
import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { MAX_BODY_BYTES } from "../../server/inspect.js";
import { ADMIN_KEY, admin, bearer, call, ORG, start } from "./helpers.js";
import { jsonOfSize, rawRequest, type RawOutcome } from "./rawhttp.js";

interface Inspected {
  items: { method: string; path: string; status: number; body?: unknown; change?: { before: Doc; after: Doc } }[];
  bytes: number;
  budget: number;
}

type Doc = Record<string, unknown>;

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function inspected(running: RunningServer): Promise<Inspected> {
  const response = await fetch(`${running.url}/_cpln-local/requests`, {
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Inspected;
}

/** Runs `count` requests made by `make`, `parallel` at a time. */
async function inParallel(count: number, parallel: number, make: (i: number) => Promise<RawOutcome>) {
  const outcomes: RawOutcome[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) outcomes.push(await make(next++));
    }),
  );
  return outcomes;
}

describe("request inspection memory", () => {
  it("keeps no body of 60 unauthenticated chunked 1 MiB POSTs, answers each 401 and stays within its byte budget", async () => {
    server = await start();
    const running = server;
    const body = jsonOfSize(1024 * 1024 - 1024);
    const outcomes = await inParallel(60, 6, (i) =>
      rawRequest(running.url, {
        method: "POST",
        path: `/org/${ORG}/policy?i=${i}`,
        headers: { authorization: "Bearer not-a-key" },
        body,
        timeoutMs: 20_000,
      }),
    );
    // Every request is answered 401 (the server closes the connection instead of reading the rest, so a client still
    // writing may see the reset instead); none waits for the client timeout.
    for (const outcome of outcomes) {
      if (outcome.status !== undefined) expect(outcome.status).toBe(401);
      else expect(["ECONNRESET", "EPIPE"]).toContain(outcome.error);
    }
    expect(outcomes.filter((o) => o.status === 401).length).toBeGreaterThan(0);
    const log = await inspected(running);
    const posts = log.items.filter((item) => item.method === "POST");
    expect(posts.length).toBeGreaterThan(0);
    for (const post of posts) {
      expect(post.status).toBe(401);
      expect(post.body).toBeUndefined();
    }
    expect(log.bytes).toBeLessThanOrEqual(log.budget);
    expect(log.bytes).toBeLessThan(64 * 1024);
  });

  it("measures a chunked body by the bytes received: 200 KiB without Content-Length is kept as a note", async () => {
    server = await start();
    const body = jsonOfSize(200 * 1024);
    const outcome = await rawRequest(server.url, {
      method: "POST",
      path: `/org/${ORG}/policy`,
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
      body,
    });
    expect(outcome.status).toBe(400);
    const log = await inspected(server);
    const post = log.items.find((item) => item.method === "POST");
    expect(post?.body).toBe(`[body of ${body.length} bytes not kept]`);
    expect(body.length).toBeGreaterThan(MAX_BODY_BYTES);
  });

  it("drops the oldest requests when the kept bodies would exceed the byte budget", async () => {
    const budget = 400 * 1024;
    server = await start({ inspectedBytes: budget });
    const body = jsonOfSize(60 * 1024);
    for (let i = 0; i < 20; i++) {
      const outcome = await rawRequest(server.url, {
        method: "POST",
        path: `/org/${ORG}/policy?n=${i}`,
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
        body,
        contentLength: body.length,
      });
      expect(outcome.status).toBe(400);
    }
    const log = await inspected(server);
    expect(log.budget).toBe(budget);
    expect(log.bytes).toBeLessThanOrEqual(budget);
    const posts = log.items.filter((item) => item.method === "POST");
    // Each kept 60 KiB body accounts 120 KiB (two bytes a character): three fit, the newest three.
    expect(posts.map((p) => p.path)).toEqual([17, 18, 19].map((n) => `/org/${ORG}/policy?n=${n}`));
    expect(posts[2]?.body).toEqual(JSON.parse(body.toString("utf8")));
  });
});

describe("request inspection of a PATCH: the object before and after", () => {
  it("keeps the stored object the PATCH applied to and its answer; none for a refused PATCH or a PUT", async () => {
    server = await start();
    const client = admin(server);
    const path = `/org/${ORG}/group/inspected`;
    expect((await client.post(`/org/${ORG}/group`, { name: "inspected" })).status).toBe(201);
    const stored = (await client.get(path)).body;
    const patched = await client.patch(path, { description: "changed" });
    expect(patched.status).toBe(200);
    const unchanged = await client.patch(path, { description: "changed" });
    expect(unchanged.status).toBe(200);
    expect((await client.patch(path, { description: 7 })).status).toBe(400);
    const put = await call(server, "PUT", path, {
      auth: bearer(ADMIN_KEY),
      body: { name: "inspected", description: "put" },
    });
    expect(put.status).toBe(200);

    const writes = (await inspected(server)).items.filter((item) => item.path === path && item.method !== "GET");
    expect(writes.map((item) => [item.method, item.status, item.change])).toEqual([
      ["PATCH", 200, { before: stored, after: patched.body }],
      ["PATCH", 200, { before: patched.body, after: unchanged.body }],
      ["PATCH", 400, undefined],
      ["PUT", 200, undefined],
    ]);
  });

  it("ten concurrent PATCHes of one object: each pair's before is the version that PATCH changed", async () => {
    server = await start();
    const client = admin(server);
    const path = `/org/${ORG}/group/raced`;
    expect((await client.post(`/org/${ORG}/group`, { name: "raced" })).status).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => client.patch(path, { description: `writer ${i}` })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 10 }, () => 200));

    const pairs = (await inspected(server)).items.filter((item) => item.method === "PATCH").map((item) => item.change);
    expect(pairs).toHaveLength(10);
    // The versions 1 → 2, 2 → 3, …, 10 → 11, each once, and each pair's before is the previous pair's after.
    const byVersion = new Map(pairs.map((pair) => [pair?.before["version"], pair]));
    expect([...byVersion.keys()].sort((a, b) => Number(a) - Number(b))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (let version = 2; version <= 10; version++) {
      expect(byVersion.get(version)?.before).toEqual(byVersion.get(version - 1)?.after);
    }
  });
});

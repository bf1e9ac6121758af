// The emulator endpoints under /_cpln-local: health, reset, state export/import (also as a --seed), request
// inspection, admin-key-only access; and the readable --log lines.
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type OrgSnapshot, type RunningServer } from "../../server/index.js";

const ADMIN_KEY = "emuadmin.secret-admin-key-for-the-emulator-tests";
const SEED = { records: [{ kind: "group", name: "from-seed" }] };

let server: RunningServer;
let robotKey = "";

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function call(
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  url: string,
  key: string | null = ADMIN_KEY,
  body?: unknown,
): Promise<Answer> {
  const response = await fetch(`${server.url}${url}`, {
    method,
    headers: {
      ...(key === null ? {} : { authorization: `Bearer ${key}` }),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

beforeAll(async () => {
  server = await startServer({ org: "demo", adminKey: ADMIN_KEY, seed: SEED });
  expect((await call("POST", "/org/demo/serviceaccount", ADMIN_KEY, { name: "robot" })).status).toBe(201);
  robotKey = String(
    (await call("POST", "/org/demo/serviceaccount/robot/-addKey", ADMIN_KEY, { description: "robot" })).body["key"],
  );
  expect(robotKey).toContain(".");
});
afterAll(async () => {
  await server.close();
});

const ROUTES: ["GET" | "POST" | "PUT" | "DELETE", string][] = [
  ["GET", "/_cpln-local/health"],
  ["POST", "/_cpln-local/org/demo/reset"],
  ["GET", "/_cpln-local/org/demo/state"],
  ["PUT", "/_cpln-local/org/demo/state"],
  ["GET", "/_cpln-local/requests"],
  ["DELETE", "/_cpln-local/requests"],
];

describe("access", () => {
  it("every emulator endpoint: 401 without credentials and with a bad key, 403 for another principal", async () => {
    for (const [method, path] of ROUTES) {
      const body = method === "PUT" ? { records: [] } : undefined;
      expect((await call(method, path, null, body)).status, `${method} ${path}`).toBe(401);
      expect((await call(method, path, "nope.not-a-key", body)).status, `${method} ${path}`).toBe(401);
      const robot = await call(method, path, robotKey, body);
      expect(robot.status, `${method} ${path}`).toBe(403);
      expect(robot.body["message"]).toBe("The emulator endpoints need the admin key");
    }
  });

  it("health: 200 with the admin key (what a CI job waits on)", async () => {
    expect(await call("GET", "/_cpln-local/health")).toEqual({
      status: 200,
      body: { status: "ok", name: "cpln-local", version: expect.any(String), org: "demo" },
    });
  });
});

it("/openapi.json documents the emulator endpoints, the collection PUT and the org-level routes", async () => {
  const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, object> };
  for (const [method, path] of ROUTES) {
    const documented = doc.paths[path.replace("/org/demo/", "/org/{org}/")] as Record<string, unknown> | undefined;
    expect(documented?.[method.toLowerCase()], `${method} ${path}`).toBeDefined();
  }
  expect(Object.keys(doc.paths["/org/{org}/group"] ?? {}).sort()).toEqual(["get", "post", "put"]);
  expect(doc.paths["/org/{org}/volumeset/-query"]).toBeDefined();
  expect(doc.paths["/org/{org}/volumeset/-schema/permissions"]).toBeDefined();
});

describe("state", () => {
  it("export → mutate → import restores exactly (records, versions, key hashes); keys issued later stop working", async () => {
    const saved = (await call("GET", "/_cpln-local/org/demo/state")).body as unknown as OrgSnapshot;
    expect(saved.records.find((r) => r["kind"] === "group" && r["name"] === "from-seed")).toBeDefined();
    expect(saved.serviceAccountKeys.map((k) => k.serviceAccount).sort()).toEqual(["controlplane", "robot"]);
    expect(JSON.stringify(saved)).not.toContain(robotKey.split(".")[1]);
    // Mutations of every sort.
    expect((await call("POST", "/org/demo/group", ADMIN_KEY, { name: "later" })).status).toBe(201);
    expect((await call("PATCH", "/org/demo/group/from-seed", ADMIN_KEY, { description: "changed" })).status).toBe(200);
    expect((await call("DELETE", "/org/demo/serviceaccount/robot")).status).toBe(202);
    expect((await call("GET", "/org/demo/group", robotKey)).status).toBe(401);
    expect((await call("POST", "/org/demo/serviceaccount", ADMIN_KEY, { name: "other" })).status).toBe(201);
    const laterKey = String(
      (await call("POST", "/org/demo/serviceaccount/other/-addKey", ADMIN_KEY, { description: "other" })).body["key"],
    );

    const imported = await call("PUT", "/_cpln-local/org/demo/state", ADMIN_KEY, saved);
    expect(imported).toEqual({
      status: 200,
      body: { org: "demo", records: saved.records.length, serviceAccountKeys: 2 },
    });
    expect((await call("GET", "/_cpln-local/org/demo/state")).body).toEqual(saved);
    expect((await call("GET", "/org/demo/group", robotKey)).status).toBe(200);
    expect((await call("GET", "/org/demo/group", laterKey)).status).toBe(401);
    expect((await call("GET", "/org/demo/group/later")).status).toBe(404);
  });

  it("an invalid snapshot is a 400 naming the problem, and the state is left as it was", async () => {
    const before = (await call("GET", "/_cpln-local/org/demo/state")).body as unknown as OrgSnapshot;
    const broken = structuredClone(before);
    const group = broken.records.find((r) => r["kind"] === "group") as Record<string, unknown>;
    group["memberLinks"] = "not-a-list";
    const answer = await call("PUT", "/_cpln-local/org/demo/state", ADMIN_KEY, broken);
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain("memberLinks");
    // A record twice (`{records: []}` is valid: the org with only its builtins, which the import puts back).
    const twice = { ...before, records: [...before.records, before.records[0]] };
    expect((await call("PUT", "/_cpln-local/org/demo/state", ADMIN_KEY, twice)).status).toBe(400);
    expect((await call("GET", "/_cpln-local/org/demo/state")).body).toEqual(before);
  });

  it("an export is a --seed: a new server started with it exports the same state", async () => {
    const saved = (await call("GET", "/_cpln-local/org/demo/state")).body as unknown as OrgSnapshot;
    const copy = await startServer({ org: "demo", adminKey: ADMIN_KEY, seed: saved });
    try {
      const response = await copy.app.inject({
        url: "/_cpln-local/org/demo/state",
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
      });
      expect(response.json()).toEqual(saved);
      const robot = await copy.app.inject({ url: "/org/demo/group", headers: { authorization: `Bearer ${robotKey}` } });
      expect(robot.statusCode).toBe(200);
    } finally {
      await copy.close();
    }
  });

  it("reset: the org is back to its freshly seeded state (builtins, start seed, admin key)", async () => {
    expect((await call("POST", "/org/demo/group", ADMIN_KEY, { name: "temp" })).status).toBe(201);
    expect((await call("PATCH", "/org/demo/group/viewers", ADMIN_KEY, { description: "edited viewers" })).status).toBe(
      200,
    );
    expect(await call("POST", "/_cpln-local/org/demo/reset")).toEqual({
      status: 200,
      body: { org: "demo", reset: true },
    });
    expect((await call("GET", "/org/demo/group/temp")).status).toBe(404);
    expect((await call("GET", "/org/demo/serviceaccount/robot")).status).toBe(404);
    expect((await call("GET", "/org/demo/group", robotKey)).status).toBe(401);
    const groups = (await call("GET", "/org/demo/group")).body["items"] as {
      name: string;
      description: string;
      version: number;
    }[];
    expect(groups.map((g) => g.name)).toEqual(["from-seed", "superusers", "viewers"]);
    expect(groups.find((g) => g.name === "viewers")?.version).toBe(1);
    expect((await call("POST", "/_cpln-local/org/nope/reset")).status).toBe(404);
  });
});

describe("request inspection", () => {
  it("the last N requests with method, path, status, duration and body; no credentials, no secret responses", async () => {
    expect((await call("DELETE", "/_cpln-local/requests")).status).toBe(204);
    expect((await call("POST", "/org/demo/group", ADMIN_KEY, { name: "seen", tags: { a: "1" } })).status).toBe(201);
    expect((await call("PATCH", "/org/demo/group/seen", ADMIN_KEY, { description: "d" })).status).toBe(200);
    expect((await call("GET", "/org/demo/group/missing")).status).toBe(404);
    expect((await call("POST", "/org/demo/serviceaccount", ADMIN_KEY, { name: "keyed" })).status).toBe(201);
    const key = String(
      (await call("POST", "/org/demo/serviceaccount/keyed/-addKey", ADMIN_KEY, { description: "k" })).body["key"],
    );
    const answer = await call("GET", "/_cpln-local/requests?limit=4");
    const items = answer.body["items"] as Record<string, unknown>[];
    expect(items.map((i) => [i["method"], i["path"], i["status"], i["body"]])).toEqual([
      ["PATCH", "/org/demo/group/seen", 200, { description: "d" }],
      ["GET", "/org/demo/group/missing", 404, undefined],
      ["POST", "/org/demo/serviceaccount", 201, { name: "keyed" }],
      ["POST", "/org/demo/serviceaccount/keyed/-addKey", 200, { description: "k" }],
    ]);
    for (const item of items) expect(item["durationMs"]).toEqual(expect.any(Number));
    const all = JSON.stringify((await call("GET", "/_cpln-local/requests")).body);
    expect(all).not.toContain(ADMIN_KEY);
    expect(all).not.toContain(key);
    expect(all).not.toContain("/_cpln-local");
    expect((await call("GET", "/_cpln-local/requests?limit=0")).status).toBe(400);
  });
});

describe("--log", () => {
  it("text: one readable line per request (method, path, status, ms, body of writes); json: pino lines, credentials redacted", async () => {
    for (const format of ["text", "json"] as const) {
      const stream = new PassThrough();
      let out = "";
      stream.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
      const logged = await startServer({
        org: "demo",
        adminKey: ADMIN_KEY,
        logger: true,
        logFormat: format,
        logStream: stream,
      });
      try {
        await fetch(`${logged.url}/org/demo/group`, {
          method: "POST",
          headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
          body: JSON.stringify({ name: "logged" }),
        });
        await fetch(`${logged.url}/org/demo/group/logged`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      } finally {
        await logged.close();
      }
      expect(out).not.toContain(ADMIN_KEY);
      if (format === "text") {
        const lines = out.trim().split("\n");
        expect(lines[0]).toMatch(/^POST \/org\/demo\/group 201 \d+\.\dms \{"name":"logged"\}$/);
        expect(lines[1]).toMatch(/^GET \/org\/demo\/group\/logged 200 \d+\.\dms$/);
      } else {
        const lines = out
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        expect(lines.some((l) => l["msg"] === "request completed")).toBe(true);
      }
    }
  });
});

/**
 * The HTTP surface over real sockets: body parsing and limits, unknown routes, /about, /openapi.json, the request
 * log, fault injection and log redaction.
 */
import { PassThrough } from "node:stream";
import Ajv2020 from "ajv/dist/2020.js";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseFaults } from "../../server/faults.js";
import type { RunningServer } from "../../server/index.js";
import { ADMIN_KEY, ANY_ID, ORG, admin, apiError, field, start } from "./helpers.js";

let server: RunningServer;

beforeAll(async () => {
  server = await start({ recordRequests: true });
});

afterAll(async () => {
  await server.close();
});

async function send(
  method: "GET" | "POST" | "PATCH" | "DELETE",
  path: string,
  options: { body?: string; contentType?: string; auth?: string | null; target?: RunningServer } = {},
) {
  const headers: Record<string, string> = {};
  if (options.auth !== null) headers["authorization"] = options.auth ?? `Bearer ${ADMIN_KEY}`;
  if (options.contentType) headers["content-type"] = options.contentType;
  const response = await request(`${(options.target ?? server).url}${path}`, { method, headers, body: options.body });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    headers: response.headers,
    body: text === "" ? undefined : (JSON.parse(text) as unknown),
  };
}

describe("request bodies", () => {
  it("invalid JSON is 400 in the error shape", async () => {
    const answer = await send("POST", `/org/${ORG}/group`, { body: "{nope", contentType: "application/json" });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(
      apiError(400, "BadRequest", "The request body is not valid JSON", [
        { path: "", message: "The request body is not valid JSON" },
      ]),
    );
  });

  it("a JSON body that is not an object is 400", async () => {
    const answer = await send("POST", `/org/${ORG}/group`, { body: "[1,2]", contentType: "application/json" });
    expect(answer.body).toEqual(
      apiError(400, "BadRequest", "Invalid request: The request body must be a JSON object", [
        { path: "", message: "The request body must be a JSON object" },
      ]),
    );
  });

  it("a body over 1 MiB is 413", async () => {
    const big = JSON.stringify({ name: "big", description: "x".repeat(1024 * 1024) });
    const answer = await send("POST", `/org/${ORG}/group`, { body: big, contentType: "application/json" });
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual(apiError(413, "PayloadTooLarge", "The request body is larger than 1048576 bytes"));
  });

  it("a content type other than JSON is 415", async () => {
    const answer = await send("POST", `/org/${ORG}/group`, {
      body: "name=x",
      contentType: "application/x-www-form-urlencoded",
    });
    expect(answer.status).toBe(415);
    expect(answer.body).toEqual(
      apiError(415, "UnsupportedMediaType", "Unsupported content type: send application/json"),
    );
  });

  it("an empty JSON body on DELETE is accepted", async () => {
    expect((await admin(server).post(`/org/${ORG}/group`, { name: "temp-group" })).status).toBe(201);
    const answer = await send("DELETE", `/org/${ORG}/group/temp-group`, { body: "", contentType: "application/json" });
    expect(answer.status).toBe(202);
  });

  it("__proto__ keys are refused as reserved, with their path (not as invalid JSON)", async () => {
    const answer = await send("POST", `/org/${ORG}/group`, {
      body: '{"name":"evil","__proto__":{"admin":true}}',
      contentType: "application/json",
    });
    const rule = 'the key "__proto__" is reserved (it could alter object prototypes)';
    expect(answer.body).toEqual(
      apiError(400, "BadRequest", `Invalid request: __proto__: ${rule}`, [{ path: "__proto__", message: rule }]),
    );
  });
});

describe("routes", () => {
  it("an unknown route is 404 in the error shape", async () => {
    const answer = await send("GET", "/org/acme/widgets");
    expect(answer.body).toEqual(apiError(404, "NotFound", "No route GET /org/acme/widgets"));
  });

  it("an undecodable percent-escape or an overlong path segment is 400 in the error shape", async () => {
    expect((await send("GET", `/org/${ORG}/policy/%E0%A4%A`)).body).toEqual(
      apiError(400, "BadRequest", "The URL is not valid (bad percent-encoding)", [
        { path: "", message: "The URL is not valid (bad percent-encoding)" },
      ]),
    );
    expect((await send("GET", `/org/${ORG}/policy/${"n".repeat(301)}`)).body).toEqual(
      apiError(400, "BadRequest", "A path segment is longer than 300 characters", [
        { path: "", message: "A path segment is longer than 300 characters" },
      ]),
    );
  });

  it("oversized request headers are 431 in the error shape", async () => {
    const answer = await request(`${server.url}/org/${ORG}/policy`, { headers: { "x-big": "h".repeat(20_000) } });
    expect(answer.statusCode).toBe(431);
    expect(await answer.body.json()).toEqual(
      apiError(431, "HeaderFieldsTooLarge", "The request headers are too large"),
    );
  });

  it("deleting the org is 405 with the methods the org path serves", async () => {
    expect((await send("DELETE", `/org/${ORG}`)).body).toEqual(
      apiError(405, "MethodNotAllowed", "DELETE is not allowed on /org/{org} (allowed: GET, PATCH, HEAD)"),
    );
  });

  it("GET / needs no credentials and points to /about, /openapi.json, the API and the docs", async () => {
    const root = await send("GET", "/", { auth: null });
    expect(root.status).toBe(200);
    expect(root.body).toEqual({
      name: "cpln-local",
      about: "/about",
      openapi: "/openapi.json",
      api: `/org/${ORG}`,
      auth: "Authorization: Bearer <key> (the admin key is printed at start, or CPLN_TOKEN)",
      docs: "docs/cpln-local.md in the cpln-pulumi package",
    });
  });

  it("GET /about needs no credentials", async () => {
    const about = await send("GET", "/about", { auth: null });
    expect(about.body).toEqual({
      name: "cpln-local",
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      org: ORG,
      api: "Control Plane organization API",
    });
  });

  it("GET /org lists the orgs the caller may view; GET /org/{org} reads one", async () => {
    const list = await send("GET", "/org");
    expect(field<{ name: string }[]>(list.body, "items").map((o) => o.name)).toEqual([ORG]);
    const one = await send("GET", `/org/${ORG}`);
    expect(one.body).toEqual(
      expect.objectContaining({ kind: "org", name: ORG, id: ANY_ID, links: [{ rel: "self", href: `/org/${ORG}` }] }),
    );
  });

  it("GET /openapi.json describes every endpoint with schemas that compile", async () => {
    const doc = await send("GET", "/openapi.json", { auth: null });
    expect(doc.status).toBe(200);
    const paths = field<Record<string, Record<string, unknown>>>(doc.body, "paths");
    const expected: [string, string][] = [
      ["/org/{org}/gvc/{gvc}/volumeset", "post"],
      ["/org/{org}/location/{name}", "patch"],
      ["/org/{org}/cloudaccount/-query", "post"],
      ["/org/{org}/mk8s/{name}/-join", "post"],
      ["/org/{org}/policy/{name}", "patch"],
      ["/org/{org}/cloudaccount/-schema/permissions", "get"],
      ["/org/{org}/serviceaccount", "get"],
      ["/org/{org}/group", "get"],
      ["/org/{org}/policy/{name}", "get"],
      ["/org/{org}/group/{name}/-accessreport", "get"],
      ["/org/{org}/auditctx/{name}", "delete"],
      ["/org/{org}/quota", "get"],
      ["/org/{org}/quota/{id}", "get"],
    ];
    for (const [path, method] of expected) expect(paths[path]?.[method], `${method} ${path}`).toBeDefined();
    const schemas = field<Record<string, object>>(doc.body, "components", "schemas");
    // Each schema compiled as the document's own (its `$ref`s, e.g. the recursive JsonValue, resolve in it).
    const ajv = new Ajv2020({ strict: false });
    const id = "https://cpln-local.invalid/openapi.json";
    ajv.addSchema({ ...(doc.body as object), $id: id });
    const compile = (name: string) => ajv.compile({ $ref: `${id}#/components/schemas/${name}` });
    for (const name of Object.keys(schemas)) {
      expect(() => compile(name), name).not.toThrow();
    }
    const validateVolumeSet = compile("Volumeset");
    const spec = { initialCapacity: 10, performanceClass: "general-purpose-ssd" };
    expect((await admin(server).post(`/org/${ORG}/gvc/default/volumeset`, { name: "described", spec })).status).toBe(
      201,
    );
    const read = await send("GET", `/org/${ORG}/gvc/default/volumeset`);
    const item = field<unknown[]>(read.body, "items")[0];
    expect(item).toBeDefined();
    expect(validateVolumeSet(item), JSON.stringify(validateVolumeSet.errors)).toBe(true);
    expect(validateVolumeSet({ kind: "volumeset" })).toBe(false);
  });
});

describe("request log", () => {
  it("keeps method, path, parsed body and status of each request, never headers", async () => {
    server.clearRequests();
    await admin(server).post(`/org/${ORG}/group`, { name: "logged" });
    await admin(server).get(`/org/${ORG}/group/logged`);
    await admin(server).patch(`/org/${ORG}/group/logged`, { description: "d" });
    expect(server.requests()).toEqual([
      { method: "POST", path: `/org/${ORG}/group`, body: { name: "logged" }, status: 201 },
      { method: "GET", path: `/org/${ORG}/group/logged`, body: undefined, status: 200 },
      { method: "PATCH", path: `/org/${ORG}/group/logged`, body: { description: "d" }, status: 200 },
    ]);
    expect(JSON.stringify(server.requests())).not.toContain(ADMIN_KEY);
    server.clearRequests();
    expect(server.requests()).toEqual([]);
  });
});

describe("fault injection", () => {
  it("parses the CLI form and rejects bad settings with the rule", () => {
    expect(parseFaults("rate=0.2,modes=503+429+cut,delayMs=50,seed=7")).toEqual({
      rate: 0.2,
      modes: ["503", "429", "cut"],
      delayMs: 50,
      seed: 7,
    });
    expect(() => parseFaults("rate=2,modes=503")).toThrow("faults.rate must be a number between 0 and 1 (got 2)");
    expect(() => parseFaults("rate=0.5,modes=boom")).toThrow('Unknown fault mode "boom" (use 503, 429, delay, cut)');
    expect(() => parseFaults("rate=0.5")).toThrow("faults.modes must list at least one of 503, 429, delay, cut");
    expect(() => parseFaults("often=1")).toThrow('Unknown fault option "often" (use rate, modes, delayMs, seed)');
  });

  it("503 and 429 answer before the handler runs (nothing changes), with Retry-After", async () => {
    for (const mode of ["503", "429"] as const) {
      server.setFaults({ rate: 1, modes: [mode] });
      const answer = await send("POST", `/org/${ORG}/group`, {
        body: JSON.stringify({ name: `f${mode}` }),
        contentType: "application/json",
      });
      server.setFaults(undefined);
      expect(answer.status).toBe(Number(mode));
      expect(["0", "1"]).toContain(answer.headers["retry-after"]);
      expect(answer.body).toEqual(
        mode === "503"
          ? apiError(503, "ServiceUnavailable", "Service unavailable (injected fault)")
          : apiError(429, "TooManyRequests", "Too many requests (injected fault)"),
      );
      expect((await admin(server).get(`/org/${ORG}/group/f${mode}`)).status).toBe(404);
    }
  });

  it("cut commits the write and then drops the connection", async () => {
    server.setFaults({ rate: 1, modes: ["cut"] });
    await expect(
      send("POST", `/org/${ORG}/group`, {
        body: JSON.stringify({ name: "cut-write" }),
        contentType: "application/json",
      }),
    ).rejects.toThrow();
    server.setFaults(undefined);
    expect((await admin(server).get(`/org/${ORG}/group/cut-write`)).status).toBe(200);
  });

  it("delay answers late; /about is never faulted", async () => {
    server.setFaults({ rate: 1, modes: ["delay"], delayMs: 150 });
    // The monotonic clock the server's timer runs on: a wall-clock step cannot shorten or stretch the measure.
    const began = performance.now();
    expect((await send("GET", `/org/${ORG}/group`)).status).toBe(200);
    expect(performance.now() - began).toBeGreaterThanOrEqual(140);
    server.setFaults({ rate: 1, modes: ["503"] });
    expect((await send("GET", "/about", { auth: null })).status).toBe(200);
    server.setFaults(undefined);
  });

  it("a seeded rate applies to about that share of requests, reproducibly", async () => {
    const statuses = async () => {
      server.setFaults({ rate: 0.3, modes: ["503"], seed: 42 });
      const out: number[] = [];
      for (let i = 0; i < 40; i++) out.push((await admin(server).get(`/org/${ORG}/group`)).status);
      server.setFaults(undefined);
      return out;
    };
    const first = await statuses();
    expect(await statuses()).toEqual(first);
    const faulted = first.filter((s) => s === 503).length;
    expect(faulted).toBeGreaterThan(3);
    expect(faulted).toBeLessThan(25);
  });
});

describe("logging", () => {
  it("never writes the Authorization header or a join script to the log", async () => {
    const lines: string[] = [];
    const stream = new PassThrough();
    stream.on("data", (chunk: Buffer) => lines.push(chunk.toString("utf8")));
    const logged = await start({ logger: true, logStream: stream });
    try {
      const joined = await send("POST", `/org/${ORG}/mk8s/edge/-join`, {
        target: logged,
        body: JSON.stringify({ nodePoolName: "general" }),
        contentType: "application/json",
      });
      expect(joined.status).toBe(200);
      const bad = await send("GET", `/org/${ORG}/group`, { target: logged, auth: "Bearer wrongkey.secret-value-123" });
      expect(bad.status).toBe(401);
      const log = lines.join("");
      expect(log).toContain("/org/acme/mk8s/edge/-join");
      expect(log).not.toContain(ADMIN_KEY);
      expect(log).not.toContain("secret-value-123");
      const token = /BOOTSTRAP_TOKEN='([^']+)'/.exec(field<string>(joined.body, "script"))?.[1];
      expect(token).toBeDefined();
      expect(log).not.toContain(token as string);
      expect(log).not.toContain("BOOTSTRAP_TOKEN");
    } finally {
      await logged.close();
    }
  });
});

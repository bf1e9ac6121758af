/**
 * Request bodies the parser refuses with a message saying why: JSON nesting deeper than MAX_JSON_DEPTH (an object
 * exactly at the limit works through every operation; one level more is a 400 and nothing is stored), and keys that
 * could poison prototypes (`__proto__`, `constructor.prototype`), refused as reserved with their path.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../../server/json.js";
import { admin, apiError, call, field, ORG, start } from "./helpers.js";

let server: RunningServer;

beforeAll(async () => {
  server = await start();
});
afterAll(async () => {
  await server.close();
});

/** `levels` nested objects `{a: {a: ... leaf}}`: a value of depth `levels`. */
function nest(levels: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

const depthMessage = `The request body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels (the limit)`;
const tooDeep = apiError(400, "BadRequest", depthMessage, [{ path: "", message: depthMessage }]);

describe(`JSON nesting depth limit (${MAX_JSON_DEPTH})`, () => {
  // The body is level 1, so `data` may hold MAX_JSON_DEPTH - 1 levels.
  const atLimit = MAX_JSON_DEPTH - 1;
  const base = `/org/${ORG}/cloudaccount`;

  it("a cloud account whose body is exactly at the limit: create, GET, list, query, PATCH, PUT all work", async () => {
    const body = { name: "deep", provider: "aws", data: nest(atLimit, "v1") };
    expect(nestsDeeperThan(JSON.stringify(body), MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify(body), MAX_JSON_DEPTH - 1)).toBe(true);

    const created = await admin(server).post(base, body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(field(created.body, "data")).toEqual(body.data);

    const got = await admin(server).get(`${base}/deep`);
    expect(got.status).toBe(200);
    expect(field(got.body, "data")).toEqual(body.data);

    const listed = await admin(server).get(base);
    expect(listed.status).toBe(200);
    const item = field<{ name: string; data: unknown }[]>(listed.body, "items").find((i) => i.name === "deep");
    expect(item?.data).toEqual(body.data);

    const queried = await admin(server).post(`${base}/-query`, {
      kind: "cloudaccount",
      context: nest(atLimit - 1, "ctx") as Record<string, unknown>,
      spec: { terms: [{ property: "name", value: "deep" }] },
    });
    expect(queried.status, JSON.stringify(queried.body)).toBe(200);
    expect(field<{ data: unknown }[]>(queried.body, "items").map((i) => i.data)).toEqual([body.data]);

    const patched = await admin(server).patch(`${base}/deep`, { data: nest(atLimit, "v2") });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(field(patched.body, "data")).toEqual(nest(atLimit, "v2"));

    const put = await call(server, "PUT", `${base}/deep`, {
      auth: `Bearer ${server.adminKey}`,
      body: { name: "deep", provider: "aws", description: "replaced", data: nest(atLimit, "v3") },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(field(put.body, "data")).toEqual(nest(atLimit, "v3"));
    expect(field((await admin(server).get(`${base}/deep`)).body, "data")).toEqual(nest(atLimit, "v3"));

    expect((await admin(server).delete(`${base}/deep`)).status).toBe(202);
  });

  it("one level more is a 400 naming the limit on POST, PATCH and PUT, and nothing is stored or changed", async () => {
    const deeper = nest(atLimit + 1, "x");
    const created = await admin(server).post(base, { name: "deeper", provider: "aws", data: deeper });
    expect(created.status).toBe(400);
    expect(created.body).toEqual(tooDeep);
    expect((await admin(server).get(`${base}/deeper`)).status).toBe(404);

    const before = await admin(server).get(`${base}/aws-prod`);
    const patched = await admin(server).patch(`${base}/aws-prod`, { data: deeper });
    expect(patched.body).toEqual(tooDeep);
    const put = await call(server, "PUT", `${base}/aws-prod`, {
      auth: `Bearer ${server.adminKey}`,
      body: { name: "aws-prod", provider: "aws", data: deeper },
    });
    expect(put.body).toEqual(tooDeep);
    expect((await admin(server).get(`${base}/aws-prod`)).body).toEqual(before.body);
  });

  it("arrays count as levels too; brackets inside strings (even after escaped quotes) do not", async () => {
    let arrays: unknown = "x";
    for (let i = 0; i < MAX_JSON_DEPTH; i++) arrays = [arrays];
    const refused = await admin(server).post(base, { name: "arrays", provider: "aws", data: { a: arrays } });
    expect(refused.body).toEqual(tooDeep);

    const description = `\\"${"{[".repeat(100)}`;
    const created = await admin(server).post(base, { name: "braces", provider: "aws", description });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(field(created.body, "description")).toBe(description);
  });

  it("depth 100,000 is refused as too deep before parsing (no stack overflow, no 500)", async () => {
    const text = `{"name":"huge","provider":"aws","data":${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}}`;
    const answer = await call(server, "POST", base, { auth: `Bearer ${server.adminKey}`, raw: text });
    expect(answer.body).toEqual(tooDeep);
  });
});

describe("parsing", () => {
  it("a body starting with a UTF-8 byte-order mark is parsed like one without", async () => {
    const answer = await call(server, "POST", `/org/${ORG}/group`, {
      auth: `Bearer ${server.adminKey}`,
      raw: '\uFEFF{"name":"bom","description":"with a BOM"}',
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(field(answer.body, "description")).toBe("with a BOM");
  });

  it("whitespace alone is not JSON: 400 saying so (a query took it for no body); an empty body is no body", async () => {
    const message = "The request body is not valid JSON";
    for (const raw of ["\n", " ", "\r\n\t "]) {
      const answer = await call(server, "POST", `/org/${ORG}/group/-query`, { auth: `Bearer ${server.adminKey}`, raw });
      expect([raw, answer.body]).toEqual([raw, apiError(400, "BadRequest", message, [{ path: "", message }])]);
    }
    const empty = await call(server, "POST", `/org/${ORG}/group/-query`, {
      auth: `Bearer ${server.adminKey}`,
      raw: "",
    });
    expect(empty.status).toBe(200);
  });

  it("malformed JSON is still a 400 saying so", async () => {
    const answer = await call(server, "POST", `/org/${ORG}/group`, {
      auth: `Bearer ${server.adminKey}`,
      raw: '{"name":"broken",',
    });
    const message = "The request body is not valid JSON";
    expect(answer.body).toEqual(apiError(400, "BadRequest", message, [{ path: "", message }]));
  });
});

describe("reserved keys", () => {
  const reserved = (path: string, key: string) =>
    apiError(
      400,
      "BadRequest",
      `Invalid request: ${path}: the key "${key}" is reserved (it could alter object prototypes)`,
      [{ path, message: `the key "${key}" is reserved (it could alter object prototypes)` }],
    );

  it("__proto__ at the top, nested, or inside an array: 400 saying the key is reserved, with its path", async () => {
    const cases: [string, string][] = [
      ['{"name":"evil","provider":"aws","__proto__":{"admin":true}}', "__proto__"],
      ['{"name":"evil","provider":"aws","data":{"x":{"__proto__":{"admin":true}}}}', "data.x.__proto__"],
      ['{"name":"evil","provider":"aws","data":{"list":[1,{"__proto__":null}]}}', "data.list.1.__proto__"],
      // Spelled with escapes: the text never holds "proto", its key does.
      ['{"name":"evil","provider":"aws","\\u005f_\\u0070roto__":{"admin":true}}', "__proto__"],
    ];
    for (const [text, path] of cases) {
      const answer = await call(server, "POST", `/org/${ORG}/cloudaccount`, {
        auth: `Bearer ${server.adminKey}`,
        raw: text,
      });
      expect(answer.body, text).toEqual(reserved(path, "__proto__"));
    }
    expect((await admin(server).get(`/org/${ORG}/cloudaccount/evil`)).status).toBe(404);
  });

  it("constructor.prototype is reserved; a plain constructor key is an ordinary key", async () => {
    const refused = await call(server, "PATCH", `/org/${ORG}/cloudaccount/gcp-dev`, {
      auth: `Bearer ${server.adminKey}`,
      raw: '{"data":{"constructor":{"prototype":{"admin":true}}}}',
    });
    expect(refused.body).toEqual(reserved("data.constructor.prototype", "constructor.prototype"));
    const escaped = await call(server, "PATCH", `/org/${ORG}/cloudaccount/gcp-dev`, {
      auth: `Bearer ${server.adminKey}`,
      raw: '{"data":{"constructor":{"\\u0070rototype":{"admin":true}}}}',
    });
    expect(escaped.body).toEqual(reserved("data.constructor.prototype", "constructor.prototype"));

    const accepted = await admin(server).patch(`/org/${ORG}/cloudaccount/gcp-dev`, { data: { constructor: "x" } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(field(accepted.body, "data", "constructor")).toBe("x");
  });
});

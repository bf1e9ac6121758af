/**
 * Bad input. fast-check generates requests against every endpoint of a real cpln-local over real HTTP (undici, and
 * raw sockets for bytes undici refuses to send): valid bodies mutated (fields set to other types, removed, added,
 * wrapped, directives injected), random JSON, wrong types, strings up to and over 1 MiB, deep nesting, unknown
 * directives, bad JSON, wrong content types, odd paths and ids (unicode, `..`, very long, percent-encoded, invalid
 * percent-encoding), bad and huge headers. Every answer must be 2xx, or 4xx with the API error shape (checked with the
 * contract's `apiError` schema, status matching); never a 5xx, never no answer; and the server keeps serving
 * (`GET /about` and an authenticated list after each batch).
 *
 * Also: the provider's `check`, run in Pulumi's real dynamic-provider host, fed generated invalid inputs returns
 * failures naming the offending property, never throws, and sends no request to the server.
 *
 * CI: 2,000 HTTP requests, 100 provider checks per resource type. CPLN_LONG_TESTS=1: 20,000 requests and 1,000 checks.
 * CPLN_FUZZ_SEED=<n> replays a run. Needs `npm run build` for the provider part (the host loads dist/).
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kindNames, kinds } from "../../api/kinds/index.js";
import { startServer, type RunningServer } from "../../server/index.js";
import {
  answerProblem,
  GVC,
  http,
  loadProviderKit,
  rawHttp,
  report,
  runLimited,
  sized,
  exampleName,
  validCreateBody,
  validPatchBody,
  type CheckFailure,
  type HttpAnswer,
  type ProviderHost,
  type ProviderKit,
} from "./support.js";

const ORG = "fuzz";
const ADMIN_KEY = "fuzzadmin.fuzz-admin-key-0123456789abcdef";
const TOTAL_REQUESTS = sized(2_000, 20_000);
const BATCH = sized(200, 500);
const CHECKS_PER_TYPE = sized(100, 1_000);
const SEED = Number(process.env.CPLN_FUZZ_SEED ?? Date.now() % 1_000_000);
/** The name every seeded target object has (the user kind names by email). */
const TARGET = "fz";

const MiB = 1024 * 1024;

// ---- endpoints ------------------------------------------------------------------------------------------------------

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
interface Endpoint {
  method: Method;
  /** Path with `{name}` where an object name goes. */
  template: string;
  kind: string;
  /** What a valid body for this endpoint looks like (undefined: none). */
  body: "create" | "patch" | "query" | "addKey" | "join" | undefined;
}

function targetName(kind: string): string {
  return kind === "org" ? ORG : exampleName(kind, TARGET);
}

const endpoints: Endpoint[] = (() => {
  const list: Endpoint[] = [
    { method: "GET", template: "/about", kind: "meta", body: undefined },
    { method: "GET", template: "/openapi.json", kind: "meta", body: undefined },
    { method: "GET", template: "/org", kind: "org", body: undefined },
    { method: "GET", template: `/org/${ORG}`, kind: "org", body: undefined },
    { method: "PATCH", template: `/org/${ORG}`, kind: "org", body: "patch" },
    { method: "DELETE", template: `/org/${ORG}`, kind: "org", body: undefined },
    { method: "GET", template: `/org/${ORG}/-accessreport`, kind: "org", body: undefined },
    { method: "GET", template: `/org/${ORG}/org/-schema/permissions`, kind: "org", body: undefined },
  ];
  for (const kind of kindNames) {
    if (kind === "org") continue;
    const base = kinds[kind].scope === "gvc" ? `/org/${ORG}/gvc/${GVC}/${kind}` : `/org/${ORG}/${kind}`;
    list.push(
      { method: "GET", template: base, kind, body: undefined },
      { method: "POST", template: base, kind, body: "create" },
      { method: "POST", template: `${base}/-query`, kind, body: "query" },
      { method: "GET", template: `${base}/-schema/permissions`, kind, body: undefined },
      { method: "GET", template: `${base}/{name}`, kind, body: undefined },
      { method: "PATCH", template: `${base}/{name}`, kind, body: "patch" },
      { method: "PUT", template: `${base}/{name}`, kind, body: "create" },
      { method: "DELETE", template: `${base}/{name}`, kind, body: undefined },
      { method: "GET", template: `${base}/{name}/-accessreport`, kind, body: undefined },
    );
  }
  list.push(
    { method: "POST", template: `/org/${ORG}/serviceaccount/{name}/-addKey`, kind: "serviceaccount", body: "addKey" },
    { method: "POST", template: `/org/${ORG}/mk8s/{name}/-join`, kind: "mk8s", body: "join" },
  );
  return list;
})();

function validBody(endpoint: Endpoint, marker: string): unknown {
  switch (endpoint.body) {
    case "create":
      return validCreateBody(endpoint.kind, `fz-${marker}`) ?? { name: `fz-${marker}` };
    case "patch":
      return validPatchBody(endpoint.kind, marker);
    case "query":
      return { kind: endpoint.kind, spec: { match: "all", terms: [{ op: "=", property: "name", value: TARGET }] } };
    case "addKey":
      return { description: `key ${marker}` };
    case "join":
      return { nodePoolName: "pool" };
    default:
      return undefined;
  }
}

// ---- generators -----------------------------------------------------------------------------------------------------

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Values of every JSON type, including the awkward ones. */
const anyJson: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(-0, 1e308, -1e308, 2 ** 53 + 1, 0.1),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom("", " ", "\u0000", "\ud800", "🙂", "../../etc/passwd", "//group/viewers", "all", "manage", "${x}"),
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
);

const directiveKeys = fc.constantFrom(
  "$append/targetLinks",
  "$append/nosuch",
  "$patch/bindings",
  "$drop/bindings",
  "$retain/tags",
  "$replace/spec",
  "$drop",
  "$frobnicate/x",
  "$",
  "$/",
  "$append/",
  "$patch/",
  "__proto__",
  "constructor",
  "prototype",
  "$append/bindings.permissions",
);

type Mutation =
  | { op: "set"; at: number; value: Json }
  | { op: "delete"; at: number }
  | { op: "add"; at: number; key: string; value: Json }
  | { op: "wrap"; at: number }
  | { op: "directive"; at: number; key: string; value: Json };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant("set" as const), at: fc.nat(), value: anyJson }),
  fc.record({ op: fc.constant("delete" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("add" as const), at: fc.nat(), key: fc.string({ maxLength: 12 }), value: anyJson }),
  fc.record({ op: fc.constant("wrap" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("directive" as const), at: fc.nat(), key: directiveKeys, value: anyJson }),
);

/** Every (container, key) position in a JSON value. */
function positions(value: Json): { parent: Json[] | { [key: string]: Json }; key: string | number }[] {
  const found: { parent: Json[] | { [key: string]: Json }; key: string | number }[] = [];
  const walk = (node: Json): void => {
    if (Array.isArray(node)) {
      node.forEach((child, i) => {
        found.push({ parent: node, key: i });
        walk(child);
      });
    } else if (node !== null && typeof node === "object") {
      for (const key of Object.keys(node)) {
        found.push({ parent: node, key });
        walk(node[key] as Json);
      }
    }
  };
  walk(value);
  return found;
}

function containers(value: Json): (Json[] | { [key: string]: Json })[] {
  const found: (Json[] | { [key: string]: Json })[] = [];
  const walk = (node: Json): void => {
    if (Array.isArray(node)) {
      found.push(node);
      node.forEach(walk);
    } else if (node !== null && typeof node === "object") {
      found.push(node);
      Object.values(node).forEach(walk);
    }
  };
  walk(value);
  return found;
}

function setAt(parent: Json[] | { [key: string]: Json }, key: string | number, value: Json): void {
  if (Array.isArray(parent)) parent[key as number] = value;
  else Object.defineProperty(parent, key, { value, enumerable: true, writable: true, configurable: true });
}

function mutate(valid: unknown, mutations: Mutation[]): Json {
  const body = structuredClone(valid) as Json;
  for (const m of mutations) {
    if (m.op === "add" || m.op === "directive") {
      const objects = containers(body).filter((c) => !Array.isArray(c)) as { [key: string]: Json }[];
      if (objects.length > 0) setAt(objects[m.at % objects.length] as { [key: string]: Json }, m.key, m.value);
      continue;
    }
    const all = positions(body);
    if (all.length === 0) continue;
    const { parent, key } = all[m.at % all.length] as (typeof all)[number];
    const current = (Array.isArray(parent) ? parent[key as number] : parent[key as string]) as Json;
    if (m.op === "set") setAt(parent, key, m.value);
    else if (m.op === "wrap") setAt(parent, key, [current]);
    else if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key as string];
  }
  return body;
}

/** A nested JSON text `depth` levels deep (built as text: no recursion on either side of the test). */
function deepText(depth: number, asArray: boolean): string {
  return asArray ? `${"[".repeat(depth)}1${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Sent over a raw socket (bytes undici would refuse or normalise). */
  raw?: boolean;
  label: string;
}

const nameArb: fc.Arbitrary<{ segment: string; label: string }> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ segment: "", label: "target" }) },
  {
    weight: 2,
    arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 }).map((s) => ({
      segment: encodeURIComponent(s),
      label: "unicode",
    })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom("..", ".", "%2e%2e", "%2E%2E%2F%2E%2E", "%2F", "a%2Fb", "%00", "%20", "~", "-", "-query")
      .map((segment) => ({ segment, label: "odd" })),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 64, max: 8_000 }).map((n) => ({ segment: "n".repeat(n), label: "long" })),
  },
  {
    weight: 1,
    arbitrary: fc.uint8Array({ minLength: 1, maxLength: 12 }).map((bytes) => ({
      segment: [...bytes].map((b) => `%${b.toString(16).padStart(2, "0")}`).join(""),
      label: "percent-bytes",
    })),
  },
);

const contentTypeArb: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 12, arbitrary: fc.constant("application/json") },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      undefined,
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=xyz",
      "application/json; charset=utf-16",
      "application/json; charset=latin1",
      "application/jsonx",
      "application/merge-patch+json",
      "*/*",
      "",
      "application/json, text/plain",
      "APPLICATION/JSON",
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }).map((s) => s.replace(/[^\x20-\x7e]/g, "")) },
);

const authArb: fc.Arbitrary<{ value: string | undefined; label: string }> = fc.oneof(
  { weight: 12, arbitrary: fc.constant({ value: `Bearer ${ADMIN_KEY}`, label: "admin" }) },
  { weight: 1, arbitrary: fc.constant({ value: ADMIN_KEY, label: "bare key" }) },
  {
    weight: 3,
    arbitrary: fc
      .oneof(
        fc.constant(undefined),
        fc.constantFrom(
          "Bearer",
          "Bearer ",
          "Basic dXNlcjpwYXNz",
          "Bearer eyJ.eyJ.sig",
          "Bearer eyJhbGciOiJub25lIn0.eyJlbWFpbCI6ImFAYi5jIn0.",
          `Bearer ${ADMIN_KEY}x`,
          `Bearer ${ADMIN_KEY.split(".")[0]}.`,
          "Bearer .",
          "bearer    spaced",
        ),
        fc.string({ maxLength: 60 }).map((s) => `Bearer ${s.replace(/[^\x20-\x7e]/g, "")}`),
        fc.integer({ min: 1_000, max: 12_000 }).map((n) => `Bearer ${"k".repeat(n)}`),
      )
      .map((value) => ({ value, label: "bad auth" })),
  },
);

/** Bodies: mutated valid ones, random JSON, huge, deep, bad text. Returns the text to send (or undefined). */
/** The target object of each kind as last read (bodies for PATCH and PUT that echo the record, as clients do). */
const currentRecords = new Map<string, unknown>();

function bodyArb(endpoint: Endpoint): fc.Arbitrary<{ text: string | undefined; label: string }> {
  const valid = validBody(endpoint, "m");
  const echoed =
    endpoint.method === "PATCH" || endpoint.method === "PUT" ? currentRecords.get(endpoint.kind) : undefined;
  return fc.oneof(
    {
      weight: echoed === undefined ? 0 : 4,
      arbitrary: fc.array(mutation, { minLength: 0, maxLength: 3 }).map((ms) => ({
        text: JSON.stringify(mutate(echoed ?? {}, ms)),
        label: ms.length === 0 ? "echoed record" : `echoed record mutated×${ms.length}`,
      })),
    },
    {
      weight: 10,
      arbitrary: fc.array(mutation, { minLength: 0, maxLength: 4 }).map((ms) => ({
        text: JSON.stringify(mutate(valid ?? {}, ms)),
        label: ms.length === 0 ? "valid" : `mutated×${ms.length}`,
      })),
    },
    { weight: 3, arbitrary: anyJson.map((v) => ({ text: JSON.stringify(v), label: "random json" })) },
    { weight: 1, arbitrary: fc.constant({ text: undefined, label: "no body" }) },
    {
      weight: 1,
      arbitrary: fc
        .record({ depth: fc.integer({ min: 50, max: 20_000 }), asArray: fc.boolean(), where: fc.nat() })
        .map(({ depth, asArray, where }) => {
          const fields = ["spec", "tags", "bindings", "targetQuery", "description", "$patch/bindings"];
          const field = fields[where % fields.length] as string;
          const text =
            where % 7 === 0 ? deepText(depth, asArray) : `{"name":"deep","${field}":${deepText(depth, asArray)}}`;
          return { text, label: `deep ${depth}` };
        }),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({
          size: fc.oneof(fc.integer({ min: 1_000, max: 1_000_000 }), fc.integer({ min: MiB + 1, max: MiB + 200_000 })),
          where: fc.nat(),
        })
        .map(({ size, where }) => {
          const fields = ["name", "description", "tags", "x"];
          const field = fields[where % fields.length] as string;
          const big = "x".repeat(size);
          const value = field === "tags" ? { [big.slice(0, 64)]: big } : big;
          return {
            text: JSON.stringify({ ...((valid as object) ?? {}), [field]: value }),
            label: size > MiB ? "> 1 MiB" : "≤ 1 MiB",
          };
        }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ cut: fc.nat(), junk: fc.string({ maxLength: 8 }) }).map(({ cut, junk }) => {
        const text = JSON.stringify(valid ?? { a: [1, 2] });
        const at = cut % (text.length + 1);
        return { text: text.slice(0, at) + junk + text.slice(at + (cut % 3)), label: "bad json" };
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          "{",
          "}",
          "[",
          "nul",
          "{'a':1}",
          '{"a":1,}',
          "\u0000",
          "\ufeff{}",
          "1e99999",
          '"\\ud800"',
          "{}{}",
          "  ",
        )
        .map((text) => ({ text, label: "bad json" })),
    },
  );
}

const methodArb = (endpoint: Endpoint): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant(endpoint.method) },
    { weight: 1, arbitrary: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS") },
  );

const extraHeadersArb: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 8, arbitrary: fc.constant<Record<string, string>>({}) },
  {
    weight: 1,
    arbitrary: fc.dictionary(
      fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
      fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, "")),
      { maxKeys: 4 },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Record<string, string>>(
      { accept: "text/html" },
      { "x-request-id": "'; DROP TABLE records; --" },
      { "content-length": "0" },
      { "transfer-encoding": "chunked" },
      { "content-encoding": "gzip" },
      { "x-forwarded-for": "::1, 127.0.0.1" },
      { "x-big": "h".repeat(8_000) },
      { expect: "100-continue" },
    ),
  },
);

const httpRequestArb: fc.Arbitrary<FuzzRequest> = fc
  .constantFrom(...endpoints)
  .chain((endpoint) =>
    fc.record({
      endpoint: fc.constant(endpoint),
      method: methodArb(endpoint),
      name: nameArb,
      body: bodyArb(endpoint),
      contentType: contentTypeArb,
      auth: authArb,
      extra: extraHeadersArb,
      query: fc.oneof(
        { weight: 8, arbitrary: fc.constant("") },
        { weight: 1, arbitrary: fc.constantFrom("?", "?a=1", "?limit=-1", "?gvc=..", "?%zz", "?a[b]=1&a[b]=2") },
      ),
    }),
  )
  .map(({ endpoint, method, name, body, contentType, auth, extra, query }) => {
    const segment = name.segment === "" ? encodeURIComponent(targetName(endpoint.kind)) : name.segment;
    const headers: Record<string, string> = { ...extra };
    if (auth.value !== undefined) headers["authorization"] = auth.value;
    const sendBody = method !== "GET" || body.label !== "valid";
    if (sendBody && body.text !== undefined && contentType !== undefined) headers["content-type"] = contentType;
    if (!sendBody || body.text === undefined) {
      delete headers["content-length"];
      delete headers["transfer-encoding"];
    } else if (headers["content-length"] !== undefined || headers["transfer-encoding"] !== undefined) {
      // Framing headers that contradict the body are raw-socket material; over undici they are left out.
      delete headers["content-length"];
      delete headers["transfer-encoding"];
    }
    if (headers["expect"] !== undefined) delete headers["expect"];
    return {
      method,
      path: endpoint.template.replace("{name}", segment) + query,
      headers,
      body: sendBody ? body.text : undefined,
      label: `${method} ${endpoint.template} [${name.label}, ${body.label}, ${auth.label}, ct=${String(contentType)}]`,
    };
  });

/** Requests undici cannot express: written byte for byte. */
const rawRequestArb: fc.Arbitrary<FuzzRequest> = fc
  .record({
    kind: fc.constantFrom(
      "bad-percent",
      "dot-segments",
      "non-ascii-path",
      "non-ascii-header",
      "huge-header",
      "many-headers",
      "bad-content-length",
      "chunked-json",
      "absolute-uri",
    ),
    n: fc.nat(),
  })
  .map(({ kind, n }) => {
    const auth = `Authorization: Bearer ${ADMIN_KEY}\r\n`;
    const base = `/org/${ORG}/policy`;
    const json = JSON.stringify(validCreateBody("policy", `raw-${n}`));
    const req = (line: string, headers: string, body = ""): FuzzRequest => ({
      method: "RAW",
      path: line,
      headers: {},
      body: `${line}\r\nHost: 127.0.0.1\r\nConnection: close\r\n${headers}\r\n${body}`,
      raw: true,
      label: `raw ${kind}: ${line.slice(0, 80)}`,
    });
    switch (kind) {
      case "bad-percent":
        return req(`GET ${base}/${["%E0%A4%A", "%zz", "%", "%C3%28", "%ED%A0%80"][n % 5]} HTTP/1.1`, auth);
      case "dot-segments":
        return req(
          `GET ${["/org/../org/fuzz/policy", "/org/fuzz/policy/../../fuzz/policy", "/./about", "/org/fuzz/gvc/default/volumeset/.."][n % 4]} HTTP/1.1`,
          auth,
        );
      case "non-ascii-path":
        return req(`GET ${base}/\u00e9\u00ff HTTP/1.1`, auth);
      case "non-ascii-header":
        return req(`GET ${base} HTTP/1.1`, `Authorization: Bearer \u00ff\u00fe${n}\r\n`);
      case "huge-header":
        return req(`GET ${base} HTTP/1.1`, `${auth}X-Huge: ${"h".repeat(20_000 + (n % 50_000))}\r\n`);
      case "many-headers":
        return req(
          `GET ${base} HTTP/1.1`,
          auth + Array.from({ length: 200 + (n % 2_000) }, (_, i) => `X-H${i}: ${i}\r\n`).join(""),
        );
      case "bad-content-length":
        return req(`POST ${base} HTTP/1.1`, `${auth}Content-Type: application/json\r\nContent-Length: abc\r\n`, json);
      case "chunked-json":
        return req(
          `POST ${base} HTTP/1.1`,
          `${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n`,
          `${json.length.toString(16)}\r\n${json}\r\n0\r\n\r\n`,
        );
      default:
        return req(`GET http://127.0.0.1${base} HTTP/1.1`, auth);
    }
  });

const requestArb: fc.Arbitrary<FuzzRequest> = fc.oneof(
  { weight: 19, arbitrary: httpRequestArb },
  { weight: 1, arbitrary: rawRequestArb },
);

// ---- the server -----------------------------------------------------------------------------------------------------

let server: RunningServer;

async function ensureTargets(): Promise<void> {
  for (const kind of kindNames) {
    const current = await http(server.url, {
      method: "GET",
      path:
        endpoints
          .find((e) => e.kind === kind && e.method === "GET" && e.template.endsWith("{name}"))
          ?.template.replace("{name}", encodeURIComponent(targetName(kind))) ?? `/org/${ORG}`,
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    if (current.status === 200) currentRecords.set(kind, current.json);
    const body = validCreateBody(kind, TARGET);
    if (body === undefined) continue;
    const base = kinds[kind].scope === "gvc" ? `/org/${ORG}/gvc/${GVC}/${kind}` : `/org/${ORG}/${kind}`;
    if (kind === "gvc") {
      // The gvc volume sets live in must exist too.
      await http(server.url, {
        method: "POST",
        path: base,
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
        body: { name: GVC },
      });
    }
    const answer = await http(server.url, {
      method: "POST",
      path: base,
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
      body,
    });
    if (answer.status !== 201 && answer.status !== 409)
      throw new Error(`seeding ${kind}: ${answer.status} ${answer.text}`);
  }
}

beforeAll(async () => {
  server = await startServer({ org: ORG, adminKey: ADMIN_KEY });
});

afterAll(async () => {
  await server?.close();
});

describe("fuzzing every endpoint over HTTP", () => {
  it("the valid body of every create endpoint is accepted (so mutations start from valid requests)", async () => {
    await ensureTargets();
    const creatable = endpoints.filter(
      (e) => e.method === "POST" && e.body === "create" && validCreateBody(e.kind, "x") !== undefined,
    );
    // Every kind whose declaration has a create example (read from the registry, not listed here).
    expect(creatable.map((e) => e.kind).sort()).toEqual(
      kindNames.filter((kind) => kinds[kind].examples.create !== undefined).sort(),
    );
    for (const endpoint of creatable) {
      const answer = await http(server.url, {
        method: "POST",
        path: endpoint.template,
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
        body: validBody(endpoint, "check"),
      });
      expect(answer.status, `${endpoint.template}: ${answer.text}`).toBe(201);
    }
  });

  it(`${TOTAL_REQUESTS} generated requests: only 2xx or 4xx with the error shape, never a 5xx; the server keeps serving`, async () => {
    const problems: string[] = [];
    const statusCounts = new Map<number, number>();
    let sent = 0;
    let serverErrors = 0;
    const started = performance.now();
    for (let batch = 0; sent < TOTAL_REQUESTS; batch++) {
      await ensureTargets();
      const count = Math.min(BATCH, TOTAL_REQUESTS - sent);
      const requests = fc.sample(requestArb, { numRuns: count, seed: SEED + batch });
      await runLimited(
        8,
        requests.map((r) => async () => {
          let answer: HttpAnswer;
          try {
            answer = r.raw
              ? await rawHttp(server.url, r.body as string)
              : await http(server.url, { method: r.method, path: r.path, headers: r.headers, body: r.body });
          } catch (error) {
            problems.push(`${r.label}: no answer (${(error as Error).message})`);
            return;
          } finally {
            sent++;
          }
          statusCounts.set(answer.status, (statusCounts.get(answer.status) ?? 0) + 1);
          if (answer.status >= 500) serverErrors++;
          const problem = answerProblem(answer);
          if (problem !== undefined) problems.push(`${r.label}: ${problem}`);
        }),
      );
      const about = await http(server.url, { method: "GET", path: "/about" });
      expect(about.status, `GET /about after batch ${batch}`).toBe(200);
      const list = await http(server.url, {
        method: "GET",
        path: `/org/${ORG}/policy`,
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
      });
      expect(list.status, `GET policies after batch ${batch}: ${list.text.slice(0, 200)}`).toBe(200);
    }
    const ms = performance.now() - started;
    const byStatus = [...statusCounts.entries()]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(" ");
    report(
      `fuzz: ${sent} requests sent, ${serverErrors} 5xx, ${problems.length} rule violations (seed ${SEED}) in ${(ms / 1000).toFixed(1)} s; statuses ${byStatus}`,
    );
    const distinct = [...new Set(problems.map((p) => p.replace(/"id":"[^"]+"/g, "").slice(0, 400)))];
    expect(distinct.slice(0, 25), `seed ${SEED}`).toEqual([]);
    expect(serverErrors).toBe(0);
    expect(sent).toBe(TOTAL_REQUESTS);
  });
});

// ---- provider check -------------------------------------------------------------------------------------------------

/** One invalid value for one property, and the property the failure must name. */
interface Invalid {
  property: string;
  value: unknown;
}

/** Engine-expressible values (JSON; null means "unset" to Pulumi, so it is never the invalid value). */
const jsonObject = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
const notString = fc.oneof(fc.integer(), fc.boolean(), fc.array(fc.string(), { maxLength: 2 }), jsonObject);
const notNumber = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.boolean(),
  fc.array(fc.integer(), { maxLength: 2 }),
  jsonObject,
);
const badName = fc.oneof(
  fc.constantFrom("UPPER", "has space", "-leading", "trailing-", "a".repeat(200), "", "a/b", "ünï", "a_b"),
  notString,
);

const volumeSetInvalid: fc.Arbitrary<Invalid> = fc.oneof(
  fc
    .oneof(
      notNumber,
      fc.integer({ max: 9 }),
      fc.integer({ min: 65_537 }),
      fc.double({ min: 10.01, max: 11, noNaN: true }).filter((x) => !Number.isInteger(x)),
    )
    .map((value) => ({ property: "initialCapacity", value })),
  fc
    .oneof(
      notString,
      fc.string({ maxLength: 12 }).filter((s) => !["general-purpose-ssd", "high-throughput-ssd", "shared"].includes(s)),
    )
    .map((value) => ({ property: "performanceClass", value })),
  fc
    .oneof(
      notString,
      fc.string({ maxLength: 12 }).filter((s) => !["ext4", "xfs", "shared"].includes(s)),
    )
    .map((value) => ({ property: "fileSystemType", value })),
  badName.map((value) => ({ property: "name", value })),
  badName.filter((v) => v !== "").map((value) => ({ property: "gvc", value })),
  fc
    .oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.array(fc.string(), { minLength: 1, maxLength: 2 }))
    .map((value) => ({ property: "tags", value })),
  fc
    .constantFrom("7x", "d7", "-1d", "", "1.d")
    .map((v) => ({ property: "snapshots", value: { retentionDuration: v } })),
  fc
    .constantFrom("* * * * *", "0 * *", "99 * * * *", "0 25 * * *", "x y z w v")
    .map((v) => ({ property: "snapshots", value: { schedule: v } })),
  fc
    .oneof(fc.integer({ min: 0, max: 0 }), fc.integer({ min: 101, max: 1000 }))
    .map((v) => ({ property: "autoscaling", value: { minFreePercentage: v } })),
  fc.constantFrom("0abc", "has space", "-x", "").map((value) => ({ property: "storageClassSuffix", value })),
  fc.oneof(fc.string({ maxLength: 5 }), fc.integer()).map((value) => ({ property: "adopt", value })),
  fc
    .stringMatching(/^[a-z][a-zA-Z]{2,10}$/)
    .filter(
      (k) =>
        ![
          "gvc",
          "initialCapacity",
          "performanceClass",
          "fileSystemType",
          "storageClassSuffix",
          "customEncryption",
          "snapshots",
          "autoscaling",
          "mountOptions",
          "name",
          "description",
          "tags",
          "org",
          "adopt",
        ].includes(k),
    )
    .map((k) => ({ property: k, value: "unexpected" })),
);

const policyInvalid: fc.Arbitrary<Invalid> = fc.oneof(
  fc
    .oneof(
      notString,
      fc.string({ maxLength: 10 }).filter((s) => !(kindNames as readonly string[]).includes(s)),
    )
    .map((value) => ({ property: "targetKind", value })),
  fc
    .oneof(
      fc.string({ maxLength: 5 }),
      fc.integer(),
      fc.constant([{}]),
      fc.constant([{ permissions: [], principalLinks: ["//group/viewers"] }]),
    )
    .map((value) => ({ property: "bindings", value })),
  fc
    .constantFrom("nosuchpermission", "", "MANAGE")
    .map((p) => ({ property: "bindings", value: [{ permissions: [p], principalLinks: ["//group/viewers"] }] })),
  fc
    .constantFrom("not-a-link", "//location/x", "/org", "", "//group/")
    .map((l) => ({ property: "bindings", value: [{ permissions: ["view"], principalLinks: [l] }] })),
  fc
    .oneof(
      notString,
      fc.string({ maxLength: 5 }).filter((s) => s !== "all"),
    )
    .map((value) => ({ property: "target", value })),
  fc
    .oneof(
      fc.string({ maxLength: 5 }),
      fc.integer(),
      fc.constant(Array.from({ length: 201 }, (_, i) => `//group/g${i}`)),
    )
    .map((value) => ({ property: "targetLinks", value })),
  badName.map((value) => ({ property: "name", value })),
  fc.oneof(fc.string({ maxLength: 5 }), fc.integer()).map((value) => ({ property: "tags", value })),
  fc
    .stringMatching(/^[a-z][a-zA-Z]{2,10}$/)
    .filter(
      (k) =>
        ![
          "targetKind",
          "targetLinks",
          "targetQuery",
          "target",
          "bindings",
          "name",
          "description",
          "tags",
          "org",
          "adopt",
        ].includes(k),
    )
    .map((k) => ({ property: k, value: 1 })),
);

describe("provider check with invalid inputs (real dynamic-provider host)", () => {
  let host: ProviderHost | undefined;
  let kit: ProviderKit;

  beforeAll(async () => {
    kit = await loadProviderKit();
    host = await kit.harness.startHost();
    await host.configure({ "cpln:org": ORG, "cpln:endpoint": server.url, "cpln:token": ADMIN_KEY }, ["cpln:token"]);
  });

  afterAll(async () => {
    await host?.stop();
  });

  const cases: { type: "VolumeSet" | "Policy"; valid: Record<string, unknown>; invalid: fc.Arbitrary<Invalid> }[] = [
    {
      type: "VolumeSet",
      valid: { gvc: GVC, initialCapacity: 10, performanceClass: "general-purpose-ssd", name: "fuzzed" },
      invalid: volumeSetInvalid,
    },
    {
      type: "Policy",
      valid: {
        targetKind: "group",
        target: "all",
        bindings: [{ permissions: ["view"], principalLinks: ["//group/viewers"] }],
        name: "fuzzed",
      },
      invalid: policyInvalid,
    },
  ];

  for (const { type, valid, invalid } of cases) {
    it(`${type}: ${CHECKS_PER_TYPE} generated invalid inputs → failures naming the property, no throw, no request`, async () => {
      const urn = kit.urn(type, "fuzzed");
      const before = (
        await http(server.url, {
          method: "GET",
          path: `/org/${ORG}/policy`,
          headers: { authorization: `Bearer ${ADMIN_KEY}` },
        })
      ).status;
      expect(before).toBe(200);
      // The valid input passes: failures below come from the mutation.
      const ok = await host!.check(urn, {}, { ...valid, __provider: kit.providerText[type] });
      expect(ok.failures).toEqual([]);
      const recording = await startRecording();
      const samples = fc.sample(fc.array(invalid, { minLength: 1, maxLength: 3 }), {
        numRuns: CHECKS_PER_TYPE,
        seed: SEED,
      });
      const problems: string[] = [];
      for (const mutations of samples) {
        const news: Record<string, unknown> = { ...valid, __provider: kit.providerText[type] };
        for (const m of mutations) news[m.property] = m.value;
        let failures: CheckFailure[];
        try {
          failures = (await host!.check(urn, {}, news)).failures;
        } catch (error) {
          problems.push(
            `threw for ${JSON.stringify(mutations).slice(0, 200)}: ${(error as Error).message.slice(0, 300)}`,
          );
          continue;
        }
        const named = new Set(failures.map((f) => f.property.split(/[.[]/)[0]));
        if (!mutations.some((m) => named.has(m.property))) {
          problems.push(
            `${JSON.stringify(mutations).slice(0, 200)} → failures ${JSON.stringify(failures).slice(0, 300)}`,
          );
        }
        if (failures.some((f) => f.reason.trim() === ""))
          problems.push(`empty reason for ${JSON.stringify(mutations).slice(0, 200)}`);
      }
      expect(problems.slice(0, 20), `seed ${SEED}`).toEqual([]);
      // The recorder sees requests (so its empty list above means none were sent): one on purpose.
      await http(server.url, { method: "GET", path: "/about" });
      expect(await recording.stop()).toEqual(["GET /about"]);
      report(
        `fuzz: provider check ${type}: ${samples.length} invalid inputs, all refused with the property named, 0 requests`,
      );
    });
  }

  /** Requests the server receives between start and stop (its request log is off; this counts at the socket). */
  async function startRecording(): Promise<{ stop(): Promise<string[]> }> {
    const seen: string[] = [];
    const listener = (request: { method?: string; url?: string }): void => {
      seen.push(`${request.method} ${request.url}`);
    };
    server.app.server.on("request", listener);
    return {
      stop: async () => {
        server.app.server.off("request", listener);
        return seen;
      },
    };
  }
});

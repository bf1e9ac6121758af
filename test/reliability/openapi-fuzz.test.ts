/**
 * An outside, document-driven fuzzer. It knows nothing of the server's code: it reads the OpenAPI document a running
 * cpln-local serves at GET /openapi.json and drives every documented operation over real HTTP with values fast-check
 * derives from the document's JSON Schemas (test/reliability/jsonschema-arbitraries.ts).
 *
 * - Positive cases (admin key, path parameters naming existing objects found through the documented list operations,
 *   bodies valid per the request schema as ajv judges, `readOnly` properties left out as OpenAPI says requests do)
 *   must be accepted: 2xx, or a documented and explained 4xx — 404 when a path parameter names nothing, 409
 *   (duplicate name, version conflict, in use), 403 (a builtin object), 429 (quota), and a 400 whose every issue
 *   message matches a rule the document states in words where JSON Schema cannot (`x-cpln-rules: [{rule, issue}]` on
 *   the operation or on any schema its body reaches; `issue` is the pattern of the refusal's message). Anything else
 *   is a failure: a 400 on a body the document says is valid means the document and the server disagree.
 * - Negative cases must be refused with a 4xx: bodies breaking one rule of the schema (wrong type, missing required,
 *   extra property where additionalProperties is false, out of range, bad pattern, too long, ...), path and query
 *   parameters breaking their schema, malformed JSON, a wrong content type, a missing required body, and no or bad
 *   credentials where the operation requires them.
 * - Query parameters: an optional one is left out half the time and otherwise generated from its schema (a
 *   `content: application/json` one is sent as JSON text: the query continuation `cursor`); a parameter
 *   whose schema says `x-cpln-opaque` (a token the server issues, e.g. the paging `cursor` of a `next` link) is never
 *   generated for a positive case: a generated value is a negative case (a required one makes every case negative).
 * - EVERY answer is validated with ajv (2020-12, ajv-formats) against the response the document gives for its status;
 *   an undocumented status is a failure, and a 5xx always is.
 * - The document must declare each `{param}` of a path as a path parameter, and no parameter other than path and
 *   query ones (this fuzzer drives those two); an operation breaking this fails.
 *
 * Order: list operations first (they find the existing names), then creates, then the other reads and actions,
 * PATCH, PUT, and DELETE (deeper paths first). Deletes prefer objects the fuzzer created. Every other PUT/PATCH
 * positive starts from the object as its GET shows it, with 0-2 generated fields, so edits reach real objects.
 * The emulator's operations (`x-cpln-local-admin`: they act on the whole org) come last: their reads (health, state
 * export, recorded requests) and the clearing of the recorded requests, then the state import, whose positive case is
 * only the state just exported (a generated snapshot would replace the org by junk; generated junk is its negative
 * case), and the org reset last of all. A path parameter whose collection has no list operation (the emulator's
 * `{org}`) takes the names last listed for a parameter of that name.
 * The run prints the operations that never answered 2xx (e.g. `continueQuery*`, whose cursor only a `next` link gives).
 *
 * CI: 10 positive + 8 negative body + 2 negative path + up to 5 protocol/auth cases per operation, plus the list
 * requests that find names and the reads that start edits (about 2,600 requests; 12-45 s measured on a loaded 2-core
 * machine).
 * CPLN_LONG_TESTS=1: 10× as many. CPLN_FUZZ_SEED=<n> changes the seed (default 20261122); every failure names it.
 * CPLN_FUZZ_REPORT=<file> writes the failures there as JSON.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { writeFileSync } from "node:fs";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { kindNames, kinds } from "../../api/kinds/index.js";
import { collectionPath } from "../../api/links.js";
import { ADMIN_KEY, ORG, start } from "../server/helpers.js";
import { invalidValues, validValues, type Schema, type SchemaObject } from "./jsonschema-arbitraries.js";
import { http, sized, type HttpAnswer } from "./support.js";

const SEED = Number(process.env.CPLN_FUZZ_SEED ?? 20261122);
const POSITIVE = sized(10, 100);
const NEGATIVE = sized(8, 80);
const DOC_ID = "https://cpln-local.invalid/openapi.json";
const METHODS = ["get", "post", "put", "patch", "delete"] as const;
type Method = (typeof METHODS)[number];

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
  /** `content: {"application/json": {schema}}`: the value is JSON text (its schema is copied to `schema`). */
  content?: Record<string, { schema?: Schema }>;
  json?: boolean;
}
interface Operation {
  method: Method;
  path: string;
  id: string;
  parameters: Parameter[];
  body?: { schema: Schema; required: boolean; contentType: string };
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
  /** Whether a request without credentials may be accepted (`{}` among the security requirements). */
  anonymous: boolean;
  /** No credentials needed at all (`security: []`). */
  open: boolean;
  /** `x-cpln-local-admin`: an emulator operation that changes or replaces the whole org. */
  admin: boolean;
  /** The documented rules JSON Schema cannot state (`x-cpln-rules`), reachable from the operation. */
  rules: { rule: string; issue: RegExp }[];
}

interface Case {
  op: Operation;
  kind: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Why the case is expected to be accepted or refused. */
  expect: "accept" | "refuse";
  /** A path parameter value not known to exist (a 404 is then explained). */
  unknownTarget: boolean;
  note: string;
}

interface Failure {
  operation: string;
  case: string;
  request: { method: string; url: string; body?: string; headers: Record<string, string> };
  status: number;
  problem: string;
  response: string;
}

type Doc = {
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, Schema> };
  security?: unknown[];
};

let server: RunningServer;
let doc: Doc;
let ajv: Ajv2020;
const failures: Failure[] = [];
let requests = 0;
const statusCounts = new Map<string, number>();
/** Operations that answered at least one 2xx. */
const succeeded = new Set<string>();

function pointer(ref: string): unknown {
  if (!ref.startsWith("#/")) throw new Error(`only local $refs are supported, got ${ref}`);
  let current: unknown = doc;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    current = (current as Record<string, unknown>)[key];
    if (current === undefined) throw new Error(`dangling $ref ${ref}`);
  }
  return current;
}
const resolve = (ref: string) => pointer(ref) as Schema;

/** Compiles a schema of the document (its local $refs resolve against the document). */
const validators = new Map<string, ValidateFunction>();
function validatorFor(where: string): ValidateFunction {
  let v = validators.get(where);
  if (!v) {
    v = ajv.compile({ $ref: `${DOC_ID}${where}` });
    validators.set(where, v);
  }
  return v;
}
/** A validator of a JSON parameter's schema: a `$ref` into the document (compiled once), or the schema itself. */
function schemaValidator(schema: Schema): ValidateFunction {
  if (typeof schema === "object" && typeof schema["$ref"] === "string") return validatorFor(schema["$ref"]);
  return ajv.compile(schema);
}
/** A JSON pointer fragment for a URI: each token escaped (RFC 6901) and percent-encoded. */
const fragment = (...tokens: string[]) =>
  "#/" + tokens.map((t) => encodeURIComponent(t.replace(/~/g, "~0").replace(/\//g, "~1"))).join("/");

function operations(): { ops: Operation[]; problems: string[] } {
  const ops: Operation[] = [];
  const problems: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const shared = (item["parameters"] as Parameter[] | undefined) ?? [];
    for (const method of METHODS) {
      const raw = item[method] as Record<string, unknown> | undefined;
      if (!raw) continue;
      const id = (raw["operationId"] as string | undefined) ?? `${method.toUpperCase()} ${path}`;
      const parameters = [...shared, ...((raw["parameters"] as Parameter[] | undefined) ?? [])]
        .map((p) => ("$ref" in p ? (pointer((p as { $ref: string }).$ref) as Parameter) : p))
        .map((p) => {
          const json = p.content?.["application/json"]?.schema;
          return json === undefined ? p : { ...p, schema: json, json: true };
        });
      // Path and query parameters are driven; a header or cookie parameter must extend this fuzzer first.
      for (const p of parameters.filter((p) => p.in !== "path" && p.in !== "query"))
        problems.push(
          `${id} (${method.toUpperCase()} ${path}) declares a ${p.in} parameter "${p.name}" this fuzzer does not drive yet`,
        );
      for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
        if (!parameters.some((p) => p.in === "path" && p.name === name))
          problems.push(`${id} (${method.toUpperCase()} ${path}) does not declare its path parameter "${name}"`);
      }
      const requestBody = raw["requestBody"] as
        { required?: boolean; content?: Record<string, { schema?: Schema }>; $ref?: string } | undefined;
      let body: Operation["body"];
      if (requestBody) {
        const rb = requestBody.$ref ? (pointer(requestBody.$ref) as typeof requestBody) : requestBody;
        const [contentType, media] = Object.entries(rb.content ?? {})[0] ?? [];
        if (contentType && media?.schema !== undefined)
          body = { schema: media.schema, required: rb.required === true, contentType };
      }
      const security = (raw["security"] as unknown[] | undefined) ?? doc.security ?? [];
      ops.push({
        method,
        path,
        id,
        parameters,
        body,
        responses: raw["responses"] as Operation["responses"],
        open: security.length === 0,
        anonymous: security.some((s) => typeof s === "object" && s !== null && Object.keys(s).length === 0),
        admin: raw["x-cpln-local-admin"] === true,
        rules: documentedRules(raw, body?.schema),
      });
    }
  }
  return { ops, problems };
}

/**
 * Phase of an operation: lists, creates, other reads/actions, PATCH, PUT, DELETE (deeper first), then the emulator's
 * `x-cpln-local-admin` operations (they act on the whole org): reads first, the state import, the reset last of all.
 */
function phase(op: Operation): number {
  const last = op.path.split("/").pop() ?? "";
  const isItem = last.startsWith("{");
  if (op.admin) return op.method === "get" ? 20 : op.method === "post" && !op.body ? 22 : 21;
  if (op.method === "get" && !isItem && !last.startsWith("-")) return 0;
  if (op.method === "post" && !isItem && !last.startsWith("-") && "201" in op.responses) return 1;
  if (op.method === "get" || op.method === "post") return 2;
  if (op.method === "patch") return 3;
  if (op.method === "put") return 4;
  return 10 - op.path.split("/").length / 100;
}

/** A small seeded generator (mulberry32) for choices between cases; fast-check generates the values. */
class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  nextDouble(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [min, max]; with no arguments, any 31-bit integer. */
  nextInt(min = 0, max = 0x7fffffff): number {
    return min + Math.floor(this.nextDouble() * (max - min + 1));
  }
}

// ---- HTTP -----------------------------------------------------------------------------------------------------------

const ADMIN = { authorization: `Bearer ${ADMIN_KEY}` };

async function send(c: Pick<Case, "op" | "url" | "headers" | "body">): Promise<HttpAnswer> {
  requests += 1;
  const answer = await http(server.url, {
    method: c.op.method.toUpperCase(),
    path: c.url,
    headers: c.headers,
    body: c.body,
  });
  if (answer.status >= 200 && answer.status < 300) succeeded.add(c.op.id);
  const key = `${c.op.method.toUpperCase()} ${answer.status}`;
  statusCounts.set(key, (statusCounts.get(key) ?? 0) + 1);
  return answer;
}

/** Why an answer contradicts the document (undocumented status, body not matching the schema), or undefined. */
function documentProblem(op: Operation, answer: HttpAnswer): string | undefined {
  if (answer.status >= 500) return `server error ${answer.status}`;
  const status = String(answer.status);
  const declared = op.responses[status] ?? op.responses[`${status[0]}XX`] ?? op.responses["default"];
  if (!declared)
    return `status ${status} is not documented for ${op.id} (documented: ${Object.keys(op.responses).join(", ")})`;
  const key = op.responses[status] ? status : op.responses[`${status[0]}XX`] ? `${status[0]}XX` : "default";
  const media = declared.content?.["application/json"];
  if (!media?.schema) return undefined;
  const contentType = String(answer.headers["content-type"] ?? "");
  if (!contentType.startsWith("application/json"))
    return `status ${status} answered ${contentType || "no content type"}, documented application/json`;
  if (answer.json === undefined) return `status ${status} body is not JSON`;
  const where = fragment("paths", op.path, op.method, "responses", key, "content", "application/json", "schema");
  const validate = validatorFor(where);
  if (!validate(answer.json))
    return `body does not match the documented ${status} schema: ${ajv.errorsText(validate.errors)}`;
  return undefined;
}

function record(c: Case, answer: HttpAnswer, problem: string): void {
  const failure: Failure = {
    operation: c.op.id,
    case: `${c.kind}: ${c.note}`,
    request: {
      method: c.op.method.toUpperCase(),
      url: c.url,
      body: c.body?.slice(0, 4000),
      headers: redact(c.headers),
    },
    status: answer.status,
    problem,
    response: answer.text.slice(0, 4000),
  };
  failures.push(failure);
}

function redact(headers: Record<string, string>): Record<string, string> {
  const out = { ...headers };
  if (out["authorization"] === ADMIN.authorization) out["authorization"] = "Bearer <admin key>";
  return out;
}

/** Codes a positive case may be refused with, each explained by the document's response descriptions. */
function explainedRefusal(c: Case, answer: HttpAnswer): boolean {
  if (answer.status === 404) return c.unknownTarget;
  if (answer.status === 409) return true; // duplicate name, version conflict, object in use
  if (answer.status === 403) return c.op.method !== "get"; // a builtin object cannot be edited or deleted
  if (answer.status === 429) return true; // quota reached
  if (answer.status === 400) return documentedRefusal(c.op, answer.json); // a rule the document states in words
  return false;
}

async function run(c: Case): Promise<HttpAnswer> {
  const answer = await send(c);
  const docProblem = documentProblem(c.op, answer);
  if (docProblem) record(c, answer, docProblem);
  else if (c.expect === "accept" && answer.status >= 400 && !explainedRefusal(c, answer))
    record(c, answer, `a valid request was refused with ${answer.status}`);
  else if (c.expect === "refuse" && (answer.status < 400 || answer.status >= 500))
    record(c, answer, `an invalid request was accepted with ${answer.status}`);
  return answer;
}

// ---- existing objects -----------------------------------------------------------------------------------------------

/** Names found through the documented list operations, by concrete collection path; cleared after every change. */
const listed = new Map<string, string[]>();
/** Objects this fuzzer created (concrete item paths). */
const created = new Set<string>();

function listOperation(collection: string): Operation | undefined {
  return allOps.find((o) => o.method === "get" && o.path === collection);
}

/** The identifier of list items a path parameter holds: the property named like it, else `name`. */
function itemKey(list: Operation, param: string): string {
  const media = list.responses["200"]?.content?.["application/json"]?.schema;
  let schema = media as SchemaObject | undefined;
  while (schema && typeof schema["$ref"] === "string") schema = resolve(schema["$ref"]) as SchemaObject;
  const items = (schema?.["properties"] as Record<string, SchemaObject> | undefined)?.["items"];
  let item = items?.["items"] as SchemaObject | undefined;
  while (item && typeof item["$ref"] === "string") item = resolve(item["$ref"]) as SchemaObject;
  const props = (item?.["properties"] as Record<string, unknown> | undefined) ?? {};
  return param in props ? param : "name";
}

/** Names last found for a path parameter (by its name), for paths whose collection has no list operation. */
const namesByParam = new Map<string, string[]>();

async function existing(collectionTemplate: string, concrete: string, param: string): Promise<string[]> {
  const cached = listed.get(concrete);
  if (cached) return cached;
  const list = listOperation(collectionTemplate);
  if (!list) return namesByParam.get(param) ?? [];
  const c: Case = {
    op: list,
    kind: "list",
    url: concrete,
    headers: { ...ADMIN },
    expect: "accept",
    unknownTarget: true,
    note: "listing names for path parameters",
  };
  const answer = await run(c);
  const items = (answer.json as { items?: Record<string, unknown>[] } | undefined)?.items ?? [];
  const key = itemKey(list, param);
  const names = items.map((i) => i[key]).filter((n): n is string => typeof n === "string");
  listed.set(concrete, names);
  namesByParam.set(param, names);
  return names;
}

const segmentValue = (v: string) => encodeURIComponent(v);

/**
 * Fills the path parameters left to right: each from the names the list operation of its collection returns (or,
 * with probability `fresh` or when none exist, a value generated from the parameter's schema).
 */
async function fillPath(
  op: Operation,
  rng: Rng,
  fresh: number,
  prefer?: string[],
): Promise<{ url: string; unknownTarget: boolean } | undefined> {
  const segments = op.path.split("/");
  const out: string[] = [];
  let unknownTarget = false;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] ?? "";
    const match = /^\{(.+)\}$/.exec(segment);
    if (!match) {
      out.push(segment);
      continue;
    }
    const name = match[1] ?? "";
    const param = op.parameters.find((p) => p.in === "path" && p.name === name);
    if (!param) return undefined;
    const collection = segments.slice(0, i).join("/");
    const names = await existing(collection, out.join("/"), name);
    const last = i === segments.length - 1;
    const preferred = last && prefer ? prefer.filter((p) => p.startsWith(`${out.join("/")}/`)) : [];
    let value: string;
    if (preferred.length > 0 && rng.nextInt(0, 3) > 0) {
      value = decodeURIComponent(preferred[rng.nextInt(0, preferred.length - 1)]!.split("/").pop()!);
      unknownTarget = unknownTarget || !names.includes(value);
    } else if (names.length > 0 && rng.nextDouble() >= fresh) {
      value = names[rng.nextInt(0, names.length - 1)]!;
    } else {
      value = String(
        fc.sample(validValues(param.schema ?? { type: "string", minLength: 1 }, { resolve }), {
          seed: rng.nextInt(),
          numRuns: 1,
        })[0],
      );
      unknownTarget = unknownTarget || !names.includes(value);
    }
    out.push(segmentValue(value));
  }
  return { url: out.join("/"), unknownTarget };
}

/**
 * A body built from the object's current representation (the documented GET of the same path), restricted to the
 * properties the request schema declares, with up to two top-level fields taken from a generated valid body. Undefined
 * when the path has no GET or the result is not valid per the request schema.
 */
async function echoBody(
  op: Operation,
  url: string,
  generated: unknown,
  rng: Rng,
  check: ValidateFunction,
): Promise<{ body: Record<string, unknown>; note: string } | undefined> {
  const read = allOps.find((o) => o.method === "get" && o.path === op.path);
  if (!read) return undefined;
  const answer = await run({
    op: read,
    kind: "read",
    url,
    headers: { ...ADMIN },
    expect: "accept",
    unknownTarget: true,
    note: "current object, to edit",
  });
  if (answer.status !== 200 || typeof answer.json !== "object" || answer.json === null) return undefined;
  let schema = op.body!.schema as SchemaObject;
  while (typeof schema["$ref"] === "string") schema = resolve(schema["$ref"]) as SchemaObject;
  const declared = (schema["properties"] as Record<string, unknown> | undefined) ?? {};
  const body = Object.fromEntries(
    Object.entries(answer.json as Record<string, unknown>).filter(([k]) => Object.hasOwn(declared, k)),
  );
  const changes = Object.entries((generated as Record<string, unknown> | undefined) ?? {});
  const changed: string[] = [];
  for (let n = rng.nextInt(0, 2); n > 0 && changes.length > 0; n--) {
    const [key, value] = changes.splice(rng.nextInt(0, changes.length - 1), 1)[0]!;
    Object.defineProperty(body, key, { value, enumerable: true, writable: true, configurable: true });
    changed.push(key);
  }
  if (!check(body)) return undefined;
  return {
    body,
    note: `the object as read${changed.length > 0 ? `, with ${changed.join(", ")} changed` : ", unchanged"}`,
  };
}

// ---- query parameters -----------------------------------------------------------------------------------------------

/**
 * Whether a parameter's values are tokens the server issues (`x-cpln-opaque`, e.g. a paging cursor taken from a
 * `next` link): a value this fuzzer generates is not one, so sending it is a negative case (a 4xx is expected).
 */
const opaque = (p: Parameter) => typeof p.schema === "object" && p.schema["x-cpln-opaque"] === true;

/**
 * Whether the operation's body names the object it acts on (a property marked `x-cpln-names-object`, e.g. the `id` of
 * a quota or the `name` of the org in a `cpln apply` of a kind the API does not create): a 404 then answers a body
 * that names nothing, as for a path parameter.
 */
function bodyNamesObject(op: Operation): boolean {
  let schema = op.body?.schema as SchemaObject | undefined;
  while (schema && typeof schema["$ref"] === "string") schema = resolve(schema["$ref"]) as SchemaObject;
  const properties = (schema?.["properties"] ?? {}) as Record<string, SchemaObject>;
  return Object.values(properties).some((p) => typeof p === "object" && p["x-cpln-names-object"] === true);
}

const sample = <T>(arb: fc.Arbitrary<T>, rng: Rng): T | undefined =>
  fc.sample(arb, { seed: rng.nextInt(), numRuns: 1 })[0];

function queryOf(entries: [string, unknown][]): string {
  if (entries.length === 0) return "";
  return "?" + entries.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join("&");
}

/**
 * The query string of a positive case: a required parameter gets a value valid per its schema, an optional one is
 * left out half the time. `valid` is false when a required parameter is opaque (no generated value can be right).
 */
function positiveQuery(op: Operation, rng: Rng): { query: string; valid: boolean; note: string } {
  const entries: [string, unknown][] = [];
  let valid = true;
  const notes: string[] = [];
  for (const p of op.parameters.filter((p) => p.in === "query")) {
    if (opaque(p)) {
      if (!p.required) continue;
      valid = false;
      notes.push(`generated value for the server-issued ${p.name}`);
    } else if (!p.required && rng.nextInt(0, 1) === 0) continue;
    const check = p.json === true ? schemaValidator(p.schema ?? true) : undefined;
    // A JSON parameter's schema may hold conditionals the generator meets only best-effort: ajv judges, as for bodies.
    const values = validValues(p.schema ?? { type: "string" }, { resolve });
    const value = sample(check ? values.filter((v) => check(v)) : values, rng);
    if (p.json === true) entries.push([p.name, JSON.stringify(value ?? null)]);
    else if (value !== undefined && typeof value !== "object") entries.push([p.name, value]);
  }
  return { query: queryOf(entries), valid, note: notes.join(", ") };
}

/** Query strings that break one query parameter: its schema, or a generated value of an opaque parameter. */
function negativeQueries(op: Operation, rng: Rng, count: number): { query: string; note: string }[] {
  const params = op.parameters.filter((p) => p.in === "query");
  const out: { query: string; note: string }[] = [];
  for (let i = 0; i < count && params.length > 0; i++) {
    const p = params[rng.nextInt(0, params.length - 1)]!;
    const others = params
      .filter((o) => o !== p && o.required && !opaque(o))
      .map((o): [string, unknown] => {
        const value = sample(validValues(o.schema ?? { type: "string" }, { resolve }), rng);
        return [o.name, o.json === true ? JSON.stringify(value ?? null) : value];
      });
    if (opaque(p)) {
      const value = sample(validValues(p.schema ?? { type: "string" }, { resolve }), rng);
      out.push({
        query: queryOf([...others, [p.name, value]]),
        note: `generated value for the server-issued ${p.name}`,
      });
      continue;
    }
    if (p.json === true) {
      // A JSON parameter: text that is not JSON, or JSON breaking one rule of its schema.
      const broken = invalidValues(p.schema ?? true, { resolve });
      const check = schemaValidator(p.schema ?? true);
      const v = broken
        ? sample(
            broken.filter((b) => !check(b.value)),
            rng,
          )
        : undefined;
      out.push(
        v && rng.nextInt(0, 1) === 0
          ? { query: queryOf([...others, [p.name, JSON.stringify(v.value)]]), note: `${p.name} breaks ${v.rule}` }
          : { query: queryOf([...others, [p.name, "{not json"]]), note: `${p.name} is not JSON` },
      );
      continue;
    }
    const broken = invalidValues(p.schema ?? true, { resolve });
    const v = broken
      ? sample(
          // On the wire every query value is text: a number "breaking type string" is a string like any other (the
          // schema's pattern, if any, is broken by the string cases).
          broken.filter(
            (b) => typeof b.value === "string" || (typeof b.value === "number" && !b.rule.startsWith("type")),
          ),
          rng,
        )
      : undefined;
    if (v)
      out.push({ query: queryOf([...others, [p.name, v.value]]), note: `query parameter ${p.name} breaks ${v.rule}` });
  }
  return out;
}

// ---- the cases of one operation -------------------------------------------------------------------------------------

function bodyValidator(op: Operation): ValidateFunction | undefined {
  if (!op.body) return undefined;
  return validatorFor(fragment("paths", op.path, op.method, "requestBody", "content", op.body.contentType, "schema"));
}

async function fuzzOperation(op: Operation, seed: number): Promise<void> {
  const rng = new Rng(seed);
  const check = bodyValidator(op);
  const bodies = op.body
    ? fc.sample(
        validValues(op.body.schema, { resolve, omit: "readOnly" }).filter((v) => check!(v)),
        {
          seed,
          numRuns: POSITIVE,
        },
      )
    : [];
  const contentType = op.body?.contentType ?? "application/json";
  const preferCreated = () => (op.method === "delete" ? [...created] : undefined);

  // Positive cases. An emulator operation that replaces the org by a body (the state import) gets, as its positive
  // case, only what its GET exports: a generated snapshot would replace the org by junk (or be refused by the rules a
  // snapshot must follow beyond its schema). Its negative cases are generated as for any operation.
  const exported = op.admin && op.body !== undefined;
  for (let i = 0; i < (exported ? 2 : POSITIVE); i++) {
    const filled = await fillPath(op, rng, op.method === "delete" ? 0.3 : 0.1, preferCreated());
    if (!filled) return;
    let body = op.body ? JSON.stringify(bodies[i % bodies.length]) : undefined;
    let note = "valid body and path";
    if (exported) {
      const read = allOps.find((o) => o.method === "get" && o.path === op.path);
      const state = read
        ? await run({
            op: read,
            kind: "read",
            url: filled.url,
            headers: { ...ADMIN },
            expect: "accept",
            unknownTarget: filled.unknownTarget,
            note: "the state to import back",
          })
        : undefined;
      if (state?.status !== 200) continue;
      [body, note] = [state.text, "the exported state, imported back"];
    }
    const query = positiveQuery(op, rng);
    if (!query.valid) note = `${note}; ${query.note}`;
    // Every other PUT/PATCH case starts from the object as GET shows it (what a client does), changing 0-2 fields.
    if (
      !exported &&
      op.body &&
      (op.method === "put" || op.method === "patch") &&
      i % 2 === 1 &&
      !filled.unknownTarget
    ) {
      const echoed = await echoBody(op, filled.url, bodies[i % bodies.length], rng, check!);
      if (echoed) [body, note] = [JSON.stringify(echoed.body), echoed.note];
    }
    const c: Case = {
      op,
      kind: query.valid ? "positive" : "negative query",
      url: filled.url + query.query,
      headers: body !== undefined ? { ...ADMIN, "content-type": contentType } : { ...ADMIN },
      body,
      expect: query.valid ? "accept" : "refuse",
      unknownTarget: filled.unknownTarget || bodyNamesObject(op),
      note,
    };
    const answer = await run(c);
    if (answer.status >= 200 && answer.status < 300 && op.method !== "get") {
      listed.clear();
      if (answer.status === 201) {
        const location = answer.headers["location"];
        if (typeof location === "string") created.add(location);
      }
      if (op.method === "delete") created.delete(filled.url);
    }
  }

  // Negative query parameters.
  for (const q of negativeQueries(op, rng, Math.max(2, Math.floor(NEGATIVE / 3)))) {
    const filled = await fillPath(op, rng, 0, preferCreated());
    if (!filled) return;
    const body = op.body && bodies.length > 0 ? JSON.stringify(bodies[0]) : undefined;
    await run({
      op,
      kind: "negative query",
      url: filled.url + q.query,
      headers: body !== undefined ? { ...ADMIN, "content-type": contentType } : { ...ADMIN },
      body,
      expect: "refuse",
      unknownTarget: filled.unknownTarget,
      note: q.note,
    });
  }

  // Negative bodies: one schema rule broken, as ajv confirms.
  if (op.body) {
    const broken = invalidValues(op.body.schema, { resolve, omit: "readOnly" });
    const violations = broken
      ? fc.sample(
          broken.filter((v) => !check!(v.value)),
          { seed, numRuns: NEGATIVE },
        )
      : [];
    for (const v of violations) {
      const filled = await fillPath(op, rng, 0, preferCreated());
      if (!filled) return;
      await run({
        op,
        kind: "negative body",
        url: filled.url,
        headers: { ...ADMIN, "content-type": contentType },
        body: JSON.stringify(v.value),
        expect: "refuse",
        unknownTarget: filled.unknownTarget,
        note: `breaks ${v.rule} at ${v.path || "(root)"}`,
      });
    }
  }

  // Negative path parameters: a value breaking the parameter's schema.
  const pathParams = op.parameters.filter((p) => p.in === "path" && p.schema !== undefined);
  if (pathParams.length > 0) {
    for (let i = 0; i < Math.max(2, Math.floor(NEGATIVE / 3)); i++) {
      const param = pathParams[rng.nextInt(0, pathParams.length - 1)]!;
      const broken = invalidValues(param.schema!, { resolve });
      if (!broken) continue;
      const [violation] = fc.sample(
        broken.filter((v) => typeof v.value === "string" || typeof v.value === "number"),
        { seed: rng.nextInt(), numRuns: 1 },
      );
      if (!violation) continue;
      const filled = await fillPath(op, rng, 0);
      if (!filled) return;
      const segments = op.path.split("/");
      const index = segments.indexOf(`{${param.name}}`);
      const url = filled.url.split("/");
      url[index] = encodeURIComponent(String(violation.value));
      const body = op.body ? JSON.stringify(bodies[i % Math.max(1, bodies.length)]) : undefined;
      await run({
        op,
        kind: "negative path",
        url: url.join("/"),
        headers: body !== undefined ? { ...ADMIN, "content-type": contentType } : { ...ADMIN },
        body,
        expect: "refuse",
        unknownTarget: true,
        note: `path parameter ${param.name} breaks ${violation.rule}`,
      });
    }
  }

  // Protocol: malformed JSON, wrong content type, missing required body; no and bad credentials.
  const filled = await fillPath(op, rng, 0, preferCreated());
  if (!filled) return;
  const base = { op, url: filled.url, unknownTarget: filled.unknownTarget, expect: "refuse" as const };
  if (op.body) {
    const good = bodies.length > 0 ? JSON.stringify(bodies[0]) : "{}";
    await run({
      ...base,
      kind: "protocol",
      headers: { ...ADMIN, "content-type": contentType },
      body: `${good.slice(0, -1)}`,
      note: "malformed JSON",
    });
    await run({
      ...base,
      kind: "protocol",
      headers: { ...ADMIN, "content-type": "text/plain" },
      body: good,
      note: "wrong content type text/plain",
    });
    if (op.body.required)
      await run({ ...base, kind: "protocol", headers: { ...ADMIN }, note: "required body missing" });
  }
  if (!op.open) {
    const body = op.body && bodies.length > 0 ? JSON.stringify(bodies[0]) : undefined;
    const headers = (auth?: string): Record<string, string> => ({
      ...(auth ? { authorization: auth } : {}),
      ...(body !== undefined ? { "content-type": contentType } : {}),
    });
    await run({
      ...base,
      kind: "auth",
      headers: headers("Bearer not-a-key.0123456789abcdef"),
      body,
      note: "bad credentials",
    });
    if (!op.anonymous) await run({ ...base, kind: "auth", headers: headers(), body, note: "no credentials" });
  }
}

// ---- documented rules ---------------------------------------------------------------------------------------------

/**
 * The rules an operation documents beyond JSON Schema (`x-cpln-rules: [{rule, issue}]`): its own and those of every
 * schema its request body reaches. `issue` is the pattern of the message a request breaking the rule is refused with.
 */
function documentedRules(raw: Record<string, unknown>, body: Schema | undefined): { rule: string; issue: RegExp }[] {
  const out: { rule: string; issue: RegExp }[] = [];
  const add = (value: unknown) => {
    if (!Array.isArray(value)) return;
    for (const r of value as { rule?: unknown; issue?: unknown }[])
      if (typeof r.rule === "string" && typeof r.issue === "string")
        out.push({ rule: r.rule, issue: new RegExp(r.issue) });
  };
  add(raw["x-cpln-rules"]);
  const seen = new Set<unknown>();
  const walk = (node: unknown) => {
    if (typeof node !== "object" || node === null || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    const object = node as Record<string, unknown>;
    add(object["x-cpln-rules"]);
    if (typeof object["$ref"] === "string") walk(pointer(object["$ref"]));
    for (const [key, value] of Object.entries(object)) if (key !== "x-cpln-rules") walk(value);
  };
  walk(body);
  return out;
}

/**
 * Whether a 400 is a documented refusal: every issue it lists (or, listing none, its message) breaks a rule the
 * operation documents. A 400 without any message is never explained.
 */
function documentedRefusal(op: Operation, body: unknown): boolean {
  const error = body as { message?: unknown; details?: { issues?: { message?: unknown }[] } } | undefined;
  const issues = (error?.details?.issues ?? []).map((i) => String(i.message));
  const messages = issues.length > 0 ? issues : typeof error?.message === "string" ? [error.message] : [];
  return messages.length > 0 && messages.every((m) => op.rules.some((r) => r.issue.test(m)));
}

// ---- the test -------------------------------------------------------------------------------------------------------

let allOps: Operation[] = [];
let declarationProblems: string[] = [];

beforeAll(async () => {
  server = await start();
  // One object of each gvc-scoped kind (its declaration's example) in a gvc placed in one location: generated create
  // bodies rarely pass a kind's cross-field rules (a serverless workload exposes exactly one port), and the reads and
  // edits of an object, and its sub-collections per location, need one to exist.
  const adminHeaders = { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" };
  const placed = { spec: { staticPlacement: { locationLinks: ["//location/aws-us-west-2"] } } };
  const gvcPatch = await http(server.url, {
    method: "PATCH",
    path: `/org/${ORG}/gvc/default`,
    headers: adminHeaders,
    body: JSON.stringify(placed),
  });
  expect(gvcPatch.status).toBe(200);
  for (const kind of kindNames) {
    const create = kinds[kind].examples.create;
    if (kinds[kind].scope !== "gvc" || create === undefined) continue;
    const path = collectionPath(ORG, kind, "default");
    const made = await http(server.url, {
      method: "POST",
      path,
      headers: adminHeaders,
      body: JSON.stringify(create(`seeded-${kind}`)),
    });
    expect([kind, made.status]).toEqual([kind, 201]);
  }
  const answer = await http(server.url, { method: "GET", path: "/openapi.json" });
  expect(answer.status).toBe(200);
  doc = answer.json as Doc;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...(doc as object), $id: DOC_ID });
  ({ ops: allOps, problems: declarationProblems } = operations());
});

afterAll(async () => {
  await server?.close();
});

describe("OpenAPI-driven fuzzer (outside view: only GET /openapi.json)", () => {
  it("the answer check refuses what the document does not allow, and documented rules explain only exact matches", async () => {
    const list = allOps.find((o) => o.method === "get" && o.path === "/org")!;
    const json = (status: number, body: unknown): HttpAnswer => ({
      status,
      headers: { "content-type": "application/json; charset=utf-8" },
      text: JSON.stringify(body),
      json: body,
    });
    const real = await http(server.url, { method: "GET", path: "/org", headers: ADMIN });
    expect(real.status).toBe(200);
    expect(documentProblem(list, real)).toBeUndefined();
    expect(documentProblem(list, json(418, {}))).toMatch(/^status 418 is not documented for listOrgs/);
    expect(documentProblem(list, json(500, {}))).toBe("server error 500");
    expect(documentProblem(list, json(200, { items: "none" }))).toMatch(
      /^body does not match the documented 200 schema/,
    );
    expect(documentProblem(list, { ...real, headers: { "content-type": "text/plain" } })).toMatch(
      /^status 200 answered text\/plain/,
    );
    // A 400 is a documented refusal only when every issue matches a rule the operation documents.
    const join = allOps.find((o) => o.rules.some((r) => r.issue.test("cluster c has no node pool 'p' (pools: a)")))!;
    expect(join).toBeDefined();
    const issues = (...messages: string[]) => ({ details: { issues: messages.map((message) => ({ message })) } });
    expect(documentedRefusal(join, issues("cluster c has no node pool 'p' (pools: a)"))).toBe(true);
    expect(documentedRefusal(join, issues("cluster c has no node pool 'p' (pools: a)", "must be a string"))).toBe(
      false,
    );
    expect(documentedRefusal(join, issues())).toBe(false);
    expect(documentedRefusal(list, issues("cluster c has no node pool 'p' (pools: a)"))).toBe(false);
  });

  it("every operation declares each of its path parameters (and no parameter this fuzzer cannot drive)", () => {
    expect(allOps.length).toBeGreaterThan(0);
    expect(declarationProblems).toEqual([]);
  });

  it(
    `drives every documented operation: positive cases accepted, negative ones refused, every answer as documented (seed ${SEED})`,
    // A limit that catches a hang, not a slow machine: the run is bounded by its case count (it took 121 s at load 4
    // and 132–182 s at load 10–18 with the round-4 checks), so its time follows the machine's load.
    { timeout: sized(900_000, 1_800_000) },
    async () => {
      const started = Date.now();
      const ordered = allOps
        .map((op, index) => ({ op, index }))
        .sort((a, b) => phase(a.op) - phase(b.op) || a.index - b.index);
      for (const { op, index } of ordered) {
        if (declarationProblems.some((p) => p.startsWith(`${op.id} `))) continue;
        const t0 = Date.now();
        await fuzzOperation(op, SEED + index);
        if (process.env.CPLN_FUZZ_TIMING) console.log(`${op.id}: ${Date.now() - t0} ms`);
      }
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(
        `openapi-fuzz: seed ${SEED}, ${allOps.length} operations, ${requests} requests, ${failures.length} failures, ${seconds} s\n` +
          `  operations without a 2xx: ${
            allOps
              .filter((o) => !succeeded.has(o.id))
              .map((o) => o.id)
              .join(", ") || "none"
          }\n` +
          [...statusCounts]
            .sort()
            .map(([k, n]) => `  ${k}: ${n}`)
            .join("\n"),
      );
      if (process.env.CPLN_FUZZ_REPORT) writeFileSync(process.env.CPLN_FUZZ_REPORT, JSON.stringify(failures, null, 2));
      expect(failures, `seed ${SEED}: replay with CPLN_FUZZ_SEED=${SEED}`).toEqual([]);
    },
  );
});

/**
 * The route table and the OpenAPI document it generates: Redocly lints the document clean, every documented
 * operation is served and every served route is documented, unsupported methods on known paths are 405 with `Allow`,
 * and the document's schemas say what the server accepts (path parameters, PUT bodies, cross-field rules).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import Ajv2020 from "ajv/dist/2020.js";
import type { RouteOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kindNames, kinds } from "../../api/kinds/index.js";
import { collectionPath } from "../../api/links.js";
import { kindRules, rulesOf } from "../../server/domain/index.js";
import { mk8sRules } from "../../server/domain/mk8s.js";
import type { RunningServer } from "../../server/index.js";
import { fastifyPath } from "../../server/routes/register.js";
import { ORG, admin, apiError, call, field, start } from "./helpers.js";

const run = promisify(execFile);

type Operation = {
  operationId: string;
  parameters?: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[];
  requestBody?: { content: Record<string, { schema: { $ref: string } }> };
  responses: Record<string, unknown>;
  security?: unknown[];
};
type Document = {
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>> };
};

let server: RunningServer;
let doc: Document;
const registered: RouteOptions[] = [];

beforeAll(async () => {
  server = await start({ onRoute: (route) => registered.push(route) });
  const answer = await fetch(`${server.url}/openapi.json`);
  expect(answer.status).toBe(200);
  doc = (await answer.json()) as Document;
});

afterAll(async () => {
  await server.close();
});

const methodsOf = (route: RouteOptions) => (Array.isArray(route.method) ? route.method : [route.method]);

/** Every documented operation as `METHOD /fastify/:path`. */
function documented(): Set<string> {
  const out = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of Object.keys(item)) out.add(`${method.toUpperCase()} ${fastifyPath(path)}`);
  }
  return out;
}

describe("the OpenAPI document", () => {
  it("lints with Redocly's recommended rules: 0 errors; the only warnings are the four meta operations without 4xx, the auditctx DELETE without 2xx and image -latest/{repository} beside {image}/-<endpoint>", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cpln-openapi-"));
    try {
      const file = join(dir, "openapi.json");
      writeFileSync(file, JSON.stringify(doc));
      const redocly = join(process.cwd(), "node_modules", ".bin", "redocly");
      const result = await run(
        redocly,
        ["lint", file, "--config", join(process.cwd(), "redocly.yaml"), "--format=json"],
        {
          maxBuffer: 64 * 1024 * 1024,
          env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
        },
      ).catch((error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? "", stderr: error.stderr }));
      const report = JSON.parse(result.stdout) as {
        totals: { errors: number; warnings: number };
        problems: { ruleId: string; severity: string; location: { pointer: string }[] }[];
      };
      expect(report.problems.filter((p) => p.severity === "error")).toEqual([]);
      expect(report.totals.errors).toBe(0);
      // GET /, GET /about, GET /discovery and GET /openapi.json cannot fail (no parameters, no body, no credentials): no 4xx to document.
      const warnings = report.problems
        .filter((p) => p.severity === "warn")
        .map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ""}`)
        .sort();
      // DELETE of an audit context has no success answer (they cannot be deleted): no 2xx to document. The real API's
      // `/org/{org}/image/-latest/{repository}` has the shape of `/org/{org}/image/{image}/-accessreport`; no image is
      // named `-latest` (a name has a ':' and starts with a letter or digit), so a request matches one of them only.
      expect(warnings).toEqual([
        "no-ambiguous-paths #/paths/~1org~1{org}~1image~1-latest~1{repository}",
        "operation-2xx-response #/paths/~1org~1{org}~1auditctx~1{name}/delete/responses",
        "operation-4xx-response #/paths/~1/get/responses",
        "operation-4xx-response #/paths/~1about/get/responses",
        "operation-4xx-response #/paths/~1discovery/get/responses",
        "operation-4xx-response #/paths/~1openapi.json/get/responses",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("every registered route is documented and every documented operation is registered", () => {
    const served = new Set<string>();
    for (const route of registered) {
      // The 405 answers, and the console's web page (not an API operation), are not in the document.
      if (route.config?.methodNotAllowed || route.config?.page) continue;
      for (const method of methodsOf(route)) if (method !== "HEAD") served.add(`${method} ${route.url}`);
    }
    const ops = documented();
    expect([...served].filter((op) => !ops.has(op)).sort()).toEqual([]);
    expect([...ops].filter((op) => !served.has(op)).sort()).toEqual([]);
    expect(ops.size).toBeGreaterThan(100);
    // The drift that started this: quotas are not created through the API, so POST is neither served nor listed.
    expect(ops.has("POST /org/:org/quota")).toBe(false);
    for (const op of [
      "DELETE /org/:org/policy/:name",
      "GET /org/:org/-accessreport",
      "GET /about",
      "GET /openapi.json",
    ]) {
      expect(ops, op).toContain(op);
    }
  });

  it("every documented operation answers an admin with something other than 404 or 405", async () => {
    expect((await admin(server).post(`/org/${ORG}/user`, { email: "walker@example.com" })).status).toBe(201);
    const volumeSet = { name: "walked", spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" } };
    expect((await admin(server).post(`/org/${ORG}/gvc/default/volumeset`, volumeSet)).status).toBe(201);
    // Objects of the other gvc-scoped kinds (their declarations' examples), in a gvc placed in one location, so
    // sub-collections per location (a workload's deployments) have an item.
    const placed = { spec: { staticPlacement: { locationLinks: ["//location/aws-us-west-2"] } } };
    expect((await admin(server).patch(`/org/${ORG}/gvc/default`, placed)).status).toBe(200);
    for (const kind of kindNames) {
      const create = kinds[kind].examples.create;
      if (kinds[kind].scope !== "gvc" || kind === "volumeset" || create === undefined) continue;
      expect((await admin(server).post(collectionPath(ORG, kind, "default"), create(`walked-${kind}`))).status).toBe(
        201,
      );
    }
    // Images are never created through the API: the emulator's push stands in for a docker push.
    expect((await admin(server).post(`/_cpln-local/org/${ORG}/image`, { name: "walked:v1" })).status).toBe(201);
    /** The first object of each collection (by its list), to address item operations. */
    const firstOf = async (collection: string, param: string): Promise<string> => {
      // A collection endpoint's parameter (`image/-latest/{repository}`) is that field of the kind's first object.
      const endpoint = /^(.*)\/-[a-z]+$/.exec(collection);
      if (endpoint) return firstOf(endpoint[1] as string, param);
      let listed = await admin(server).get(collection);
      // A kind the seed holds no object of gets one from its declaration's example body.
      const example = Object.values(kinds).find((k) => collection.endsWith(`/${k.kind}`))?.examples.create;
      if (example && field<unknown[]>(listed.body, "items")?.length === 0) {
        const kind = collection.slice(collection.lastIndexOf("/") + 1);
        expect((await admin(server).post(collection, example(`example-${kind}`))).status).toBe(201);
        listed = await admin(server).get(collection);
      }
      const items = field<Record<string, unknown>[]>(listed.body, "items");
      if (items === undefined) throw new Error(`GET ${collection}: ${listed.status} ${JSON.stringify(listed.body)}`);
      const item = items.find((i) => i["origin"] !== "builtin") ?? items[0];
      // A sub-collection's items are named by `name` whatever its parameter is called (a deployment's location).
      return String(item?.[param === "email" ? "email" : param] ?? item?.["name"]);
    };
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
    );
    // Reads first (a PUT of `{}` replaces a gvc's placement, which a workload's deployments are read from), deletes
    // last, so the objects the other operations address still exist; the emulator's own operations (which reset or
    // replace the whole org) after them.
    const order = (o: (typeof operations)[number]) =>
      (o.operation as { "x-cpln-local-admin"?: boolean })["x-cpln-local-admin"]
        ? 3
        : o.method === "GET"
          ? 0
          : 1 + Number(o.method === "DELETE");
    operations.sort((a, b) => order(a) - order(b));
    const answers: string[] = [];
    for (const { path, method, operation } of operations) {
      let url = path.replace("{org}", ORG).replace("{gvc}", "default");
      // Each parameter in turn names the first object of the collection before it (`{name}`, then `{location}`).
      for (let param = /\{([^}]+)\}/.exec(url)?.[1]; param !== undefined; param = /\{([^}]+)\}/.exec(url)?.[1]) {
        const collection = url.slice(0, url.indexOf(`/{${param}}`));
        url = url.replace(`{${param}}`, encodeURIComponent(await firstOf(collection, param)));
      }
      const answer = await call(server, method as "GET", url, {
        auth: server.adminKey,
        ...(operation.requestBody ? { body: {} } : {}),
      });
      answers.push(`${method} ${url} ${answer.status}`);
      expect([404, 405], `${method} ${url} (${operation.operationId}) answered ${answer.status}`).not.toContain(
        answer.status,
      );
      expect(answer.status, `${method} ${url}`).toBeLessThan(500);
    }
    expect(answers.length).toBe(operations.length);
  });

  it("declares each path parameter of every operation, with the name rules as pattern and maxLength", () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const [method, operation] of Object.entries(item)) {
        const declared = (operation.parameters ?? []).filter((p) => p.in === "path" && p.required);
        expect(
          declared.map((p) => p.name),
          `${method} ${path}`,
        ).toEqual(inPath);
      }
    }
    const params = doc.paths["/org/{org}/gvc/{gvc}/volumeset/{name}"]?.["get"]?.parameters ?? [];
    for (const p of params) {
      expect(p.schema, p.name).toMatchObject({ type: "string", maxLength: 64, pattern: "^[a-z][-a-z0-9]*[a-z0-9]$" });
    }
    expect(doc.paths["/org/{org}/quota/{id}"]?.["get"]?.parameters?.[1]?.schema).toEqual({
      type: "string",
      format: "uuid",
    });
    expect(doc.paths["/org/{org}/user/{email}"]?.["get"]?.parameters?.[1]?.schema).toMatchObject({ format: "email" });
  });

  it("has unique operationIds, a server, 413/415 on bodies, and optional security only on volume-set create", () => {
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((o) => o.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.servers).toEqual([{ url: server.url, description: "This server" }]);
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (operation.requestBody) {
          expect(Object.keys(operation.responses), `${method} ${path}`).toEqual(
            expect.arrayContaining(["400", "413", "415"]),
          );
        }
      }
    }
    const optional = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, o]) => JSON.stringify(o.security) === JSON.stringify([{}, { apiKey: [] }, { bearer: [] }]))
        .map(([method]) => `${method} ${path}`),
    );
    expect(optional).toEqual(["post /org/{org}/gvc/{gvc}/volumeset", "put /org/{org}/gvc/{gvc}/volumeset"]);
  });

  it("schemas say what the server accepts: PUT bodies, and the cross-field rules JSON Schema can express", async () => {
    // Formats (uuid, email, date-time) are not what these rules are about.
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    for (const [name, schema] of Object.entries(doc.components.schemas))
      ajv.addSchema(schema, `#/components/schemas/${name}`);
    const validate = (name: string, value: unknown) => ajv.validate(`#/components/schemas/${name}`, value);

    // A query term sets exactly one of property, rel and tag; ops other than exists need a value.
    const query = (term: Record<string, unknown>) => ({ kind: "group", spec: { terms: [term] } });
    expect(validate("QueryDocument", query({ property: "name", value: "x" }))).toBe(true);
    expect(validate("QueryDocument", query({ property: "name", tag: "x", value: "x" }))).toBe(false);
    expect(validate("QueryDocument", query({ value: "x" }))).toBe(false);
    expect(validate("QueryDocument", query({ tag: "x", op: "exists" }))).toBe(true);
    expect(validate("QueryDocument", query({ tag: "x", op: "=" }))).toBe(false);

    // performanceClass is required unless fileSystemType is shared; shared pairs with shared.
    const vs = (spec: Record<string, unknown>) => ({ name: "v1", spec: { initialCapacity: 10, ...spec } });
    expect(validate("VolumesetCreate", vs({ performanceClass: "general-purpose-ssd" }))).toBe(true);
    expect(validate("VolumesetCreate", vs({ fileSystemType: "shared" }))).toBe(true);
    expect(validate("VolumesetCreate", vs({}))).toBe(false);
    expect(validate("VolumesetCreate", vs({ fileSystemType: "xfs" }))).toBe(false);
    expect(validate("VolumesetCreate", vs({ fileSystemType: "shared", performanceClass: "general-purpose-ssd" }))).toBe(
      false,
    );
    expect(validate("VolumesetCreate", vs({ fileSystemType: "ext4", performanceClass: "shared" }))).toBe(false);

    // An mk8s provider has exactly one key.
    const mk8s = (provider: Record<string, unknown>) => ({ name: "m1", spec: { version: "1.28.4", provider } });
    expect(validate("Mk8sCreate", mk8s({ generic: { location: "aws-eu-central-1" } }))).toBe(true);
    // A generic cluster names the location hosting its control plane.
    expect(validate("Mk8sCreate", mk8s({ generic: {} }))).toBe(false);
    expect(validate("Mk8sCreate", mk8s({ hetzner: {} }))).toBe(true);
    expect(validate("Mk8sCreate", mk8s({}))).toBe(false);
    expect(validate("Mk8sCreate", mk8s({ generic: {}, hetzner: {} }))).toBe(false);

    // The server agrees with each refusal.
    expect((await admin(server).post(`/org/${ORG}/gvc/default/volumeset`, vs({ fileSystemType: "xfs" }))).status).toBe(
      400,
    );
    expect((await admin(server).post(`/org/${ORG}/mk8s`, mk8s({ generic: {}, hetzner: {} }))).status).toBe(400);
    expect((await admin(server).post(`/org/${ORG}/group/-query`, query({ value: "x" }))).status).toBe(400);

    // PUT takes the whole writable object with echoed read-only fields, and no patch directives.
    const record = (await admin(server).get(`/org/${ORG}/group/viewers`)).body as Record<string, unknown>;
    expect(validate("GroupPut", { description: "d", tags: { a: "b" } })).toBe(true);
    expect(validate("GroupPut", record)).toBe(true);
    expect(validate("GroupPut", { $drop: ["tags"] })).toBe(false);
    const put = await call(server, "PUT", `/org/${ORG}/group/viewers`, {
      auth: server.adminKey,
      body: { ...record, description: "Viewers (put)" },
    });
    expect(put.status).toBe(200);
    expect(field(put.body, "description")).toBe("Viewers (put)");
  });
});

describe("unsupported methods", () => {
  it("a known path with a method it does not serve is 405 with Allow; an unknown path stays 404", async () => {
    const policies = await call(server, "DELETE", `/org/${ORG}/policy`, { auth: server.adminKey });
    expect(policies.status).toBe(405);
    expect(policies.headers["allow"]).toBe("GET, POST, PUT, HEAD");
    expect(policies.body).toEqual(
      apiError(405, "MethodNotAllowed", "DELETE is not allowed on /org/{org}/policy (allowed: GET, POST, PUT, HEAD)"),
    );
    const quota = await call(server, "POST", `/org/${ORG}/quota`, { auth: server.adminKey, body: { name: "q" } });
    expect([quota.status, quota.headers["allow"]]).toEqual([405, "GET, PUT, HEAD"]);
    const org = await call(server, "DELETE", `/org/${ORG}`, { auth: server.adminKey });
    expect([org.status, org.headers["allow"]]).toEqual([405, "GET, PATCH, HEAD"]);
    const unknown = await call(server, "DELETE", `/org/${ORG}/widgets`, { auth: server.adminKey });
    expect(unknown.status).toBe(404);
    expect(unknown.headers["allow"]).toBeUndefined();
  });

  it("every 405 route's Allow header lists exactly the documented methods of its path", () => {
    const ops = documented();
    // fastify adds a HEAD twin of each GET route (a 405 one too): only the routes we registered are checked.
    const refusing = registered.filter((r) => r.config?.methodNotAllowed && methodsOf(r).some((m) => m !== "HEAD"));
    expect(refusing.length).toBeGreaterThan(10);
    for (const route of refusing) {
      for (const method of methodsOf(route)) {
        if (method === "HEAD") continue;
        expect(ops.has(`${method} ${route.url}`), `${method} ${route.url}`).toBe(false);
      }
      const documentedMethods = ["GET", "POST", "PUT", "PATCH", "DELETE"].filter((m) => ops.has(`${m} ${route.url}`));
      const all = new Set([...documentedMethods, ...methodsOf(route).filter((m) => m !== "HEAD")]);
      // Every method Node parses is either served or refused with 405 (CONNECT aside): the five of the API ...
      for (const method of ["DELETE", "GET", "PATCH", "POST", "PUT"])
        expect(all.has(method), `${method} ${route.url}`).toBe(true);
      // ... and the others clients and scanners send.
      for (const method of ["OPTIONS", "TRACE", "PROPFIND", "QUERY"])
        expect(all.has(method), `${method} ${route.url}`).toBe(true);
    }
  });
});

describe("kind descriptors", () => {
  it("the server's rules take schemas and addressing from the descriptor, and must implement exactly its actions", () => {
    expect(kindRules.quota.addressBy).toBe("id");
    expect(kindRules.quota.createBody).toBeUndefined();
    expect(kindRules.user.nameField).toBe("email");
    expect(kindRules.volumeset.createBody).toBe(kinds.volumeset.schemas.create);
    expect(() => rulesOf("mk8s", { ...mk8sRules, actions: {} })).toThrow(
      "The actions of mk8s differ: the contract has [join], the server (server/domain/mk8s.ts) []",
    );
  });
});

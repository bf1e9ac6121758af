/**
 * What the OpenAPI document says beyond plain types, and that the server does what it says: echo-only fields are
 * `readOnly`, a PUT requires (and a PATCH cannot remove) what the object always has, the paging cursor is opaque,
 * rules JSON Schema cannot state are listed as `x-cpln-rules` with the pattern of their refusal's message, and the
 * server refuses accordingly (unknown gvc of a permission catalog, a create's version, a collection PUT's manifest).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { ADMIN_KEY, ORG, admin, apiError, call, start } from "./helpers.js";

type Schema = Record<string, unknown>;
type Rule = { rule: string; issue: string };
type Document = {
  paths: Record<string, Record<string, Schema & { parameters?: Schema[]; "x-cpln-rules"?: Rule[] }>>;
  components: { schemas: Record<string, Schema> };
};

let server: RunningServer;
let doc: Document;

beforeAll(async () => {
  server = await start();
  const answer = await fetch(`${server.url}/openapi.json`);
  expect(answer.status).toBe(200);
  doc = (await answer.json()) as Document;
});

afterAll(async () => {
  await server.close();
});

const schema = (name: string) => doc.components.schemas[name] as Schema;
const props = (name: string) => schema(name)["properties"] as Record<string, Schema>;
const issueOf = (rules: Rule[] | undefined, message: string) =>
  (rules ?? []).filter((r) => new RegExp(r.issue).test(message)).map((r) => r.rule);

describe("the document", () => {
  it("marks echo-only fields readOnly in PATCH, PUT and create bodies, and leaves writable ones unmarked", () => {
    for (const field of ["id", "kind", "name", "created", "lastModified", "links", "status"]) {
      expect(props("GvcPatch")[field]?.["readOnly"], `GvcPatch.${field}`).toBe(true);
      expect(props("GvcPut")[field]?.["readOnly"], `GvcPut.${field}`).toBe(true);
    }
    for (const field of ["unit", "current", "origin", "dimensions"])
      expect(props("QuotaPatch")[field]?.["readOnly"], `QuotaPatch.${field}`).toBe(true);
    expect(props("PolicyPatch")["targetKind"]?.["readOnly"]).toBe(true);
    expect(props("UserPatch")["email"]?.["readOnly"]).toBe(true);
    expect(props("GvcCreate")["id"]).toEqual({ readOnly: true, description: "Read-only: ignored (any value)." });
    expect(props("GvcCreate")["version"]).toMatchObject({ type: "integer", minimum: 0, readOnly: true });
    expect(props("GvcPatch")["description"]?.["readOnly"]).toBeUndefined();
    expect(props("GvcPatch")["version"]?.["readOnly"]).toBeUndefined();
  });

  it("a PUT requires the replaceable fields the object always has; a PATCH cannot null or $drop them", () => {
    expect(schema("QuotaPut")["required"]).toEqual(["max"]);
    // A location's spec has a create default (enabled): a PUT may leave it out, and the document says what it gets.
    expect(schema("LocationPut")["required"]).toBeUndefined();
    expect(String(props("LocationPut")["spec"]?.["description"])).toContain(
      "Left out: the value a create without it gets.",
    );
    expect(schema("VolumesetPut")["required"]).toEqual(["spec"]);
    expect(schema("GvcPut")["required"]).toBeUndefined();
    expect(JSON.stringify(props("QuotaPut")["max"])).not.toContain('"null"');
    expect(JSON.stringify(props("QuotaPatch")["max"])).not.toContain('"null"');
    expect(JSON.stringify(props("QuotaPatch")["$replace/max"])).not.toContain('"null"');
    expect((props("QuotaPatch")["$drop"]?.["items"] as Schema)["enum"]).toEqual(["description"]);
    // description may still be removed (it falls back to the name).
    expect(JSON.stringify(props("QuotaPatch")["description"])).toContain('"null"');
  });

  it("a list cursor is a position (a pattern every value of which is one); a query cursor JSON the document describes; -query bodies are optional", () => {
    const list = doc.paths["/org/{org}/gvc"]!["get"]!;
    const cursor = list.parameters!.find((p) => p["name"] === "cursor")!;
    expect(cursor).toMatchObject({
      in: "query",
      required: false,
      schema: { type: "string", maxLength: 1024, pattern: "^[A-Za-z0-9_-]*$" },
    });
    const next = doc.paths["/org/{org}/gvc/-query"]!["get"]!.parameters!.find((p) => p["name"] === "cursor")!;
    expect(next["required"]).toBe(true);
    expect(next["schema"]).toBeUndefined();
    expect(next["content"]).toEqual({
      "application/json": { schema: { $ref: "#/components/schemas/QueryContinuation" } },
    });
    expect((doc.paths["/org/{org}/gvc/-query"]!["post"]!["requestBody"] as Schema)["required"]).toBe(false);
  });

  it("an action's body is required exactly when its schema needs a field: -addKey's description, not -join's", () => {
    const body = (path: string) => doc.paths[path]!["post"]!["requestBody"] as Schema;
    expect(body("/org/{org}/serviceaccount/{name}/-addKey")["required"]).toBe(true);
    expect(schema("ServiceAccountKeyCreate")["required"]).toEqual(["description"]);
    expect(body("/org/{org}/mk8s/{name}/-join")["required"]).toBe(false);
  });

  it("a query term with op '=~' takes a regular expression string, and with '~' a pattern of at most 256 characters", () => {
    const query = props("GroupCreate")["memberQuery"] as { properties: { spec: { properties: { terms: Schema } } } };
    const conditions = (query.properties.spec.properties.terms["items"] as Schema)["allOf"] as Schema[];
    expect(conditions).toContainEqual({
      if: { properties: { op: { const: "=~" } }, required: ["op"] },
      then: { properties: { value: { type: "string", format: "regex", maxLength: 256 } } },
    });
    expect(conditions).toContainEqual({
      if: { properties: { op: { const: "~" } }, required: ["op"] },
      then: { properties: { value: { maxLength: 256 } } },
    });
  });

  it("links each create to the operations on the object it made and under it, naming the object by name", () => {
    type Link = { operationId: string; parameters: Record<string, string> };
    const linksOf = (path: string, method: string, status: string) =>
      ((doc.paths[path]?.[method]?.["responses"] as Record<string, Schema>)[status]?.["links"] ?? {}) as Record<
        string,
        Link
      >;
    const gvc = linksOf("/org/{org}/gvc", "post", "201");
    expect(gvc["getGvc"]).toEqual({
      operationId: "getGvc",
      parameters: { org: "$request.path.org", name: "$response.body#/name" },
    });
    // A gvc's objects: the gvc is named by the created gvc's name, never its id.
    expect(gvc["createVolumeset"]).toEqual({
      operationId: "createVolumeset",
      parameters: { org: "$request.path.org", gvc: "$response.body#/name" },
    });
    // An object of a gvc's: under it, its own name; operations needing more than the create names are not linked.
    const volumeSet = linksOf("/org/{org}/gvc/{gvc}/volumeset", "put", "201");
    expect(volumeSet["patchVolumeset"]?.parameters).toEqual({
      org: "$request.path.org",
      gvc: "$request.path.gvc",
      name: "$response.body#/name",
    });
    expect(Object.keys(gvc)).not.toContain("getVolumeset");
    expect(Object.values(gvc).flatMap((link) => Object.values(link.parameters))).not.toContain("$response.body#/id");
  });

  it("a snapshot's records each name their kind, one of the API's", () => {
    const records = props("LocalSnapshotImport")["records"] as { items: Schema };
    expect(records.items["required"]).toEqual(["kind"]);
    const kind = (records.items["properties"] as Record<string, Schema>)["kind"] as { enum: string[] };
    expect(kind.enum).toEqual(expect.arrayContaining(["gvc", "volumeset", "policy", "org"]));
  });

  it("states the rules JSON Schema cannot, each with the pattern of the message its refusal carries", () => {
    const join = doc.paths["/org/{org}/mk8s/{name}/-join"]!["post"]!["x-cpln-rules"];
    expect(issueOf(join, "cluster edge has no node pool 'x' (pools: a)")).toHaveLength(1);
    expect(issueOf(join, "must be a string")).toEqual([]);
    const patchVolumeSet = doc.paths["/org/{org}/gvc/{gvc}/volumeset/{name}"]!["patch"]!["x-cpln-rules"];
    expect(issueOf(patchVolumeSet, "is immutable: it cannot change after the object is created")).toHaveLength(1);
    expect(issueOf(patchVolumeSet, 'unknown directive "$x": use $drop, ...')).toHaveLength(1);
    // Writes to kinds without immutable fields state no such rule.
    const patchGvc = doc.paths["/org/{org}/gvc/{name}"]!["patch"]!["x-cpln-rules"];
    expect(issueOf(patchGvc, "is immutable: it cannot change after the object is created")).toEqual([]);
    const policy = schema("PolicyCreate")["x-cpln-rules"] as Rule[];
    expect(issueOf(policy, "'fly' is not a permission of gvc (create, delete)")).toHaveLength(1);
    const spec = JSON.stringify(doc.components.schemas["VolumesetCreate"]);
    expect(spec).toContain("must not exceed autoscaling");
    // Expressible rules are JSON Schema: the mk8s provider key names a provider.
    const mk8s = JSON.stringify(schema("Mk8sCreate"));
    expect(mk8s).toContain('"propertyNames":{"enum":["generic","hetzner"');
    // A generic cluster's location: only the locations that can host its control plane (each a builtin location).
    expect(mk8s).toContain(
      '"location":{"type":"string","enum":["aws-eu-central-1","aws-us-east-2","aws-us-west-2","gcp-me-west1","gcp-us-east1"]}',
    );
  });
});

describe("the server does what the document says", () => {
  it("bindings with the same permission set are stored as one, principals joined once each (JSON Schema cannot refuse them)", async () => {
    const created = await admin(server).post(`/org/${ORG}/policy`, {
      name: "merged",
      targetKind: "group",
      bindings: [
        { permissions: ["view", "edit"], principalLinks: ["//group/a", `/org/${ORG}/group/b`] },
        { permissions: ["view"], principalLinks: ["//group/c"] },
        { permissions: ["edit", "view"], principalLinks: [`/org/${ORG}/group/a`, "//group/d", "//group/d"] },
      ],
    });
    expect(created.status).toBe(201);
    const g = (name: string) => `/org/${ORG}/group/${name}`;
    const expected = [
      { permissions: ["view", "edit"], principalLinks: [g("a"), g("b"), g("d")] },
      { permissions: ["view"], principalLinks: [g("c")] },
    ];
    expect((created.body as { bindings: unknown }).bindings).toEqual(expected);
    expect(((await admin(server).get(`/org/${ORG}/policy/merged`)).body as { bindings: unknown }).bindings).toEqual(
      expected,
    );
  });

  it("-addKey without a body is refused naming description; '=~' with a number naming the term's value", async () => {
    const client = admin(server);
    expect((await client.post(`/org/${ORG}/serviceaccount`, { name: "keyless" })).status).toBe(201);
    expect(
      await call(server, "POST", `/org/${ORG}/serviceaccount/keyless/-addKey`, { auth: `Bearer ${ADMIN_KEY}` }),
    ).toMatchObject({
      status: 400,
      body: apiError(400, "BadRequest", "Invalid request: description: is required"),
    });
    expect(
      await client.post(`/org/${ORG}/group/-query`, { spec: { terms: [{ property: "name", op: "=~", value: 1 }] } }),
    ).toMatchObject({
      status: 400,
      body: apiError(
        400,
        "BadRequest",
        "Invalid request: spec.terms.0.value: op '=~' needs a regular expression string",
      ),
    });
  });

  it("a permission catalog under an unknown gvc is 404; under an existing one and at the org level 200", async () => {
    const client = admin(server);
    expect(await client.get(`/org/${ORG}/gvc/nope/volumeset/-schema/permissions`)).toMatchObject({
      status: 404,
      body: apiError(404, "NotFound", "gvc nope not found"),
    });
    expect((await client.post(`/org/${ORG}/gvc`, { name: "g1" })).status).toBe(201);
    expect((await client.get(`/org/${ORG}/gvc/g1/volumeset/-schema/permissions`)).status).toBe(200);
    expect((await client.get(`/org/${ORG}/volumeset/-schema/permissions`)).status).toBe(200);
  });

  it("a __proto__ key inside an array item (links[0]) is refused as reserved, naming its path", async () => {
    const answer = await call(server, "POST", `/org/${ORG}/gvc`, {
      auth: `Bearer ${ADMIN_KEY}`,
      raw: '{"name":"p1","links":[{"__proto__":{"rel":"x"}}]}',
    });
    expect(answer).toMatchObject({
      status: 400,
      body: apiError(400, "BadRequest", expect.any(String), [
        { path: "links.0.__proto__", message: 'the key "__proto__" is reserved (it could alter object prototypes)' },
      ]),
    });
  });

  it("a create refuses a version that is not a non-negative integer and ignores a valid one", async () => {
    const client = admin(server);
    expect(await client.post(`/org/${ORG}/group`, { name: "g-v", version: "2" })).toMatchObject({
      status: 400,
      body: apiError(400, "BadRequest", expect.any(String), [
        { path: "version", message: "must be a non-negative integer (the version read)" },
      ]),
    });
    const created = await client.post(`/org/${ORG}/group`, { name: "g-v", version: 7, id: 5, created: false });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "g-v", version: 1 });
  });

  it("a collection PUT checks an existing object's manifest as a create (a required field left out is a 400)", async () => {
    const client = admin(server);
    const put = (body: unknown) => call(server, "PUT", `/org/${ORG}/location`, { auth: `Bearer ${ADMIN_KEY}`, body });
    expect((await put({ name: "byok-1", provider: "byok" })).status).toBe(201);
    const answer = await put({ name: "byok-1", description: "x" });
    expect(answer).toMatchObject({
      status: 400,
      body: apiError(400, "BadRequest", expect.any(String), [{ path: "provider", message: expect.any(String) }]),
    });
    expect((await client.get(`/org/${ORG}/location/byok-1`)).body).toMatchObject({ description: "byok-1" });
  });

  it("a PUT of an existing location without spec (optional at create) is accepted and resets spec to its create default", async () => {
    const client = admin(server);
    const put = (body: unknown) => call(server, "PUT", `/org/${ORG}/location`, { auth: `Bearer ${ADMIN_KEY}`, body });
    const made = await put({ name: "byok-2", provider: "byok", spec: { enabled: false } });
    expect(made.status).toBe(201);
    const replaced = await put({ name: "byok-2", provider: "byok" });
    expect(replaced.status).toBe(200);
    expect((await client.get(`/org/${ORG}/location/byok-2`)).body).toMatchObject({ spec: { enabled: true } });
    const item = await call(server, "PUT", `/org/${ORG}/location/byok-2`, {
      auth: `Bearer ${ADMIN_KEY}`,
      body: { name: "byok-2", description: "again" },
    });
    expect(item.status).toBe(200);
    expect(item.body).toMatchObject({ description: "again", spec: { enabled: true } });
  });

  it("a $patch/ item that leaves a binding without principalLinks is a 409 naming the field, not a 500", async () => {
    const client = admin(server);
    expect((await client.post(`/org/${ORG}/policy`, { name: "p-whole", targetKind: "gvc" })).status).toBe(201);
    const answer = await client.patch(`/org/${ORG}/policy/p-whole`, {
      "$patch/bindings": [{ $drop: ["principalLinks"], permissions: ["view"] }],
    });
    // The item matches no binding, so it is appended: what the body does depends on the stored bindings (a 409).
    expect(answer).toMatchObject({
      status: 409,
      body: apiError(
        409,
        "Conflict",
        "The policy would not be valid after this change: bindings.0.principalLinks: is required",
        [{ path: "bindings.0.principalLinks", message: "is required" }],
      ),
    });
    expect((await client.get(`/org/${ORG}/policy/p-whole`)).body).not.toHaveProperty("bindings");
  });

  it("a PATCH null of a field the object always has is refused by the schema the document gives", async () => {
    const client = admin(server);
    const quotas = (await client.get(`/org/${ORG}/quota`)).body as { items: { id: string; max: number }[] };
    const quota = quotas.items[0]!;
    const answer = await client.patch(`/org/${ORG}/quota/${quota.id}`, { max: null });
    expect(answer).toMatchObject({
      status: 400,
      body: apiError(400, "BadRequest", expect.any(String), [
        { path: "max", message: "is required: it cannot be removed (null is refused)" },
      ]),
    });
    expect((await client.get(`/org/${ORG}/quota/${quota.id}`)).body).toMatchObject({ max: quota.max });
  });

  it("a PATCH valid by its schema whose result depends on the stored object is a 409 naming the field: a merge creating an object without what it requires, an echoed read-only value that differs; a kind that is not the path's is a 400", async () => {
    const client = admin(server);
    expect((await client.post(`/org/${ORG}/group`, { name: "g-merge" })).status).toBe(201);
    // The group has no identityMatcher: merging into it creates one without its required expression.
    const merged = await client.patch(`/org/${ORG}/group/g-merge`, { identityMatcher: { language: "jmespath" } });
    expect(merged).toMatchObject({
      status: 409,
      body: apiError(
        409,
        "Conflict",
        "The group would not be valid after this change: identityMatcher.expression: is required",
        [{ path: "identityMatcher.expression", message: "is required" }],
      ),
    });
    // A builtin location applied with another provider than its own (what Schemathesis sent): the provider is the
    // stored object's, so the manifest conflicts with it.
    const location = await call(server, "PUT", `/org/${ORG}/location`, {
      auth: `Bearer ${ADMIN_KEY}`,
      body: { name: "aws-ap-southeast-2", provider: "byok", spec: {} },
    });
    expect(location).toMatchObject({
      status: 409,
      body: apiError(409, "Conflict", expect.any(String), [
        { path: "provider", message: "is read-only: it is set by the server and cannot be changed" },
      ]),
    });
    // The path decides the kind, and the document says so (`const`): a 400, whatever is stored.
    expect(props("GroupPatch")["kind"]).toMatchObject({ const: "group", readOnly: true });
    expect(props("GroupPut")["kind"]).toMatchObject({ const: "group", readOnly: true });
    const kindMismatch = await client.patch(`/org/${ORG}/group/g-merge`, { kind: "gvc", description: "x" });
    expect(kindMismatch).toMatchObject({
      status: 400,
      body: apiError(400, "BadRequest", expect.any(String), [
        { path: "kind", message: 'is "gvc" but this path is for group objects' },
      ]),
    });
    // Nothing changed.
    const group = (await client.get(`/org/${ORG}/group/g-merge`)).body as Record<string, unknown>;
    expect(group).not.toHaveProperty("identityMatcher");
    expect(group["description"]).toBe("g-merge");
    expect((await client.get(`/org/${ORG}/location/aws-ap-southeast-2`)).body).toMatchObject({ provider: "aws" });
  });
});

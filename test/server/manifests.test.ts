// Writes with manifests: PUT on a collection (create-or-update, as `cpln apply` sends), read-only fields accepted
// and ignored on every write, a contradicting `kind` refused, org-level routes of gvc-scoped kinds.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../server/index.js";

const ADMIN_KEY = "manadmin.secret-admin-key-for-the-manifest-tests";
let server: RunningServer;

async function call(method: "GET" | "POST" | "PUT" | "PATCH", url: string, body?: unknown, key = ADMIN_KEY) {
  const response = await server.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${key}` },
    ...(body === undefined ? {} : { payload: body as object }),
  });
  return { status: response.statusCode, body: response.json<Record<string, unknown>>(), headers: response.headers };
}

beforeAll(async () => {
  server = await startServer({ org: "demo", adminKey: ADMIN_KEY });
});
afterAll(async () => {
  await server.close();
});

/** The read-only fields a record as GET returned it carries. */
const READ_ONLY = {
  id: "00000000-0000-4000-8000-000000000000",
  version: 7,
  created: "2020-01-01T00:00:00.000Z",
  lastModified: "2020-01-01T00:00:00.000Z",
  links: [{ rel: "self", href: "/org/elsewhere/x" }],
  status: { anything: true },
};

describe("PUT on a collection", () => {
  it("creates (201 + Location) and then replaces the writable fields (200), version +1", async () => {
    const manifest = { kind: "group", name: "team", description: "one", tags: { a: "1" } };
    const created = await call("PUT", "/org/demo/group", manifest);
    expect(created.status).toBe(201);
    expect(created.headers["location"]).toBe("/org/demo/group/team");
    expect(created.body).toMatchObject({ name: "team", description: "one", version: 1 });
    const replaced = await call("PUT", "/org/demo/group", { kind: "group", name: "team", description: "two" });
    expect(replaced.status).toBe(200);
    // Fields the manifest leaves out are reset (tags), as a PUT replaces the object.
    expect(replaced.body).toMatchObject({ description: "two", version: 2, tags: {} });
  });

  it("gvc-scoped kinds: PUT /org/{org}/gvc/{gvc}/volumeset, body gvc ignored", async () => {
    const manifest = {
      kind: "volumeset",
      name: "data",
      gvc: "default",
      spec: { fileSystemType: "ext4", initialCapacity: 10, performanceClass: "general-purpose-ssd" },
    };
    expect((await call("PUT", "/org/demo/gvc/default/volumeset", manifest)).status).toBe(201);
    const again = await call("PUT", "/org/demo/gvc/default/volumeset", {
      ...manifest,
      spec: { ...manifest.spec, initialCapacity: 20 },
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ version: 2, spec: { initialCapacity: 20 } });
  });

  it("the same validation, version check and authorization as the other writes", async () => {
    const invalid = await call("PUT", "/org/demo/group", { name: "bad", memberLinks: "x" });
    expect(invalid.status).toBe(400);
    expect(JSON.stringify(invalid.body)).toContain("memberLinks");
    const noName = await call("PUT", "/org/demo/group", { description: "x" });
    expect(noName.status).toBe(400);
    expect(noName.body["details"]).toEqual({ issues: [expect.objectContaining({ path: "name" })] });
    const stale = await call("PUT", "/org/demo/group", { name: "team", version: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body["code"]).toBe("VersionConflict");
    const builtin = await call("PUT", "/org/demo/policy", {
      name: "viewers-group",
      targetKind: "group",
      target: "all",
    });
    expect(builtin.status).toBe(403);
    // A principal without create gets 403 for a new object; for an existing one it may not view, the same 403
    // (existence does not leak through the collection PUT, issue 18 item 7).
    await call("POST", "/org/demo/serviceaccount", { name: "robot" });
    const key = String(
      (await call("POST", "/org/demo/serviceaccount/robot/-addKey", { description: "robot" })).body["key"],
    );
    expect((await call("PUT", "/org/demo/group", { name: "new-one" }, key)).status).toBe(403);
    expect((await call("PUT", "/org/demo/group", { name: "team" }, key)).status).toBe(403);
  });
});

describe("read-only fields on every write", () => {
  it("POST, PUT (collection and item) and PATCH accept kind, id, version(*), created, lastModified, links, status", async () => {
    const created = await call("POST", "/org/demo/group", { kind: "group", name: "echo", ...READ_ONLY });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "echo", version: 1 });
    expect(created.body["id"]).not.toBe(READ_ONLY.id);
    const record = created.body;
    // (*) on an existing object `version` is the optimistic-concurrency check: the current one passes.
    const echoed = { ...record, description: "patched" };
    const patched = await call("PATCH", "/org/demo/group/echo", echoed);
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ description: "patched", version: 2, created: record["created"] });
    const put = await call("PUT", "/org/demo/group/echo", { ...patched.body, description: "put" });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ description: "put", version: 3 });
    const viaCollection = await call("PUT", "/org/demo/group", { ...put.body, id: READ_ONLY.id, description: "apply" });
    expect(viaCollection.status).toBe(200);
    expect(viaCollection.body).toMatchObject({ id: record["id"], description: "apply", version: 4 });
  });

  it("a record as GET returned it re-applies unchanged (no new version)", async () => {
    const current = (await call("GET", "/org/demo/group/echo")).body;
    const again = await call("PUT", "/org/demo/group", current);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(current);
    const vs = (await call("GET", "/org/demo/gvc/default/volumeset/data")).body;
    const vsAgain = await call("PUT", "/org/demo/gvc/default/volumeset", { ...vs, gvc: "default" });
    expect(vsAgain.status).toBe(200);
    expect(vsAgain.body).toEqual(vs);
  });

  it("a kind that contradicts the path is a 400 naming kind, on every write", async () => {
    const expected = {
      path: "kind",
      message: 'is "policy" but this path is for group objects',
    };
    for (const [method, url] of [
      ["POST", "/org/demo/group"],
      ["PUT", "/org/demo/group"],
      ["PUT", "/org/demo/group/echo"],
      ["PATCH", "/org/demo/group/echo"],
    ] as const) {
      const answer = await call(method, url, { kind: "policy", name: "echo" });
      expect(answer.status, `${method} ${url}`).toBe(400);
      expect(answer.body["details"], `${method} ${url}`).toEqual({ issues: [expected] });
    }
  });
});

describe("org-level routes of gvc-scoped kinds", () => {
  it("POST /org/{org}/volumeset/-query spans every gvc; GET .../-schema/permissions is the kind's catalog", async () => {
    expect((await call("POST", "/org/demo/gvc", { name: "second" })).status).toBe(201);
    const spec = { fileSystemType: "ext4", initialCapacity: 10, performanceClass: "general-purpose-ssd" };
    expect((await call("POST", "/org/demo/gvc/second/volumeset", { name: "other", spec })).status).toBe(201);
    const all = await call("POST", "/org/demo/volumeset/-query", {});
    expect(all.status).toBe(200);
    expect((all.body["items"] as { name: string }[]).map((i) => i.name)).toEqual(["data", "other"]);
    const one = await call("POST", "/org/demo/volumeset/-query", {
      spec: { terms: [{ rel: "gvc", value: "/org/demo/gvc/second" }] },
    });
    expect((one.body["items"] as { name: string }[]).map((i) => i.name)).toEqual(["other"]);
    const permissions = await call("GET", "/org/demo/volumeset/-schema/permissions");
    expect(permissions.status).toBe(200);
    expect(permissions.body).toMatchObject({ kind: "permissions", targetKind: "volumeset" });
  });
});

describe("string-encoded numbers and booleans", () => {
  it("are converted where the schema wants a number or a boolean (as `cpln update --set` sends them)", async () => {
    const patched = await call("PATCH", "/org/demo/gvc/default/volumeset/data", {
      spec: { initialCapacity: "30", snapshots: { createFinalSnapshot: "false" } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body["spec"]).toMatchObject({ initialCapacity: 30, snapshots: { createFinalSnapshot: false } });
    const wrong = await call("PATCH", "/org/demo/gvc/default/volumeset/data", { spec: { initialCapacity: "lots" } });
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(wrong.body)).toContain("spec.initialCapacity");
  });
});

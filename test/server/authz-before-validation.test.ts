// Authorization before validation (issue 18 item 7): a caller without `view` on an object, or anonymous, cannot tell
// an existing object from a missing one by the status of a malformed request — the collection PUT (what `cpln apply`
// sends), PATCH, item PUT and actions check permission first and look at the body only after.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../server/index.js";

const ADMIN_KEY = "avadmin.secret-admin-key-for-authz-before-validation";
let server: RunningServer;
let noGrantsKey = "";
let viewerKey = "";

async function call(method: string, url: string, key: string | null, body?: unknown) {
  const response = await server.app.inject({
    method: method as "PUT",
    url,
    headers: {
      ...(key === null ? {} : { authorization: `Bearer ${key}` }),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: response.statusCode, body: response.json() as { code: string; message: string } };
}

async function newKey(account: string): Promise<string> {
  expect((await call("POST", "/org/demo/serviceaccount", ADMIN_KEY, { name: account })).status).toBe(201);
  const added = await call("POST", `/org/demo/serviceaccount/${account}/-addKey`, ADMIN_KEY, { description: account });
  return String((added.body as unknown as { key: string }).key);
}

beforeAll(async () => {
  server = await startServer({ org: "demo", adminKey: ADMIN_KEY });
  expect((await call("POST", "/org/demo/group", ADMIN_KEY, { name: "secret-group" })).status).toBe(201);
  const volumeSet = { name: "secret-vs", spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" } };
  expect((await call("POST", "/org/demo/gvc/default/volumeset", ADMIN_KEY, volumeSet)).status).toBe(201);
  expect((await call("POST", "/org/demo/gvc", ADMIN_KEY, { name: "hidden-gvc" })).status).toBe(201);
  noGrantsKey = await newKey("nogrants");
  viewerKey = await newKey("viewer");
  const policy = {
    name: "viewer-sees-groups-and-volumesets",
    targetKind: "group",
    target: "all",
    bindings: [{ permissions: ["view"], principalLinks: ["/org/demo/serviceaccount/viewer"] }],
  };
  expect((await call("POST", "/org/demo/policy", ADMIN_KEY, policy)).status).toBe(201);
});
afterAll(async () => {
  await server.close();
});

/** Answers to a request about an existing object and about a missing one, as (status, code) pairs. */
async function pair(
  method: string,
  existing: string,
  missing: string,
  key: string | null,
  body: (name: string) => unknown,
  names: [string, string],
) {
  const a = await call(method, existing, key, body(names[0]));
  const b = await call(method, missing, key, body(names[1]));
  return [
    [a.status, a.body.code],
    [b.status, b.body.code],
  ];
}

describe("collection PUT", () => {
  const malformedGroup = (name: string) => ({ name, description: 5, tags: "not-a-map" });
  const malformedVolumeSet = (name: string) => ({ name, spec: "not-a-spec" });

  it("a principal with no grants gets 403 for a malformed manifest of an existing and of a missing group", async () => {
    expect(
      await pair("PUT", "/org/demo/group", "/org/demo/group", noGrantsKey, malformedGroup, ["secret-group", "absent"]),
    ).toEqual([
      [403, "Forbidden"],
      [403, "Forbidden"],
    ]);
  });

  it("anonymous gets 403 for a malformed volume-set manifest, existing or missing (anonymous create is allowed)", async () => {
    expect(
      await pair(
        "PUT",
        "/org/demo/gvc/default/volumeset",
        "/org/demo/gvc/default/volumeset",
        null,
        malformedVolumeSet,
        ["secret-vs", "absent"],
      ),
    ).toEqual([
      [403, "Forbidden"],
      [403, "Forbidden"],
    ]);
  });

  it("anonymous cannot tell an existing gvc from a missing one through the volume-set collection PUT", async () => {
    const valid = (name: string) => ({ name, spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" } });
    expect(
      await pair("PUT", "/org/demo/gvc/hidden-gvc/volumeset", "/org/demo/gvc/no-such-gvc/volumeset", null, valid, [
        "x",
        "x",
      ]),
    ).toEqual([
      [403, "Forbidden"],
      [403, "Forbidden"],
    ]);
  });

  it("a principal that may view but not edit gets 403, not the manifest's 400", async () => {
    const answer = await call("PUT", "/org/demo/group", viewerKey, malformedGroup("secret-group"));
    expect([answer.status, answer.body.message]).toEqual([403, "Not allowed to edit group secret-group"]);
  });

  it("the admin still gets the manifest's 400 naming the field", async () => {
    const answer = await call("PUT", "/org/demo/group", ADMIN_KEY, malformedGroup("secret-group"));
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('"path":"description"');
  });
});

describe("PATCH, item PUT and actions", () => {
  it("PATCH with a body of the wrong kind: 404 for an existing object the caller cannot view, as for a missing one", async () => {
    expect(
      await pair(
        "PATCH",
        "/org/demo/group/secret-group",
        "/org/demo/group/absent",
        noGrantsKey,
        () => ({
          kind: "policy",
          description: 5,
        }),
        ["", ""],
      ),
    ).toEqual([
      [404, "NotFound"],
      [404, "NotFound"],
    ]);
  });

  it("item PUT with a malformed body: 404 both ways for a caller without view", async () => {
    expect(
      await pair(
        "PUT",
        "/org/demo/group/secret-group",
        "/org/demo/group/absent",
        noGrantsKey,
        () => ({
          kind: "user",
          tags: 7,
        }),
        ["", ""],
      ),
    ).toEqual([
      [404, "NotFound"],
      [404, "NotFound"],
    ]);
  });

  it("an action with a body that is not an object: 404 both ways for a caller without view", async () => {
    expect(
      await pair(
        "POST",
        "/org/demo/serviceaccount/viewer/-addKey",
        "/org/demo/serviceaccount/absent/-addKey",
        noGrantsKey,
        () => [1, 2],
        ["", ""],
      ),
    ).toEqual([
      [404, "NotFound"],
      [404, "NotFound"],
    ]);
  });

  it("POST with a body of the wrong kind by a principal without create: 403, not 400", async () => {
    const answer = await call("POST", "/org/demo/group", noGrantsKey, { kind: "policy", name: "g" });
    expect([answer.status, answer.body.code]).toEqual([403, "Forbidden"]);
  });
});

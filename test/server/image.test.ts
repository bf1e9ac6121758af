/**
 * Images served by cpln-local: created only by the emulator's push (admin key; what a docker push to the org's
 * registry does), or carried in by a snapshot/seed; read, listed, queried, tagged and deleted through the API with the
 * image catalog's permissions; never created through the API.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { ANY_ID, ANY_TIME, ORG, admin, as, bearer, links, serviceAccountWithKey, start } from "./helpers.js";

let server: RunningServer;
const base = `/org/${ORG}/image`;
const push = `/_cpln-local/org/${ORG}/image`;

beforeAll(async () => {
  server = await start();
});
afterAll(async () => {
  await server.close();
});

describe("the emulator's push", () => {
  it("creates the image <repository>:<tag> with a digest, answering 201 with its link", async () => {
    const answer = await admin(server).post(push, { name: "web:v1", tags: { team: "shop" } });
    expect(answer.status).toBe(201);
    expect(answer.headers["location"]).toBe(`${base}/web:v1`);
    expect(answer.body).toEqual({
      kind: "image",
      id: ANY_ID,
      name: "web:v1",
      description: "web:v1",
      version: 1,
      tags: { team: "shop" },
      created: ANY_TIME,
      lastModified: ANY_TIME,
      repository: "web",
      tag: "v1",
      digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      manifest: expect.objectContaining({ schemaVersion: 2, layers: [expect.objectContaining({ size: 4096 })] }),
      links: links("image", "web:v1"),
    });
    expect((await admin(server).get(`${base}/web:v1`)).body).toEqual(answer.body);
  });

  it("a name the org holds is a 409; a bad name a 400 naming it; nothing else is stored", async () => {
    const before = ((await admin(server).get(base)).body as { items: unknown[] }).items.length;
    expect((await admin(server).post(push, { name: "web:v1" })).status).toBe(409);
    const bad = await admin(server).post(push, { name: "web" });
    expect(bad.status).toBe(400);
    expect((bad.body as { details: { issues: { path: string }[] } }).details.issues.map((i) => i.path)).toEqual([
      "name",
    ]);
    expect(((await admin(server).get(base)).body as { items: unknown[] }).items.length).toBe(before);
  });

  it("needs the admin key: 401 without credentials, 403 for any other principal", async () => {
    expect((await as(server, undefined).post(push, { name: "x:v1" })).status).toBe(401);
    const key = await serviceAccountWithKey(server, "pusher");
    expect((await as(server, bearer(key)).post(push, { name: "x:v1" })).status).toBe(403);
    expect((await admin(server).get(`${base}/x:v1`)).status).toBe(404);
  });

  it("the API itself creates no image: POST to the collection is 405 and stores nothing", async () => {
    const answer = await admin(server).post(base, { name: "api:v1" });
    expect(answer.status).toBe(405);
    expect((await admin(server).get(`${base}/api:v1`)).status).toBe(404);
  });
});

describe("images through the API", () => {
  it("view reads and queries, edit changes tags only, delete deletes; no grant is a 404", async () => {
    expect((await admin(server).post(push, { name: "api:v2" })).status).toBe(201);
    const key = await serviceAccountWithKey(server, "image-reader");
    const reader = as(server, bearer(key));
    expect((await reader.get(`${base}/api:v2`)).status).toBe(404);
    const policy = await admin(server).post(`/org/${ORG}/policy`, {
      name: "image-pull",
      targetKind: "image",
      targetQuery: { spec: { terms: [{ property: "repository", value: "api" }] } },
      bindings: [{ permissions: ["pull"], principalLinks: ["//serviceaccount/image-reader"] }],
    });
    expect(policy.status).toBe(201);
    // pull implies view.
    expect((await reader.get(`${base}/api:v2`)).status).toBe(200);
    expect((await reader.get(`${base}/web:v1`)).status).toBe(404);
    const queried = await reader.post(`${base}/-query`, { spec: { terms: [{ property: "tag", value: "v2" }] } });
    expect((queried.body as { items: { name: string }[] }).items.map((i) => i.name)).toEqual(["api:v2"]);
    expect((await reader.patch(`${base}/api:v2`, { tags: { a: "b" } })).status).toBe(403);
    expect((await reader.delete(`${base}/api:v2`)).status).toBe(403);
    expect(
      (
        await admin(server).patch(`/org/${ORG}/policy/image-pull`, {
          "$append/bindings": [{ permissions: ["edit", "delete"], principalLinks: ["//serviceaccount/image-reader"] }],
        })
      ).status,
    ).toBe(200);
    const tagged = await reader.patch(`${base}/api:v2`, { tags: { a: "b" } });
    expect([tagged.status, (tagged.body as { tags: unknown }).tags]).toEqual([200, { a: "b" }]);
    expect((await reader.patch(`${base}/api:v2`, { repository: "other" })).status).toBe(409);
    expect((await reader.delete(`${base}/api:v2`)).status).toBe(202);
    expect((await admin(server).get(`${base}/api:v2`)).status).toBe(404);
  });

  it("a snapshot carries images: exported from one org, imported into a fresh server, read back equal", async () => {
    expect((await admin(server).post(push, { name: "seeded:v3" })).status).toBe(201);
    const state = await admin(server).get(`/_cpln-local/org/${ORG}/state`);
    expect(state.status).toBe(200);
    const other = await start();
    try {
      const { call } = await import("./helpers.js");
      const imported = await call(other, "PUT", `/_cpln-local/org/${ORG}/state`, {
        auth: bearer("acmeadmin.admin-secret-for-tests-0123456789"),
        body: state.body,
      });
      expect(imported.status).toBe(200);
      const read = await admin(other).get(`${base}/seeded:v3`);
      expect(read.body).toEqual((await admin(server).get(`${base}/seeded:v3`)).body);
    } finally {
      await other.close();
    }
  });
});

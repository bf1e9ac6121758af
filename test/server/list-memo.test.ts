// Lists asked again: an unchanged list is answered from the page it last gave (RecordService.list), so these check
// that every change that can alter a page — a create, an edit or a delete of the kind, a policy granting or taking
// away view, another principal, another page — is in the next answer, on the file store as on the in-memory one.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Authenticator } from "../../server/auth/authn.js";
import { Authorizer } from "../../server/auth/authz.js";
import { kindRules } from "../../server/domain/index.js";
import { RecordService } from "../../server/domain/records.js";
import type { RunningServer } from "../../server/index.js";
import type { SqliteStore } from "../../server/store/sqlite.js";
import { ORG, admin, as, bearer, call, serviceAccountWithKey, start } from "./helpers.js";

const GVC = "memo";
const volumes = `/org/${ORG}/gvc/${GVC}/volumeset`;
const spec = { initialCapacity: 10, performanceClass: "general-purpose-ssd", fileSystemType: "ext4" };

interface Page {
  items: { name: string; description: string }[];
  links: { rel: string; href: string }[];
}

describe.each(["memory", "file"] as const)("store: %s", (storage) => {
  let server: RunningServer;
  let dir: string;
  let reader: string;

  const names = async (auth: string, url = volumes) => {
    const answer = await call(server, "GET", url, { auth });
    expect(answer.status).toBe(200);
    return (answer.body as Page).items.map((item) => item.name);
  };
  const adminAuth = () => bearer(server.adminKey);
  const expectStatus = async (promise: Promise<{ status: number }>, status: number) =>
    expect((await promise).status).toBe(status);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "list-memo-"));
    server = await start(storage === "file" ? { data: join(dir, "data.db") } : {});
    await expectStatus(admin(server).post(`/org/${ORG}/gvc`, { name: GVC }), 201);
    for (const name of ["vs-a", "vs-b"]) await expectStatus(admin(server).post(volumes, { name, spec }), 201);
    reader = bearer(await serviceAccountWithKey(server, "reader"));
  });

  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("asked again with nothing changed, a list answers the same bytes", async () => {
    const first = await server.app.inject({ url: volumes, headers: { authorization: adminAuth() } });
    const second = await server.app.inject({ url: volumes, headers: { authorization: adminAuth() } });
    expect(first.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
    expect(second.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(second.headers["content-length"]).toBe(String(Buffer.byteLength(first.body)));
    expect(JSON.parse(second.body)).toEqual({
      kind: "list",
      itemKind: "volumeset",
      items: [expect.objectContaining({ name: "vs-a" }), expect.objectContaining({ name: "vs-b" })],
      links: [{ rel: "self", href: volumes }],
    });
  });

  it("asked again after a create, an edit and a delete, a list shows each change", async () => {
    expect(await names(adminAuth())).toEqual(["vs-a", "vs-b"]);
    await expectStatus(admin(server).post(volumes, { name: "vs-c", spec }), 201);
    expect(await names(adminAuth())).toEqual(["vs-a", "vs-b", "vs-c"]);
    await expectStatus(admin(server).patch(`${volumes}/vs-c`, { description: "edited" }), 200);
    const edited = (await admin(server).get(volumes)).body as Page;
    expect(edited.items.find((item) => item.name === "vs-c")?.description).toBe("edited");
    await expectStatus(admin(server).delete(`${volumes}/vs-c`), 202);
    expect(await names(adminAuth())).toEqual(["vs-a", "vs-b"]);
  });

  it("asked again after a policy grants or takes away view, a list shows what the principal may view now", async () => {
    expect(await names(reader)).toEqual([]);
    const policy = {
      name: "memo-readers",
      targetKind: "volumeset",
      targetLinks: [`//gvc/${GVC}/volumeset/vs-b`],
      bindings: [{ permissions: ["view"], principalLinks: ["//serviceaccount/reader"] }],
    };
    await expectStatus(admin(server).post(`/org/${ORG}/policy`, policy), 201);
    expect(await names(reader)).toEqual(["vs-b"]);
    // Another principal's page is its own, before and after the reader's.
    expect(await names(adminAuth())).toEqual(["vs-a", "vs-b"]);
    expect(await names(reader)).toEqual(["vs-b"]);
    await expectStatus(
      admin(server).patch(`/org/${ORG}/policy/memo-readers`, { $drop: ["targetLinks"], target: "all" }),
      200,
    );
    expect(await names(reader)).toEqual(["vs-a", "vs-b"]);
    await expectStatus(admin(server).delete(`/org/${ORG}/policy/memo-readers`), 202);
    expect(await names(reader)).toEqual([]);
    await expectStatus(as(server, reader).get(volumes), 200);
  });

  it("a list read while a commit group is open is not kept: once that COMMIT fails, no later list shows its write", async () => {
    // A record service of its own over the server's store, so the test can read between a write and its COMMIT.
    const store = server.store as SqliteStore;
    const records = new RecordService(store, new Authorizer(store), kindRules);
    const principal = await new Authenticator(store).authenticate(adminAuth(), ORG);
    const listCall = { org: ORG, gvc: GVC, principal };
    const listed = async () =>
      ((await records.list(listCall, "volumeset")) as unknown as Page).items.map((i) => i.name);
    expect(await listed()).toEqual(["vs-a", "vs-b"]);
    const internals = store as unknown as { lock?: Promise<void>; stmts: { commit: { run: () => unknown } } };
    const commit = internals.stmts.commit;
    const run = commit.run;
    commit.run = () => {
      commit.run = run;
      throw new Error("disk I/O error (injected)");
    };
    const failing = records.create(listCall, "volumeset", { name: "vs-z", spec }).then(
      () => "committed",
      (error: unknown) => String(error),
    );
    // Microtasks only: the write's transaction runs and releases the store; its COMMIT (a setImmediate) waits.
    for (let i = 0; i < 10_000 && !(store.settled() !== undefined && internals.lock === undefined); i++) {
      await Promise.resolve();
    }
    expect(store.settled()).toBeDefined();
    expect(await listed()).toEqual(["vs-a", "vs-b", "vs-z"]);
    expect(await failing).toMatch(/disk I\/O error \(injected\)/);
    expect(commit.run).toBe(run);
    // The next write brings the kind's change counter back to where the failed one had taken it.
    await records.create(listCall, "volumeset", { name: "vs-y", spec });
    expect(await listed()).toEqual(["vs-a", "vs-b", "vs-y"]);
    await expectStatus(admin(server).delete(`${volumes}/vs-y`), 202);
  });

  it("each page of a paged list is its own, and a page asked again shows a create inside it", async () => {
    const small = await start(storage === "file" ? { data: join(dir, "paged.db"), pageSize: 2 } : { pageSize: 2 });
    try {
      const auth = bearer(small.adminKey);
      await expectStatus(call(small, "POST", `/org/${ORG}/gvc`, { auth, body: { name: GVC } }), 201);
      for (const name of ["vs-1", "vs-3", "vs-5"]) {
        await expectStatus(call(small, "POST", volumes, { auth, body: { name, spec } }), 201);
      }
      const first = (await call(small, "GET", volumes, { auth })).body as Page;
      expect(first.items.map((item) => item.name)).toEqual(["vs-1", "vs-3"]);
      const next = first.links.find((link) => link.rel === "next")?.href ?? "";
      const second = async () => ((await call(small, "GET", next, { auth })).body as Page).items.map((i) => i.name);
      expect(await second()).toEqual(["vs-5"]);
      await expectStatus(call(small, "POST", volumes, { auth, body: { name: "vs-4", spec } }), 201);
      expect(await second()).toEqual(["vs-4", "vs-5"]);
    } finally {
      await small.close();
    }
  });
});

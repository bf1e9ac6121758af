/**
 * The org-level list of a gvc-scoped kind (`GET /org/{org}/{kind}`: the docs' "Get all identities from all gvcs",
 * likewise for workloads and volume sets; what `cpln <kind> get --all-gvcs` reads): the objects of every gvc the
 * caller may view, a page at a time, beside the org-level query.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kindNames, kinds } from "../../api/kinds/index.js";
import type { RunningServer } from "../../server/index.js";
import { ORG, admin, apiError, as, bearer, call, serviceAccountWithKey, start } from "./helpers.js";

let server: RunningServer;
const identities = `/org/${ORG}/identity`;
const inGvc = (gvc: string, name: string) => `/org/${ORG}/gvc/${gvc}/identity/${name}`;

beforeAll(async () => {
  // Two items a page, so three identities take two pages.
  server = await start({ pageSize: 2 });
  expect((await admin(server).post(`/org/${ORG}/gvc`, { name: "second" })).status).toBe(201);
  for (const [gvc, name] of [
    ["default", "app"],
    ["second", "app"],
    ["second", "db"],
  ] as const) {
    expect((await admin(server).post(`/org/${ORG}/gvc/${gvc}/identity`, { name })).status).toBe(201);
  }
});
afterAll(async () => {
  await server.close();
});

const bodyOf = async (path: string) => (await admin(server).get(path)).body;

describe("GET /org/{org}/identity", () => {
  it("lists the identities of every gvc in storage order (gvc, then name), two a page, following next", async () => {
    const first = await admin(server).get(identities);
    expect(first.status).toBe(200);
    const next = (first.body as { links: { rel: string; href: string }[] }).links.find((l) => l.rel === "next")?.href;
    expect(first.body).toEqual({
      kind: "list",
      itemKind: "identity",
      items: [await bodyOf(inGvc("default", "app")), await bodyOf(inGvc("second", "app"))],
      links: [
        { rel: "self", href: identities },
        { rel: "next", href: expect.stringMatching(new RegExp(`^${identities}\\?cursor=`)) },
      ],
    });
    const second = await admin(server).get(next as string);
    expect(second.status).toBe(200);
    expect(second.body).toEqual({
      kind: "list",
      itemKind: "identity",
      items: [await bodyOf(inGvc("second", "db"))],
      links: [{ rel: "self", href: identities }],
    });
  });

  it("holds only what the caller may view: one identity granted by link, nothing without a grant", async () => {
    const reader = await serviceAccountWithKey(server, "reader");
    const policy = await admin(server).post(`/org/${ORG}/policy`, {
      name: "read-db",
      targetKind: "identity",
      targetLinks: ["//gvc/second/identity/db"],
      bindings: [{ permissions: ["view"], principalLinks: ["//serviceaccount/reader"] }],
    });
    expect(policy.status).toBe(201);
    const seen = await as(server, bearer(reader)).get(identities);
    expect(seen.status).toBe(200);
    expect((seen.body as { items: unknown[] }).items).toEqual([await bodyOf(inGvc("second", "db"))]);
    const nobody = await serviceAccountWithKey(server, "nobody");
    const none = await as(server, bearer(nobody)).get(identities);
    expect([none.status, (none.body as { items: unknown[] }).items]).toEqual([200, []]);
  });

  it("needs credentials (401); creating there is not served (405, Allow: GET, HEAD)", async () => {
    expect((await as(server, undefined).get(identities)).status).toBe(401);
    const post = await call(server, "POST", identities, { auth: bearer("x"), body: { name: "x" } });
    expect(post.status).toBe(405);
    expect(post.headers["allow"]).toBe("GET, HEAD");
    expect(post.body).toEqual(apiError(405, "MethodNotAllowed", expect.any(String)));
  });

  it("the org-level query narrows it: a gvc rel term finds that gvc's identities", async () => {
    const found = await admin(server).post(`${identities}/-query`, {
      spec: { terms: [{ rel: "gvc", value: `/org/${ORG}/gvc/second` }] },
    });
    expect(found.status).toBe(200);
    expect((found.body as { items: { name: string }[] }).items.map((i) => i.name)).toEqual(["app", "db"]);
  });
});

describe("GET /org/{org}/{kind} for every gvc-scoped kind", () => {
  const scoped = kindNames.filter((kind) => kinds[kind].scope === "gvc");

  it.each(scoped)("%s: the objects of both gvcs, each as its own GET answers it", async (kind) => {
    const example = kinds[kind].examples.create;
    expect(example).toBeDefined();
    const made: string[] = [];
    for (const gvc of ["default", "second"]) {
      const name = `all-${gvc}`;
      const created = await admin(server).post(`/org/${ORG}/gvc/${gvc}/${kind}`, example?.(name));
      expect({ gvc, status: created.status }).toEqual({ gvc, status: 201 });
      made.push(`/org/${ORG}/gvc/${gvc}/${kind}/${name}`);
    }
    const items: unknown[] = [];
    let page: string | undefined = `/org/${ORG}/${kind}`;
    while (page !== undefined) {
      const answer = await admin(server).get(page);
      expect(answer.status).toBe(200);
      const body = answer.body as { items: unknown[]; links: { rel: string; href: string }[] };
      items.push(...body.items);
      page = body.links.find((l) => l.rel === "next")?.href;
    }
    const mine = items.filter((i) => made.includes(selfOf(i)));
    expect(mine).toEqual([await bodyOf(made[0] as string), await bodyOf(made[1] as string)]);
  });
});

function selfOf(item: unknown): string {
  return (item as { links: { rel: string; href: string }[] }).links.find((l) => l.rel === "self")?.href ?? "";
}

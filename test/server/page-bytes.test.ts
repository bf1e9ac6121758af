/**
 * Issue 39 finding 3: one list page or `-query` answered 47 MiB (100 records of ~480 KiB). Pages are now bounded in
 * bytes as well as items (`MAX_PAGE_BYTES`), with a `next` link to the rest; every record is reached exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_RECORD_BYTES } from "../../server/domain/limits.js";
import { MAX_PAGE_BYTES } from "../../server/domain/paging.js";
import type { RunningServer } from "../../server/index.js";
import { ORG, admin, call, bearer, ADMIN_KEY, start } from "./helpers.js";

let server: RunningServer;
/** Records of about 400 KiB: 8 of them (3.2 MiB) cannot fit one page. */
const BIG = 8;
const PADDING = 400 * 1024;

interface Page {
  items: ({ name: string } | string)[];
  links: { rel: string; href: string }[];
}

beforeAll(async () => {
  server = await start();
  for (let i = 0; i < BIG; i++) {
    const created = await admin(server).post(`/org/${ORG}/mk8s`, {
      name: `big-${i}`,
      spec: {
        version: "1.28.4",
        provider: { generic: { location: "aws-eu-central-1", nodePools: [{ name: "general" }] } },
        addOns: { padding: { data: "x".repeat(PADDING) } },
      },
    });
    expect(created.status).toBe(201);
  }
});

afterAll(async () => {
  await server.close();
});

/** Follows next links from `first`, with the bytes of each answer's items. */
async function pages(first: { status: number; body: unknown; raw: string }): Promise<{ page: Page; bytes: number }[]> {
  const out: { page: Page; bytes: number }[] = [];
  let answer = first;
  for (let guard = 0; guard < 50; guard++) {
    expect(answer.status).toBe(200);
    const page = answer.body as Page;
    out.push({ page, bytes: Buffer.byteLength(JSON.stringify(page.items), "utf8") });
    const next = page.links.find((l) => l.rel === "next")?.href;
    if (next === undefined) return out;
    answer = await raw("GET", next);
  }
  throw new Error("more than 50 pages");
}

async function raw(method: "GET" | "POST", url: string, body?: unknown) {
  const response = await server.app.inject({
    method,
    url,
    headers: { authorization: bearer(ADMIN_KEY), "content-type": "application/json" },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: response.statusCode, body: response.json<unknown>(), raw: response.body };
}

const names = (all: { page: Page }[]) =>
  all.flatMap(({ page }) => page.items.map((item) => (typeof item === "string" ? item : item.name)));

describe("pages bounded in bytes", () => {
  it("the bound leaves room for a whole record: a page always holds at least one", () => {
    expect(MAX_PAGE_BYTES).toBeGreaterThanOrEqual(2 * MAX_RECORD_BYTES);
  });

  it("a list of large records comes in pages of at most MAX_PAGE_BYTES, each record once", async () => {
    const all = await pages(await raw("GET", `/org/${ORG}/mk8s`));
    expect(all.length).toBeGreaterThan(1);
    for (const { bytes } of all) expect(bytes).toBeLessThanOrEqual(MAX_PAGE_BYTES);
    const seen = names(all);
    expect(seen).toHaveLength(new Set(seen).size);
    expect(seen.sort()).toEqual([
      "big-0",
      "big-1",
      "big-2",
      "big-3",
      "big-4",
      "big-5",
      "big-6",
      "big-7",
      "cloud",
      "edge",
      "metal",
    ]);
  });

  it("a -query of them too, sorted, with GET next links", async () => {
    const query = { kind: "mk8s", spec: { match: "all", sort: { by: "name", order: "desc" } } };
    const all = await pages(await raw("POST", `/org/${ORG}/mk8s/-query`, query));
    expect(all.length).toBeGreaterThan(1);
    for (const { bytes } of all) expect(bytes).toBeLessThanOrEqual(MAX_PAGE_BYTES);
    expect(names(all)).toEqual([
      "metal",
      "edge",
      "cloud",
      "big-7",
      "big-6",
      "big-5",
      "big-4",
      "big-3",
      "big-2",
      "big-1",
      "big-0",
    ]);
  });

  it("a -query fetching links is bounded by the links' size: one page", async () => {
    const all = await pages(await raw("POST", `/org/${ORG}/mk8s/-query`, { kind: "mk8s", fetch: "links" }));
    expect(all).toHaveLength(1);
    expect(names(all)).toHaveLength(BIG + 3);
  });

  it("small records still come 100 to a page", async () => {
    for (let i = 0; i < 120; i++) {
      expect((await admin(server).post(`/org/${ORG}/user`, { email: `u${i}@example.com` })).status).toBe(201);
    }
    const first = await call(server, "GET", `/org/${ORG}/user`, { auth: bearer(ADMIN_KEY) });
    expect((first.body as Page).items).toHaveLength(100);
  });
});

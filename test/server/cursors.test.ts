// Every cursor the OpenAPI document allows is one the server accepts, and anything else is a 400 naming `cursor`,
// never a 500: a list cursor is only a position (every value of its pattern is one); a query cursor is the JSON
// {query, after} the document describes (a content parameter), held to every rule of a POST body.
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiFailure } from "../../server/errors.js";
import { CursorCodec, LIST_CURSOR_PATTERN } from "../../server/domain/paging.js";
import type { RunningServer } from "../../server/index.js";
import { admin, ORG, start } from "./helpers.js";

let server: RunningServer;
beforeAll(async () => {
  server = await start({ pageSize: 2 });
  for (const name of ["c-a", "c-b", "c-c", "c-d", "c-e"]) {
    expect((await admin(server).post(`/org/${ORG}/group`, { name })).status).toBe(201);
  }
});
afterAll(async () => {
  await server.close();
});

/** A cursor document whose query nests `levels` arrays deep, as JSON text (too deep for JSON.stringify here). */
const deepText = (levels: number) =>
  `{"query":{"spec":{"terms":[]},"context":{"x":${"[".repeat(levels)}${"]".repeat(levels)}}},"after":{"scope":"","name":""}}`;
const queryPath = `/org/${ORG}/group/-query`;
const continueWith = (cursor: string) => admin(server).get(`${queryPath}?cursor=${encodeURIComponent(cursor)}`);

function cursorIssue(body: unknown): { path: string; message: string } | undefined {
  return (body as { details?: { issues?: { path: string; message: string }[] } }).details?.issues?.[0];
}

describe("query cursors", () => {
  it("a cursor carrying a query 4,500 levels deep is a 400 naming cursor and the depth, not a 500", async () => {
    const answer = await continueWith(deepText(4_500));
    expect(answer.status).toBe(400);
    expect(cursorIssue(answer.body)).toMatchObject({ path: "cursor", message: expect.stringContaining("64 levels") });
  });

  it("a cursor carrying __proto__ is a 400 naming cursor and pollutes nothing", async () => {
    const answer = await continueWith('{"query":{"__proto__":{"polluted":true}},"after":{"scope":"","name":""}}');
    expect(answer.status).toBe(400);
    expect(cursorIssue(answer.body)).toMatchObject({ path: "cursor", message: expect.stringContaining("reserved") });
    // Spelled with escapes, the text never holds "proto"; its key does.
    const escaped = await continueWith(
      '{"query":{"\\u005f_\\u0070roto__":{"polluted":true}},"after":{"scope":"","name":""}}',
    );
    expect(cursorIssue(escaped.body)).toMatchObject({ path: "cursor", message: expect.stringContaining("reserved") });
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("garbage (not JSON, the old signed format, wrong shapes) is a 400 naming cursor", async () => {
    for (const text of [
      "not json",
      "eyJxdWVyeSI6e319.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      "[]",
      '{"query":"x","after":{"scope":"","name":""}}',
      '{"after":{"scope":1,"name":""}}',
      '{"after":{"scope":"","name":"","key":{"a":1}}}',
      '{"after":{"scope":"","name":""},"extra":1}',
      `{"after":{"scope":"","name":"${"n".repeat(1025)}"}}`,
    ]) {
      const answer = await continueWith(text);
      expect(answer.status, text).toBe(400);
      expect(cursorIssue(answer.body)?.path, text).toBe("cursor");
    }
  });

  it("a query the cursor carries is held to the query's rules like a POST body (400 naming the field)", async () => {
    const answer = await continueWith(
      JSON.stringify({
        query: { spec: { terms: [{ property: "name", op: "=~", value: "(" }] } },
        after: { scope: "", name: "" },
      }),
    );
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain("spec.terms.0.value");
  });

  it("a next link continues the query; an edited cursor is just another query and position", async () => {
    const first = await admin(server).post(queryPath, {
      spec: { terms: [{ property: "name", op: "~", value: "c-*" }] },
    });
    expect(first.status).toBe(200);
    const next = (first.body as { links: { rel: string; href: string }[] }).links.find((l) => l.rel === "next")!.href;
    const second = await admin(server).get(next);
    expect(second.status).toBe(200);
    expect((second.body as { items: { name: string }[] }).items.map((g) => g.name)).toEqual(["c-c", "c-d"]);
    const cursor = JSON.parse(new URL(next, server.url).searchParams.get("cursor")!) as {
      query: object;
      after: { scope: string; name: string };
    };
    expect(cursor.after).toEqual({ scope: "", name: "c-b" });
    // Another position: a name no item has.
    const moved = await continueWith(JSON.stringify({ ...cursor, after: { scope: "", name: "c-cc" } }));
    expect(moved.status).toBe(200);
    expect((moved.body as { items: { name: string }[] }).items.map((g) => g.name)).toEqual(["c-d", "c-e"]);
  });

  it("a sorted query continues after the last item's sort key", async () => {
    const first = await admin(server).post(queryPath, {
      spec: { terms: [{ property: "name", op: "~", value: "c-*" }], sort: { by: "name", order: "desc" } },
    });
    const names: string[] = (first.body as { items: { name: string }[] }).items.map((g) => g.name);
    let next = (first.body as { links: { rel: string; href: string }[] }).links.find((l) => l.rel === "next")?.href;
    while (next !== undefined) {
      const page = await admin(server).get(next);
      expect(page.status).toBe(200);
      const body = page.body as { items: { name: string }[]; links: { rel: string; href: string }[] };
      names.push(...body.items.map((g) => g.name));
      next = body.links.find((l) => l.rel === "next")?.href;
    }
    expect(names).toEqual(["c-e", "c-d", "c-c", "c-b", "c-a"]);
  });

  it("every cursor the document's schema accepts (sampled) is accepted: 200", async () => {
    const doc = (await admin(server).get("/openapi.json")).body as {
      paths: Record<
        string,
        Record<string, { parameters: { name: string; content?: Record<string, { schema: object }> }[] }>
      >;
      components: { schemas: Record<string, object> };
    };
    const param = doc.paths["/org/{org}/group/-query"]!["get"]!.parameters.find((p) => p.name === "cursor")!;
    const schema = param.content!["application/json"]!.schema;
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: "doc", components: doc.components });
    const valid = ajv.compile({ $ref: `doc#${String((schema as { $ref: string }).$ref).slice(1)}` });
    const samples: unknown[] = [
      { after: { scope: "", name: "" } },
      { after: { scope: "x", name: "\u0000zz", key: null } },
      { query: {}, after: { scope: "", name: "c-c", key: 3.5 } },
      { query: { spec: { sort: { by: "name" } } }, after: { scope: "", name: "", key: true } },
      {
        query: { kind: "group", fetch: "links", spec: { match: "none", terms: [] } },
        after: { scope: "q", name: "é" },
      },
    ];
    for (const sample of samples) {
      expect(valid(sample), JSON.stringify(sample)).toBe(true);
      const answer = await continueWith(JSON.stringify(sample));
      expect(answer.status, JSON.stringify(sample)).toBe(200);
    }
  });

  it("the codec round-trips a position and turns a non-scalar sort key into its JSON text", () => {
    const codec = new CursorCodec();
    expect(codec.readQuery(codec.query({ spec: {} }, { scope: "g", name: "x", key: 2 }))).toEqual({
      query: { spec: {} },
      after: { scope: "g", name: "x", key: 2 },
    });
    expect(codec.readQuery(codec.query({}, { scope: "", name: "x", key: { a: [1] } })).after.key).toBe('{"a":[1]}');
    let failure: unknown;
    try {
      codec.readQuery("{");
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(ApiFailure);
  });
});

describe("list cursors", () => {
  it("every value of the documented pattern is a position the server accepts", async () => {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const samples = [
      "",
      "A",
      "_-",
      ...Array.from({ length: 40 }, () =>
        Array.from({ length: Math.floor(random() * 60) }, () => alphabet[Math.floor(random() * 64)]).join(""),
      ),
    ];
    for (const cursor of samples) {
      expect(LIST_CURSOR_PATTERN.test(cursor)).toBe(true);
      const answer = await admin(server).get(`/org/${ORG}/group?cursor=${cursor}`);
      expect(answer.status, cursor).toBe(200);
    }
  });

  it("a next link continues the list where the previous page ended", async () => {
    const names: string[] = [];
    let url: string | undefined = `/org/${ORG}/group`;
    while (url !== undefined) {
      const page = await admin(server).get(url);
      expect(page.status).toBe(200);
      const body = page.body as { items: { name: string }[]; links: { rel: string; href: string }[] };
      names.push(...body.items.map((g) => g.name));
      url = body.links.find((l) => l.rel === "next")?.href;
    }
    expect(names.filter((n) => n.startsWith("c-"))).toEqual(["c-a", "c-b", "c-c", "c-d", "c-e"]);
    expect(new Set(names).size).toBe(names.length);
  });
});

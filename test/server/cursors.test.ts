// Forged cursors cannot bypass the body checks nor produce a 500: a query cursor (it carries the query) is signed
// with a per-server secret and refused unsigned, and a signed payload is still held to the body rules; a list cursor
// is only a position, so every value of its documented pattern is accepted.
import { createHmac } from "node:crypto";
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

const b64 = (value: unknown) => b64Text(JSON.stringify(value));
const b64Text = (text: string) => Buffer.from(text, "utf8").toString("base64url");
/** A cursor document whose query nests `levels` arrays deep, as JSON text (too deep for JSON.stringify here). */
const deepText = (levels: number) =>
  `{"query":{"spec":{"terms":[]},"context":{"x":${"[".repeat(levels)}${"]".repeat(levels)}}},"after":{"scope":"","name":""}}`;
const queryPath = `/org/${ORG}/group/-query`;

function cursorIssue(body: unknown): unknown {
  return (body as { details?: { issues?: { path: string }[] } }).details?.issues?.[0]?.path;
}

describe("query cursors", () => {
  it("a forged cursor (the old unsigned format) carrying a query 4,500 levels deep is a 400 naming cursor, not a 500", async () => {
    const forged = b64Text(deepText(4_500));
    const answer = await admin(server).get(`${queryPath}?cursor=${forged}`);
    expect(answer.status).toBe(400);
    expect(cursorIssue(answer.body)).toBe("cursor");
  });

  it("a forged cursor carrying __proto__ is a 400 naming cursor", async () => {
    const forged = `${b64({ query: { ["__proto__"]: { polluted: true } }, after: { scope: "", name: "" } }).replace(/=+$/, "")}.${"A".repeat(43)}`;
    const answer = await admin(server).get(`${queryPath}?cursor=${forged}`);
    expect(answer.status).toBe(400);
    expect(cursorIssue(answer.body)).toBe("cursor");
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("a next link the server issued continues the query; the same link with its payload changed is a 400", async () => {
    const first = await admin(server).post(queryPath, {
      spec: { terms: [{ property: "name", op: "~", value: "c-*" }] },
    });
    expect(first.status).toBe(200);
    const next = (first.body as { links: { rel: string; href: string }[] }).links.find((l) => l.rel === "next")!.href;
    const second = await admin(server).get(next);
    expect(second.status).toBe(200);
    expect((second.body as { items: { name: string }[] }).items.map((g) => g.name)).toEqual(["c-c", "c-d"]);
    const cursor = new URL(next, server.url).searchParams.get("cursor")!;
    const [payload, signature] = cursor.split(".") as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { query: object };
    const tampered = `${b64({ ...decoded, query: { spec: { terms: [] } } })}.${signature}`;
    const answer = await admin(server).get(`${queryPath}?cursor=${tampered}`);
    expect(answer.status).toBe(400);
    expect(cursorIssue(answer.body)).toBe("cursor");
  });

  it("a payload signed with the right secret is still held to the body rules (depth, reserved keys)", () => {
    const secret = Buffer.alloc(32, 7);
    const codec = new CursorCodec(secret);
    const signed = (doc: unknown) => {
      const payload = typeof doc === "string" ? b64Text(doc) : b64(doc);
      return `${payload}.${createHmac("sha256", secret).update(payload).digest("base64url")}`;
    };
    const after = { scope: "", name: "x" };
    expect(codec.readQuery(signed({ query: { spec: {} }, after }))).toEqual({ query: { spec: {} }, after });
    for (const doc of [
      deepText(4_500),
      { query: JSON.parse('{"__proto__": {"a": 1}}') as unknown, after },
      { query: "not an object", after },
      { query: {}, after: { scope: 1 } },
    ]) {
      let failure: unknown;
      try {
        codec.readQuery(signed(doc));
      } catch (error) {
        failure = error;
      }
      expect(failure).toBeInstanceOf(ApiFailure);
      expect((failure as ApiFailure).status).toBe(400);
    }
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

// Records cannot grow without bound: the per-body limits (50 tags, tag and description sizes, query terms) hold for
// the record as stored after any sequence of PATCH merges, and a stored record has a maximum size; each refusal is a
// 400 naming the field, and the record is left as it was.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_QUERY_TERMS } from "../../api/schemas/query.js";
import { TAGS_MAX } from "../../api/schemas/common.js";
import type { RunningServer } from "../../server/index.js";
import { MAX_RECORD_BYTES } from "../../server/domain/limits.js";
import { admin, ORG, start } from "./helpers.js";

let server: RunningServer;
beforeAll(async () => {
  server = await start();
});
afterAll(async () => {
  await server.close();
});

const tagsNamed = (from: number, count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`t${from + i}`, "v"]));

describe("stored record limits after a merge", () => {
  it("refuses the PATCH that would give a record a 51st tag, and keeps the record as it was", async () => {
    expect((await admin(server).post(`/org/${ORG}/group`, { name: "tagged", tags: tagsNamed(0, 45) })).status).toBe(
      201,
    );
    const first = await admin(server).patch(`/org/${ORG}/group/tagged`, { tags: tagsNamed(45, 5) });
    expect(first.status).toBe(200);
    expect(Object.keys((first.body as { tags: object }).tags)).toHaveLength(TAGS_MAX);
    const over = await admin(server).patch(`/org/${ORG}/group/tagged`, { tags: tagsNamed(50, 1) });
    expect(over.status).toBe(409);
    expect((over.body as { details: { issues: unknown[] } }).details.issues).toEqual([
      { path: "tags", message: `at most ${TAGS_MAX} tags are allowed` },
    ]);
    const stored = await admin(server).get(`/org/${ORG}/group/tagged`);
    expect(Object.keys((stored.body as { tags: object }).tags)).toHaveLength(TAGS_MAX);
    expect((stored.body as { version: number }).version).toBe((first.body as { version: number }).version);
  });

  it("20 PATCHes of 50 new tags each leave the record at its first 50 tags", async () => {
    expect((await admin(server).post(`/org/${ORG}/group`, { name: "grower" })).status).toBe(201);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      statuses.push((await admin(server).patch(`/org/${ORG}/group/grower`, { tags: tagsNamed(i * 50, 50) })).status);
    }
    expect(statuses).toEqual([200, ...Array.from({ length: 19 }, () => 409)]);
    const stored = await admin(server).get(`/org/${ORG}/group/grower`);
    expect(Object.keys((stored.body as { tags: object }).tags)).toEqual(Object.keys(tagsNamed(0, 50)));
  });

  it("tags the server sets on a builtin location do not count: 50 own tags are accepted there", async () => {
    const listed = await admin(server).get(`/org/${ORG}/location`);
    const builtin = (listed.body as { items: { name: string; origin: string; tags: object }[] }).items.find(
      (l) => l.origin === "builtin" && Object.keys(l.tags).length > 0,
    );
    expect(builtin).toBeDefined();
    const patched = await admin(server).patch(`/org/${ORG}/location/${builtin!.name}`, { tags: tagsNamed(0, 50) });
    expect(patched.status).toBe(200);
    const count = Object.keys((patched.body as { tags: object }).tags).length;
    expect(count).toBe(50 + Object.keys(builtin!.tags).length);
  });

  it("refuses $append/terms that would give a stored memberQuery more terms than a query may have", async () => {
    const terms = Array.from({ length: MAX_QUERY_TERMS }, (_, i) => ({ property: `tags.t${i}`, value: "v" }));
    const created = await admin(server).post(`/org/${ORG}/group`, {
      name: "queried",
      memberQuery: { spec: { match: "any", terms } },
    });
    expect(created.status).toBe(201);
    const over = await admin(server).patch(`/org/${ORG}/group/queried`, {
      memberQuery: { spec: { "$append/terms": [{ property: "tags.extra", value: "v" }] } },
    });
    expect(over.status).toBe(409);
    expect((over.body as { details: { issues: unknown[] } }).details.issues).toEqual([
      {
        path: "memberQuery.spec.terms",
        message: `a query may have at most ${MAX_QUERY_TERMS} terms (this one has ${MAX_QUERY_TERMS + 1})`,
      },
    ]);
  });

  it("refuses the PATCH that would make a record larger than the limit, naming the largest field", async () => {
    const created = await admin(server).post(`/org/${ORG}/cloudaccount`, {
      name: "bulky",
      provider: "aws",
      data: { roleArn: "arn:aws:iam::1:role/cpln" },
    });
    expect(created.status).toBe(201);
    const chunk = "x".repeat(200 * 1024);
    expect((await admin(server).patch(`/org/${ORG}/cloudaccount/bulky`, { data: { a: chunk } })).status).toBe(200);
    expect((await admin(server).patch(`/org/${ORG}/cloudaccount/bulky`, { data: { b: chunk } })).status).toBe(200);
    const over = await admin(server).patch(`/org/${ORG}/cloudaccount/bulky`, { data: { c: chunk } });
    expect(over.status).toBe(409);
    const [issue] = (over.body as { details: { issues: { path: string; message: string }[] } }).details.issues;
    expect(issue?.path).toBe("data");
    expect(issue?.message).toMatch(
      new RegExp(`^the record would be \\d+ bytes, more than the limit of ${MAX_RECORD_BYTES} \\(this field`),
    );
    const stored = await admin(server).get(`/org/${ORG}/cloudaccount/bulky`);
    expect(Object.keys((stored.body as { data: object }).data).sort()).toEqual(["a", "b", "roleArn"]);
  });
});

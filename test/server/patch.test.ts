/**
 * PATCH semantics against the server: every directive, nesting, key rules, order of application, the 400s naming
 * the offending path, stale versions (409), builtin objects (403) and immutable fields (400).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { ADMIN_KEY, ANY_TIME, ORG, admin, apiError, bearer, call, field, start, type Answer } from "./helpers.js";

let server: RunningServer;
const policyUrl = `/org/${ORG}/policy/pp`;
const g = (name: string) => `/org/${ORG}/group/${name}`;
const ca = (name: string) => `/org/${ORG}/cloudaccount/${name}`;

beforeAll(async () => {
  server = await start();
  for (const name of ["ga", "gb", "gc"]) {
    expect((await admin(server).post(`/org/${ORG}/group`, { name })).status).toBe(201);
  }
});

afterAll(async () => {
  await server.close();
});

/** A fresh policy for each test. */
beforeEach(async () => {
  await admin(server).delete(policyUrl);
  const created = await admin(server).post(`/org/${ORG}/policy`, {
    name: "pp",
    description: "patch target",
    tags: { env: "dev", team: "core" },
    targetKind: "cloudaccount",
    targetLinks: ["//cloudaccount/aws-prod", "//cloudaccount/gcp-dev"],
    targetQuery: {
      spec: {
        match: "any",
        terms: [
          { property: "provider", value: "aws" },
          { tag: "env", value: "dev" },
        ],
      },
    },
    bindings: [
      { permissions: ["view"], principalLinks: ["//group/ga", "//group/gb"] },
      { permissions: ["edit", "browse"], principalLinks: ["//group/gc"] },
    ],
  });
  expect(created.status).toBe(201);
});

async function patch(body: unknown): Promise<Answer> {
  return admin(server).patch(policyUrl, body);
}

/** Fields of the policy the tests look at. */
function policyFields(answer: Answer) {
  expect(answer.status).toBe(200);
  const body = answer.body as Record<string, unknown>;
  return {
    description: body["description"],
    tags: body["tags"],
    targetLinks: body["targetLinks"],
    targetQuery: body["targetQuery"],
    target: body["target"],
    bindings: body["bindings"],
    version: body["version"],
  };
}

const original = {
  description: "patch target",
  tags: { env: "dev", team: "core" },
  targetLinks: [ca("aws-prod"), ca("gcp-dev")],
  targetQuery: {
    spec: {
      match: "any",
      terms: [
        { property: "provider", value: "aws" },
        { tag: "env", value: "dev" },
      ],
    },
  },
  target: undefined,
  bindings: [
    { permissions: ["view"], principalLinks: [g("ga"), g("gb")] },
    { permissions: ["edit", "browse"], principalLinks: [g("gc")] },
  ],
  version: 1,
};

describe("plain fields merge", () => {
  it("objects deep-merge, null removes a key, arrays replace wholesale", async () => {
    const answer = await patch({ tags: { team: null, owner: "me" }, targetLinks: [ca("gcp-dev")] });
    expect(policyFields(answer)).toEqual({
      ...original,
      tags: { env: "dev", owner: "me" },
      targetLinks: [ca("gcp-dev")],
      version: 2,
    });
  });

  it("a patch that changes nothing keeps version and lastModified", async () => {
    const before = await admin(server).get(policyUrl);
    const same = await patch({ description: "patch target", tags: { env: "dev" }, "$append/targetLinks": [] });
    expect(same.body).toEqual(before.body);
  });
});

describe("each directive", () => {
  it("$drop removes fields", async () => {
    expect(policyFields(await patch({ $drop: ["targetQuery", "tags"] }))).toEqual({
      ...original,
      tags: undefined,
      targetQuery: undefined,
      version: 2,
    });
  });

  it("$replace/<field> replaces wholesale; null removes it", async () => {
    expect(policyFields(await patch({ "$replace/tags": { only: "this" }, "$replace/targetQuery": null }))).toEqual({
      ...original,
      tags: { only: "this" },
      targetQuery: undefined,
      version: 2,
    });
  });

  it("$append/<array> appends; $drop/ and $retain/ remove by value", async () => {
    expect(
      policyFields(
        await patch({ "$drop/targetLinks": [ca("aws-prod")], "$append/targetLinks": ["//cloudaccount/azure-x"] }),
      ),
    ).toEqual({
      ...original,
      targetLinks: [ca("gcp-dev"), ca("azure-x")],
      version: 2,
    });
    expect(policyFields(await patch({ "$retain/targetLinks": [ca("azure-x")] }))).toEqual({
      ...original,
      targetLinks: [ca("azure-x")],
      version: 3,
    });
  });

  it("$patch/bindings finds the binding by its permission set (any order) and applies nested directives", async () => {
    const answer = await patch({
      "$patch/bindings": [
        {
          permissions: ["browse", "edit"],
          "$append/principalLinks": ["//group/ga"],
          "$drop/principalLinks": [g("gc")],
        },
      ],
    });
    expect(policyFields(answer)).toEqual({
      ...original,
      // The partial's key field merges too: its permission list (same set) is what the binding now holds.
      bindings: [original.bindings[0], { permissions: ["browse", "edit"], principalLinks: [g("ga")] }],
      version: 2,
    });
  });

  it("links in $drop/, $retain/ and $append/ name stored links in either form (//group/x or /org/o/group/x)", async () => {
    // Relative links name the same items as the full links the server stores, at the top level and in $patch/ items.
    const answer = await patch({
      "$drop/targetLinks": ["//cloudaccount/aws-prod"],
      "$patch/bindings": [{ permissions: ["view"], "$drop/principalLinks": ["//group/ga"] }],
    });
    expect(policyFields(answer)).toEqual({
      ...original,
      targetLinks: [ca("gcp-dev")],
      bindings: [{ permissions: ["view"], principalLinks: [g("gb")] }, original.bindings[1]],
      version: 2,
    });
    expect(policyFields(await patch({ "$retain/targetLinks": ["//cloudaccount/gcp-dev"] }))).toEqual(
      policyFields(answer),
    );
    // Appending a member already present in its relative form is the duplicate it is, not a second copy.
    const duplicate = await patch({
      "$patch/bindings": [{ permissions: ["view"], "$append/principalLinks": ["//group/gb"] }],
    });
    expect(duplicate.status).toBe(409);
    const group = await admin(server).patch(g("ga"), { "$append/memberLinks": ["//serviceaccount/controlplane"] });
    expect(group.status).toBe(200);
    const dropped = await admin(server).patch(g("ga"), { "$drop/memberLinks": ["//serviceaccount/controlplane"] });
    expect(field(dropped.body, "memberLinks") ?? []).toEqual([]);
  });

  it("$patch/ on a key that matches nothing appends the item; $drop/bindings removes by key", async () => {
    const answer = await patch({
      "$drop/bindings": ["browse,edit"],
      "$patch/bindings": [{ permissions: ["manage"], principalLinks: ["//group/gb"] }],
    });
    expect(policyFields(answer)).toEqual({
      ...original,
      bindings: [original.bindings[0], { permissions: ["manage"], principalLinks: [g("gb")] }],
      version: 2,
    });
  });

  it("directives nest inside targetQuery.spec: terms keyed by property/tag", async () => {
    const answer = await patch({
      targetQuery: {
        spec: {
          match: "all",
          "$patch/terms": [{ property: "provider", "$replace/value": "gcp" }],
          "$drop/terms": ["tag:env"],
          "$append/terms": [{ property: "name", op: "~", value: "prod" }],
        },
      },
    });
    expect(policyFields(answer)).toEqual({
      ...original,
      targetQuery: {
        spec: {
          match: "all",
          terms: [
            { property: "provider", value: "gcp" },
            { property: "name", op: "~", value: "prod" },
          ],
        },
      },
      version: 2,
    });
  });
});

describe("order of application inside one object", () => {
  it("$drop runs before plain fields, $drop/ before $append/", async () => {
    const answer = await patch({
      description: "new",
      $drop: ["description"],
      "$append/targetLinks": [ca("aws-prod")],
      "$drop/targetLinks": [ca("aws-prod")],
    });
    expect(policyFields(answer)).toEqual({
      ...original,
      description: "new",
      targetLinks: [ca("gcp-dev"), ca("aws-prod")],
      version: 2,
    });
  });

  it("$replace/ runs before the plain merge of the same field", async () => {
    expect(policyFields(await patch({ tags: { extra: 1 }, "$replace/tags": { only: "x" } }))).toEqual({
      ...original,
      tags: { only: "x", extra: 1 },
      version: 2,
    });
  });
});

describe("refusals (400, or 409 where the stored object decides) name the offending path and change nothing", () => {
  const cases: [string, unknown, { path: string; message: unknown }[]][] = [
    ["an unknown field", { color: "red" }, [{ path: "color", message: 'Unknown field "color"' }]],
    [
      "a directive on an unknown field",
      { "$append/colors": ["red"] },
      [{ path: "$append/colors", message: 'Unknown field "$append/colors"' }],
    ],
    [
      "an array directive on a non-array",
      { "$drop/description": ["x"] },
      [{ path: "$drop/description", message: 'Unknown field "$drop/description"' }],
    ],
    [
      "a directive with the wrong value type",
      { "$append/targetLinks": "x" },
      [{ path: "$append/targetLinks", message: expect.any(String) }],
    ],
    [
      "$drop naming a field that cannot be dropped",
      { $drop: ["targetKind"] },
      [{ path: "$drop.0", message: expect.any(String) }],
    ],
  ];
  it.each(cases)("%s", async (_name, body, issues) => {
    const answer = await patch(body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(apiError(400, "BadRequest", expect.any(String), issues));
    expect(field((await admin(server).get(policyUrl)).body, "version")).toBe(1);
  });

  it("$append of an item whose key exists is a 409 (a conflict with the stored array)", async () => {
    const answer = await patch({ "$append/targetLinks": [ca("gcp-dev")] });
    expect(answer.status).toBe(409);
    expect(field(answer.body, "details", "issues")).toEqual([
      { path: "$append/targetLinks[0]", message: expect.stringContaining("already") },
    ]);
  });

  it("a $patch/ that would create a duplicate binding key is a 409", async () => {
    const answer = await patch({
      "$patch/bindings": [
        { permissions: ["view"], "$drop/permissions": ["view"], "$append/permissions": ["edit", "browse"] },
      ],
    });
    expect(answer.status).toBe(409);
    expect(field<string>(answer.body, "details", "issues", 0, "path")).toMatch(/^\$patch\/bindings\[0\]/);
    expect(field((await admin(server).get(policyUrl)).body, "bindings")).toEqual(original.bindings);
  });
});

describe("versions, builtins and immutable fields", () => {
  it("the current version is accepted and a stale one is 409 VersionConflict", async () => {
    expect((await patch({ version: 1, description: "v2" })).status).toBe(200);
    const stale = await patch({ version: 1, description: "v3" });
    expect(stale.body).toEqual(
      apiError(409, "VersionConflict", "version 1 is not current (the object is at version 2)"),
    );
    expect(field((await admin(server).get(policyUrl)).body, "description")).toBe("v2");
  });

  it("id and name must match when echoed (409 otherwise: they contradict the object)", async () => {
    const answer = await patch({ name: "other", id: "00000000-0000-4000-8000-000000000000" });
    expect(answer.status).toBe(409);
    expect(field<{ path: string }[]>(answer.body, "details", "issues").map((i) => i.path)).toEqual(["id", "name"]);
  });

  it("builtin policies, the builtin service account and the cpln audit context are 403", async () => {
    expect((await admin(server).patch(`/org/${ORG}/policy/viewers-group`, { description: "x" })).body).toEqual(
      apiError(403, "Forbidden", "The builtin policy viewers-group cannot be edited"),
    );
    expect((await admin(server).patch(`/org/${ORG}/serviceaccount/controlplane`, { description: "x" })).body).toEqual(
      apiError(403, "Forbidden", "The builtin service account controlplane cannot be edited"),
    );
    expect((await admin(server).patch(`/org/${ORG}/auditctx/cpln`, { description: "x" })).body).toEqual(
      apiError(403, "Forbidden", "The builtin audit context cpln cannot be edited"),
    );
  });

  it("volume set: $replace/spec resending the immutable fields is fine; changing them is 400", async () => {
    const url = `/org/${ORG}/gvc/default/volumeset/vol`;
    const spec = { initialCapacity: 10, performanceClass: "general-purpose-ssd", fileSystemType: "xfs" };
    expect((await admin(server).post(`/org/${ORG}/gvc/default/volumeset`, { name: "vol", spec })).status).toBe(201);
    const grown = await admin(server).patch(url, {
      "$replace/spec": { ...spec, initialCapacity: 50, snapshots: { retentionDuration: "7d", schedule: "0 * * * *" } },
    });
    expect(grown.status).toBe(200);
    expect(field(grown.body, "spec")).toEqual({
      ...spec,
      initialCapacity: 50,
      snapshots: { retentionDuration: "7d", schedule: "0 * * * *" },
    });
    expect(field(grown.body, "lastModified")).toEqual(ANY_TIME);
    const changed = await admin(server).patch(url, {
      spec: { performanceClass: "high-throughput-ssd", fileSystemType: "ext4" },
    });
    expect(changed.status).toBe(409);
    expect(field(changed.body, "details", "issues")).toEqual([
      { path: "spec.performanceClass", message: "is immutable: it cannot change after the object is created" },
      { path: "spec.fileSystemType", message: "is immutable: it cannot change after the object is created" },
    ]);
    const bad = await admin(server).patch(url, { spec: { snapshots: { retentionDuration: "7 days" } } });
    expect(bad.status).toBe(400);
    expect(field(bad.body, "details", "issues", 0, "path")).toBe("spec.snapshots.retentionDuration");
  });

  it("service accounts: a PATCH cannot add keys, $drop/keys removes one", async () => {
    expect((await admin(server).post(`/org/${ORG}/serviceaccount`, { name: "robot" })).status).toBe(201);
    const k1 = field(
      (await admin(server).post(`/org/${ORG}/serviceaccount/robot/-addKey`, { description: "one" })).body,
      "name",
    );
    const k2 = field(
      (await admin(server).post(`/org/${ORG}/serviceaccount/robot/-addKey`, { description: "two" })).body,
      "name",
    );
    const dropped = await admin(server).patch(`/org/${ORG}/serviceaccount/robot`, { "$drop/keys": [k1] });
    expect(field(dropped.body, "keys")).toEqual([{ name: k2, created: ANY_TIME, description: "two" }]);
    const sneaky = await admin(server).patch(`/org/${ORG}/serviceaccount/robot`, {
      keys: [{ name: "forged", created: "2020-01-01T00:00:00.000Z" }],
    });
    expect(sneaky.status).toBe(200);
    expect(field(sneaky.body, "keys")).toEqual([{ name: k2, created: ANY_TIME, description: "two" }]);
  });
});

describe("PUT replaces the whole object", () => {
  it("sets every replaceable field from the body, removes the ones left out, and bumps the version", async () => {
    const read = await admin(server).get(policyUrl);
    const body = { ...(read.body as Record<string, unknown>) };
    delete body["targetQuery"];
    delete body["tags"];
    body["bindings"] = [{ permissions: ["manage"], principalLinks: ["//group/ga"] }];
    const put = await call(server, "PUT", policyUrl, { auth: bearer(ADMIN_KEY), body });
    expect(put.status).toBe(200);
    expect(policyFields(put)).toEqual({
      ...original,
      tags: {},
      targetQuery: undefined,
      bindings: [{ permissions: ["manage"], principalLinks: [g("ga")] }],
      version: 2,
    });
  });

  it("409 for a stale version or an immutable change (naming the field), 400 naming an invalid value", async () => {
    const read = (await admin(server).get(policyUrl)).body as Record<string, unknown>;
    const auth = bearer(ADMIN_KEY);
    expect((await call(server, "PUT", policyUrl, { auth, body: { ...read, version: 0 } })).status).toBe(409);
    const kind = await call(server, "PUT", policyUrl, { auth, body: { ...read, targetKind: "group" } });
    expect(kind.status).toBe(409);
    expect(field(kind.body, "details", "issues")).toEqual([
      { path: "targetKind", message: "is immutable: it cannot change after the object is created" },
    ]);
    const invalid = await call(server, "PUT", policyUrl, { auth, body: { ...read, targetLinks: "//cloudaccount/x" } });
    expect(invalid.status).toBe(400);
    expect(field(invalid.body, "details", "issues", 0, "path")).toBe("targetLinks");
    expect(field((await admin(server).get(policyUrl)).body, "version")).toBe(1);
  });
});

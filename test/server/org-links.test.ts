// Links in a request body must name objects of the request's org (issue 39 item 6): while serving org `acme`, a
// policy whose targetLinks named `/org/other-org/...` was stored (201). Every link field of every body (create, PATCH,
// PUT, collection PUT, actions and endpoints) is checked before anything changes: a 400 naming the field and the rule.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { ORG, admin, call, bearer, ADMIN_KEY, start } from "./helpers.js";

let server: RunningServer;

beforeAll(async () => {
  server = await start();
});
afterAll(async () => {
  await server.close();
});

const rule = (org: string) =>
  `links into org '${org}': every link must name an object of org '${ORG}' (the request's org)`;

/** The 400 naming exactly these paths, each with the rule. */
function refused(answer: { status: number; body: unknown }, paths: string[], org = "other-org") {
  expect(answer.status).toBe(400);
  expect(answer.body).toMatchObject({
    status: 400,
    code: "BadRequest",
    details: { issues: paths.map((path) => ({ path, message: rule(org) })) },
  });
}

describe("links into another org", () => {
  it("a policy's targetLinks and principalLinks: 400 naming each, nothing stored", async () => {
    const answer = await admin(server).post(`/org/${ORG}/policy`, {
      name: "cross-org",
      targetKind: "secret",
      targetLinks: [`/org/${ORG}/secret/mine`, "/org/other-org/secret/secret-01"],
      bindings: [{ permissions: ["view"], principalLinks: ["//group/viewers", "/org/other-org/group/admins"] }],
    });
    refused(answer, ["targetLinks.1", "bindings.0.principalLinks.1"]);
    expect((await admin(server).get(`/org/${ORG}/policy/cross-org`)).status).toBe(404);
  });

  it("the same policy with links of its own org, full or relative, is stored with full links", async () => {
    const answer = await admin(server).post(`/org/${ORG}/policy`, {
      name: "in-org",
      targetKind: "secret",
      targetLinks: [`/org/${ORG}/secret/mine`, "//secret/yours"],
      bindings: [{ permissions: ["view"], principalLinks: ["//group/viewers", `/org/${ORG}/group/superusers`] }],
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ targetLinks: [`/org/${ORG}/secret/mine`, `/org/${ORG}/secret/yours`] });
  });

  it("PATCH (directives too), item PUT and collection PUT of a policy: 400 naming the field; the policy unchanged", async () => {
    const before = (await admin(server).get(`/org/${ORG}/policy/in-org`)).body;
    refused(await admin(server).patch(`/org/${ORG}/policy/in-org`, { targetLinks: ["/org/other-org/secret/s"] }), [
      "targetLinks.0",
    ]);
    refused(
      await admin(server).patch(`/org/${ORG}/policy/in-org`, { "$append/targetLinks": ["/org/evil/secret/s"] }),
      ["$append/targetLinks.0"],
      "evil",
    );
    refused(
      await admin(server).patch(`/org/${ORG}/policy/in-org`, {
        "$append/bindings": [{ permissions: ["reveal"], principalLinks: ["/org/other-org/user/mallory@example.com"] }],
      }),
      ["$append/bindings.0.principalLinks.0"],
    );
    const manifest = { name: "in-org", targetKind: "secret", targetLinks: ["/org/other-org/secret/s"] };
    refused(await call(server, "PUT", `/org/${ORG}/policy/in-org`, { auth: bearer(ADMIN_KEY), body: manifest }), [
      "targetLinks.0",
    ]);
    refused(await call(server, "PUT", `/org/${ORG}/policy`, { auth: bearer(ADMIN_KEY), body: manifest }), [
      "targetLinks.0",
    ]);
    // The collection PUT of a new policy takes the create path: refused the same way, nothing created.
    refused(
      await call(server, "PUT", `/org/${ORG}/policy`, {
        auth: bearer(ADMIN_KEY),
        body: { ...manifest, name: "new-by-put" },
      }),
      ["targetLinks.0"],
    );
    expect((await admin(server).get(`/org/${ORG}/policy/new-by-put`)).status).toBe(404);
    expect((await admin(server).get(`/org/${ORG}/policy/in-org`)).body).toEqual(before);
  });

  it("a group's memberLinks, a cloud account's data.secretLink and an invitation's groupLink", async () => {
    refused(
      await admin(server).post(`/org/${ORG}/group`, { name: "mixed", memberLinks: ["/org/other-org/user/a@b.c"] }),
      ["memberLinks.0"],
    );
    expect((await admin(server).get(`/org/${ORG}/group/mixed`)).status).toBe(404);
    refused(
      await admin(server).patch(`/org/${ORG}/group/viewers`, {
        "$append/memberLinks": ["/org/other-org/serviceaccount/robot"],
      }),
      ["$append/memberLinks.0"],
    );
    refused(
      await admin(server).post(`/org/${ORG}/cloudaccount`, {
        name: "azure-x",
        provider: "azure",
        data: { secretLink: "/org/other-org/secret/azure" },
      }),
      ["data.secretLink"],
    );
    refused(
      await admin(server).post(`/org/${ORG}/user/-invite`, {
        emails: ["new@example.com"],
        groupLink: "/org/other-org/group/superusers",
      }),
      ["groupLink"],
    );
    const viewers = (await admin(server).get(`/org/${ORG}/group/viewers`)).body as { memberLinks?: string[] };
    expect(viewers.memberLinks ?? []).not.toContain("/org/other-org/serviceaccount/robot");
  });
});

describe("the document", () => {
  it("states the rule on every operation whose body is checked, with the pattern of the refusal; not on queries", async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { "x-cpln-rules"?: { rule: string; issue: string }[] }>>;
    };
    const matches = (path: string, method: string) =>
      (doc.paths[path]?.[method]?.["x-cpln-rules"] ?? []).filter((r) => new RegExp(r.issue).test(rule("other-org")));
    for (const [path, method] of [
      ["/org/{org}/policy", "post"],
      ["/org/{org}/policy", "put"],
      ["/org/{org}/policy/{name}", "patch"],
      ["/org/{org}/policy/{name}", "put"],
      ["/org/{org}/group", "post"],
      ["/org/{org}/user/-invite", "post"],
    ] as const) {
      expect([path, method, matches(path, method).length]).toEqual([path, method, 1]);
    }
    expect(matches("/org/{org}/policy/-query", "post")).toEqual([]);
  });

  it("link patterns of request schemas name the served org, so a generator draws no link the server refuses", async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      components: { schemas: Record<string, { properties?: Record<string, { items?: { pattern?: string } }> }> };
    };
    const append = doc.components.schemas["PolicyPatch"]?.properties?.["$append/targetLinks"]?.items?.pattern ?? "";
    const pattern = new RegExp(append, "u");
    expect(pattern.test(`/org/${ORG}/secret/x`)).toBe(true);
    expect(pattern.test("//secret/x")).toBe(true);
    expect(pattern.test("/org/other-org/secret/x")).toBe(false);
    const members = doc.components.schemas["GroupCreate"]?.properties?.["memberLinks"]?.items?.pattern ?? "";
    expect(new RegExp(members, "u").test("/org/other-org/user/a@b.c")).toBe(false);
    expect(new RegExp(members, "u").test(`/org/${ORG}/user/a@b.c`)).toBe(true);
    // Response schemas are left as the contract states them.
    expect(JSON.stringify(doc.components.schemas["PolicyCreate"])).not.toContain("/org/[^/]+");
  });
});

/**
 * Issue 39 finding 5: an access report named policies, service accounts and users its caller could not view. Now a
 * caller without the org's `viewAccessReport` sees only the entries whose principal and granting policy it may view;
 * `viewAccessReport` (implied by org `manage`) shows every entry.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { ANY_TIME, ORG, admin, as, bearer, field, serviceAccountWithKey, start } from "./helpers.js";

let server: RunningServer;
let narrow: ReturnType<typeof as>;
let auditor: ReturnType<typeof as>;
const sa = (name: string) => `/org/${ORG}/serviceaccount/${name}`;
const pol = (name: string) => `/org/${ORG}/policy/${name}`;
const HIDDEN_USER = "hidden@example.com";
const REPORT = `/org/${ORG}/group/team/-accessreport`;

interface Entry {
  principalLink: string;
  grantingPolicyLink: string;
  grantedPermissions: string[];
  match: string;
}
type Report = { name: string; bindings: Entry[] }[];

async function policy(body: Record<string, unknown>): Promise<void> {
  expect((await admin(server).post(`/org/${ORG}/policy`, body)).status).toBe(201);
}

beforeAll(async () => {
  server = await start();
  narrow = as(server, bearer(await serviceAccountWithKey(server, "narrow")));
  auditor = as(server, bearer(await serviceAccountWithKey(server, "auditor")));
  await serviceAccountWithKey(server, "secret-sa");
  expect((await admin(server).post(`/org/${ORG}/user`, { email: HIDDEN_USER })).status).toBe(201);
  expect((await admin(server).post(`/org/${ORG}/group`, { name: "team" })).status).toBe(201);
  // narrow: view on the group team, on the policy granting it, and on itself; nothing else.
  await policy({
    name: "narrow-view",
    targetKind: "group",
    targetLinks: ["//group/team"],
    bindings: [{ permissions: ["view"], principalLinks: ["//serviceaccount/narrow", "//serviceaccount/auditor"] }],
  });
  await policy({
    name: "narrow-sees-policy",
    targetKind: "policy",
    targetLinks: ["//policy/narrow-view"],
    bindings: [{ permissions: ["view"], principalLinks: ["//serviceaccount/narrow"] }],
  });
  await policy({
    name: "narrow-sees-self",
    targetKind: "serviceaccount",
    targetLinks: ["//serviceaccount/narrow"],
    bindings: [{ permissions: ["view"], principalLinks: ["//serviceaccount/narrow"] }],
  });
  // What narrow must not learn: who else may edit the group, through which policy.
  await policy({
    name: "hidden-editors",
    targetKind: "group",
    targetLinks: ["//group/team"],
    bindings: [{ permissions: ["edit"], principalLinks: ["//serviceaccount/secret-sa", `//user/${HIDDEN_USER}`] }],
  });
  // auditor: the org's viewAccessReport besides view on the group.
  await policy({
    name: "auditors",
    targetKind: "org",
    target: "all",
    bindings: [{ permissions: ["viewAccessReport"], principalLinks: ["//serviceaccount/auditor"] }],
  });
});

afterAll(async () => {
  await server.close();
});

const linksIn = (report: Report) =>
  new Set(report.flatMap((p) => p.bindings.flatMap((b) => [b.principalLink, b.grantingPolicyLink])));

describe("access report of a group seen by a principal with view on that group only", () => {
  it("names only the principal and policy it may view itself; every permission is still listed", async () => {
    const report = await narrow.get(REPORT);
    expect(report.status).toBe(200);
    const own: Entry = {
      principalLink: sa("narrow"),
      grantingPolicyLink: pol("narrow-view"),
      grantedPermissions: ["view"],
      match: "link",
    };
    expect(report.body).toEqual({
      kind: "accessreport",
      permissions: [
        { name: "create", description: "Create new groups", bindings: [] },
        { name: "delete", description: "Delete a group", bindings: [] },
        { name: "edit", description: "Modify existing groups", bindings: [] },
        { name: "manage", description: "Full access", bindings: [] },
        { name: "view", description: "Read-only view", bindings: [own] },
      ],
      created: ANY_TIME,
      links: [
        { rel: "self", href: REPORT },
        { rel: "target", href: `/org/${ORG}/group/team` },
      ],
    });
  });

  it("the objects left out are exactly those whose own GETs answer 404 to it", async () => {
    const full = field<Report>((await admin(server).get(REPORT)).body, "permissions");
    const shown = linksIn(field<Report>((await narrow.get(REPORT)).body, "permissions"));
    const hidden = [...linksIn(full)].filter((link) => !shown.has(link));
    expect(hidden.sort()).toEqual(
      [
        sa("auditor"),
        sa("controlplane"),
        sa("secret-sa"),
        `/org/${ORG}/user/${HIDDEN_USER}`,
        `/org/${ORG}/group/superusers`,
        `/org/${ORG}/group/viewers`,
        pol("hidden-editors"),
        pol("superusers-group"),
        pol("viewers-group"),
      ].sort(),
    );
    for (const link of hidden) expect([link, (await narrow.get(link)).status]).toEqual([link, 404]);
  });
});

describe("access report seen with the org's viewAccessReport", () => {
  it("names every grant, hidden policies and principals included, as the admin sees it", async () => {
    const seen = await auditor.get(REPORT);
    expect(seen.status).toBe(200);
    const full = await admin(server).get(REPORT);
    expect(field<Report>(seen.body, "permissions")).toEqual(field<Report>(full.body, "permissions"));
    const edit = field<Report>(seen.body, "permissions").find((p) => p.name === "edit");
    expect(edit?.bindings.slice(0, 2)).toEqual([
      {
        principalLink: sa("secret-sa"),
        grantingPolicyLink: pol("hidden-editors"),
        grantedPermissions: ["edit"],
        match: "link",
      },
      {
        principalLink: `/org/${ORG}/user/${HIDDEN_USER}`,
        grantingPolicyLink: pol("hidden-editors"),
        grantedPermissions: ["edit"],
        match: "link",
      },
    ]);
    // viewAccessReport shows reports; it does not make the objects themselves readable.
    expect((await auditor.get(pol("hidden-editors"))).status).toBe(404);
  });

  it("without view on the object the report is a 404 whatever the org grants", async () => {
    expect((await admin(server).post(`/org/${ORG}/group`, { name: "elsewhere" })).status).toBe(201);
    expect((await auditor.get(`/org/${ORG}/group/elsewhere/-accessreport`)).status).toBe(404);
  });
});

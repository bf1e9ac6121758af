/**
 * Access reports: for each permission of the object's kind, in catalog order, one entry per (policy, principal)
 * that grants it, with the binding's granting permissions and how the policy selects the object.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { permissionNames } from "../../api/kinds/index.js";
import type { RunningServer } from "../../server/index.js";
import { ANY_TIME, ORG, admin, field, start } from "./helpers.js";

let server: RunningServer;
const sa = (name: string) => `/org/${ORG}/serviceaccount/${name}`;
const pol = (name: string) => `/org/${ORG}/policy/${name}`;
const group = (name: string) => `/org/${ORG}/group/${name}`;

interface Entry {
  principalLink: string;
  grantingPolicyLink: string;
  grantedPermissions: string[];
  match: string;
}

beforeAll(async () => {
  server = await start();
  for (const name of ["alice", "bob", "carol"]) {
    expect((await admin(server).post(`/org/${ORG}/serviceaccount`, { name })).status).toBe(201);
  }
  const policies = [
    {
      name: "by-link",
      targetKind: "cloudaccount",
      targetLinks: ["//cloudaccount/aws-prod"],
      bindings: [
        { permissions: ["edit"], principalLinks: ["//serviceaccount/alice"] },
        { permissions: ["delete", "view"], principalLinks: ["//serviceaccount/bob", "//group/viewers"] },
      ],
    },
    {
      name: "by-query",
      targetKind: "cloudaccount",
      targetQuery: { spec: { terms: [{ property: "provider", value: "aws" }] } },
      bindings: [{ permissions: ["browse"], principalLinks: ["//serviceaccount/carol"] }],
    },
    {
      name: "other-object",
      targetKind: "cloudaccount",
      targetLinks: ["//cloudaccount/gcp-dev"],
      bindings: [{ permissions: ["manage"], principalLinks: ["//serviceaccount/carol"] }],
    },
    {
      name: "other-kind",
      targetKind: "group",
      target: "all",
      bindings: [{ permissions: ["manage"], principalLinks: ["//serviceaccount/carol"] }],
    },
  ];
  for (const policy of policies) expect((await admin(server).post(`/org/${ORG}/policy`, policy)).status).toBe(201);
});

afterAll(async () => {
  await server.close();
});

function superusers(): Entry[] {
  return [
    {
      principalLink: group("superusers"),
      grantingPolicyLink: pol("superusers-cloudaccount"),
      grantedPermissions: ["manage"],
      match: "all",
    },
    {
      principalLink: sa("controlplane"),
      grantingPolicyLink: pol("superusers-cloudaccount"),
      grantedPermissions: ["manage"],
      match: "all",
    },
  ];
}

describe("access report of a cloud account selected by all, link and query", () => {
  it("lists each grant with its match and granting permissions, permissions in catalog order", async () => {
    const report = await admin(server).get(`/org/${ORG}/cloudaccount/aws-prod/-accessreport`);
    expect(report.status).toBe(200);
    const alice: Entry = {
      principalLink: sa("alice"),
      grantingPolicyLink: pol("by-link"),
      grantedPermissions: ["edit"],
      match: "link",
    };
    const bobDelete: Entry = {
      principalLink: sa("bob"),
      grantingPolicyLink: pol("by-link"),
      grantedPermissions: ["delete"],
      match: "link",
    };
    const viewersDelete: Entry = { ...bobDelete, principalLink: group("viewers") };
    const carolBrowse: Entry = {
      principalLink: sa("carol"),
      grantingPolicyLink: pol("by-query"),
      grantedPermissions: ["browse"],
      match: "query",
    };
    const viewersBuiltin: Entry = {
      principalLink: group("viewers"),
      grantingPolicyLink: pol("viewers-cloudaccount"),
      grantedPermissions: ["view"],
      match: "all",
    };
    // Policies are evaluated in name order: by-link, by-query, superusers-cloudaccount, viewers-cloudaccount.
    expect(report.body).toEqual({
      kind: "accessreport",
      permissions: [
        { name: "browse", description: "Browse account contents", bindings: [alice, carolBrowse, ...superusers()] },
        { name: "create", description: "Create new cloud accounts", bindings: superusers() },
        {
          name: "delete",
          description: "Delete existing cloud accounts",
          bindings: [bobDelete, viewersDelete, ...superusers()],
        },
        { name: "edit", description: "Modify existing cloud accounts", bindings: [alice, ...superusers()] },
        { name: "manage", description: "Full access", bindings: superusers() },
        {
          name: "view",
          description: "Read-only access",
          bindings: [
            alice,
            { ...bobDelete, grantedPermissions: ["view"] },
            { ...viewersDelete, grantedPermissions: ["view"] },
            { ...carolBrowse },
            ...superusers(),
            viewersBuiltin,
          ],
        },
      ],
      created: ANY_TIME,
      links: [
        { rel: "self", href: `/org/${ORG}/cloudaccount/aws-prod/-accessreport` },
        { rel: "target", href: `/org/${ORG}/cloudaccount/aws-prod` },
      ],
    });
  });

  it("policies that select other objects or other kinds contribute nothing", async () => {
    const report = await admin(server).get(`/org/${ORG}/cloudaccount/aws-prod/-accessreport`);
    const policies = field<{ bindings: Entry[] }[]>(report.body, "permissions").flatMap((p) =>
      p.bindings.map((b) => b.grantingPolicyLink),
    );
    expect(policies).not.toContain(pol("other-object"));
    expect(policies).not.toContain(pol("other-kind"));
    const gcp = await admin(server).get(`/org/${ORG}/cloudaccount/gcp-dev/-accessreport`);
    const manage = field<{ name: string; bindings: Entry[] }[]>(gcp.body, "permissions").find(
      (p) => p.name === "manage",
    );
    expect(manage?.bindings).toEqual([
      {
        principalLink: sa("carol"),
        grantingPolicyLink: pol("other-object"),
        grantedPermissions: ["manage"],
        match: "link",
      },
      ...superusers(),
    ]);
  });

  it("every permission of the kind appears in catalog order, including those only manage grants", async () => {
    const report = await admin(server).get(`/org/${ORG}/auditctx/app-events/-accessreport`);
    const permissions = field<{ name: string; bindings: Entry[] }[]>(report.body, "permissions");
    expect(permissions.map((p) => p.name)).toEqual(permissionNames("auditctx"));
    const readAudit = permissions.find((p) => p.name === "readAudit");
    expect(readAudit?.bindings).toEqual([
      {
        principalLink: group("superusers"),
        grantingPolicyLink: pol("superusers-auditctx"),
        grantedPermissions: ["manage"],
        match: "all",
      },
      {
        principalLink: sa("controlplane"),
        grantingPolicyLink: pol("superusers-auditctx"),
        grantedPermissions: ["manage"],
        match: "all",
      },
    ]);
  });

  it("the report changes as soon as a policy changes", async () => {
    const patched = await admin(server).patch(`/org/${ORG}/policy/by-query`, {
      targetQuery: { spec: { "$patch/terms": [{ property: "provider", value: "gcp" }] } },
    });
    expect(patched.status).toBe(200);
    const report = await admin(server).get(`/org/${ORG}/cloudaccount/aws-prod/-accessreport`);
    const browse = field<{ name: string; bindings: Entry[] }[]>(report.body, "permissions").find(
      (p) => p.name === "browse",
    );
    expect(browse?.bindings.map((b) => b.principalLink)).toEqual([
      sa("alice"),
      group("superusers"),
      sa("controlplane"),
    ]);
  });
});

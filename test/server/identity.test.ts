// Identities as the real API serves them (gvc-scoped): every section of types-ts `Identity`, cross-field rules and
// cloud account links checked on every write (400 naming field and rule, nothing changed), minimal PATCH merges,
// a gvc holding identities not deletable, and identities as policy principals (a grant of reveal on a secret).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { ADMIN_KEY, admin, as, bearer, call, links, ORG, serviceAccountWithKey, start } from "./helpers.js";

let server: RunningServer;
beforeAll(async () => {
  server = await start();
  for (const [name, provider] of [
    ["azure-main", "azure"],
    ["ngs-main", "ngs"],
  ] as const) {
    expect((await admin(server).post(`/org/${ORG}/cloudaccount`, { name, provider })).status).toBe(201);
  }
  expect((await admin(server).post(`/org/${ORG}/gvc`, { name: "apps" })).status).toBe(201);
});
afterAll(async () => server.close());

const base = `/org/${ORG}/gvc/apps/identity`;
const account = (name: string) => `/org/${ORG}/cloudaccount/${name}`;

/** Every section types-ts `Identity` has, links in the relative form a client may send. */
const full = {
  name: "app",
  description: "the app",
  tags: { team: "web" },
  aws: { cloudAccountLink: "//cloudaccount/aws-prod", policyRefs: ["aws::AmazonS3ReadOnlyAccess"] },
  gcp: {
    cloudAccountLink: "//cloudaccount/gcp-dev",
    scopes: ["https://www.googleapis.com/auth/cloud-platform"],
    bindings: [{ resource: "//cloudresourcemanager.googleapis.com/projects/dev-1", roles: ["roles/viewer"] }],
  },
  azure: {
    cloudAccountLink: "//cloudaccount/azure-main",
    roleAssignments: [{ scope: "/subscriptions/s/resourceGroups/g", roles: ["Reader"] }],
  },
  ngs: {
    cloudAccountLink: "//cloudaccount/ngs-main",
    pub: { allow: ["orders.>"], deny: ["orders.secret"] },
    sub: { allow: ["replies.>"] },
    resp: { max: 1, ttl: "5s" },
    subs: -1,
    data: 1048576,
    payload: -1,
  },
  networkResources: [
    { name: "db", FQDN: "db.internal.example", resolverIP: "10.0.0.2", ports: [5432] },
    { name: "cache", agentLink: "//agent/vpc-agent", IPs: ["10.0.1.5", "10.0.1.6"], ports: [6379, 6380] },
  ],
  nativeNetworkResources: [
    {
      name: "rds",
      FQDN: "rds.example",
      ports: [5432],
      awsPrivateLink: { endpointServiceName: "com.amazonaws.vpce.us-east-1.vpce-svc-1" },
    },
  ],
  memcacheAccess: [{ clusterLink: "//memcachecluster/sessions", role: "readWrite" }],
  spicedbAccess: [{ clusterLink: "//spicedbcluster/authz", role: "checkPermission" }],
};

describe("identity CRUD", () => {
  it("creates an identity with every section: 201, links stored in full form, status per cloud", async () => {
    const created = await admin(server).post(base, full);
    expect(created.status).toBe(201);
    expect(created.headers["location"]).toBe(`${base}/app`);
    const expected = {
      kind: "identity",
      name: "app",
      version: 1,
      description: "the app",
      tags: { team: "web" },
      aws: { ...full.aws, cloudAccountLink: account("aws-prod") },
      gcp: { ...full.gcp, cloudAccountLink: account("gcp-dev") },
      azure: { ...full.azure, cloudAccountLink: account("azure-main") },
      ngs: { ...full.ngs, cloudAccountLink: account("ngs-main") },
      networkResources: [
        full.networkResources[0],
        { ...full.networkResources[1], agentLink: `/org/${ORG}/agent/vpc-agent` },
      ],
      nativeNetworkResources: full.nativeNetworkResources,
      memcacheAccess: [{ clusterLink: `/org/${ORG}/memcachecluster/sessions`, role: "readWrite" }],
      spicedbAccess: [{ clusterLink: `/org/${ORG}/spicedbcluster/authz`, role: "checkPermission" }],
      status: {
        objectName: "app",
        aws: { usable: true },
        gcp: { usable: true },
        azure: { usable: true },
      },
      links: links("identity", "app", "apps"),
    };
    expect(created.body).toMatchObject(expected);
    const got = await admin(server).get(`${base}/app`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);
    const listed = await admin(server).get(base);
    expect((listed.body as { items: { name: string }[] }).items.map((i) => i.name)).toEqual(["app"]);
  });

  it("an identity with no section is valid (every field is optional): status has only objectName", async () => {
    const created = await admin(server).post(base, { name: "bare" });
    expect(created.status).toBe(201);
    expect((created.body as { status: unknown }).status).toEqual({ objectName: "bare" });
  });

  it("fills the documented defaults: gcp scopes, a trust policy's Version, ngs limits -1", async () => {
    const created = await admin(server).post(base, {
      name: "defaults",
      aws: { cloudAccountLink: "//cloudaccount/aws-prod", policyRefs: ["p"], trustPolicy: { Statement: [] } },
      gcp: { cloudAccountLink: "//cloudaccount/gcp-dev", serviceAccount: "a@dev-1.iam.gserviceaccount.com" },
      ngs: { cloudAccountLink: "//cloudaccount/ngs-main", subs: 5 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      aws: { trustPolicy: { Version: "2012-10-17", Statement: [] } },
      gcp: { scopes: ["https://www.googleapis.com/auth/cloud-platform"] },
      ngs: { subs: 5, data: -1, payload: -1 },
    });
    expect((await admin(server).delete(`${base}/defaults`)).status).toBe(202);
  });

  it("PATCH merges: one ngs limit, one network resource's ports by name; the rest stays", async () => {
    const url = `${base}/app`;
    const before = (await admin(server).get(url)).body as Record<string, unknown>;
    const patched = await admin(server).patch(url, {
      ngs: { subs: 10 },
      "$patch/networkResources": [{ name: "cache", ports: [6379] }],
    });
    expect(patched.status).toBe(200);
    const after = patched.body as Record<string, unknown>;
    expect(after["version"]).toBe(2);
    expect(after["ngs"]).toEqual({ ...(before["ngs"] as object), subs: 10 });
    expect(after["networkResources"]).toEqual([
      (before["networkResources"] as unknown[])[0],
      { ...((before["networkResources"] as unknown[])[1] as object), ports: [6379] },
    ]);
    for (const field of ["aws", "gcp", "azure", "nativeNetworkResources", "status", "description", "tags"])
      expect(after[field], field).toEqual(before[field]);
  });

  it("PATCH switches aws from policyRefs to roleName in one body; removing azure drops its status", async () => {
    const url = `${base}/app`;
    const patched = await admin(server).patch(url, { aws: { policyRefs: null, roleName: "app-role" }, azure: null });
    expect(patched.status).toBe(200);
    const body = patched.body as Record<string, Record<string, unknown>>;
    expect(body["aws"]).toEqual({ cloudAccountLink: account("aws-prod"), roleName: "app-role" });
    expect(body).not.toHaveProperty("azure");
    expect(body["status"]).toEqual({
      objectName: "app",
      aws: { usable: true },
      gcp: { usable: true },
    });
  });

  it("GET then PUT back changes nothing; DELETE removes (202)", async () => {
    const url = `${base}/bare`;
    const read = (await admin(server).get(url)).body as Record<string, unknown>;
    const put = await call(server, "PUT", url, { auth: bearer(ADMIN_KEY), body: read });
    expect(put.status).toBe(200);
    expect(put.body).toEqual(read);
    expect((await admin(server).delete(url)).status).toBe(202);
    expect((await admin(server).get(url)).status).toBe(404);
  });
});

/** A write that must be refused: 400 with the issue among its issues, and the identity left as it was. */
async function refused(
  write: () => Promise<{ status: number; body: unknown }>,
  issue: { path: string; message: string | RegExp },
) {
  const before = await admin(server).get(`${base}/app`);
  const answer = await write();
  expect(answer.status, JSON.stringify(answer.body)).toBe(400);
  const issues = (answer.body as { details: { issues: { path: string; message: string }[] } }).details.issues;
  const message = typeof issue.message === "string" ? issue.message : expect.stringMatching(issue.message);
  expect(issues, JSON.stringify(issues)).toContainEqual({ path: issue.path, message });
  expect((await admin(server).get(`${base}/app`)).body).toEqual(before.body);
}

describe("bad input: 400 naming the field and the rule, before anything changes", () => {
  const create = (body: Record<string, unknown>) => () => admin(server).post(base, { name: "bad", ...body });
  const aws = (extra: Record<string, unknown>) => ({ aws: { cloudAccountLink: "//cloudaccount/aws-prod", ...extra } });

  it("refuses each rule on create (and creates nothing)", async () => {
    const cases: [Record<string, unknown>, string, string | RegExp][] = [
      [aws({}), "aws", "must set exactly one of roleName and policyRefs"],
      [aws({ roleName: "r", policyRefs: ["p"] }), "aws", "must set exactly one of roleName and policyRefs"],
      [aws({ roleName: "r", trustPolicy: {} }), "aws.trustPolicy", "must not be set together with roleName"],
      [aws({ roleName: "bad role!" }), "aws.roleName", /only letters, numbers/],
      [
        { gcp: { cloudAccountLink: "//cloudaccount/gcp-dev", serviceAccount: "x@y.com" } },
        "gcp.serviceAccount",
        /gserviceaccount/,
      ],
      [
        { gcp: { cloudAccountLink: "//cloudaccount/gcp-dev" } },
        "gcp",
        "must set exactly one of serviceAccount and bindings",
      ],
      [
        { networkResources: [{ name: "n", FQDN: "a.b", IPs: ["10.0.0.1"], ports: [1] }] },
        "networkResources.0",
        "must set exactly one of FQDN and IPs",
      ],
      [
        { networkResources: [{ name: "n", IPs: ["10.0.0.300"], ports: [1] }] },
        "networkResources.0.IPs.0",
        "must be an IPv4 address",
      ],
      [
        { networkResources: [{ name: "n", FQDN: "a.b", ports: [] }] },
        "networkResources.0.ports",
        "must hold at least one port",
      ],
      [
        {
          networkResources: [
            { name: "n", FQDN: "a.b", ports: [1] },
            { name: "n", FQDN: "c.d", ports: [2] },
          ],
        },
        "networkResources.1.name",
        "duplicate name 'n'",
      ],
      [
        {
          nativeNetworkResources: [
            {
              name: "n",
              ports: [1],
              awsPrivateLink: { endpointServiceName: "s" },
              gcpServiceConnect: { targetService: "t" },
            },
          ],
        },
        "nativeNetworkResources.0",
        "must set exactly one of awsPrivateLink and gcpServiceConnect",
      ],
      [
        aws({ roleName: "r", cloudAccountLink: "//cloudaccount/missing" }),
        "aws.cloudAccountLink",
        `names no cloud account of org ${ORG} ('/org/${ORG}/cloudaccount/missing')`,
      ],
      [
        aws({ roleName: "r", cloudAccountLink: "//cloudaccount/gcp-dev" }),
        "aws.cloudAccountLink",
        "names a cloud account of provider gcp; aws access needs provider aws",
      ],
      [
        aws({ roleName: "r", cloudAccountLink: "//group/x" }),
        "aws.cloudAccountLink",
        /must be a link to a cloud account/,
      ],
      [
        { spicedbAccess: [{ clusterLink: "//spicedbcluster/a", role: "admin" }] },
        "spicedbAccess.0.role",
        /checkPermission/,
      ],
    ];
    for (const [body, path, message] of cases) await refused(create(body), { path, message });
    expect((await admin(server).get(`${base}/bad`)).status).toBe(404);
  });

  it("refuses a PATCH whose merged result breaks a rule, and one relinking to a missing account", async () => {
    const url = `${base}/app`;
    await refused(() => admin(server).patch(url, { aws: { policyRefs: ["p"] } }), {
      path: "aws",
      message: "must set exactly one of roleName and policyRefs",
    });
    await refused(() => admin(server).patch(url, { gcp: { cloudAccountLink: "//cloudaccount/nope" } }), {
      path: "gcp.cloudAccountLink",
      message: `names no cloud account of org ${ORG} ('/org/${ORG}/cloudaccount/nope')`,
    });
    const before = (await admin(server).get(url)).body;
    const duplicate = await admin(server).patch(url, {
      "$append/networkResources": [{ name: "db", FQDN: "x.y", ports: [1] }],
    });
    expect(duplicate.status).toBe(409);
    expect(JSON.stringify(duplicate.body)).toContain(
      'an item with key \\"db\\" already exists in \\"networkResources\\"',
    );
    expect((await admin(server).get(url)).body).toEqual(before);
  });
});

describe("identities in their gvc and in policies", () => {
  it("a gvc holding identities cannot be deleted (409 InUse); once empty it can", async () => {
    const blocked = await admin(server).delete(`/org/${ORG}/gvc/apps`);
    expect(blocked.status).toBe(409);
    expect(blocked.body).toMatchObject({
      code: "InUse",
      message: "gvc apps still holds 1 identity(s); delete them first",
    });
    expect((await admin(server).get(`${base}/app`)).status).toBe(200);
  });

  it("a policy grants reveal on a secret to an identity: stored with the full link, shown by the access report", async () => {
    const secret = `/org/${ORG}/secret/db-password`;
    expect(
      (await admin(server).post(`/org/${ORG}/secret`, { name: "db-password", type: "opaque", data: { payload: "pw" } }))
        .status,
    ).toBe(201);
    const policy = await admin(server).post(`/org/${ORG}/policy`, {
      name: "app-reveals",
      targetKind: "secret",
      targetLinks: ["//secret/db-password"],
      bindings: [{ permissions: ["reveal"], principalLinks: ["//gvc/apps/identity/app"] }],
    });
    expect(policy.status).toBe(201);
    const principal = `${base}/app`;
    expect((policy.body as { bindings: unknown }).bindings).toEqual([
      { permissions: ["reveal"], principalLinks: [principal] },
    ]);
    const report = await admin(server).get(`${secret}/-accessreport`);
    expect(report.status).toBe(200);
    const permissions = (report.body as { permissions: { name: string; bindings: Record<string, unknown>[] }[] })
      .permissions;
    const byName = (name: string) => permissions.find((p) => p.name === name)?.bindings ?? [];
    const grant = { principalLink: principal, grantingPolicyLink: `/org/${ORG}/policy/app-reveals`, match: "link" };
    expect(byName("reveal")).toContainEqual({ ...grant, grantedPermissions: ["reveal"] });
    // reveal implies view (the report names the granting permission); nothing else is granted to the identity.
    expect(byName("view")).toContainEqual({ ...grant, grantedPermissions: ["reveal"] });
    expect(byName("edit").filter((b) => b["principalLink"] === principal)).toEqual([]);
    // An identity is a workload's principal: cpln-local issues it no credential, so it never calls the API itself.
    expect((await admin(server).post(`${principal}/-addKey`, { description: "k" })).status).toBe(404);
  });

  it("a caller without viewAccessReport sees the identity's grant only when it may view the identity", async () => {
    const key = await serviceAccountWithKey(server, "auditor");
    const grant = async (name: string, targetKind: string, targetLinks: string[]) =>
      expect(
        await admin(server).post(`/org/${ORG}/policy`, {
          name,
          targetKind,
          targetLinks,
          bindings: [{ permissions: ["view"], principalLinks: ["//serviceaccount/auditor"] }],
        }),
      ).toMatchObject({ status: 201 });
    await grant("auditor-secret", "secret", ["//secret/db-password"]);
    await grant("auditor-policy", "policy", ["//policy/app-reveals"]);
    const reveals = async () => {
      const report = await as(server, bearer(key)).get(`/org/${ORG}/secret/db-password/-accessreport`);
      expect(report.status).toBe(200);
      const reveal = (
        report.body as { permissions: { name: string; bindings: { principalLink: string }[] }[] }
      ).permissions.find((p) => p.name === "reveal");
      return (reveal?.bindings ?? []).map((b) => b.principalLink);
    };
    expect(await reveals()).not.toContain(`${base}/app`);
    await grant("auditor-identity", "identity", ["//gvc/apps/identity/app"]);
    expect(await reveals()).toContain(`${base}/app`);
  });
});

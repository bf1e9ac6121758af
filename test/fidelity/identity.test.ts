/**
 * The identity facts (`fidelity/facts/identity.json`, from types-ts, terraform-provider-cpln, the CLI bundle and the
 * docs) replayed against cpln-local: the fields and status of an identity, the paths and bodies the clients send, the
 * field rules (each refused case a 400 naming its field, each accepted case a 201), identities as principals, the
 * per-gvc quota, and the list of every gvc's identities.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { ORG, admin, start } from "../server/helpers.js";
import { checkAllGvcs } from "./allGvcs.js";
import { loadFacts, Tally, type Fact } from "./facts.js";

let server: RunningServer;
const tally = new Tally();
const GVC = "fid";
const base = `/org/${ORG}/gvc/${GVC}/identity`;
let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

beforeAll(async () => {
  server = await start();
  expect((await admin(server).post(`/org/${ORG}/gvc`, { name: GVC })).status).toBe(201);
  for (const [name, provider] of [
    ["azure-main", "azure"],
    ["ngs-main", "ngs"],
  ] as const) {
    expect((await admin(server).post(`/org/${ORG}/cloudaccount`, { name, provider })).status).toBe(201);
  }
});
afterAll(async () => {
  await server.close();
  tally.print("facts of fidelity/facts/identity.json replayed against cpln-local");
});

/** One identity using every section types-ts names (the seed has aws-prod and gcp-dev accounts). */
const EVERY = {
  aws: { cloudAccountLink: "//cloudaccount/aws-prod", roleName: "app" },
  gcp: { cloudAccountLink: "//cloudaccount/gcp-dev", serviceAccount: "a@dev-1.iam.gserviceaccount.com" },
  azure: { cloudAccountLink: "//cloudaccount/azure-main", roleAssignments: [{ roles: ["Reader"] }] },
  ngs: { cloudAccountLink: "//cloudaccount/ngs-main", pub: { allow: ["a.>"] }, resp: { max: 1, ttl: "1s" } },
  networkResources: [{ name: "db", FQDN: "db.internal", ports: [5432] }],
  nativeNetworkResources: [{ name: "n", ports: [443], gcpServiceConnect: { targetService: "t" } }],
  memcacheAccess: [{ clusterLink: "//memcachecluster/m", role: "readWrite" }],
  spicedbAccess: [{ clusterLink: "//spicedbcluster/s", role: "read" }],
};

async function create(body: Record<string, unknown>) {
  return admin(server).post(base, { name: unique("fid"), ...body });
}

const checks: Record<string, (fact: Fact) => Promise<void>> = {
  fields: async (fact) => {
    const created = await create(EVERY);
    expect(created.status).toBe(201);
    const got = (await admin(server).get(`${base}/${(created.body as { name: string }).name}`)).body as object;
    for (const field of fact["fields"] as string[]) expect(got, field).toHaveProperty(field);
  },
  status: async () => {
    const created = await create(EVERY);
    const { name, status } = created.body as { name: string; status: Record<string, unknown> };
    // objectName, and aws/gcp/azure {usable, lastError?}; ngs has none.
    expect(status).toEqual({ objectName: name, aws: { usable: true }, gcp: { usable: true }, azure: { usable: true } });
  },
  defaults: async () => {
    const created = await create({
      aws: { cloudAccountLink: "//cloudaccount/aws-prod", policyRefs: ["p"], trustPolicy: {} },
      gcp: { cloudAccountLink: "//cloudaccount/gcp-dev", bindings: [{ roles: ["roles/viewer"] }] },
      ngs: { cloudAccountLink: "//cloudaccount/ngs-main" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      aws: { trustPolicy: { Version: "2012-10-17" } },
      gcp: { scopes: ["https://www.googleapis.com/auth/cloud-platform"] },
      ngs: { subs: -1, data: -1, payload: -1 },
    });
  },
  paths: async () => {
    const name = unique("tf");
    expect((await admin(server).post(base, { name, ...EVERY })).status).toBe(201);
    expect((await admin(server).get(`${base}/${name}`)).status).toBe(200);
    expect((await admin(server).patch(`${base}/${name}`, { description: "d" })).status).toBe(200);
    expect((await admin(server).delete(`${base}/${name}`)).status).toBe(202);
    expect((await admin(server).get(`${base}/${name}`)).status).toBe(404);
  },
  update: async () => {
    const name = unique("tf");
    expect((await admin(server).post(base, { name, ...EVERY })).status).toBe(201);
    // What terraform-provider-cpln's update sends: $replace of each cloud section, network resources whole.
    const patched = await admin(server).patch(`${base}/${name}`, {
      name,
      description: "updated",
      "$replace/tags": { "cpln/managedByTerraform": "true" },
      "$replace/aws": { cloudAccountLink: `/org/${ORG}/cloudaccount/aws-prod`, policyRefs: ["p"] },
      "$replace/ngs": { cloudAccountLink: `/org/${ORG}/cloudaccount/ngs-main` },
      networkResources: [{ name: "api", IPs: ["10.0.0.9"], ports: [443] }],
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      aws: { cloudAccountLink: `/org/${ORG}/cloudaccount/aws-prod`, policyRefs: ["p"] },
      ngs: { cloudAccountLink: `/org/${ORG}/cloudaccount/ngs-main`, subs: -1, data: -1, payload: -1 },
      networkResources: [{ name: "api", IPs: ["10.0.0.9"], ports: [443] }],
      tags: { "cpln/managedByTerraform": "true" },
    });
    expect(patched.body).not.toHaveProperty("aws.roleName");
    expect(patched.body).not.toHaveProperty("ngs.pub");
  },
  rules: async (fact) => {
    for (const c of fact["cases"] as { body: Record<string, unknown>; path: string; message?: string }[]) {
      const answer = await create(c.body);
      expect(answer.status, JSON.stringify(c.body)).toBe(400);
      const issues = (answer.body as { details: { issues: { path: string; message: string }[] } }).details.issues;
      expect(
        issues.filter((i) => i.path === c.path && (c.message === undefined || i.message === c.message)),
        JSON.stringify(issues),
      ).toHaveLength(1);
    }
    for (const body of fact["accepted"] as Record<string, unknown>[]) {
      const answer = await create(body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    }
  },
  "cli-create": async () => {
    const name = unique("cli");
    const created = await admin(server).post(base, { name, description: name, tags: {} });
    expect(created.status).toBe(201);
    const query = await admin(server).post(`${base}/-query`, {
      spec: { terms: [{ rel: "gvc", value: `/org/${ORG}/gvc/${GVC}` }] },
    });
    expect(query.status).toBe(200);
    expect((query.body as { items: { name: string }[] }).items.map((i) => i.name)).toContain(name);
  },
  "all-gvcs": async () => checkAllGvcs(server, "identity", GVC, (name) => ({ name })),
  principal: async () => {
    const name = unique("principal");
    expect((await admin(server).post(base, { name })).status).toBe(201);
    const policy = await admin(server).post(`/org/${ORG}/policy`, {
      name: unique("fid"),
      targetKind: "secret",
      target: "all",
      bindings: [{ permissions: ["reveal"], principalLinks: [`//gvc/${GVC}/identity/${name}`] }],
    });
    expect(policy.status).toBe(201);
    expect((policy.body as { bindings: unknown }).bindings).toEqual([
      { permissions: ["reveal"], principalLinks: [`${base}/${name}`] },
    ]);
  },
  quota: async () => {
    const current = async () => {
      const quotas = (await admin(server).get(`/org/${ORG}/quota`)).body as {
        items: { name: string; current: number; max: number; dimensions: Record<string, string> }[];
      };
      const quota = quotas.items.find(
        (q) => q.name === "identities-per-gvc" && q.dimensions["gvcLink"] === `/org/${ORG}/gvc/${GVC}`,
      );
      expect(quota).toMatchObject({ max: 20 });
      return quota?.current;
    };
    const before = await current();
    const name = unique("quota");
    expect((await admin(server).post(base, { name })).status).toBe(201);
    expect(await current()).toBe((before ?? 0) + 1);
    expect((await admin(server).delete(`${base}/${name}`)).status).toBe(202);
    expect(await current()).toBe(before);
  },
};

describe("identities", () => {
  const file = loadFacts("identity.json");
  it.each(file.facts.map((f) => [f.id, f] as const))("%s", async (_id, fact) => {
    const check = checks[String(fact["check"])];
    expect(check, `no check ${String(fact["check"])}`).toBeDefined();
    await tally.check(fact, () => (check as (fact: Fact) => Promise<void>)(fact));
  });
});

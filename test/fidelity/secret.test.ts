/**
 * The secret facts (`fidelity/facts/secret.json`, from types-ts, terraform-provider-cpln, the CLI bundle and the
 * docs) replayed against cpln-local: the types and shapes of data, `data` only from `-reveal` and only with `reveal`,
 * and what the clients send (terraform's `$replace/data`, the CLI's edit and clone of a revealed secret).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { secretTypes } from "../../api/schemas/secret.js";
import type { RunningServer } from "../../server/index.js";
import { ADMIN_KEY, ORG, admin, as, bearer, call, serviceAccountWithKey, start } from "../server/helpers.js";
import { loadFacts, Tally, type Fact } from "./facts.js";

let server: RunningServer;
const tally = new Tally();
const base = `/org/${ORG}/secret`;
let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

beforeAll(async () => {
  server = await start();
});
afterAll(async () => {
  await server.close();
  tally.print("facts of fidelity/facts/secret.json replayed against cpln-local");
});

/** Valid data of the types the shape and clone facts create (the PEM types are covered by test/server/secret). */
const DATA: Record<string, unknown> = {
  opaque: { payload: "aGVsbG8=", encoding: "base64" },
  gcp: JSON.stringify({ type: "service_account", project_id: "p" }),
  aws: { accessKey: "AKIAEXAMPLE", secretKey: "s", roleArn: "arn:aws:iam::1:role/r", externalId: "e" },
  ecr: { accessKey: "AKIAEXAMPLE", secretKey: "s", repos: ["1.dkr.ecr.us-east-1.amazonaws.com/app"] },
  userpass: { username: "u", password: "p", encoding: "plain" },
  "azure-sdk": JSON.stringify({ subscriptionId: "s", tenantId: "t", clientId: "c", clientSecret: "x" }),
  "azure-connector": { url: "https://fn.example.test/api", code: "c" },
  docker: JSON.stringify({ auths: { "ghcr.io": { username: "u", password: "p" } } }),
  dictionary: { A: "1", B: "2" },
  "nats-account": { accountId: `A${"B".repeat(55)}`, privateKey: `SA${"C".repeat(56)}` },
};

async function create(type: string, data: unknown = DATA[type]): Promise<string> {
  const name = unique(`fid-${type}`);
  const created = await admin(server).post(base, { name, type, data });
  expect({ type, status: created.status }).toEqual({ type, status: 201 });
  return name;
}

const reveal = async (name: string) =>
  (await admin(server).get(`${base}/${name}/-reveal`)).body as Record<string, unknown>;

const checks: Record<string, (fact: Fact) => Promise<void>> = {
  types: async (fact) => {
    expect([...secretTypes]).toEqual(fact["types"]);
    const refused = await admin(server).post(base, { name: unique("fid"), type: "vault", data: {} });
    expect(refused.status).toBe(400);
  },
  shapes: async (fact) => {
    for (const [type, data] of Object.entries(DATA)) expect((await reveal(await create(type))).data).toEqual(data);
    // Each required field left out is a 400 naming it.
    for (const [type, fields] of Object.entries(fact["required"] as Record<string, string[]>)) {
      for (const field of fields) {
        const data = { ...(DATA[type] as Record<string, unknown>) };
        delete data[field];
        const answer = await admin(server).post(base, { name: unique("fid"), type, data });
        expect({ type, field, status: answer.status }).toEqual({ type, field, status: 400 });
        expect(JSON.stringify(answer.body)).toContain(`"path":"data.${field}"`);
      }
    }
  },
  reveal: async () => {
    const name = await create("aws");
    const got = (await admin(server).get(`${base}/${name}`)).body as Record<string, unknown>;
    expect(got).toMatchObject({ name, type: "aws" });
    expect(got).not.toHaveProperty("data");
    expect(await reveal(name)).toMatchObject({ kind: "secret", name, type: "aws", data: DATA["aws"] });
  },
  "reveal-permission": async () => {
    const name = await create("opaque");
    const viewer = unique("viewer");
    const key = await serviceAccountWithKey(server, viewer);
    const policy = await admin(server).post(`/org/${ORG}/policy`, {
      name: unique("fid"),
      targetKind: "secret",
      targetLinks: [`${base}/${name}`],
      bindings: [{ permissions: ["view"], principalLinks: [`//serviceaccount/${viewer}`] }],
    });
    expect(policy.status).toBe(201);
    expect((await as(server, bearer(key)).get(`${base}/${name}`)).status).toBe(200);
    expect((await as(server, bearer(key)).get(`${base}/${name}/-reveal`)).status).toBe(403);
    // edit implies reveal.
    const patched = await admin(server).patch(`/org/${ORG}/policy/${(policy.body as { name: string }).name}`, {
      "$replace/bindings": [{ permissions: ["edit"], principalLinks: [`//serviceaccount/${viewer}`] }],
    });
    expect(patched.status).toBe(200);
    expect((await as(server, bearer(key)).get(`${base}/${name}/-reveal`)).status).toBe(200);
  },
  "replace-data": async () => {
    const name = await create("opaque");
    const update = await admin(server).patch(`${base}/${name}`, {
      type: "dictionary",
      "$replace/data": { ONLY: "x" },
    });
    expect(update.status).toBe(200);
    expect(await reveal(name)).toMatchObject({ type: "dictionary", data: { ONLY: "x" } });
  },
  edit: async () => {
    const name = await create("userpass");
    const revealed = await reveal(name);
    const unchanged = await admin(server).patch(`${base}/${name}`, revealed);
    expect(unchanged.status).toBe(200);
    expect((unchanged.body as { version: number }).version).toBe(revealed["version"]);
    const replaced = await call(server, "PUT", `${base}/${name}`, {
      auth: bearer(ADMIN_KEY),
      body: { ...revealed, data: { username: "v", password: "w" } },
    });
    expect(replaced.status).toBe(200);
    expect((await reveal(name))["data"]).toEqual({ username: "v", password: "w" });
  },
  clone: async () => {
    const revealed = await reveal(await create("dictionary"));
    const copy = unique("clone");
    const cloned = await admin(server).post(base, { ...revealed, name: copy, description: "clone" });
    expect(cloned.status).toBe(201);
    expect(await reveal(copy)).toMatchObject({ type: "dictionary", data: revealed["data"] });
  },
  "query-type": async () => {
    const name = await create("docker");
    const answer = await admin(server).post(`${base}/-query`, {
      spec: { terms: [{ property: "type", value: "docker" }] },
    });
    expect(answer.status).toBe(200);
    const items = (answer.body as { items: Record<string, unknown>[] }).items;
    expect(items.map((i) => i["name"])).toContain(name);
    expect(items.every((i) => i["type"] === "docker" && !("data" in i))).toBe(true);
  },
  rule: async (fact) => {
    const answer = await admin(server).post(base, { name: unique("fid"), type: fact["type"], data: fact["data"] });
    expect(answer.status).toBe(400);
    const paths = (answer.body as { details: { issues: { path: string }[] } }).details.issues.map((i) => i.path);
    expect(paths).toContain(fact["path"]);
  },
};

describe("secrets", () => {
  const file = loadFacts("secret.json");
  it.each(file.facts.map((f) => [f.id, f] as const))("%s", async (_id, fact) => {
    const check = checks[String(fact["check"])];
    expect(check, `no check ${String(fact["check"])}`).toBeDefined();
    await tally.check(fact, () => (check as (fact: Fact) => Promise<void>)(fact));
  });
});

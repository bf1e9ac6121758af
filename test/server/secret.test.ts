// Secrets as the real API serves them: every type's data checked against its shape, `data` reveal-only (never in GET,
// lists, queries or write answers; `GET .../-reveal` to a principal holding `reveal`), and no secret value in the
// request log, request inspection or the text log.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { ed25519FromSeed, selfSignedCaPem } from "../../server/domain/x509.js";
import { ADMIN_KEY, admin, as, bearer, call, ORG, serviceAccountWithKey, start } from "./helpers.js";

let server: RunningServer;
const logged: string[] = [];

beforeAll(async () => {
  const stream = new PassThrough();
  stream.on("data", (chunk: Buffer) => logged.push(chunk.toString("utf8")));
  server = await start({ recordRequests: true, logger: true, logStream: stream });
});
afterAll(async () => server.close());

const base = `/org/${ORG}/secret`;
const NATS_ID = `A${"B".repeat(55)}`;
const NATS_SEED = `SA${"C".repeat(56)}`;
const key = ed25519FromSeed(randomBytes(32));
const cert = selfSignedCaPem({
  commonName: "secret-test",
  serial: Buffer.from([1]),
  notBefore: new Date("2026-01-01T00:00:00Z"),
  notAfter: new Date("2036-01-01T00:00:00Z"),
  privateKey: key,
});
const keyPem = key.export({ type: "pkcs8", format: "pem" }).toString();
const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 });
const encryptedPem = rsa.privateKey
  .export({ type: "pkcs8", format: "pem", cipher: "aes-256-cbc", passphrase: "open sesame" })
  .toString();
const publicPem = rsa.publicKey.export({ type: "spki", format: "pem" }).toString();

/** One valid body per type: every value holds the marker, so a leak of any of them is found by text search. */
const MARK = "s3cr3t-marker";
const valid: Record<string, unknown> = {
  opaque: { payload: `${MARK}-opaque`, encoding: "plain" },
  tls: { key: keyPem, cert, chain: cert },
  gcp: JSON.stringify({ type: "service_account", private_key: `${MARK}-gcp` }),
  aws: { accessKey: "AKIAEXAMPLE", secretKey: `${MARK}-aws`, roleArn: "arn:aws:iam::1:role/r", externalId: "x" },
  ecr: { accessKey: "AKIAEXAMPLE", secretKey: `${MARK}-ecr`, repos: ["1.dkr.ecr.us-east-1.amazonaws.com/app"] },
  userpass: { username: "app", password: `${MARK}-userpass`, encoding: "plain" },
  keypair: { secretKey: encryptedPem, publicKey: publicPem, passphrase: `open sesame` },
  "azure-sdk": JSON.stringify({ subscriptionId: "s", tenantId: "t", clientId: "c", clientSecret: `${MARK}-azure` }),
  "azure-connector": { url: "https://fn.example.test/api", code: `${MARK}-connector` },
  docker: JSON.stringify({ auths: { "ghcr.io": { username: "u", password: `${MARK}-docker` } } }),
  dictionary: { USER: "app", PASSWORD: `${MARK}-dictionary` },
  "nats-account": { accountId: NATS_ID, privateKey: NATS_SEED },
};

const nameOf = (type: string) => `s-${type}`;

describe("secret CRUD over every type", () => {
  it("creates one secret of each of the 12 types; the answer (201) carries type but never data", async () => {
    for (const [type, data] of Object.entries(valid)) {
      const created = await admin(server).post(base, { name: nameOf(type), type, data, tags: { t: type } });
      expect(created.status, type).toBe(201);
      expect(created.headers["location"]).toBe(`${base}/${nameOf(type)}`);
      const body = created.body as Record<string, unknown>;
      expect(body).toMatchObject({ kind: "secret", name: nameOf(type), type, version: 1, tags: { t: type } });
      expect(body).not.toHaveProperty("data");
    }
  });

  it("reveal returns each secret's data exactly as stored", async () => {
    for (const [type, data] of Object.entries(valid)) {
      const revealed = await admin(server).get(`${base}/${nameOf(type)}/-reveal`);
      expect(revealed.status, type).toBe(200);
      expect(revealed.body).toMatchObject({ kind: "secret", name: nameOf(type), type, data });
    }
  });

  it("GET, the list and a query never carry data (nor any secret value)", async () => {
    const got = await admin(server).get(`${base}/${nameOf("aws")}`);
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty("data");
    expect(got.body).toMatchObject({ type: "aws" });
    const list = await admin(server).get(base);
    expect(list.status).toBe(200);
    const items = (list.body as { items: Record<string, unknown>[] }).items;
    expect(items.map((i) => i["name"]).sort()).toEqual(Object.keys(valid).map(nameOf).sort());
    expect(JSON.stringify(list.body)).not.toContain(MARK);
    const query = await admin(server).post(`${base}/-query`, {
      spec: { terms: [{ property: "type", value: "dictionary" }] },
    });
    expect(query.status).toBe(200);
    expect((query.body as { items: { name: string }[] }).items.map((i) => i.name)).toEqual([nameOf("dictionary")]);
    expect(JSON.stringify(query.body)).not.toContain(MARK);
  });

  it("a query term on a data field matches nothing: a viewer cannot probe values", async () => {
    const probe = await admin(server).post(`${base}/-query`, {
      spec: { terms: [{ property: "data.USER", value: "app" }] },
    });
    expect(probe.status).toBe(200);
    expect((probe.body as { items: unknown[] }).items).toEqual([]);
  });

  it("PATCH merges object data, $replace/data replaces it, and the answer has no data", async () => {
    const url = `${base}/${nameOf("dictionary")}`;
    const merged = await admin(server).patch(url, { data: { EXTRA: "more", USER: null } });
    expect(merged.status).toBe(200);
    expect(merged.body).not.toHaveProperty("data");
    expect(merged.body).toMatchObject({ version: 2 });
    let revealed = await admin(server).get(`${url}/-reveal`);
    expect((revealed.body as { data: unknown }).data).toEqual({ PASSWORD: `${MARK}-dictionary`, EXTRA: "more" });
    const replaced = await admin(server).patch(url, { "$replace/data": { ONLY: "one" } });
    expect(replaced.status).toBe(200);
    revealed = await admin(server).get(`${url}/-reveal`);
    expect((revealed.body as { data: unknown }).data).toEqual({ ONLY: "one" });
  });

  it("PATCH may change type together with $replace/data (what terraform-provider-cpln sends)", async () => {
    const url = `${base}/${nameOf("opaque")}`;
    const changed = await admin(server).patch(url, {
      type: "userpass",
      "$replace/data": { username: "u", password: "p" },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ type: "userpass" });
    const revealed = await admin(server).get(`${url}/-reveal`);
    expect((revealed.body as { data: unknown }).data).toEqual({ username: "u", password: "p" });
  });

  it("a PATCH changing type without data of the new type is a 400 naming the field, and changes nothing", async () => {
    const url = `${base}/${nameOf("aws")}`;
    const refused = await admin(server).patch(url, { type: "nats-account" });
    expect(refused.status).toBe(400);
    const issues = (refused.body as { details: { issues: { path: string; message: string }[] } }).details.issues;
    expect(issues.map((i) => i.path)).toEqual(expect.arrayContaining(["data.accountId", "data.privateKey"]));
    const after = await admin(server).get(`${url}/-reveal`);
    expect(after.body).toMatchObject({ type: "aws", version: 1, data: valid["aws"] });
  });

  it("a record as GET returned it, PUT back to the object or the collection, changes nothing (data kept)", async () => {
    const url = `${base}/${nameOf("ecr")}`;
    const read = (await admin(server).get(url)).body as Record<string, unknown>;
    for (const target of [url, base]) {
      const put = await call(server, "PUT", target, { auth: bearer(ADMIN_KEY), body: read });
      expect(put.status, target).toBe(200);
      expect(put.body).not.toHaveProperty("data");
    }
    const after = await admin(server).get(`${url}/-reveal`);
    expect(after.body).toMatchObject({ version: read["version"], data: valid["ecr"] });
  });

  it("DELETE removes a secret (202), and reveal then answers 404", async () => {
    const url = `${base}/${nameOf("gcp")}`;
    expect((await admin(server).delete(url)).status).toBe(202);
    expect((await admin(server).get(`${url}/-reveal`)).status).toBe(404);
    expect((await admin(server).get(url)).status).toBe(404);
  });
});

/** A create that must be refused: 400, the one issue expected among the issues, and no object left behind. */
async function refused(type: string, data: unknown, path: string, message: RegExp) {
  const name = `bad-${type}-${Math.random().toString(36).slice(2, 8)}`;
  const answer = await admin(server).post(base, { name, type, data });
  expect(answer.status, `${type} ${path}`).toBe(400);
  const issues = (answer.body as { details: { issues: { path: string; message: string }[] } }).details.issues;
  expect(issues, JSON.stringify(issues)).toContainEqual({ path, message: expect.stringMatching(message) });
  expect(JSON.stringify(answer.body)).not.toContain(MARK);
  expect((await admin(server).get(`${base}/${name}`)).status).toBe(404);
}

describe("per-type validation: a 400 naming the field and the rule", () => {
  it("refuses each type's broken data with the field and its rule", async () => {
    await refused("opaque", { payload: `${MARK}!!`, encoding: "base64" }, "data.payload", /base64/);
    await refused("opaque", { payload: "x", encoding: "rot13" }, "data.encoding", /plain|base64/);
    await refused("tls", { key: keyPem }, "data.cert", /expected string|required/i);
    await refused("tls", { cert: `${MARK} not a cert` }, "data.cert", /PEM-encoded X\.509 certificate/);
    await refused("tls", { cert, key: `${MARK} not a key` }, "data.key", /PEM-encoded private key/);
    await refused("gcp", `${MARK} not json`, "data", /JSON text of an object/);
    await refused("aws", { accessKey: "XYZ", secretKey: MARK }, "data.accessKey", /AKIA/);
    await refused("aws", { accessKey: "AKIA1", secretKey: MARK, roleArn: "role" }, "data.roleArn", /arn:/);
    await refused("aws", { accessKey: "AKIA1", secretKey: MARK, extra: 1 }, "data.extra", /Unknown field/);
    await refused("ecr", { accessKey: "AKIA1", secretKey: MARK, repos: [] }, "data.repos", /at least one repository/);
    await refused("userpass", { username: "", password: MARK }, "data.username", /must not be empty/);
    await refused("keypair", { secretKey: encryptedPem }, "data.secretKey", /passphrase is required/);
    await refused("keypair", { secretKey: encryptedPem, passphrase: "wrong" }, "data.secretKey", /passphrase given/);
    await refused("keypair", { secretKey: keyPem, publicKey: MARK }, "data.publicKey", /PEM-encoded public key/);
    await refused("azure-sdk", "[1,2]", "data", /JSON text of an object/);
    await refused("azure-connector", { url: "https://x" }, "data.code", /expected string|required/i);
    await refused("docker", JSON.stringify({ registry: MARK }), "data", /"auths" object/);
    await refused("dictionary", { KEY: 42 }, "data.KEY", /must be a string/);
    await refused("nats-account", { accountId: "A1", privateKey: NATS_SEED }, "data.accountId", /56-character/);
    await refused("nats-account", { accountId: NATS_ID, privateKey: MARK }, "data.privateKey", /58-character/);
  });

  it("refuses an unknown type and a create without data", async () => {
    const unknown = await admin(server).post(base, { name: "bad-type", type: "vault", data: {} });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('"path":"type"');
    const missing = await admin(server).post(base, { name: "bad-nodata", type: "opaque" });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body)).toContain('"path":"data"');
  });
});

describe("reveal needs the reveal permission", () => {
  it("a service account granted reveal by a policy reveals; one granted only view gets 403 and sees no data", async () => {
    const secretName = "shared";
    const data = { payload: `${MARK}-shared` };
    expect((await admin(server).post(base, { name: secretName, type: "opaque", data })).status).toBe(201);
    const revealer = await serviceAccountWithKey(server, "revealer");
    const viewer = await serviceAccountWithKey(server, "viewer");
    const target = `${base}/${secretName}`;
    for (const [name, permission] of [
      ["reveal-shared", "reveal"],
      ["view-shared", "view"],
    ] as const) {
      const account = permission === "reveal" ? "revealer" : "viewer";
      const policy = await admin(server).post(`/org/${ORG}/policy`, {
        name,
        targetKind: "secret",
        targetLinks: [target],
        bindings: [{ permissions: [permission], principalLinks: [`/org/${ORG}/serviceaccount/${account}`] }],
      });
      expect(policy.status).toBe(201);
    }
    const asRevealer = as(server, bearer(revealer));
    const asViewer = as(server, bearer(viewer));
    const revealed = await asRevealer.get(`${target}/-reveal`);
    expect(revealed.status).toBe(200);
    expect(revealed.body).toMatchObject({ name: secretName, type: "opaque", data });
    // reveal implies view: the revealer also reads the record, without data.
    const seen = await asRevealer.get(target);
    expect(seen.status).toBe(200);
    expect(seen.body).not.toHaveProperty("data");

    const denied = await asViewer.get(`${target}/-reveal`);
    expect(denied.status).toBe(403);
    expect((denied.body as { code: string }).code).toBe("Forbidden");
    expect(JSON.stringify(denied.body)).not.toContain(MARK);
    const viewed = await asViewer.get(target);
    expect(viewed.status).toBe(200);
    expect(viewed.body).not.toHaveProperty("data");
    // Neither may reveal a secret no policy grants them: 404, as if it did not exist.
    expect((await asRevealer.get(`${base}/${nameOf("aws")}/-reveal`)).status).toBe(404);
  });

  it("a policy's targetQuery on a data field selects nothing: grants cannot probe secret values", async () => {
    const data = { payload: "probe-me" };
    expect((await admin(server).post(base, { name: "probed", type: "opaque", data })).status).toBe(201);
    const prober = await serviceAccountWithKey(server, "prober");
    const policy = await admin(server).post(`/org/${ORG}/policy`, {
      name: "probe-data",
      targetKind: "secret",
      targetQuery: { spec: { match: "all", terms: [{ op: "=", property: "data.payload", value: "probe-me" }] } },
      bindings: [{ permissions: ["view"], principalLinks: [`/org/${ORG}/serviceaccount/prober`] }],
    });
    expect(policy.status).toBe(201);
    // The stored payload equals the term's value, yet the query reads the secret without data: nothing is selected.
    expect((await as(server, bearer(prober)).get(`${base}/probed`)).status).toBe(404);
    expect((await as(server, bearer(prober)).get(base)).body).toMatchObject({ items: [] });
  });

  it("the permission catalog is the documented one, reveal implied by edit and manage", async () => {
    const answer = await admin(server).get(`${base}/-schema/permissions`);
    expect(answer.status).toBe(200);
    const body = answer.body as { items: { name: string }[]; implied: Record<string, string[]> };
    expect(body.items.map((i) => i.name)).toEqual(["create", "delete", "edit", "manage", "reveal", "use", "view"]);
    expect(body.implied["edit"]).toEqual(["view", "reveal"]);
    expect(body.implied["reveal"]).toEqual(["view"]);
  });
});

describe("no secret value in logs", () => {
  it("the request log, request inspection and the text log hold [redacted] where the bodies held data", async () => {
    const name = "logged";
    const data = { payload: `${MARK}-logged` };
    expect((await admin(server).post(base, { name, type: "opaque", data })).status).toBe(201);
    const patched = await admin(server).patch(`${base}/${name}`, { "$replace/data": { payload: `${MARK}-patched` } });
    expect(patched.status).toBe(200);
    const put = await call(server, "PUT", `${base}/${name}`, {
      auth: bearer(ADMIN_KEY),
      body: { type: "opaque", data: { payload: `${MARK}-put` } },
    });
    expect(put.status).toBe(200);
    expect((await admin(server).get(`${base}/${name}/-reveal`)).body).toMatchObject({
      data: { payload: `${MARK}-put` },
    });

    expect(JSON.stringify(server.requests())).not.toContain(MARK);
    expect(server.requests()).toContainEqual({
      method: "PATCH",
      path: `${base}/${name}`,
      body: { "$replace/data": "[redacted]" },
      status: 200,
    });

    const inspected = await fetch(`${server.url}/_cpln-local/requests`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    const text = await inspected.text();
    expect(text).toContain("[redacted]");
    expect(text).not.toContain(MARK);
    expect(logged.join("")).toContain("[redacted]");
    expect(logged.join("")).not.toContain(MARK);
  });
});

describe("the document states the rules of data JSON Schema cannot, each with its refusal's message", () => {
  type Rule = { rule: string; issue: string };
  const explained = (rules: Rule[], message: string) => rules.some((r) => new RegExp(r.issue).test(message));
  const messages = (body: unknown) =>
    (body as { details: { issues: { message: string }[] } }).details.issues.map((i) => i.message);

  it("create: PEM, JSON text and base64 refusals are documented; a shape refusal is the schema's, not a rule's", async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      components: { schemas: Record<string, { "x-cpln-rules"?: Rule[] }> };
    };
    const rules = doc.components.schemas["SecretCreate"]?.["x-cpln-rules"] ?? [];
    for (const [type, data] of [
      ["tls", { cert: "not a certificate" }],
      ["keypair", { secretKey: "not a key" }],
      ["gcp", "not json"],
      ["docker", "{}"],
      ["opaque", { payload: "!!", encoding: "base64" }],
    ] as const) {
      const answer = await admin(server).post(base, { name: `doc-${type}`, type, data });
      expect(answer.status, type).toBe(400);
      for (const message of messages(answer.body)) expect(explained(rules, message), message).toBe(true);
    }
    // The per-type shape is JSON Schema (SecretCreate's oneOf), so no documented rule explains its refusal.
    const shape = await admin(server).post(base, { name: "doc-aws", type: "aws", data: { accessKey: "XYZ" } });
    expect(shape.status).toBe(400);
    expect(messages(shape.body).filter((m) => explained(rules, m))).toEqual([]);
  });

  it("PATCH and PUT: data checked against the stored type is a documented rule of both bodies", async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      components: { schemas: Record<string, { "x-cpln-rules"?: Rule[] }> };
    };
    expect((await admin(server).post(base, { name: "doc-stored", type: "aws", data: valid["aws"] })).status).toBe(201);
    const url = `${base}/doc-stored`;
    const patched = await admin(server).patch(url, { type: "tls" });
    expect(patched.status).toBe(400);
    expect(messages(patched.body)).toContain("is required (data of type tls)");
    for (const message of messages(patched.body))
      expect(explained(doc.components.schemas["SecretPatch"]?.["x-cpln-rules"] ?? [], message), message).toBe(true);
    const put = await call(server, "PUT", url, { auth: bearer(ADMIN_KEY), body: { type: "tls", data: "text" } });
    expect(put.status).toBe(400);
    for (const message of messages(put.body))
      expect(explained(doc.components.schemas["SecretPut"]?.["x-cpln-rules"] ?? [], message), message).toBe(true);
    expect((await admin(server).get(`${url}/-reveal`)).body).toMatchObject({ type: "aws", data: valid["aws"] });
  });
});

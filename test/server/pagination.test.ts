// Pagination of lists and queries with 1,000 records of a kind: raw pages (size, next links, cursor stability while
// records are created and deleted between pages), CplnClient, the data-source functions and `cpln X get --max 0`.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CplnClient } from "../../provider/client/index.js";
import { getGroups } from "../../provider/functions/getGroups.js";
import { getServiceAccounts } from "../../provider/functions/getServiceAccounts.js";
import { queryCloudAccounts } from "../../provider/functions/queryCloudAccounts.js";
import { DEFAULT_PAGE_SIZE } from "../../server/domain/records.js";
import { startServer, type RunningServer } from "../../server/index.js";

const ADMIN_KEY = "pageadmin.secret-admin-key-for-the-paging-tests";
const N = 1000;
const CPLN = join(__dirname, "..", "..", "node_modules", "@controlplane", "cli", "dist", "src", "cpln.js");

let server: RunningServer;
let client: CplnClient;
const auth = { authorization: `Bearer ${ADMIN_KEY}` };
const pad = (i: number) => String(i).padStart(4, "0");

interface Page {
  items: { name: string; provider?: string }[];
  links: { rel: string; href: string }[];
}

async function get(url: string): Promise<Page> {
  const response = await server.app.inject({ url, headers: auth });
  expect(response.statusCode).toBe(200);
  return response.json<Page>();
}

async function send(method: "POST" | "DELETE", url: string, body?: unknown): Promise<number> {
  const response = await server.app.inject({
    method,
    url,
    headers: auth,
    ...(body === undefined ? {} : { payload: body as object }),
  });
  return response.statusCode;
}

const next = (page: Page) => page.links.find((l) => l.rel === "next")?.href;

/** Raises a builtin quota in the store (the test needs more than the default maximum). */
async function raiseQuota(name: string): Promise<void> {
  const quota = await server.store.get("demo", "quota", "", name);
  if (!quota) throw new Error(`no quota ${name}`);
  const doc = { ...quota.doc, max: 10 * N };
  expect(await server.store.replace({ ...quota, doc }, quota.version)).toBe(true);
}

beforeAll(async () => {
  server = await startServer({ org: "demo", adminKey: ADMIN_KEY });
  client = new CplnClient({ endpoint: server.url, token: ADMIN_KEY, org: "demo" });
  for (const quota of ["groups", "serviceaccounts", "cloudaccounts"]) await raiseQuota(quota);
  for (let i = 0; i < N; i++) {
    expect(await send("POST", "/org/demo/group", { name: `g${pad(i)}` })).toBe(201);
    expect(await send("POST", "/org/demo/serviceaccount", { name: `sa${pad(i)}` })).toBe(201);
    const provider = i % 2 === 0 ? "aws" : "gcp";
    const data = provider === "aws" ? { roleArn: `arn:aws:iam::1:role/r${i}` } : { projectId: `project-${pad(i)}` };
    expect(await send("POST", "/org/demo/cloudaccount", { name: `ca${pad(i)}`, provider, data })).toBe(201);
  }
});
afterAll(async () => {
  await client.close();
  await server.close();
});

const groupNames = [...Array.from({ length: N }, (_, i) => `g${pad(i)}`), "superusers", "viewers"].sort();

describe("pages", () => {
  it(`a list answers ${DEFAULT_PAGE_SIZE} items and a next link while more remain; following it yields every item once, in order`, async () => {
    const seen: string[] = [];
    let url: string | undefined = "/org/demo/group";
    let pages = 0;
    while (url !== undefined) {
      const page = await get(url);
      pages++;
      expect(page.items.length).toBeLessThanOrEqual(DEFAULT_PAGE_SIZE);
      if (next(page) !== undefined) expect(page.items.length).toBe(DEFAULT_PAGE_SIZE);
      seen.push(...page.items.map((i) => i.name));
      url = next(page);
    }
    expect(pages).toBe(Math.ceil(groupNames.length / DEFAULT_PAGE_SIZE));
    expect(seen).toEqual(groupNames);
  });

  it("pages stay consistent while another client creates and deletes records between them", async () => {
    const first = await get("/org/demo/group");
    const seen = first.items.map((i) => i.name);
    expect(seen.at(-1)).toBe(`g${pad(DEFAULT_PAGE_SIZE - 1)}`);
    // Before the cursor: a new record and a deleted one (neither may shift the next pages).
    expect(await send("DELETE", "/org/demo/group/g0005")).toBe(202);
    expect(await send("POST", "/org/demo/group", { name: "a-new" })).toBe(201);
    // After the cursor: a deleted record disappears, a new one appears.
    expect(await send("DELETE", "/org/demo/group/g0500")).toBe(202);
    expect(await send("POST", "/org/demo/group", { name: "g0500x" })).toBe(201);
    let url = next(first);
    while (url !== undefined) {
      const page = await get(url);
      seen.push(...page.items.map((i) => i.name));
      url = next(page);
    }
    const expected = [...groupNames.filter((n) => n !== "g0500"), "g0500x"].sort();
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(seen.length);
    // Back to the initial state for the other tests.
    expect(await send("DELETE", "/org/demo/group/a-new")).toBe(202);
    expect(await send("DELETE", "/org/demo/group/g0500x")).toBe(202);
    expect(await send("POST", "/org/demo/group", { name: "g0005" })).toBe(201);
    expect(await send("POST", "/org/demo/group", { name: "g0500" })).toBe(201);
  });

  it("a query pages in its sort order: POST answers the first page, GET of next links the rest", async () => {
    const response = await server.app.inject({
      method: "POST",
      url: "/org/demo/cloudaccount/-query",
      headers: auth,
      payload: { spec: { terms: [{ property: "provider", value: "gcp" }], sort: { by: "name", order: "desc" } } },
    });
    expect(response.statusCode).toBe(200);
    let page = response.json<Page>();
    const seen = page.items.map((i) => i.name);
    while (next(page) !== undefined) {
      expect(next(page)).toMatch(/^\/org\/demo\/cloudaccount\/-query\?cursor=/);
      page = await get(next(page) as string);
      seen.push(...page.items.map((i) => i.name));
    }
    const gcp = Array.from({ length: N }, (_, i) => i)
      .filter((i) => i % 2 === 1)
      .map((i) => `ca${pad(i)}`)
      .reverse();
    expect(seen).toEqual(gcp);
  });

  it("a list cursor outside its pattern is a 400 naming cursor", async () => {
    const response = await server.app.inject({ url: "/org/demo/group?cursor=not%20a%20cursor!", headers: auth });
    expect(response.statusCode).toBe(400);
    expect(JSON.stringify(response.json())).toContain('"path":"cursor"');
  });
});

describe("clients see every item", () => {
  it("CplnClient lists and queries follow next links", async () => {
    expect((await client.listGroups()).map((g) => g.name)).toEqual(groupNames);
    expect(await client.listServiceAccounts()).toHaveLength(N + 1);
    const result = await client.queryCloudAccounts({ spec: { terms: [{ property: "provider", value: "aws" }] } });
    expect(result.items).toHaveLength(N / 2);
  });

  it("getGroups, getServiceAccounts and queryCloudAccounts return every item", async () => {
    const env = {
      stackConfig: {
        get: (key: string) => ({ "cpln:endpoint": server.url, "cpln:token": ADMIN_KEY, "cpln:org": "demo" })[key],
      },
    };
    expect((await getGroups({}, env)).items.map((g) => g.name)).toEqual(groupNames);
    expect((await getServiceAccounts({}, env)).items).toHaveLength(N + 1);
    expect((await queryCloudAccounts({}, env)).items).toHaveLength(N);
  });

  it("cpln group get --max 0 shows all; the default shows 50", async () => {
    const home = mkdtempSync(join(tmpdir(), "cpln-home-"));
    const run = (...args: string[]) =>
      new Promise<string>((resolve, reject) =>
        execFile(
          process.execPath,
          [CPLN, ...args],
          {
            env: {
              PATH: process.env["PATH"] ?? "",
              HOME: home,
              CPLN_ENDPOINT: server.url,
              CPLN_TOKEN: ADMIN_KEY,
              CPLN_ORG: "demo",
            },
            maxBuffer: 64 * 1024 * 1024,
          },
          (error, stdout, stderr) => (error ? reject(new Error(`${error.message}: ${stderr}`)) : resolve(stdout)),
        ),
      );
    try {
      const all = JSON.parse(await run("group", "get", "--max", "0", "-o", "json")) as Page;
      expect(all.items.map((i) => i.name)).toEqual(groupNames);
      const first = JSON.parse(await run("group", "get", "-o", "json")) as Page;
      expect(first.items).toHaveLength(50);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

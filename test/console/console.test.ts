/**
 * The console in a real browser (Debian's Chromium through playwright-core) against a real cpln-local on 127.0.0.1:
 * sign in as the admin and as a viewer (who sees less), browse every kind, read an object as `cpln get -o yaml`
 * prints it, follow an access report, run an example program through the real Pulumi engine and find its PATCH with
 * the right diff, reset the org.
 * The console's assets are the built ones (dist/console), served by the server under test.
 */
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer, type SeedDocument } from "../../dist/server/index.js";
import { EngineDriver, engineWorld } from "../engine/harness.js";
import { skipWithoutEngine } from "../engine/support.js";
import { findChromium, launchChromium } from "../../tools/browser.js";

const repoRoot = path.resolve(__dirname, "..", "..");
const ORG = "test";
const ADMIN_KEY = "console-admin.7f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c";
const seed = JSON.parse(fs.readFileSync(path.join(repoRoot, "examples", "seed.json"), "utf8")) as SeedDocument;
const found = findChromium();
const skip = !found.available && process.env["CI"] !== "true";
if (skip) console.log(`Skipping the console's browser tests: ${found.available ? "" : found.reason}`);

let server: RunningServer;
let browser: Browser;

/** The API of the server under test, as `token` (default the admin key). */
const api = <T>(method: string, urlPath: string, body?: unknown, token = ADMIN_KEY): Promise<T> =>
  request<T>(server, method, urlPath, body, token);

async function countOf(kind: string, token = ADMIN_KEY): Promise<number> {
  let page = await api<{ items: unknown[]; links?: { rel: string; href: string }[] }>(
    "POST",
    `/org/${ORG}/${kind}/-query`,
    { kind, spec: {} },
    token,
  );
  let count = page.items.length;
  for (
    let next = page.links?.find((l) => l.rel === "next")?.href;
    next;
    next = page.links?.find((l) => l.rel === "next")?.href
  ) {
    page = await api("GET", next, undefined, token);
    count += page.items.length;
  }
  return count;
}

/** A service account with a key, member of `group` when given (the builtin `viewers` group may view every kind). */
async function principalKey(name: string, group?: string): Promise<string> {
  await api("POST", `/org/${ORG}/serviceaccount`, { name });
  if (group)
    await api("PATCH", `/org/${ORG}/group/${group}`, { "$append/memberLinks": [`/org/${ORG}/serviceaccount/${name}`] });
  return (await api<{ key: string }>("POST", `/org/${ORG}/serviceaccount/${name}/-addKey`, { description: "console" }))
    .key;
}

async function signIn(token: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.on("dialog", (dialog) => void dialog.accept());
  await page.goto(`${server.url}/console/`);
  await page.getByLabel("Org").fill(ORG);
  await page.getByLabel("Key or token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("table", { name: "Kinds" }).waitFor();
  return page;
}

/** Kind → count as the console's org page shows them. */
async function shownCounts(page: Page): Promise<Record<string, string>> {
  const rows = await page.getByRole("table", { name: "Kinds" }).locator("tbody tr").all();
  const counts: Record<string, string> = {};
  for (const row of rows) {
    const cells = await row.locator("td").allInnerTexts();
    counts[cells[0]!.trim()] = cells[1]!.trim();
  }
  return counts;
}

describe.skipIf(skip)("the console in Chromium", () => {
  let viewerKey: string;
  let strangerKey: string;

  beforeAll(async () => {
    if (!found.available) throw new Error(found.reason);
    server = await startServer({ org: ORG, adminKey: ADMIN_KEY, seed });
    viewerKey = await principalKey("console-viewer", "viewers");
    strangerKey = await principalKey("console-stranger");
    browser = await launchChromium(found.executable);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("serves the page and its assets with a same-origin content security policy, and nothing else", async () => {
    const page = await fetch(`${server.url}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect((await fetch(`${server.url}/console/app.js`)).headers.get("content-type")).toBe(
      "text/javascript; charset=utf-8",
    );
    expect((await fetch(`${server.url}/console/..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${server.url}/console/server.js`)).status).toBe(404);
  });

  it("signs the admin in and shows every kind with the count the API gives", async () => {
    const page = await signIn(ADMIN_KEY);
    await expect.poll(async () => Object.values(await shownCounts(page)).every((c) => /^\d+$/.test(c))).toBe(true);
    const counts = await shownCounts(page);
    const kinds = Object.keys(counts);
    expect(kinds).toEqual(
      expect.arrayContaining(["policy", "group", "serviceaccount", "location", "volumeset", "quota"]),
    );
    for (const kind of kinds) expect(counts[kind]).toBe(String(await countOf(kind)));
    await expect.poll(() => page.getByRole("link", { name: "Requests" }).count()).toBe(1);
    await page.close();
  });

  it("browses each kind: the list holds every object the API lists, builtins marked", async () => {
    const page = await signIn(ADMIN_KEY);
    const kinds = Object.keys(await shownCounts(page));
    for (const kind of kinds) {
      await page.goto(`${server.url}/console/#/kind/${kind}`);
      const expected = await countOf(kind);
      await expect.poll(() => page.locator("p.count").first().innerText()).toBe(`${expected} objects`);
    }
    await page.goto(`${server.url}/console/#/kind/policy`);
    await page.locator("p.count").waitFor();
    const firstRow = page.getByRole("table", { name: "policy objects" }).locator(".vbody [role=row]").first();
    await expect.poll(() => firstRow.locator(".badge").innerText()).toBe("builtin");
    await page.close();
  });

  it("shows an object as `cpln get -o yaml` prints it, and its access report", async () => {
    const page = await signIn(ADMIN_KEY);
    await page.goto(`${server.url}/console/#/object/${encodeURIComponent(`/org/${ORG}/group/viewers`)}`);
    await page.getByRole("tab", { name: "YAML" }).click();
    const yaml = await page.getByLabel("YAML", { exact: true }).innerText();
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-home-"));
    // Asynchronously: the server under test runs in this process and must keep answering the CLI.
    const { stdout: cli } = await promisify(execFile)(
      process.execPath,
      [
        path.join(repoRoot, "node_modules", "@controlplane", "cli", "dist", "src", "cpln.js"),
        "group",
        "get",
        "viewers",
        "-o",
        "yaml",
      ],
      {
        env: {
          PATH: process.env["PATH"] ?? "",
          HOME: home,
          CPLN_ENDPOINT: server.url,
          CPLN_TOKEN: ADMIN_KEY,
          CPLN_ORG: ORG,
          NO_COLOR: "1",
        },
        encoding: "utf8",
      },
    );
    fs.rmSync(home, { recursive: true, force: true });
    expect(yaml.trim()).toBe(cli.trim());
    await page.getByRole("tab", { name: "Access" }).click();
    const report = page.getByRole("table", { name: "Access report" });
    await report.waitFor();
    const rows = await report.locator("tbody tr").allInnerTexts();
    expect(rows.some((row) => row.includes("manage") && row.includes(`/org/${ORG}/group/superusers`))).toBe(true);
    // Following a principal of the report leads to that principal's grants, with the policy that gives them.
    await report
      .getByRole("link", { name: `/org/${ORG}/group/superusers` })
      .first()
      .click();
    const grants = page.getByRole("table", { name: "Grants of the principal" });
    await grants.waitFor();
    const grantRows = await grants.locator("tbody tr").allInnerTexts();
    expect(grantRows.some((row) => row.startsWith("group") && row.includes("superusers-group"))).toBe(true);
    await page.close();
  });

  it("a user's grants include those of a group it joins by memberQuery, through that group", async () => {
    const user = `/org/${ORG}/user/ada@data.example.com`;
    await api("POST", `/org/${ORG}/user`, { email: "ada@data.example.com", idp: "google" });
    await api("POST", `/org/${ORG}/group`, {
      name: "data-team",
      memberQuery: { kind: "user", spec: { match: "all", terms: [{ op: "~", property: "email", value: "@data." }] } },
    });
    await api("POST", `/org/${ORG}/policy`, {
      name: "data-team-volumesets",
      targetKind: "volumeset",
      target: "all",
      bindings: [{ permissions: ["view"], principalLinks: [`/org/${ORG}/group/data-team`] }],
    });
    const page = await signIn(ADMIN_KEY);
    await page.goto(`${server.url}/console/#/access/${encodeURIComponent(user)}`);
    const grants = page.getByRole("table", { name: "Grants of the principal" });
    await grants.waitFor();
    expect(await page.getByText("Member of:").innerText()).toBe(`Member of: /org/${ORG}/group/data-team`);
    expect(await grants.locator("tbody tr").allInnerTexts()).toEqual([
      `volumeset\tevery volumeset\tview\tdata-team-volumesets\tgroup /org/${ORG}/group/data-team`,
    ]);
    await page.close();
    await api("DELETE", `/org/${ORG}/policy/data-team-volumesets`);
    await api("DELETE", `/org/${ORG}/group/data-team`);
    await api("DELETE", `/org/${ORG}/user/${encodeURIComponent("ada@data.example.com")}`);
  });

  it("a viewer's console is a viewer's: no emulator, no request log, and a principal without grants sees nothing", async () => {
    const viewer = await signIn(viewerKey);
    const counts = await shownCounts(viewer);
    expect(counts["policy"]).toBe(String(await countOf("policy", viewerKey)));
    expect(await viewer.getByRole("link", { name: "Requests" }).count()).toBe(0);
    expect(await viewer.getByRole("link", { name: "Emulator" }).count()).toBe(0);
    await viewer.close();
    const stranger = await signIn(strangerKey);
    await expect.poll(async () => Object.values(await shownCounts(stranger)).every((c) => c === "0")).toBe(true);
    await stranger.close();
  });

  // The program runs through the real Pulumi engine (test/engine/harness.ts), with the dynamic adapter.
  it.skipIf(skipWithoutEngine)(
    "shows the PATCH a real `pulumi up` sent as its directive body and the object's before/after",
    async () => {
      const world = engineWorld("console", false);
      const config: Record<string, { value: string; secret?: boolean }> = {
        "cpln:org": { value: ORG },
        "cpln:endpoint": { value: server.url },
        "cpln:token": { value: ADMIN_KEY, secret: true },
      };
      const driver = await EngineDriver.start({
        programDir: path.join(repoRoot, "examples", "quickstart"),
        workDir: world.workDir,
        binDir: world.binDir,
        stackName: "console",
        provider: "dynamic",
        config,
        env: world.env,
      });
      try {
        await driver.run({ cmd: "up" });
        type Logged = { seq: number; path: string; client?: string };
        const log = async () => (await api<{ items: Logged[] }>("GET", "/_cpln-local/requests")).items;
        const before = (await log()).at(-1)?.seq ?? 0;
        const edit = await driver.run({ cmd: "up", config: { "quickstart:extraViewer": "//serviceaccount/ci-bot" } });
        expect(edit.steps.filter((step) => step.op === "update").map((step) => step.type)).toEqual([
          "pulumi-nodejs:dynamic/cpln:Policy",
        ]);
        const page = await signIn(ADMIN_KEY);
        await page.getByRole("link", { name: "Requests" }).click();
        const logged = await log();
        expect(logged.filter((entry) => entry.seq > before && entry.client === undefined).length).toBeGreaterThan(0);
        // What programs sent (the edit's up among it) stands alone: the console's own requests since (its sign-in,
        // a query per kind) are in the log, and not shown.
        expect(
          logged.filter((entry) => entry.seq > before && entry.client === "console").map((entry) => entry.path),
        ).toContain(`/org/${ORG}/policy/-query`);
        const shownPaths = async () => (await page.locator("td.path").allInnerTexts()).sort();
        await expect.poll(shownPaths).toEqual(
          logged
            .filter((entry) => entry.client === undefined)
            .map((entry) => entry.path)
            .sort(),
        );
        await page.getByLabel("Kind").fill("policy");
        const patch = page.getByRole("button", { name: "PATCH" }).last();
        await patch.click();
        const body = JSON.parse(await page.getByLabel("Request body").innerText()) as unknown;
        expect(body).toEqual({
          "$patch/bindings": [
            { permissions: ["view"], "$append/principalLinks": [`/org/${ORG}/serviceaccount/ci-bot`] },
          ],
        });
        const diff = await page.getByRole("table", { name: "Diff" }).locator("tbody tr").allInnerTexts();
        const fields = diff.map((row) => row.split("\t")[0]);
        expect(fields).toEqual(["bindings[0].principalLinks[1]", "lastModified", "version"]);
        expect(diff[0]).toContain(`"/org/${ORG}/serviceaccount/ci-bot"`);
        await page.close();
        await driver.run({ cmd: "destroy" });
      } finally {
        await driver.close();
        world.close();
      }
    },
    300_000,
  );

  it("shows the key and join requests but never a key, a token or a join script", async () => {
    const key = await principalKey("console-secrets");
    const join = await fetch(`${server.url}/org/${ORG}/mk8s/edge/-join`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ nodePoolName: "general" }),
    });
    expect(join.status).toBe(200);
    const script = await join.text();
    const bootstrap = /BOOTSTRAP_TOKEN=['"]?([^'"\s]+)/.exec(script)?.[1];
    expect(bootstrap).toMatch(/.{16,}/);
    const secrets = [key, viewerKey, strangerKey, ADMIN_KEY, bootstrap!];
    const page = await signIn(ADMIN_KEY);
    await page.getByRole("link", { name: "Requests" }).click();
    // Each request opened in turn (one detail is open at a time): the page holds none of the secrets.
    const opened: string[] = [];
    for (const [kind, path] of [
      ["serviceaccount", /-addKey$/],
      ["mk8s", /-join$/],
    ] as const) {
      await page.getByLabel("Kind").fill(kind);
      const rows = page.locator("tr", { has: page.locator("td.path", { hasText: path }) });
      await expect.poll(() => rows.count()).toBeGreaterThan(0);
      for (const row of await rows.all()) {
        await row.getByRole("button").click();
        opened.push(await page.getByLabel("Request body").innerText());
        const shown = await page.content();
        for (const secret of secrets) expect(shown).not.toContain(secret);
      }
    }
    // The principals' keys were made by -addKey calls (console-viewer, console-stranger, console-secrets), and one join.
    expect(opened).toEqual([
      ...[1, 2, 3].map(() => JSON.stringify({ description: "console" }, null, 2)),
      JSON.stringify({ nodePoolName: "general" }, null, 2),
    ]);
    await page.close();
  });

  it("resets the org after a confirmation", async () => {
    await api("POST", `/org/${ORG}/group`, { name: "before-reset" });
    const page = await signIn(ADMIN_KEY);
    await page.getByRole("link", { name: "Emulator" }).click();
    await page.getByRole("button", { name: "Reset org" }).click();
    await expect.poll(() => page.getByRole("status").innerText()).toBe(`Org ${ORG} reset.`);
    const groups = await api<{ items: { name: string }[] }>("GET", `/org/${ORG}/group`);
    expect(groups.items.map((g) => g.name)).not.toContain("before-reset");
    await page.close();
  });
});

describe.skipIf(skip)("the console with 10,000 objects and 300 policies", () => {
  let big: RunningServer;
  let bigBrowser: Browser;
  let page: Page;
  const GROUPS = 10_000;
  const POLICIES = 300;

  beforeAll(async () => {
    if (!found.available) throw new Error(found.reason);
    big = await startServer({ org: ORG, adminKey: ADMIN_KEY });
    // 10,000 groups in one transaction: the org's exported state with copies of a group record, imported back.
    const stateUrl = `/_cpln-local/org/${ORG}/state`;
    const state = await request<{ records: Record<string, unknown>[] }>(big, "GET", stateUrl);
    const template = state.records.find((record) => record["kind"] === "group" && record["name"] === "viewers")!;
    const name = (i: number) => `team-${String(i).padStart(5, "0")}`;
    for (let i = 0; i < GROUPS; i++) {
      state.records.push({
        ...template,
        id: randomUUID(),
        name: name(i),
        description: `team ${i}`,
        memberLinks: [],
        origin: "default",
        links: [
          { rel: "self", href: `/org/${ORG}/group/${name(i)}` },
          { rel: "org", href: `/org/${ORG}` },
        ],
      });
    }
    await request(big, "PUT", stateUrl, state);
    for (let i = 0; i < POLICIES; i++) {
      await request(big, "POST", `/org/${ORG}/policy`, {
        name: `access-${String(i).padStart(3, "0")}`,
        targetKind: "group",
        targetLinks: [`//group/${name(i)}`],
        bindings: [{ permissions: ["view"], principalLinks: [`//group/${name(i + 1)}`] }],
      });
    }
    bigBrowser = await launchChromium(found.executable);
    page = await bigBrowser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(`${big.url}/console/`);
    await page.getByLabel("Org").fill(ORG);
    await page.getByLabel("Key or token").fill(ADMIN_KEY);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("table", { name: "Kinds" }).waitFor();
  });
  afterAll(async () => {
    await bigBrowser?.close();
    await big?.close();
  });

  it("lists every group but renders only the rows in view; scrolling reaches the last one", async () => {
    const started = Date.now();
    await page.goto(`${big.url}/console/#/kind/group`);
    const total = GROUPS + 2; // and the builtin superusers and viewers
    await expect.poll(() => page.locator("p.count").first().innerText(), { timeout: 120_000 }).toBe(`${total} objects`);
    console.log(JSON.stringify({ figure: "console list render", objects: total, ms: Date.now() - started }));
    const table = page.getByRole("table", { name: "group objects" });
    expect(await table.getAttribute("aria-rowcount")).toBe(String(total));
    expect(await table.locator(".vbody [role=row]").count()).toBeLessThan(80);
    await table.locator(".vbody").evaluate((box) => (box.scrollTop = box.scrollHeight));
    await expect.poll(() => table.locator(".vbody [role=row]").last().innerText()).toContain("viewers");
  });

  it("draws the access picture of 300 policies and filters it", async () => {
    const started = Date.now();
    await page.goto(`${big.url}/console/#/access`);
    await expect
      .poll(() => page.locator("p.count").first().innerText(), { timeout: 120_000 })
      .toMatch(/ bindings( \(\d+ of builtin policies folded\))?$/);
    console.log(JSON.stringify({ figure: "console access picture", policies: POLICIES, ms: Date.now() - started }));
    // Too many bindings to draw readably: the picture asks for a narrower filter; the table holds them all.
    expect(await page.locator(".picture-note").innerText()).toMatch(/^The picture draws up to 60 bindings: narrow/);
    await page.getByLabel("Filter").fill("access-12");
    await expect
      .poll(() => page.locator("p.count").first().innerText())
      .toMatch(/^10 of \d+ bindings \(\d+ of builtin policies folded\)$/);
    await page.getByLabel("Filter").fill("access-123");
    await expect
      .poll(() => page.locator("p.count").first().innerText())
      .toMatch(/^1 of \d+ bindings \(\d+ of builtin policies folded\)$/);
    // One binding drawn: the policy, the principal it names, the policy's targets, and the permission on the way.
    const picture = page.getByRole("img", { name: "Access picture" });
    // Each box: its full name (the title) and its drawn label (links into the org without their `/org/<org>/`).
    const column = (role: string) =>
      picture
        .locator(`g[data-column=${role}] text`)
        .evaluateAll((texts) =>
          texts.map((text) => [text.querySelector("title")?.textContent, text.lastChild?.textContent]),
        );
    expect(await column("policy")).toEqual([["access-123", "access-123"]]);
    expect(await column("principal")).toEqual([[`/org/${ORG}/group/team-00124`, "group/team-00124"]]);
    expect(await column("permissions")).toEqual([["view", "view"]]);
    expect(await column("target")).toEqual([[`/org/${ORG}/group/team-00123`, "group/team-00123"]]);
    const row = await page
      .getByRole("table", { name: "Policy bindings" })
      .locator(".vbody [role=row]")
      .first()
      .innerText();
    expect(row).toContain(`/org/${ORG}/group/team-00124`);
    expect(row).toContain(`/org/${ORG}/group/team-00123`);
    // A box of the picture is a link to its object.
    await page.getByRole("img", { name: "Access picture" }).getByRole("link").first().click();
    await expect.poll(() => page.url()).toContain(encodeURIComponent(`/org/${ORG}/policy/access-123`));
  });
});

async function request<T = unknown>(
  target: RunningServer,
  method: string,
  urlPath: string,
  body?: unknown,
  token = ADMIN_KEY,
): Promise<T> {
  const response = await fetch(`${target.url}${urlPath}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${urlPath} → ${response.status}: ${text}`);
  return (text === "" ? undefined : JSON.parse(text)) as T;
}

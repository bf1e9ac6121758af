/**
 * The console in Chromium, where what it sends matters: an object link in the page's address is opened only when it
 * is a link into the session's org (anything else: a clear refusal and no request at all, to this server or another);
 * its own requests are marked and left out of the request view unless asked for, so a program's requests stand alone;
 * `/favicon.ico` is no 401 and no entry of the request log.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../dist/server/index.js";
import { findChromium, launchChromium } from "../../tools/browser.js";
import { orgViewSettled, request, signIn } from "./session.js";

const ORG = "guard";
const ADMIN_KEY = "console-guard.0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f";
const found = findChromium();
const skip = !found.available && process.env["CI"] !== "true";
if (skip) console.log(`Skipping the console's browser tests: ${found.available ? "" : found.reason}`);

interface Logged {
  seq: number;
  method: string;
  path: string;
  status: number;
  client?: string;
}

describe.skipIf(skip)("what the console sends", () => {
  let server: RunningServer;
  let browser: Browser;
  /** Another origin (127.0.0.1, another port): every request it receives, as `METHOD path`. */
  let elsewhere: http.Server;
  const elsewhereSeen: string[] = [];
  let elsewhereUrl: string;

  const logged = async () => (await request<{ items: Logged[] }>(server, "GET", "/_cpln-local/requests")).items;

  beforeAll(async () => {
    if (!found.available) throw new Error(found.reason);
    server = await startServer({ org: ORG, adminKey: ADMIN_KEY });
    elsewhere = http.createServer((req, res) => {
      elsewhereSeen.push(`${req.method} ${req.url}`);
      res.writeHead(200, { "content-type": "application/json", "access-control-allow-origin": "*" }).end("{}");
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
    elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
    browser = await launchChromium(found.executable);
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((resolve) => elsewhere?.close(resolve));
  });

  /** Opens `link` in the object view by changing the address's hash (no reload), as a crafted link would. */
  const openLink = (page: Page, link: string) =>
    page.evaluate(`location.hash = ${JSON.stringify(`#/object/${encodeURIComponent(link)}`)}`);

  it("refuses object links that are not links into its org, with a message and no request sent anywhere", async () => {
    const page = await signIn(browser, server);
    await orgViewSettled(page);
    const sent: string[] = [];
    // Every request but the page's own assets (Chromium asks for the icon again at each change of the hash).
    const onRequest = (req: Request) => {
      if (!req.url().startsWith(`${server.url}/console/`)) sent.push(`${req.method()} ${req.url()}`);
    };
    page.on("request", onRequest);
    const before = (await logged()).at(-1)?.seq ?? 0;
    const crafted = [
      `/org/other/group/viewers`,
      `/org/${ORG}-other/group/viewers`,
      `/org/${ORG}/../other/secret/s`,
      `/org/${ORG}/%2e%2e/%2E%2E/other/secret/s`,
      `/org/${ORG}/group/viewers?x=1`,
      `//127.0.0.1:${new URL(elsewhereUrl).port}/org/${ORG}/group/viewers`,
      `${elsewhereUrl}/org/${ORG}/group/viewers`,
      `/org`,
    ];
    for (const link of crafted) {
      await openLink(page, link);
      await expect
        .poll(() => page.getByRole("alert").innerText())
        .toBe(
          `Refused: ${link} is not ${link.startsWith(`/org/${ORG}/`) ? "a plain object link" : `a link into org ${ORG}`}. ` +
            `The console opens objects of org ${ORG} only, and sends nothing for this link.`,
        );
    }
    // A link into the org still opens; its requests come after any the crafted links would have made.
    await openLink(page, `/org/${ORG}/group/viewers`);
    await page.getByRole("heading", { name: "group viewers" }).waitFor();
    page.off("request", onRequest);
    expect(sent).toEqual([`GET ${server.url}/org/${ORG}/group/viewers`]);
    expect(elsewhereSeen).toEqual([]);
    const after = (await logged()).filter((entry) => entry.seq > before);
    expect(after.map((entry) => `${entry.method} ${entry.path}`)).toEqual([`GET /org/${ORG}/group/viewers`]);
    await page.close();
  });

  it("refuses a kind from the address that would make its query reach another endpoint: the org is not reset", async () => {
    await request(server, "POST", `/org/${ORG}/group`, { name: "before-crafted-kind" });
    const page = await signIn(browser, server);
    await orgViewSettled(page);
    const sent: string[] = [];
    const onRequest = (req: Request) => {
      if (!req.url().startsWith(`${server.url}/console/`)) sent.push(`${req.method()} ${req.url()}`);
    };
    page.on("request", onRequest);
    // Once the query's path is built, the browser would resolve it to POST /_cpln-local/org/<org>/reset.
    const kind = `../../_cpln-local/org/${ORG}/reset#`;
    await page.evaluate(`location.hash = ${JSON.stringify(`#/kind/${encodeURIComponent(kind)}`)}`);
    await expect.poll(() => page.getByRole("alert").innerText()).toBe(`Refused: ${kind} is not a kind`);
    // A kind of the org still lists; its request comes after any the crafted one would have made.
    await page.evaluate(`location.hash = "#/kind/group"`);
    await expect.poll(() => page.locator("p.count").first().innerText()).toMatch(/^\d+ objects$/);
    page.off("request", onRequest);
    expect(sent).toEqual([`POST ${server.url}/org/${ORG}/group/-query`]);
    expect((await request<{ name: string }>(server, "GET", `/org/${ORG}/group/before-crafted-kind`)).name).toBe(
      "before-crafted-kind",
    );
    await page.close();
  });

  it("marks its own requests; the request view leaves them out unless asked, so a program's stand alone", async () => {
    await request(server, "DELETE", "/_cpln-local/requests");
    const page = await signIn(browser, server);
    await orgViewSettled(page);
    // A program's requests (no mark), between the console's.
    const program = [
      ["POST", `/org/${ORG}/group`, { name: "program-team" }],
      ["PATCH", `/org/${ORG}/group/program-team`, { description: "edited" }],
      ["GET", `/org/${ORG}/group/program-team`, undefined],
    ] as const;
    for (const [method, path, body] of program) await request(server, method, path, body);
    await page.getByRole("link", { name: "Requests" }).click();
    const paths = page.locator("td.path");
    // Sorted: on a loaded machine the three may fall into more than one burst, listed newest first.
    const programPaths = program.map(([, path]) => path).sort();
    const shownPaths = async () => (await paths.allInnerTexts()).sort();
    await expect.poll(shownPaths).toEqual(programPaths);
    // The log itself: the console's requests marked (its query of every kind among them), the program's not.
    const items = await logged();
    const fromConsole = items.filter((entry) => entry.client === "console");
    const programs = items.filter((entry) => entry.client === undefined);
    expect(programs.map((entry) => `${entry.method} ${entry.path}`)).toEqual(
      program.map(([method, path]) => `${method} ${path}`),
    );
    expect(fromConsole.map((entry) => entry.path)).toEqual(
      expect.arrayContaining([`/org/${ORG}`, `/org/${ORG}/policy/-query`, "/openapi.json", "/about"]),
    );
    expect(items.every((entry) => entry.client === undefined || entry.client === "console")).toBe(true);
    await expect
      .poll(() => page.locator("p.count").innerText())
      .toMatch(/^3 requests in \d bursts \(\d+ of the console's own not shown\)$/);
    // The toggle shows them, each marked, in order with the program's.
    await page.getByLabel("Show the console's own requests").check();
    await expect.poll(() => paths.count()).toBeGreaterThanOrEqual(fromConsole.length + 3);
    const marked = page.locator("tr.console td.path");
    await expect.poll(async () => (await marked.allInnerTexts()).includes(`/org/${ORG}/policy/-query`)).toBe(true);
    expect(await page.locator("tr.console .badge").first().innerText()).toBe("console");
    await page.getByLabel("Show the console's own requests").uncheck();
    await expect.poll(shownPaths).toEqual(programPaths);
    await page.close();
  });

  it("answers /favicon.ico 204 without credentials, keeps it out of the log, and the page asks for no 401", async () => {
    await request(server, "DELETE", "/_cpln-local/requests");
    const favicon = await fetch(`${server.url}/favicon.ico`);
    expect(favicon.status).toBe(204);
    expect(await favicon.text()).toBe("");
    const icon = await fetch(`${server.url}/console/icon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toBe("image/svg+xml");
    // A page of the console, from its first request through sign-in and the org view: no answer is a 401, and the
    // browser's own ask for the icon (as from any page of the server) gets the 204.
    const statuses: string[] = [];
    const context = await browser.newContext();
    context.on("response", (response) => statuses.push(`${response.status()} ${new URL(response.url()).pathname}`));
    const page = await signIn(context, server);
    await orgViewSettled(page);
    expect(await page.evaluate(`fetch("/favicon.ico").then((response) => response.status)`)).toBe(204);
    await context.close();
    expect(statuses.filter((entry) => entry.startsWith("401"))).toEqual([]);
    expect(statuses).toContain("200 /console/app.js");
    expect((await logged()).filter((entry) => entry.path.startsWith("/favicon.ico"))).toEqual([]);
  });
});

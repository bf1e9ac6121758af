/**
 * A screenshot of each view of the console, for docs/console/: a cpln-local on 127.0.0.1 seeded as a small team's org
 * (examples/seed.json and a few policies of its own), the requests a program would send (no console mark: they are what
 * the request view shows), and Debian's Chromium through playwright-core, headless and off the network.
 *
 *   npm run console:screenshots            # builds, then writes docs/console/*.png
 *   node dist/tools/console-screenshots.js <directory>
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Page } from "playwright-core";
import { startServer, type RunningServer, type SeedDocument } from "../server/index.js";
import { findChromium, launchChromium } from "./browser.js";

const ORG = "demo";
const ADMIN_KEY = "screenshots-admin.5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b";
const repoRoot = path.resolve(__dirname, "..", "..");
/** Long enough for a loaded machine; it only guards against a view that never shows. */
const TIMEOUT = 60_000;

async function api(server: RunningServer, method: string, urlPath: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${server.url}${urlPath}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_KEY}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok && response.status !== 404) throw new Error(`${method} ${urlPath} → ${response.status}: ${text}`);
  return text === "" ? undefined : (JSON.parse(text) as unknown);
}

/** The team's own groups and policies, beside the seed's: what the access views draw. */
async function seedTeam(server: RunningServer): Promise<void> {
  const link = (kind: string, name: string) => `//${kind}/${name}`;
  await api(server, "POST", `/org/${ORG}/group`, {
    name: "ops",
    description: "On-call operators",
    memberLinks: [link("serviceaccount", "ci-bot")],
  });
  await api(server, "POST", `/org/${ORG}/group`, { name: "developers", description: "Application developers" });
  const policies = [
    ["ops-manage-gvcs", "gvc", { target: "all" }, [[["manage"], [link("group", "ops")]]]],
    ["ci-clusters", "mk8s", { target: "all" }, [[["edit", "view"], [link("serviceaccount", "ci-bot")]]]],
    [
      "ci-bot-keys",
      "serviceaccount",
      { targetLinks: [link("serviceaccount", "ci-bot")] },
      [[["manage"], [link("group", "ops")]]],
    ],
    [
      "cloud-accounts",
      "cloudaccount",
      { target: "all" },
      [
        [["view"], [link("group", "developers"), link("group", "data-readers")]],
        [["manage"], [link("group", "ops")]],
      ],
    ],
    [
      "developers-groups",
      "group",
      { targetLinks: [link("group", "developers")] },
      [[["view"], [link("group", "developers")]]],
    ],
  ] as const;
  for (const [name, targetKind, target, bindings] of policies) {
    await api(server, "POST", `/org/${ORG}/policy`, {
      name,
      targetKind,
      ...target,
      bindings: bindings.map(([permissions, principalLinks]) => ({ permissions, principalLinks })),
    });
  }
}

/** What a program sends (as `pulumi up` would): a create, an edit, a read, and a read of something missing. */
async function programRequests(server: RunningServer): Promise<void> {
  await api(server, "POST", `/org/${ORG}/group`, { name: "release-team", description: "Release managers" });
  await api(server, "GET", `/org/${ORG}/group/release-team`);
  await api(server, "PATCH", `/org/${ORG}/group/release-team`, {
    description: "Release managers of the platform",
    tags: { team: "release" },
    "$append/memberLinks": [`//serviceaccount/ci-bot`],
  });
  await api(server, "GET", `/org/${ORG}/group/release-team`);
  await api(server, "GET", `/org/${ORG}/group/release-team-old`);
}

async function main(): Promise<void> {
  const out = path.resolve(process.argv[2] ?? path.join(repoRoot, "docs", "console"));
  fs.mkdirSync(out, { recursive: true });
  const found = findChromium();
  if (!found.available) throw new Error(found.reason);
  const seed = JSON.parse(fs.readFileSync(path.join(repoRoot, "examples", "seed.json"), "utf8")) as SeedDocument;
  const server = await startServer({ org: ORG, adminKey: ADMIN_KEY, seed });
  const browser = await launchChromium(found.executable);
  try {
    await seedTeam(server);
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.setDefaultTimeout(TIMEOUT);
    page.on("dialog", (dialog) => void dialog.accept());
    const shot = async (name: string) => {
      await page.screenshot({ path: path.join(out, `${name}.png`) });
      console.log(path.join(out, `${name}.png`));
    };
    const view = async (hash: string) => page.goto(`${server.url}/console/${hash}`);

    await page.goto(`${server.url}/console/`);
    await page.getByLabel("Org").fill(ORG);
    await page.getByLabel("Key or token").fill(ADMIN_KEY);
    await shot("signin");
    await page.getByRole("button", { name: "Sign in" }).click();
    await settledOrg(page);
    await shot("org");

    // The program runs while the user looks around: its requests are the ones the request view shows.
    await programRequests(server);

    await view("#/kind/policy");
    await page.locator("p.count").waitFor();
    await shot("kind-list");

    await view(`#/object/${encodeURIComponent(`/org/${ORG}/policy/cloud-accounts`)}`);
    await page.getByRole("tab", { name: "YAML" }).click();
    await page.getByLabel("YAML", { exact: true }).waitFor();
    await shot("object");
    await view(`#/object/${encodeURIComponent(`/org/${ORG}/group/developers`)}`);
    await page.getByRole("tab", { name: "Access" }).click();
    await page.getByRole("table", { name: "Access report" }).waitFor();
    await shot("object-access");
    await view(`#/object/${encodeURIComponent(`/org/other-org/secret/payments`)}`);
    await page.getByRole("alert").waitFor();
    await shot("object-refused");

    await view(`#/access/${encodeURIComponent(`/org/${ORG}/serviceaccount/ci-bot`)}`);
    await page.getByRole("table", { name: "Grants of the principal" }).waitFor();
    await page.getByRole("img", { name: "Access picture" }).waitFor();
    await shot("access");
    await view("#/access");
    await page.getByRole("img", { name: "Access picture" }).waitFor();
    await page
      .getByRole("heading", { name: "Policies → principals → permissions → targets" })
      .evaluate((heading) => heading.scrollIntoView({ block: "start" }));
    await shot("access-picture");

    await page.getByRole("link", { name: "Requests" }).click();
    await page.locator("td.path", { hasText: "/release-team-old" }).waitFor();
    await page.getByRole("button", { name: "PATCH" }).click();
    await page.getByRole("table", { name: "Diff" }).waitFor();
    await shot("requests");

    await page.getByRole("link", { name: "Emulator" }).click();
    await page.getByRole("button", { name: "Reset org" }).waitFor();
    await shot("emulator");
  } finally {
    await browser.close();
    await server.close();
  }
}

/**
 * Waits until the org view shows a count for every kind: polled from here (`waitForFunction` with a string would
 * evaluate it in the page, which the console's CSP forbids).
 */
async function settledOrg(page: Page): Promise<void> {
  const cells = page.getByRole("table", { name: "Kinds" }).locator("tbody td.num");
  for (const deadline = Date.now() + TIMEOUT; Date.now() < deadline; await page.waitForTimeout(200)) {
    const counts = await cells.allInnerTexts();
    if (counts.length > 0 && counts.every((count) => /^\d+$/.test(count.trim()))) return;
  }
  throw new Error(`the org view showed no count for every kind within ${TIMEOUT} ms`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

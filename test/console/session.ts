/** What the console's browser tests share: the API of a server under test, and signing a fresh page in. */
import type { Page } from "playwright-core";
import { expect } from "vitest";
import type { RunningServer } from "../../dist/server/index.js";

/** A call to the API of `target` as `token`, as a program would make it (no console mark): the parsed answer. */
export async function request<T = unknown>(
  target: RunningServer,
  method: string,
  urlPath: string,
  body?: unknown,
  token = target.adminKey,
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

/**
 * A new page of `opener` (a browser, or one of its contexts), signed in to `target`'s org with `token`, on the org view
 * once its table shows.
 */
export async function signIn(
  opener: { newPage(): Promise<Page> },
  target: RunningServer,
  token = target.adminKey,
): Promise<Page> {
  const page = await opener.newPage();
  // Generous: on a loaded 2-core machine a page's first render can take seconds; it only guards against a hang.
  page.setDefaultTimeout(60_000);
  await page.setViewportSize({ width: 1280, height: 860 });
  page.on("dialog", (dialog) => void dialog.accept());
  await page.goto(`${target.url}/console/`);
  await page.getByLabel("Org").fill(target.org);
  await page.getByLabel("Key or token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("table", { name: "Kinds" }).waitFor();
  return page;
}

/** Waits until the org view shows a count for every kind (its queries, one per kind, all answered). */
export async function orgViewSettled(page: Page): Promise<void> {
  // Polled from here: `waitForFunction` with a string would evaluate it in the page, which the console's CSP forbids.
  const cells = page.getByRole("table", { name: "Kinds" }).locator("tbody td.num");
  await expect
    .poll(
      async () => {
        const counts = await cells.allInnerTexts();
        return counts.length > 0 && counts.every((count) => /^\d+$/.test(count.trim()));
      },
      { timeout: 60_000 },
    )
    .toBe(true);
}

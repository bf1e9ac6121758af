// An admin key without a dot (an arbitrary CPLN_TOKEN) is listed under a name in `controlplane.keys`, which viewers
// may read (issue 39 item 4). The name was `raw-` and the first 16 hex of the key's unsalted SHA-256, so a viewer could
// test guesses offline; it is now keyed by a secret of the server process. The admin key keeps working, across a
// restart on the same data file too, and is listed once.
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { ORG, as, bearer, jwtFor, start } from "./helpers.js";

// A key as weak as the docs' examples: a word-list guess.
const RAW_KEY = "letmein-admin";
const sha256Prefix = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);

const dir = mkdtempSync(join(tmpdir(), "cpln-raw-key-"));
const opened: RunningServer[] = [];
afterAll(async () => {
  for (const server of opened) await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The key names a viewer reads on the controlplane service account. */
async function namesAViewerReads(server: RunningServer, addViewer = true): Promise<string[]> {
  if (addViewer) {
    const added = await as(server, bearer(server.adminKey)).patch(`/org/${ORG}/group/viewers`, {
      "$append/memberLinks": ["//user/viewer@example.com"],
    });
    expect(added.status).toBe(200);
  }
  const viewer = as(server, bearer(await jwtFor("viewer@example.com")));
  const account = await viewer.get(`/org/${ORG}/serviceaccount/controlplane`);
  expect(account.status).toBe(200);
  return ((account.body as { keys?: { name: string; description?: string }[] }).keys ?? []).map((k) => k.name);
}

describe("a raw admin key's listed name", () => {
  it("is not derived from the key alone: no offline guess test; the key works before and after a restart", async () => {
    const data = join(dir, "org.db");
    const first = await start({ adminKey: RAW_KEY, data });
    opened.push(first);
    const names = await namesAViewerReads(first);
    const raw = names.filter((n) => n.startsWith("raw-"));
    expect(raw).toHaveLength(1);
    expect(raw[0]).toMatch(/^raw-[0-9a-f]{16}$/);
    // A word list holding the key finds no match: the name is not the SHA-256 prefix of any guess (it was).
    const guesses = ["password", "letmein", RAW_KEY, "admin", "secret"];
    expect(guesses.filter((guess) => raw[0] === `raw-${sha256Prefix(guess)}`)).toEqual([]);
    expect((await as(first, bearer(RAW_KEY)).get(`/org/${ORG}/serviceaccount/controlplane`)).status).toBe(200);
    expect((await as(first, bearer(`${RAW_KEY}x`)).get(`/org/${ORG}/gvc`)).status).toBe(401);
    await first.close();
    opened.pop();

    // A restart on the same data file installs the key again: listed once, and it still works.
    const second = await start({ adminKey: RAW_KEY, data });
    opened.push(second);
    expect((await as(second, bearer(RAW_KEY)).get(`/org/${ORG}/gvc`)).status).toBe(200);
    const after = (await namesAViewerReads(second, false)).filter((n) => n.startsWith("raw-"));
    expect(after).toHaveLength(1);
    expect(after[0]).toMatch(/^raw-[0-9a-f]{16}$/);
    expect(after[0]).not.toBe(`raw-${sha256Prefix(RAW_KEY)}`);
  });

  it("a dotted key keeps the name before its dot (as the real API issues keys)", async () => {
    const server = await start({ adminKey: "opsadmin.some-secret-text" });
    opened.push(server);
    expect(await namesAViewerReads(server)).toContain("opsadmin");
    expect((await as(server, bearer("opsadmin.some-secret-text")).get(`/org/${ORG}/gvc`)).status).toBe(200);
  });
});

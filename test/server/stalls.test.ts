// No single request stalls the server: bounded tag and pattern sizes, terms per query, a work budget per query
// evaluation (stored group memberQuery and policy targetQuery included), and $patch/<array> matching by hash.
// Each timing test runs a bounded adversarial input over real HTTP while GET /about is polled, and asserts both
// times. Bounds are generous for a shared 2-core machine: the work budget is about one second unloaded.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { maxGlobLength, maxRegexProgram } from "../../api/patterns.js";
import { QUERY_WORK_BUDGET } from "../../api/query.js";
import { MAX_QUERY_TERMS } from "../../api/schemas/query.js";
import { TAG_KEY_MAX, TAG_VALUE_MAX, TAGS_MAX } from "../../api/schemas/common.js";
import { killStarted, startCplnLocalProcess, type CplnLocalProcess } from "../support/cplnLocalProcess.js";
import { ADMIN_KEY, ORG, SEED } from "./helpers.js";

/** A request that took longer than this stalled the server (old code: 7.9 s to minutes on these inputs). */
const REQUEST_BOUND_MS = 6_000;

/**
 * The server runs as `cpln-local` in a child process, so the GET /about polls below (sent from this process) wait
 * for its event loop exactly as another client's requests would: in one process, a stalled loop would stall the
 * poller too and hide the stall.
 */
let child: CplnLocalProcess | undefined;
let workDir = "";
const server = { url: "" };

interface Timed {
  status: number;
  body: Record<string, unknown>;
  ms: number;
  /** The slowest GET /about answered while the request ran. */
  aboutMaxMs: number;
  aboutCount: number;
}

async function send(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_KEY}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** Sends one request while polling GET /about every 20 ms; both are timed. */
async function timed(method: string, path: string, body?: unknown): Promise<Timed> {
  let polling = true;
  let aboutMaxMs = 0;
  let aboutCount = 0;
  const poller = (async () => {
    while (polling) {
      const started = performance.now();
      const about = await fetch(`${server.url}/about`);
      await about.arrayBuffer();
      aboutMaxMs = Math.max(aboutMaxMs, performance.now() - started);
      aboutCount += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 30));
  const started = performance.now();
  const answer = await send(method, path, body);
  const ms = performance.now() - started;
  polling = false;
  await poller;
  // The figures issue 18 asks for (the worst single request under the limits, /about meanwhile), printed as measured.
  console.log(
    `[stalls] ${method} ${path}: ${answer.status} in ${ms.toFixed(0)} ms; ` +
      `GET /about answered ${aboutCount} times meanwhile, slowest ${aboutMaxMs.toFixed(1)} ms`,
  );
  return { ...answer, ms, aboutMaxMs, aboutCount };
}

const issues = (body: Record<string, unknown>) =>
  (body["details"] as { issues: { path: string; message: string }[] }).issues;

/** 50 tags of the longest value, mixing the characters the adversarial patterns work on. */
function maxTags(seed: string): Record<string, string> {
  const tags: Record<string, string> = {};
  for (let i = 0; i < TAGS_MAX; i++)
    tags[`k${i}-${"t".repeat(TAG_KEY_MAX - 8)}`.slice(0, TAG_KEY_MAX)] = `${seed}${i}`.padEnd(TAG_VALUE_MAX, "ab");
  return tags;
}

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), "cpln-stalls-"));
  const seedFile = path.join(workDir, "seed.json");
  writeFileSync(seedFile, JSON.stringify(SEED));
  child = startCplnLocalProcess(["--host", "127.0.0.1", "--port", "0", "--org", ORG, "--seed", seedFile], {
    env: { CPLN_TOKEN: ADMIN_KEY },
  });
  server.url = await child.url();
  // 20 groups with maximal tags and descriptions: what every adversarial query below runs over.
  for (let i = 0; i < 20; i++) {
    const created = await send("POST", `/org/${ORG}/group`, {
      name: `big-${i}`,
      description: "ab".repeat(125),
      tags: maxTags(`g${i}`),
    });
    expect(created.status).toBe(201);
  }
});

afterAll(async () => {
  killStarted();
  await child?.exited;
  if (workDir !== "") rmSync(workDir, { recursive: true, force: true });
});

describe("limits on stored and queried sizes (400 naming the field and the limit)", () => {
  it("refuses a tag value longer than the limit", async () => {
    const answer = await send("POST", `/org/${ORG}/group`, {
      name: "long-tag",
      tags: { k: "x".repeat(TAG_VALUE_MAX + 1) },
    });
    expect(answer.status).toBe(400);
    expect(issues(answer.body)).toContainEqual({
      path: "tags.k",
      message: `must be at most ${TAG_VALUE_MAX} characters`,
    });
  });

  it("refuses a tag key longer than the limit, in a PATCH too", async () => {
    const key = "k".repeat(TAG_KEY_MAX + 1);
    const answer = await send("PATCH", `/org/${ORG}/group/big-0`, { tags: { [key]: "v" } });
    expect(answer.status).toBe(400);
    expect(issues(answer.body)).toContainEqual({
      path: `tags.${key}`,
      message: expect.stringMatching(new RegExp(`tag keys must be at most ${TAG_KEY_MAX} characters$`)) as unknown,
    });
  });

  it("refuses more terms than the limit", async () => {
    const terms = Array.from({ length: MAX_QUERY_TERMS + 1 }, (_, i) => ({ property: "name", value: `n${i}` }));
    const answer = await send("POST", `/org/${ORG}/group/-query`, { spec: { terms } });
    expect(answer.status).toBe(400);
    expect(issues(answer.body)).toContainEqual({
      path: "spec.terms",
      message: `at most ${MAX_QUERY_TERMS} terms are allowed`,
    });
  });

  it("refuses a 3 KB '~' pattern, naming the limit", async () => {
    const value = "*a".repeat(1500);
    const answer = await send("POST", `/org/${ORG}/group/-query`, {
      spec: { terms: [{ op: "~", property: "*", value }] },
    });
    expect(answer.status).toBe(400);
    expect(issues(answer.body)).toContainEqual({
      path: "spec.terms.0.value",
      message: `a '~' pattern may be at most ${maxGlobLength} characters (this one has 3000)`,
    });
  });

  it("refuses (a|b)*a(a|b){500}c: its program is over the instruction limit", async () => {
    const answer = await send("POST", `/org/${ORG}/group/-query`, {
      spec: { terms: [{ op: "=~", property: "*", value: "(a|b)*a(a|b){500}c" }] },
    });
    expect(answer.status).toBe(400);
    const [issue] = issues(answer.body);
    expect(issue?.path).toBe("spec.terms.0.value");
    expect(issue?.message).toMatch(
      new RegExp(
        `^regular expression refused: it compiles to \\d+ instructions, more than the limit of ${maxRegexProgram} `,
      ),
    );
  });

  it("refuses the same pattern as a group memberQuery, before storing it", async () => {
    const answer = await send("POST", `/org/${ORG}/group`, {
      name: "greedy",
      memberQuery: { spec: { terms: [{ op: "=~", property: "*", value: "(a|b)*a(a|b){500}c" }] } },
    });
    expect(answer.status).toBe(400);
    expect(issues(answer.body)[0]?.path).toBe("memberQuery.spec.terms.0.value");
    expect((await send("GET", `/org/${ORG}/group/greedy`)).status).toBe(404);
  });
});

describe("the worst single requests under the limits stay bounded, and /about keeps answering", () => {
  // A costly =~ program (~100 instructions, every character keeps many threads alive), over every tag and the
  // description of maximal records, 50 times: without a budget this is minutes of work (~17 ms per 1 KB value).
  const heavyRegex = (i: number) => `(.*a){20}z${i}$`;

  it("a query of 50 maximal =~ terms over '*' is refused by the work budget within the bound", async () => {
    const terms = Array.from({ length: MAX_QUERY_TERMS }, (_, i) => ({
      op: "=~",
      property: "*",
      value: heavyRegex(i),
    }));
    const answer = await timed("POST", `/org/${ORG}/group/-query`, { spec: { match: "all", terms } });
    expect(answer.status).toBe(400);
    expect(issues(answer.body)[0]?.message).toMatch(
      new RegExp(`^the query needs more work than the limit of ${QUERY_WORK_BUDGET} units`),
    );
    expect(answer.ms).toBeLessThan(REQUEST_BOUND_MS);
    expect(answer.aboutMaxMs).toBeLessThan(REQUEST_BOUND_MS);
  });

  it("a query of 50 '~' patterns of the longest length over '*' is bounded the same way", async () => {
    const value = `*${"a*".repeat((maxGlobLength - 2) / 2)}c`.slice(0, maxGlobLength);
    const terms = Array.from({ length: MAX_QUERY_TERMS }, () => ({ op: "~", property: "*", value }));
    const answer = await timed("POST", `/org/${ORG}/group/-query`, { spec: { match: "none", terms } });
    expect(answer.status).toBe(400);
    expect(issues(answer.body)[0]?.message).toMatch(/^the query needs more work than the limit/);
    expect(answer.ms).toBeLessThan(REQUEST_BOUND_MS);
    expect(answer.aboutMaxMs).toBeLessThan(REQUEST_BOUND_MS);
  });

  it("50 substring '~' terms (the costliest unit of work) spend the whole budget and no more", async () => {
    // No wildcard: a case-insensitive substring search of every tag value, 2,020 values of ~1 KB per term.
    const terms = Array.from({ length: MAX_QUERY_TERMS }, (_, i) => ({ op: "~", property: "*", value: `ab${i}zz` }));
    const answer = await timed("POST", `/org/${ORG}/group/-query`, { spec: { match: "none", terms } });
    expect(answer.status).toBe(400);
    expect(issues(answer.body)[0]?.message).toMatch(/^the query needs more work than the limit/);
    expect(answer.ms).toBeLessThan(REQUEST_BOUND_MS);
    expect(answer.aboutMaxMs).toBeLessThan(REQUEST_BOUND_MS);
  });

  it("a stored group memberQuery of maximal =~ terms makes the next unrelated write pay at most the budget", async () => {
    for (let i = 0; i < 10; i++) {
      const email = `u${i}@example.com`;
      expect((await send("POST", `/org/${ORG}/user`, { email })).status).toBe(201);
      const tagged = await send("PATCH", `/org/${ORG}/user/${encodeURIComponent(email)}`, { tags: maxTags(`u${i}`) });
      expect(tagged.status).toBe(200);
    }
    const terms = Array.from({ length: MAX_QUERY_TERMS }, (_, i) => ({
      op: "=~",
      property: "*",
      value: heavyRegex(i),
    }));
    const group = await send("POST", `/org/${ORG}/group`, {
      name: "by-query",
      memberQuery: { spec: { match: "all", terms } },
    });
    expect(group.status).toBe(201);
    const write = await timed("POST", `/org/${ORG}/policy`, {
      name: "unrelated",
      targetKind: "group",
      targetLinks: [`//group/big-0`],
    });
    expect(write.status).toBe(201);
    expect(write.ms).toBeLessThan(REQUEST_BOUND_MS);
    expect(write.aboutMaxMs).toBeLessThan(REQUEST_BOUND_MS);
  });

  it("a PATCH of 12,000 $patch/nodePools items is linear: answered within the bound", async () => {
    const partials = Array.from({ length: 12_000 }, (_, i) => ({ name: `pool-${i}` }));
    const answer = await timed("PATCH", `/org/${ORG}/mk8s/edge`, {
      spec: { provider: { generic: { "$patch/nodePools": partials } } },
    });
    expect(answer.status).toBe(200);
    const pools = (
      answer.body["spec"] as { provider: { generic: { location: "aws-eu-central-1"; nodePools: { name: string }[] } } }
    ).provider.generic.nodePools;
    expect(pools).toHaveLength(12_002);
    expect(pools[12_001]).toEqual(expect.objectContaining({ name: "pool-11999" }));
    expect(answer.ms).toBeLessThan(REQUEST_BOUND_MS);
  });
});

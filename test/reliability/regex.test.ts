/**
 * Bad input that costs time instead of failing validation: query patterns that make a backtracking regex engine run
 * for minutes (`=~` with nested quantifiers, `~` globs with many `*`) against values the caller controls (names up
 * to 63 characters, descriptions up to 250). The server runs JavaScript on one thread, so one such query would stop it
 * answering everyone. Each query must be answered (2xx, or 4xx with the error shape) within 2 s, and `GET /about`
 * sent while it runs within 2 s. The same patterns in a policy's `targetQuery` (evaluated on every authorization
 * check) must not stall the server either.
 *
 * cpln-local runs as a child process (dist/server/cli.js): if it stalls, this test process stays responsive, reports,
 * and kills it. Same in CI and with CPLN_LONG_TESTS=1. Needs `npm run build`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { createInterface } from "node:readline";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerProblem, parseJsonOrUndefined, report } from "./support.js";

const ORG = "regex";
const ADMIN_KEY = "regexadmin.regex-admin-key-0123456789abcd";
const LIMIT_MS = 2_000;
const cli = path.resolve(__dirname, "..", "..", "dist", "server", "cli.js");

let child: ChildProcess;
let url: string;
let exited: Promise<void>;

interface Timed {
  status: number;
  text: string;
  json: unknown;
  ms: number;
}

/** One request with a hard deadline; `status` 0 when no answer came in time. */
async function timed(method: string, urlPath: string, body?: unknown, deadlineMs = LIMIT_MS): Promise<Timed> {
  const started = performance.now();
  try {
    const response = await request(new URL(urlPath, url), {
      method: method as "GET",
      headers: {
        authorization: `Bearer ${ADMIN_KEY}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(deadlineMs),
    });
    const text = await response.body.text();
    return { status: response.statusCode, text, json: parseJsonOrUndefined(text), ms: performance.now() - started };
  } catch {
    return { status: 0, text: "", json: undefined, ms: performance.now() - started };
  }
}

async function start(): Promise<void> {
  child = spawn(process.execPath, [cli, "--port", "0", "--org", ORG], {
    env: { ...process.env, CPLN_TOKEN: ADMIN_KEY },
    stdio: ["ignore", "pipe", "pipe"],
  });
  exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("cpln-local printed no URL within 20 s")), 20_000);
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
  });
}

async function stop(): Promise<void> {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill("SIGKILL");
    await exited;
  }
}

/** Values a caller can store: the longest names and descriptions the API accepts, made to defeat backtracking. */
const longName = `${"a".repeat(61)}-x`;
const longDescription = `${"a".repeat(249)}!`;

const cases: { label: string; term: Record<string, unknown> }[] = [
  { label: "=~ ^(a+)+$ on a 63-char name", term: { op: "=~", property: "name", value: "^(a+)+$" } },
  { label: "=~ (a|a)*$ on a 63-char name", term: { op: "=~", property: "name", value: "^(a|a)*$" } },
  { label: "=~ (a|aa)+$ on a 63-char name", term: { op: "=~", property: "name", value: "^(a|aa)+$" } },
  {
    label: "=~ (.*a){12}$ on a 250-char description",
    term: { op: "=~", property: "description", value: "^(.*a){12}$" },
  },
  { label: "=~ ^(a*)*b$ on a 250-char description", term: { op: "=~", property: "description", value: "^(a*)*b$" } },
  {
    label: "~ glob *a*a*a*a*a*a*b on a 250-char description",
    term: { op: "~", property: "description", value: "*a*a*a*a*a*a*b" },
  },
  {
    label: "~ glob *a*a*a*a*a*a*a*a*a*a*b on a 63-char name",
    term: { op: "~", property: "name", value: "*a*a*a*a*a*a*a*a*a*a*b" },
  },
];

beforeAll(async () => {
  if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first`);
  await start();
  const created = await timed("POST", `/org/${ORG}/group`, { name: longName, description: longDescription }, 10_000);
  expect(created.status, created.text).toBe(201);
});

afterAll(async () => {
  await stop();
});

describe("query patterns cannot stall the server", () => {
  for (const { label, term } of cases) {
    it(`POST /-query with ${label}: answered within ${LIMIT_MS} ms, and /about meanwhile`, async () => {
      const query = timed("POST", `/org/${ORG}/group/-query`, { kind: "group", spec: { match: "all", terms: [term] } });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const about = await timed("GET", "/about");
      const answer = await query;
      const stalled = answer.status === 0 || about.status === 0;
      if (stalled) {
        // The server is stuck in the pattern: replace it so the next case starts clean.
        await stop();
        await start();
        await timed("POST", `/org/${ORG}/group`, { name: longName, description: longDescription }, 10_000);
      }
      expect(answer.status, `${label}: no answer within ${LIMIT_MS} ms`).not.toBe(0);
      expect(answerProblem(answer)).toBeUndefined();
      expect(about.status, `GET /about while the query ran: no answer within ${LIMIT_MS} ms`).toBe(200);
      report(`regex: ${label} → ${answer.status} in ${answer.ms.toFixed(0)} ms; /about in ${about.ms.toFixed(0)} ms`);
    });
  }

  it("the same patterns in a policy's targetQuery do not stall authorization", async () => {
    const problems: string[] = [];
    const outcomes: string[] = [];
    for (const [index, { label, term }] of cases.entries()) {
      const created = await timed("POST", `/org/${ORG}/policy`, {
        name: `slow-${index}`,
        targetKind: "group",
        targetQuery: { kind: "group", spec: { match: "all", terms: [term] } },
        bindings: [{ permissions: ["view"], principalLinks: ["//group/viewers"] }],
      });
      if (created.status === 0) problems.push(`${label}: creating the policy got no answer`);
      // Refused (4xx) is fine. Accepted, authorization evaluates it against groups: the group's access report runs
      // every policy on groups against it.
      const accessReport = await timed("GET", `/org/${ORG}/group/${longName}/-accessreport`);
      if (accessReport.status !== 200) {
        problems.push(
          `${label}: access report → ${accessReport.status || "no answer"} in ${accessReport.ms.toFixed(0)} ms`,
        );
      }
      outcomes.push(`${created.status}/${accessReport.status}`);
      if (created.status === 0 || accessReport.status === 0) {
        await stop();
        await start();
        await timed("POST", `/org/${ORG}/group`, { name: longName, description: longDescription }, 10_000);
      }
    }
    report(`regex: policies with the patterns in targetQuery (create/access report): ${outcomes.join(" ")}`);
    expect(problems).toEqual([]);
  });
});

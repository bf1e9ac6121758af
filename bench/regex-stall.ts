/**
 * Times `=~` patterns that make a backtracking engine stall, against a cpln-local child process: each pattern as a
 * query over a group with a 250-character description, with a `GET /about` sent 100 ms into it, and as a policy's
 * `targetQuery` evaluated by the access reports of both groups. A request with no answer within the deadline counts as a stall; the
 * child is then killed (SIGKILL: a stalled event loop ignores SIGTERM) and restarted for the next pattern.
 *
 *   npm run build && node dist/bench/regex-stall.js [path/to/server/cli.js] [deadline-ms]
 *
 * The first argument defaults to this checkout's dist/server/cli.js (pass an older build to measure before a change).
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as path from "node:path";
import { createInterface } from "node:readline";

const ORG = "regex";
const KEY = "regexadmin.regex-admin-key-0123456789abcd";
const cli = path.resolve(process.argv[2] || path.join(__dirname, "..", "server", "cli.js"));
const deadline = Number(process.argv[3] ?? 10_000);
const groups = { bang: `${"a".repeat(249)}!`, plain: "a".repeat(250) };
const patterns = [
  "a*a*a*a*a*a*b",
  "^[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*!$",
  "(a+)+b",
  "^(a|aa)+$",
  "(.*a){12}$",
  "(a*)*b",
];

let child: ChildProcess;
let url = "";

async function start(): Promise<void> {
  child = spawn(process.execPath, [cli, "--port", "0", "--org", ORG], {
    env: { ...process.env, CPLN_TOKEN: KEY },
    stdio: ["ignore", "pipe", "ignore"],
  });
  url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no URL within 20 s")), 20_000);
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
  });
  for (const [name, description] of Object.entries(groups)) {
    const created = await timed("POST", `/org/${ORG}/group`, { name, description });
    if (created.status !== 201) throw new Error(`creating group ${name}: ${created.status}`);
  }
}

async function stop(): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

async function timed(method: string, urlPath: string, body?: unknown): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  try {
    const response = await fetch(new URL(urlPath, url), {
      method,
      headers: {
        authorization: `Bearer ${KEY}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(deadline),
    });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - started };
  } catch {
    return { status: 0, ms: performance.now() - started };
  }
}

const show = (answer: { status: number; ms: number }): string =>
  answer.status === 0 ? `no answer in ${deadline} ms` : `${answer.status} in ${answer.ms.toFixed(1)} ms`;

async function main(): Promise<void> {
  console.log(`cli: ${cli}; deadline ${deadline} ms; descriptions of 250 characters`);
  await start();
  for (const [index, pattern] of patterns.entries()) {
    const term = { op: "=~", property: "description", value: pattern };
    const query = timed("POST", `/org/${ORG}/group/-query`, { kind: "group", spec: { match: "all", terms: [term] } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const about = await timed("GET", "/about");
    const answer = await query;
    const stalled = answer.status === 0 || about.status === 0;
    if (stalled) {
      await stop();
      await start();
    }
    const policy = await timed("POST", `/org/${ORG}/policy`, {
      name: `p-${index}`,
      targetKind: "group",
      targetQuery: { kind: "group", spec: { match: "all", terms: [term] } },
      bindings: [{ permissions: ["view"], principalLinks: ["//group/viewers"] }],
    });
    let report = await timed("GET", `/org/${ORG}/group/bang/-accessreport`);
    if (report.status !== 0) {
      const plain = await timed("GET", `/org/${ORG}/group/plain/-accessreport`);
      report = { status: plain.status === 200 ? report.status : plain.status, ms: report.ms + plain.ms };
    }
    console.log(
      `${JSON.stringify(pattern).padEnd(45)} query ${show(answer)}; /about ${show(about)}; ` +
        `policy create ${show(policy)}, both access reports ${show(report)}`,
    );
    if (policy.status === 0 || report.status === 0) {
      await stop();
      await start();
    }
  }
  await stop();
}

main().catch(async (error: unknown) => {
  console.error(error);
  await stop();
  process.exitCode = 1;
});

/**
 * Issue 39 finding 3, measured: concurrent creates of ~480 KiB mk8s clusters by a service account that may only create
 * clusters, against a cpln-local child on 127.0.0.1 with a data file. Phase 1 runs into `mk8s-clusters` (100); phase 2
 * has the admin lift that quota, as an admin may, and runs into `stored-bytes` (64 MiB); phase 3 sends as many again
 * at the cap. Each phase is bounded in count and time and stops by itself. Prints the answers, the quota the refusals
 * name, RSS (before, peak, after), the data file, and what a full list of the clusters costs (pages, largest page,
 * time, `/about` meanwhile).
 *
 *   npm run build && node dist/bench/quota-load.js [creates per phase, default 120] [concurrency, default 8] [cli.js]
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { killChild, rssBytes, startCliChild } from "./lib/procs.js";
import { Worker } from "node:worker_threads";

const ORG = "load";
const KEY = "loadadmin.load-admin-key-0123456789abcdef";
/** No phase runs longer than this; every request is abandoned after `REQUEST_MS`. */
const PHASE_MS = 180_000;
const REQUEST_MS = 30_000;
const RECORD_BYTES = 480 * 1024;

interface Answer {
  status: number;
  body: Record<string, unknown>;
  bytes: number;
}

function rssMiB(pid: number): number {
  return rssBytes(pid) / 1048576;
}

async function send(url: string, token: string, method: string, urlPath: string, body?: unknown): Promise<Answer> {
  const response = await fetch(new URL(urlPath, url), {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(REQUEST_MS),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>),
    bytes: Buffer.byteLength(text),
  };
}

function cluster(name: string): Record<string, unknown> {
  const body = {
    name,
    spec: {
      version: "1.28.4",
      provider: { generic: { location: "aws-eu-central-1", nodePools: [{ name: "general" }] } },
      addOns: { padding: { data: "" } },
    },
  };
  body.spec.addOns.padding.data = "x".repeat(RECORD_BYTES - Buffer.byteLength(JSON.stringify(body)));
  return body;
}

/** `count` creates, `concurrency` at a time, until done or `PHASE_MS` passed; the peak RSS sampled after each. */
async function createPhase(
  url: string,
  token: string,
  pid: number,
  prefix: string,
  count: number,
  concurrency: number,
): Promise<{ statuses: Map<string, number>; peak: number; seconds: number; refusal?: string }> {
  const statuses = new Map<string, number>();
  let peak = rssMiB(pid);
  let refusal: string | undefined;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count && performance.now() - started < PHASE_MS) {
        const n = next++;
        let label: string;
        try {
          const answer = await send(url, token, "POST", `/org/${ORG}/mk8s`, cluster(`${prefix}-${n}`));
          const quota = (answer.body["details"] as { quota?: string } | undefined)?.quota;
          label = quota === undefined ? String(answer.status) : `${answer.status} ${quota}`;
          if (answer.status === 429 && refusal === undefined) refusal = String(answer.body["message"]);
        } catch {
          label = "no answer";
        }
        statuses.set(label, (statuses.get(label) ?? 0) + 1);
        peak = Math.max(peak, rssMiB(pid));
      }
    }),
  );
  return { statuses, peak, seconds: (performance.now() - started) / 1000, ...(refusal ? { refusal } : {}) };
}

/**
 * Asks `/about` every 20 ms from a worker thread (an event loop of its own: the bench's parsing of large pages must
 * not count as the server's delay) until told to stop; answers the slowest answer in ms.
 */
function aboutProbe(url: string): { stop(): Promise<number> } {
  const worker = new Worker(
    `const { parentPort, workerData } = require("node:worker_threads");
     let running = true, worst = 0;
     parentPort.on("message", () => { running = false; });
     (async () => {
       while (running) {
         const started = performance.now();
         await (await fetch(workerData + "/about")).text();
         worst = Math.max(worst, performance.now() - started);
         await new Promise((resolve) => setTimeout(resolve, 20));
       }
       parentPort.postMessage(worst);
     })();`,
    { eval: true, workerData: url },
  );
  const worst = new Promise<number>((resolve) => worker.once("message", (value: number) => resolve(value)));
  return {
    async stop() {
      worker.postMessage("stop");
      const value = await worst;
      await worker.terminate();
      return value;
    },
  };
}

/** Every page of the cluster list, while `/about` is probed: pages, largest page, time, slowest `/about`. */
async function listAll(url: string, pid: number): Promise<string> {
  const probe = aboutProbe(url);
  const started = performance.now();
  let pages = 0;
  let items = 0;
  let largest = 0;
  let peak = rssMiB(pid);
  let href: string | undefined = `/org/${ORG}/mk8s`;
  while (href !== undefined) {
    const page = await send(url, KEY, "GET", href);
    if (page.status !== 200) throw new Error(`list page answered ${page.status}`);
    pages += 1;
    items += (page.body["items"] as unknown[]).length;
    largest = Math.max(largest, page.bytes);
    peak = Math.max(peak, rssMiB(pid));
    href = (page.body["links"] as { rel: string; href: string }[]).find((l) => l.rel === "next")?.href;
  }
  const seconds = (performance.now() - started) / 1000;
  const aboutMax = await probe.stop();
  return (
    `list of ${items} clusters: ${pages} pages in ${seconds.toFixed(2)} s, largest ${(largest / 1048576).toFixed(2)} ` +
    `MiB; /about at worst ${aboutMax.toFixed(0)} ms meanwhile; RSS peak ${peak.toFixed(0)} MiB`
  );
}

const describe = (statuses: Map<string, number>) =>
  [...statuses]
    .sort()
    .map(([label, n]) => `${n}×${label}`)
    .join(", ");

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 120);
  const concurrency = Number(process.argv[3] ?? 8);
  const cli = path.resolve(process.argv[4] || path.join(__dirname, "..", "server", "cli.js"));
  const dir = mkdtempSync(path.join(tmpdir(), "cpln-quota-load-"));
  const data = path.join(dir, "load.db");
  const { child, url } = await startCliChild(cli, ["--org", ORG, "--data", data], KEY);
  try {
    const pid = child.pid!;
    // The narrow principal: a service account whose only grant is `create` on mk8s.
    await send(url, KEY, "POST", `/org/${ORG}/serviceaccount`, { name: "loader" });
    const key = String(
      (await send(url, KEY, "POST", `/org/${ORG}/serviceaccount/loader/-addKey`, { description: "load" })).body["key"],
    );
    const granted = await send(url, KEY, "POST", `/org/${ORG}/policy`, {
      name: "loader",
      targetKind: "mk8s",
      target: "all",
      bindings: [{ permissions: ["create"], principalLinks: ["//serviceaccount/loader"] }],
    });
    if (granted.status !== 201) throw new Error(`policy answered ${granted.status}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = rssMiB(pid);
    console.log(
      `cpln-local ${url} (pid ${pid}); RSS before ${before.toFixed(0)} MiB; records of ${RECORD_BYTES / 1024} KiB`,
    );

    const one = await createPhase(url, key, pid, "a", count, concurrency);
    console.log(
      `phase 1: ${count} creates, ${concurrency} at a time, in ${one.seconds.toFixed(1)} s: ${describe(one.statuses)}; ` +
        `RSS peak ${one.peak.toFixed(0)} MiB, after ${rssMiB(pid).toFixed(0)} MiB`,
    );
    if (one.refusal) console.log(`  first refusal: ${one.refusal}`);
    console.log(`  ${await listAll(url, pid)}`);

    const quotas = (await send(url, KEY, "GET", `/org/${ORG}/quota`)).body["items"] as { id: string; name: string }[];
    const clusters = quotas.find((q) => q.name === "mk8s-clusters");
    await send(url, KEY, "PATCH", `/org/${ORG}/quota/${clusters?.id ?? ""}`, { max: 100_000 });
    const two = await createPhase(url, key, pid, "b", count * 2, concurrency);
    console.log(
      `phase 2 (mk8s-clusters lifted by the admin): ${count * 2} creates in ${two.seconds.toFixed(1)} s: ` +
        `${describe(two.statuses)}; RSS peak ${two.peak.toFixed(0)} MiB, after ${rssMiB(pid).toFixed(0)} MiB`,
    );
    if (two.refusal) console.log(`  first refusal: ${two.refusal}`);
    console.log(`  ${await listAll(url, pid)}`);
    const three = await createPhase(url, key, pid, "c", count, concurrency);
    console.log(
      `phase 3 (at the cap): ${count} creates in ${three.seconds.toFixed(1)} s: ${describe(three.statuses)}; ` +
        `RSS peak ${three.peak.toFixed(0)} MiB, after ${rssMiB(pid).toFixed(0)} MiB`,
    );
    const dataBytes = ["", "-wal"].reduce((sum, suffix) => {
      try {
        return sum + statSync(data + suffix).size;
      } catch {
        return sum;
      }
    }, 0);
    console.log(
      `data file (with its WAL) ${(dataBytes / 1048576).toFixed(1)} MiB; RSS at the end ${rssMiB(pid).toFixed(0)} MiB`,
    );
  } finally {
    await killChild(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

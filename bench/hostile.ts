/**
 * What hostile requests cost a cpln-local child process (issue 18): RSS before, at peak and after N unauthenticated
 * chunked 1 MiB POSTs (default 200, 10 at a time). The adversarial single-request timings are in
 * test/server/stalls.test.ts.
 *
 *   npm run build && node dist/bench/hostile.js memory [count] [path/to/server/cli.js]
 */
import { request as httpRequest } from "node:http";
import * as path from "node:path";
import { killChild, rssBytes, startCliChild } from "./lib/procs.js";

const ORG = "hostile";
const KEY = "hostileadmin.hostile-admin-key-0123456789ab";

function rssMiB(pid: number): number {
  return rssBytes(pid) / 1048576;
}

/** One chunked POST of `body` without credentials; resolves with the status, or 0 when the connection was reset. */
function chunkedPost(url: string, urlPath: string, body: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const req = httpRequest(new URL(urlPath, url), {
      method: "POST",
      agent: false,
      headers: { "content-type": "application/json", "transfer-encoding": "chunked", authorization: "Bearer nope" },
    });
    let settled = false;
    const settle = (status: number) => {
      if (settled) return;
      settled = true;
      resolve(status);
      req.destroy();
    };
    req.on("response", (response) => {
      response.resume();
      response.on("end", () => settle(response.statusCode ?? 0));
    });
    req.on("error", () => settle(0));
    for (let offset = 0; offset < body.length; offset += 64 * 1024)
      req.write(body.subarray(offset, offset + 64 * 1024));
    req.end();
  });
}

async function memory(count: number, cli: string): Promise<void> {
  const { child, url } = await startCliChild(cli, ["--org", ORG], KEY);
  try {
    const body = Buffer.from(JSON.stringify({ name: "x", description: "x".repeat(1024 * 1024 - 40) }));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = rssMiB(child.pid!);
    const statuses = new Map<number, number>();
    let next = 0;
    let peak = before;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < count && child.exitCode === null) {
          next += 1;
          const status = await chunkedPost(url, `/org/${ORG}/group`, body);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (child.exitCode === null) peak = Math.max(peak, rssMiB(child.pid!));
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const alive = child.exitCode === null && child.signalCode === null;
    const after = alive ? rssMiB(child.pid!) : NaN;
    const answers = [...statuses].map(([status, n]) => `${n}×${status === 0 ? "reset" : status}`).join(", ");
    console.log(
      `${count} unauthenticated chunked ${(body.length / 1048576).toFixed(2)} MiB POSTs in ${seconds.toFixed(1)} s ` +
        `(${answers}); RSS before ${before.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB, after ` +
        `${alive ? `${after.toFixed(0)} MiB` : "— the server died"}`,
    );
  } finally {
    await killChild(child);
  }
}

async function main(): Promise<void> {
  const mode = process.argv[2];
  const defaultCli = path.join(__dirname, "..", "server", "cli.js");
  if (mode === "memory") {
    await memory(Number(process.argv[3] ?? 200), path.resolve(process.argv[4] || defaultCli));
  } else {
    throw new Error("usage: hostile.js memory [count] [cli]");
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

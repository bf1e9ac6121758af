/**
 * Benchmark 7 — cpln-local beside moto (`moto[server]`, the AWS emulator people compare against), on the same machine,
 * with the same load (10 connections, no pipelining, undici — see `load` — alternating rounds; the median of
 * per-round ratios).
 *
 * The comparable objects: a volume set in cpln-local and an SSM parameter in moto — each a small named object with a
 * description, tags and a value, written and read as JSON (moto's SSM speaks the AWS JSON 1.1 protocol: a POST of a
 * JSON body, the operation in `X-Amz-Target`). IAM (query protocol, XML answers) and DynamoDB items (data-plane rows,
 * no per-object metadata) are less alike. Operations: create (POST a new volume set / `PutParameter` of a new name),
 * get one (GET / `GetParameter`), update (PATCH the description / `PutParameter` with `Overwrite`), and a list of 10
 * (a gvc holding 10 volume sets / `GetParametersByPath` over 10 parameters, whose page holds at most 10).
 *
 * moto runs from a venv made by `scripts/moto.sh` (pinned, cached under ~/.cache/cpln-pulumi/); where python3 is
 * absent or the install fails, the benchmark says so in one line and measures nothing. Not part of `--quick` (CI).
 */
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { Pool, request } from "undici";
import type { BenchContext } from "./context.js";
import { Http, runConcurrent } from "./lib/http.js";
import { freePort, repoRoot, startCplnLocal } from "./lib/procs.js";
import { median, type Report } from "./lib/report.js";
import { createGvc, volumeSetBody } from "./lib/setup.js";

interface Op {
  method: "GET" | "POST" | "PATCH";
  path: string;
  headers: Record<string, string>;
  body?: (n: number) => unknown;
  expectStatus: number;
}

interface Load {
  rps: number;
  n: number;
  p99: number;
  failed: number;
}

let sequence = 0;

/**
 * 10 workers, each sending its next request as soon as the previous answer arrived, for `seconds`, over an undici
 * pool of 10 connections. Not autocannon: moto's server (werkzeug) answers HTTP/1.0 and closes each connection,
 * which autocannon does not reopen (a round then holds 10 requests); undici reconnects. Both servers get this loader.
 */
async function load(url: string, op: Op, seconds: number): Promise<Load> {
  const pool = new Pool(url, { connections: 10, pipelining: 1 });
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        const res = await pool.request({
          method: op.method,
          path: op.path,
          headers: op.headers,
          ...(op.body ? { body: JSON.stringify(op.body(sequence++)) } : {}),
        });
        await res.body.dump();
        if (res.statusCode === op.expectStatus) ok++;
        else failed++;
      } catch {
        failed++;
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return {
    rps: ok / elapsed,
    n: latencies.length,
    p99: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? Number.NaN,
    failed,
  };
}

/** `scripts/moto.sh`'s answer: the moto_server command, or why there is none. */
function motoCommand(): { command: string } | { skip: string } {
  const script = path.join(repoRoot, "scripts", "moto.sh");
  const run = spawnSync("bash", [script], { encoding: "utf8", timeout: 600_000 });
  if (run.status === 0) return { command: run.stdout.trim() };
  if (run.status === 2) return { skip: "python3 not found" };
  return { skip: `scripts/moto.sh failed (${run.status}): ${run.stderr.trim().split("\n").slice(-1)[0] ?? ""}` };
}

async function startMoto(command: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn(command, ["-H", "127.0.0.1", "-p", String(port)], { stdio: ["ignore", "ignore", "ignore"] });
  const url = `http://127.0.0.1:${port}`;
  const deadline = performance.now() + 60_000;
  for (;;) {
    try {
      const res = await request(`${url}/moto-api/`, {});
      await res.body.dump();
      if (res.statusCode === 200) break;
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline || child.exitCode !== null) {
      child.kill("SIGKILL");
      throw new Error("moto_server did not answer within 60 s");
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  };
  return { url, stop };
}

const ssm = (target: string): Record<string, string> => ({
  "content-type": "application/x-amz-json-1.1",
  "x-amz-target": `AmazonSSM.${target}`,
  // moto reads the region from the credential scope and checks no signature.
  authorization:
    "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260101/us-east-1/ssm/aws4_request, SignedHeaders=host, Signature=0",
});

export async function motoSideBySide(ctx: BenchContext, report: Report): Promise<void> {
  const found = motoCommand();
  if ("skip" in found) {
    process.stdout.write(`# moto: skipped (${found.skip})\n`);
    report.note(`moto: skipped (${found.skip})`);
    return;
  }
  const seconds = ctx.quick ? 1 : 2;
  const rounds = ctx.quick ? 3 : 5;
  const org = ctx.org;
  const server = await startCplnLocal({ data: ctx.tempFile("moto-side.db"), org, adminKey: ctx.adminKey });
  const moto = await startMoto(found.command);
  const http = new Http(server.url, ctx.adminKey);
  try {
    await createGvc(http, org, "list10");
    await createGvc(http, org, "creates");
    const names = Array.from({ length: 10 }, (_, i) => `vs-${i}`);
    await runConcurrent(names, 4, async (name) => {
      await http.expect(201, "POST", `/org/${org}/gvc/list10/volumeset`, volumeSetBody(name));
    });
    for (const name of names) {
      const res = await request(moto.url, {
        method: "POST",
        headers: ssm("PutParameter"),
        body: JSON.stringify(parameterBody(`/list10/${name}`, "value", false)),
      });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`moto PutParameter answered ${res.statusCode}`);
    }
    const auth = { authorization: `Bearer ${ctx.adminKey}` };
    const json = { ...auth, "content-type": "application/json" };
    const run = `m${Date.now().toString(36)}`;
    const pairs: { key: string; title: string; cpln: Op; moto: Op }[] = [
      {
        key: "create",
        title: "create (POST volume set / PutParameter, a new name each)",
        cpln: {
          method: "POST",
          path: `/org/${org}/gvc/creates/volumeset`,
          headers: json,
          body: (n) => volumeSetBody(`${run}-${n}`),
          expectStatus: 201,
        },
        moto: {
          method: "POST",
          path: "/",
          headers: ssm("PutParameter"),
          body: (n) => parameterBody(`/creates/${run}-${n}`, "value", false),
          expectStatus: 200,
        },
      },
      {
        key: "get",
        title: "get one (GET volume set / GetParameter)",
        cpln: { method: "GET", path: `/org/${org}/gvc/list10/volumeset/vs-3`, headers: auth, expectStatus: 200 },
        moto: {
          method: "POST",
          path: "/",
          headers: ssm("GetParameter"),
          body: () => ({ Name: "/list10/vs-3" }),
          expectStatus: 200,
        },
      },
      {
        key: "update",
        title: "update (PATCH description / PutParameter Overwrite)",
        cpln: {
          method: "PATCH",
          path: `/org/${org}/gvc/list10/volumeset/vs-4`,
          headers: json,
          body: (n) => ({ description: `patched ${n}` }),
          expectStatus: 200,
        },
        moto: {
          method: "POST",
          path: "/",
          headers: ssm("PutParameter"),
          body: (n) => parameterBody("/list10/vs-4", `patched ${n}`, true),
          expectStatus: 200,
        },
      },
      {
        key: "list10",
        title: "list of 10 (GET volume sets of a gvc / GetParametersByPath)",
        cpln: { method: "GET", path: `/org/${org}/gvc/list10/volumeset`, headers: auth, expectStatus: 200 },
        moto: {
          method: "POST",
          path: "/",
          headers: ssm("GetParametersByPath"),
          body: () => ({ Path: "/list10", MaxResults: 10 }),
          expectStatus: 200,
        },
      },
    ];
    for (const pair of pairs) {
      await load(moto.url, pair.moto, 1);
      await load(server.url, pair.cpln, 1);
      const cplnRounds: Load[] = [];
      const motoRounds: Load[] = [];
      for (let round = 0; round < rounds; round++) {
        motoRounds.push(await load(moto.url, pair.moto, seconds));
        cplnRounds.push(await load(server.url, pair.cpln, seconds));
      }
      const failed = [...cplnRounds, ...motoRounds].reduce((sum, l) => sum + l.failed, 0);
      if (failed > 0) report.note(`moto: ${pair.key}: ${failed} requests not answered as expected`);
      const ratios = cplnRounds.map((c, i) => c.rps / (motoRounds[i]?.rps ?? Number.NaN));
      const figure = (name: string, title: string, loads: Load[]) =>
        report.add({
          name,
          value: median(loads.map((l) => l.rps)),
          unit: "req/s",
          n: loads.reduce((sum, l) => sum + l.n, 0),
          p99: median(loads.map((l) => l.p99)),
          latencyUnit: "ms",
          title,
          rpsPerRound: loads.map((l) => Math.round(l.rps)),
          connections: 10,
          secondsPerRound: seconds,
          rounds,
        });
      figure(`moto.cpln-${pair.key}.rps`, `cpln-local: ${pair.title}`, cplnRounds);
      figure(`moto.moto-${pair.key}.rps`, `moto: ${pair.title}`, motoRounds);
      const ratio = median(ratios);
      report.add({
        name: `moto.${pair.key}.ratio`,
        value: ratio,
        unit: "ratio",
        n: rounds,
        title: `cpln-local / moto, ${pair.title}`,
        ratiosPerRound: ratios.map((r) => Math.round(r * 1000) / 1000),
        target: "> 1",
        met: ratio > 1,
      });
    }
  } finally {
    await http.close();
    await moto.stop();
    await server.stop();
  }
}

function parameterBody(name: string, value: string, overwrite: boolean): Record<string, unknown> {
  return {
    Name: name,
    Description: `bench parameter ${name}`,
    Value: value,
    Type: "String",
    Overwrite: overwrite,
    ...(overwrite ? {} : { Tags: [{ Key: "bench", Value: "true" }] }),
  };
}

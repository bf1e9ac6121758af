/**
 * Benchmark 3 — service throughput. autocannon (in the bench process) drives cpln-local (a child process) and a bare
 * fastify server (another child process, one constant JSON route) with the same settings, one after the other, for
 * each request shape: GET one record, PATCH one record, POST create, GET a list of 100. The ratio to the bare route
 * is the share of the framework's limit the service reaches.
 */
import autocannon from "autocannon";
import { Http, runConcurrent } from "./lib/http.js";
import { startBareServer, startCplnLocal, type ChildServer } from "./lib/procs.js";
import type { Report } from "./lib/report.js";
import type { BenchContext } from "./context.js";
import { createGvc } from "./lib/setup.js";

interface Shape {
  key: string;
  title: string;
  method: "GET" | "PATCH" | "POST";
  path: string;
  /** Body per request (a fresh one each time, so PATCHes change the record and POSTs create new names). */
  body?: (n: number) => unknown;
  expectStatus: number;
}

interface Load {
  rps: number;
  n: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function load(
  server: ChildServer,
  token: string,
  shape: Shape,
  seconds: number,
  connections: number,
): Promise<Load> {
  let counter = 0;
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (shape.body) headers["content-type"] = "application/json";
  const result = await autocannon({
    url: server.url,
    connections,
    pipelining: 1,
    duration: seconds,
    timeout: 30,
    requests: [
      {
        method: shape.method,
        path: shape.path,
        headers,
        setupRequest: (request) => (shape.body ? { ...request, body: JSON.stringify(shape.body(counter++)) } : request),
      },
    ],
  });
  const expected = result.statusCodeStats[String(shape.expectStatus)]?.count ?? 0;
  return {
    rps: expected / result.duration,
    n: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export async function serviceThroughput(ctx: BenchContext, report: Report): Promise<void> {
  const seconds = ctx.quick ? 2 : 6;
  const warmupSeconds = ctx.quick ? 0.5 : 1.5;
  const connections = 10;
  const org = ctx.org;
  const server = await startCplnLocal({
    data: ctx.tempFile("service.db"),
    org,
    adminKey: ctx.adminKey,
    nodeArgs: ctx.serverNodeArgs,
  });
  const bare = await startBareServer();
  const http = new Http(server.url, ctx.adminKey);
  try {
    await createGvc(http, org, "list100");
    await createGvc(http, org, "posts");
    const names = Array.from({ length: 100 }, (_, i) => `vs-${String(i).padStart(3, "0")}`);
    await runConcurrent(names, 8, async (name) => {
      await http.expect(201, "POST", `/org/${org}/gvc/list100/volumeset`, volumeSetBody(name));
    });
    const run = `r${Date.now().toString(36)}`;
    const shapes: Shape[] = [
      {
        key: "get",
        title: "GET one volume set",
        method: "GET",
        path: `/org/${org}/gvc/list100/volumeset/vs-042`,
        expectStatus: 200,
      },
      {
        key: "patch",
        title: "PATCH one volume set (description)",
        method: "PATCH",
        path: `/org/${org}/gvc/list100/volumeset/vs-043`,
        body: (n) => ({ description: `patched ${n}` }),
        expectStatus: 200,
      },
      {
        key: "post",
        title: "POST create volume set",
        method: "POST",
        path: `/org/${org}/gvc/posts/volumeset`,
        body: (n) => volumeSetBody(`${run}-${n}`),
        expectStatus: 201,
      },
      {
        key: "list100",
        title: "GET list of 100 volume sets",
        method: "GET",
        path: `/org/${org}/gvc/list100/volumeset`,
        expectStatus: 200,
      },
    ];
    // The bare route answers every method and path with the same constant body (200), POST included.
    for (const shape of shapes) {
      const bareShape: Shape = { ...shape, expectStatus: 200 };
      await load(bare, ctx.adminKey, bareShape, warmupSeconds, connections);
      await load(server, ctx.adminKey, shape, warmupSeconds, connections);
      const bareLoad = await load(bare, ctx.adminKey, bareShape, seconds, connections);
      const serverLoad = await load(server, ctx.adminKey, shape, seconds, connections);
      const settings = { connections, pipelining: 1, seconds };
      report.add({
        name: `service.${shape.key}.rps`,
        value: serverLoad.rps,
        unit: "req/s",
        n: serverLoad.n,
        p50: serverLoad.p50,
        p99: serverLoad.p99,
        latencyUnit: "ms",
        title: shape.title,
        non2xx: serverLoad.non2xx,
        errors: serverLoad.errors,
        ...settings,
      });
      report.add({
        name: `service.bare-${shape.key}.rps`,
        value: bareLoad.rps,
        unit: "req/s",
        n: bareLoad.n,
        p50: bareLoad.p50,
        p99: bareLoad.p99,
        latencyUnit: "ms",
        title: `bare fastify route, same ${shape.method} shape`,
        non2xx: bareLoad.non2xx,
        errors: bareLoad.errors,
        ...settings,
      });
      const ratio = serverLoad.rps / bareLoad.rps;
      report.add({
        name: `service.${shape.key}.ratio-to-bare`,
        value: ratio,
        unit: "ratio",
        n: serverLoad.n + bareLoad.n,
        ...(shape.key === "get" ? { target: ">= 0.5", met: ratio >= 0.5 } : {}),
      });
    }
  } finally {
    await http.close();
    await bare.stop();
    await server.stop();
  }
}

export function volumeSetBody(name: string): Record<string, unknown> {
  return {
    name,
    description: `bench volume set ${name}`,
    tags: { bench: "true" },
    spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd", fileSystemType: "ext4" },
  };
}

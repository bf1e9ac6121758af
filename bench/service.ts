/**
 * Benchmark 3 — service throughput. autocannon (in the bench process) drives cpln-local (a child process) and a bare
 * fastify server (another child process, one constant JSON route) with the same settings, one after the other, for
 * each request shape: GET one record, PATCH one record, POST create, GET a list of 100. The ratio to the bare route
 * is the share of the framework's limit the service reaches. The list's answer (≈ 58 KB) is also compared with a
 * bare route answering as many bytes (`sameBytes`): the floor for sending that answer, which the 54-byte route is not.
 * Writes are also compared with the storing route (`storing`): the same bodies kept through cpln-local's own SQLite
 * store and nothing else, the floor for a write that is durable when it is answered. And they are taken apart: the
 * create beside cpln-local's own HTTP stack answering it with nothing behind (`httpFloor`), and both writes done
 * through its record service in a process of their own, no HTTP (`inProcess`) — what each half costs on its own.
 */
import autocannon from "autocannon";
import { Http, runConcurrent } from "./lib/http.js";
import {
  cpuMs,
  inProcessWrites,
  startBareServer,
  startCplnLocal,
  startHttpFloorServer,
  startStoringServer,
  type ChildServer,
} from "./lib/procs.js";
import { median, ratioOfRounds, type Report } from "./lib/report.js";
import type { BenchContext } from "./context.js";
import { createGvc, volumeSetBody } from "./lib/setup.js";

interface Shape {
  key: string;
  title: string;
  method: "GET" | "PATCH" | "POST";
  path: string;
  /** Body per request (a fresh one each time, so PATCHes change the record and POSTs create new names). */
  body?: (n: number) => unknown;
  expectStatus: number;
  /** Also compared with a bare route whose answer has as many bytes as cpln-local's (no target: a second reference). */
  sameBytes?: boolean;
  /** Also compared with the storing route (no target: the storage floor of a write). */
  storing?: boolean;
  /**
   * Also done through cpln-local's record service in a process of its own, no HTTP (`inProcessWrites`): the CPU of the
   * write's domain and store work alone, and the ratio to the bare route one thread doing only that could reach.
   */
  inProcess?: "post" | "patch";
  /** Also compared with cpln-local's HTTP stack answering without its domain (`startHttpFloorServer`; no target). */
  httpFloor?: boolean;
}

/** Ratio to the bare route each shape should reach (median of the rounds). */
const TARGETS: Record<string, number> = { get: 0.8, patch: 0.4, post: 0.4, list100: 0.5 };

/** Numbers request bodies across every load of the run, so POSTs never reuse a name (a 409 is not a create). */
let bodySequence = 0;

interface Load {
  rps: number;
  n: number;
  /** The server process's CPU (user + system, /proc) per request of the round, in µs: steadier than a rate. */
  cpuUs: number;
  /**
   * The load generator's share of one core over the round (this process: autocannon runs in it). Near 1, the round's
   * rate is what one autocannon process can send, not what the server can answer.
   */
  loaderCores: number;
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
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (shape.body) headers["content-type"] = "application/json";
  const cpuBefore = cpuMs(server.pid);
  const loaderBefore = process.cpuUsage();
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
        setupRequest: (request) =>
          shape.body ? { ...request, body: JSON.stringify(shape.body(bodySequence++)) } : request,
      },
    ],
  });
  const loader = process.cpuUsage(loaderBefore);
  const expected = result.statusCodeStats[String(shape.expectStatus)]?.count ?? 0;
  return {
    rps: expected / result.duration,
    n: result.requests.total,
    cpuUs: ((cpuMs(server.pid) - cpuBefore) * 1000) / result.requests.total,
    loaderCores: (loader.user + loader.system) / 1e6 / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export async function serviceThroughput(ctx: BenchContext, report: Report): Promise<void> {
  const seconds = ctx.quick ? 1 : 2;
  const rounds = ctx.quick ? 3 : 5;
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
        storing: true,
        inProcess: "patch",
      },
      {
        key: "post",
        title: "POST create volume set",
        method: "POST",
        path: `/org/${org}/gvc/posts/volumeset`,
        body: (n) => volumeSetBody(`${run}-${n}`),
        expectStatus: 201,
        storing: true,
        inProcess: "post",
        httpFloor: true,
      },
      {
        key: "list100",
        title: "GET list of 100 volume sets",
        method: "GET",
        path: `/org/${org}/gvc/list100/volumeset`,
        expectStatus: 200,
        sameBytes: true,
      },
    ];
    // The bare route answers every method and path with the same constant body (200), POST included.
    for (const shape of shapes) {
      const bareShape: Shape = { ...shape, expectStatus: 200 };
      const sameBytes = shape.sameBytes
        ? await startBareServer((await http.expect(shape.expectStatus, shape.method, shape.path)).bytes)
        : undefined;
      const storing = shape.storing ? await startStoringServer(ctx.tempFile(`storing-${shape.key}.db`)) : undefined;
      const httpFloor = shape.httpFloor ? await startHttpFloorServer(org, ctx.adminKey) : undefined;
      try {
        await measureShape(shape, bareShape, { sameBytes, storing, httpFloor });
      } finally {
        await sameBytes?.stop();
        await storing?.stop();
        await httpFloor?.stop();
      }
    }
  } finally {
    await http.close();
    await bare.stop();
    await server.stop();
  }

  /** The second references a shape is compared with, besides the bare route (see `Shape`). */
  interface References {
    sameBytes: ChildServer | undefined;
    storing: ChildServer | undefined;
    httpFloor: ChildServer | undefined;
  }

  async function measureShape(
    shape: Shape,
    bareShape: Shape,
    { sameBytes, storing, httpFloor }: References,
  ): Promise<void> {
    await load(bare, ctx.adminKey, bareShape, warmupSeconds, connections);
    await load(server, ctx.adminKey, shape, warmupSeconds, connections);
    if (sameBytes) await load(sameBytes, ctx.adminKey, bareShape, warmupSeconds, connections);
    if (storing) await load(storing, ctx.adminKey, shape, warmupSeconds, connections);
    if (httpFloor) await load(httpFloor, ctx.adminKey, shape, warmupSeconds, connections);
    // Short alternating rounds: load from other processes on a shared machine drifts, so each round's ratio
    // compares two measurements a few seconds apart, and the median round is reported.
    const bareRounds: Load[] = [];
    const serverRounds: Load[] = [];
    const sameBytesRounds: Load[] = [];
    const storingRounds: Load[] = [];
    const httpFloorRounds: Load[] = [];
    for (let round = 0; round < rounds; round++) {
      bareRounds.push(await load(bare, ctx.adminKey, bareShape, seconds, connections));
      serverRounds.push(await load(server, ctx.adminKey, shape, seconds, connections));
      if (sameBytes) sameBytesRounds.push(await load(sameBytes, ctx.adminKey, bareShape, seconds, connections));
      if (storing) storingRounds.push(await load(storing, ctx.adminKey, shape, seconds, connections));
      if (httpFloor) httpFloorRounds.push(await load(httpFloor, ctx.adminKey, shape, seconds, connections));
    }
    const failed = serverRounds.reduce((sum, l) => sum + l.non2xx + l.errors, 0);
    if (failed > 0) report.note(`service: ${shape.key}: ${failed} requests got a non-2xx answer or a connection error`);
    const settings = { connections, pipelining: 1, secondsPerRound: seconds, rounds };
    const figure = (name: string, title: string, loads: Load[]) =>
      report.add({
        name,
        value: median(loads.map((l) => l.rps)),
        unit: "req/s",
        n: loads.reduce((sum, l) => sum + l.n, 0),
        p50: median(loads.map((l) => l.p50)),
        p99: Math.max(...loads.map((l) => l.p99)),
        latencyUnit: "ms",
        title,
        rpsPerRound: loads.map((l) => Math.round(l.rps)),
        cpuUsPerRequest: Math.round(median(loads.map((l) => l.cpuUs))),
        loaderCores: Math.round(median(loads.map((l) => l.loaderCores)) * 100) / 100,
        non2xx: loads.reduce((sum, l) => sum + l.non2xx, 0),
        errors: loads.reduce((sum, l) => sum + l.errors, 0),
        ...settings,
      });
    /** The median of per-round ratios of `over`'s rate to `under`'s (rounds a few seconds apart), and its target if any. */
    const ratioFigure = (name: string, over: Load[], under: Load[], target?: number) => {
      const { value, ratiosPerRound } = ratioOfRounds(
        over.map((load) => load.rps),
        under.map((load) => load.rps),
      );
      report.add({
        name,
        value,
        unit: "ratio",
        n: rounds,
        ratiosPerRound,
        ...(target === undefined ? {} : { target: `>= ${target}`, met: value >= target }),
      });
    };
    figure(`service.${shape.key}.rps`, shape.title, serverRounds);
    figure(`service.bare-${shape.key}.rps`, `bare fastify route, same ${shape.method} shape`, bareRounds);
    ratioFigure(`service.${shape.key}.ratio-to-bare`, serverRounds, bareRounds, TARGETS[shape.key] ?? Number.NaN);
    const reference = (name: string, title: string, loads: Load[]) => {
      figure(`service.${name}-${shape.key}.rps`, title, loads);
      ratioFigure(`service.${shape.key}.ratio-to-${name}`, serverRounds, loads);
    };
    if (sameBytes) reference("bare-same-bytes", "bare fastify route answering as many bytes", sameBytesRounds);
    if (storing) {
      reference(
        "storing",
        `storing route (the body kept through cpln-local's store), same ${shape.method}`,
        storingRounds,
      );
      ratioFigure(`service.storing-${shape.key}.ratio-to-bare`, storingRounds, bareRounds);
    }
    if (httpFloor) {
      reference("http-floor", "cpln-local's HTTP stack answering without its domain, same POST", httpFloorRounds);
      ratioFigure(`service.http-floor-${shape.key}.ratio-to-bare`, httpFloorRounds, bareRounds);
    }
    if (shape.inProcess) {
      // 3,000 in a quick run too: rounds of 1,000 are not yet warm (230 µs per create against 67–134 in full runs).
      const perRound = 3_000;
      const { cpuUsPerRound, callers } = await inProcessWrites(
        ctx.tempFile(`in-process-${shape.key}.db`),
        shape.inProcess,
        perRound,
        rounds,
      );
      const cpuUs = median(cpuUsPerRound);
      report.add({
        name: `service.in-process-${shape.key}.cpu`,
        value: cpuUs,
        unit: "µs",
        n: perRound * rounds,
        title: `${shape.title} through the record service in one process, no HTTP: CPU per write`,
        cpuUsPerRound,
        callers,
      });
      report.add({
        name: `service.${shape.key}.in-process-ceiling-to-bare`,
        value: 1e6 / cpuUs / median(bareRounds.map((l) => l.rps)),
        unit: "ratio",
        n: rounds,
        title: "writes per second of one core doing only that work, over the bare route's median rate",
      });
    }
  }
}

/**
 * Benchmark 4 — scaling, and the memory and disk parts of benchmark 5. For each N (records), a fresh cpln-local in
 * a child process (`bench/servers/store-server.ts`) gets N volume sets written straight through its store (copies
 * of one created over HTTP), then P policies on volume sets (copies of three templates: by links, by query, for
 * all — none of them naming the reader). A service account that is NOT a superuser, member of a group whose policy
 * grants `view` on volume sets tagged `team=blue` (half of them), then times over HTTP: the list, a query, and an
 * object's access report. So authorization really filters: N/2 items are visible, and every list answer holds the
 * first page of them (see DEFAULT_PAGE_SIZE).
 */
import { statSync } from "node:fs";
import { DEFAULT_PAGE_SIZE } from "../server/domain/records.js";
import { Http, timeSequential } from "./lib/http.js";
import { forkStoreServer, rssBytes, type ForkedStoreServer } from "./lib/procs.js";
import type { Report } from "./lib/report.js";
import type { BenchContext } from "./context.js";
import { createGvc, volumeSetBody } from "./lib/setup.js";

const GVC = "scale";
const FILLER_TYPES = ["pfl", "pfq", "pfa"] as const;

interface Cell {
  n: number;
  p: number;
  list: number;
  query: number;
  report: number;
}

function items(body: unknown): unknown[] {
  const list = (body as { items?: unknown }).items;
  return Array.isArray(list) ? list : [];
}

function fileSize(file: string): number {
  let total = 0;
  for (const suffix of ["", "-wal"]) {
    try {
      total += statSync(file + suffix).size;
    } catch {
      // absent
    }
  }
  return total;
}

/** Admin-side setup over HTTP: the gvc, the reader and its grant, and the templates the store server copies. */
async function setUp(admin: Http, org: string): Promise<{ readerKey: string }> {
  await createGvc(admin, org, GVC);
  await admin.expect(201, "POST", `/org/${org}/gvc/${GVC}/volumeset`, {
    ...volumeSetBody("bench-tmpl-vs"),
    tags: { bench: "true", team: "blue", shard: "s0" },
  });
  await admin.expect(201, "POST", `/org/${org}/serviceaccount`, { name: "bench-reader" });
  const key = await admin.expect([200, 201], "POST", `/org/${org}/serviceaccount/bench-reader/-addKey`, {
    description: "scaling benchmark reader",
  });
  const readerKey = (key.body as { key?: unknown }).key;
  if (typeof readerKey !== "string") throw new Error(`-addKey returned no key: ${JSON.stringify(key.body)}`);
  await admin.expect(201, "POST", `/org/${org}/group`, {
    name: "bench-readers",
    memberLinks: [`/org/${org}/serviceaccount/bench-reader`],
  });
  await admin.expect(201, "POST", `/org/${org}/policy`, {
    name: "bench-readers-view",
    description: "the reader's only grant: view on blue volume sets",
    targetKind: "volumeset",
    targetQuery: { spec: { match: "all", terms: [{ op: "=", tag: "team", value: "blue" }] } },
    bindings: [{ permissions: ["view"], principalLinks: [`/org/${org}/group/bench-readers`] }],
  });
  for (const type of FILLER_TYPES) {
    const name = `bench-tmpl-${type}`;
    await admin.expect(201, "POST", `/org/${org}/group`, { name });
    const target =
      type === "pfl"
        ? { targetLinks: [`/org/${org}/gvc/${GVC}/volumeset/${name}`] }
        : type === "pfq"
          ? { targetQuery: { spec: { match: "all", terms: [{ op: "=", tag: "owner", value: name }] } } }
          : { target: "all" };
    await admin.expect(201, "POST", `/org/${org}/policy`, {
      name,
      targetKind: "volumeset",
      ...target,
      bindings: [
        { permissions: type === "pfa" ? ["view"] : ["edit", "view"], principalLinks: [`/org/${org}/group/${name}`] },
      ],
    });
  }
  return { readerKey };
}

/** Brings the number of policies on volume sets (reader's grant and templates included) up to `p`. */
async function growPolicies(server: ForkedStoreServer, org: string, current: number, p: number): Promise<number> {
  const fixed = 1 + FILLER_TYPES.length;
  const share = (total: number, t: number) =>
    Math.floor(total / FILLER_TYPES.length) + (t < total % FILLER_TYPES.length ? 1 : 0);
  const have = Math.max(0, current - fixed);
  const want = Math.max(0, p - fixed);
  for (const [t, type] of FILLER_TYPES.entries()) {
    const from = share(have, t);
    const count = share(want, t) - from;
    if (count <= 0) continue;
    // Groups first, so a policy never names a group that does not exist yet.
    for (const kind of ["group", "policy"]) {
      await server.call({
        op: "clone",
        template: { org, kind, scope: "", name: `bench-tmpl-${type}` },
        count,
        prefix: `${type}-`,
        start: from,
      });
    }
  }
  return Math.max(current, p);
}

export interface ScalingResult {
  cells: Cell[];
}

export async function scaling(ctx: BenchContext, report: Report): Promise<ScalingResult> {
  const ns = ctx.quick ? [1_000, 10_000] : [1_000, 10_000, 100_000];
  const ps = ctx.quick ? [10, 100] : [10, 100, 1_000];
  const org = ctx.org;
  const timing = ctx.quick
    ? { warmup: 1, minSamples: 5, minMs: 200, maxMs: 3_000 }
    : { warmup: 2, minSamples: 15, minMs: 1_000, maxMs: 6_000 };
  const cells: Cell[] = [];
  const sizes = new Map<number, number>();
  for (const n of ns) {
    const data = ctx.tempFile(`scale-${n}.db`);
    const server = await forkStoreServer({ data, org, adminKey: ctx.adminKey, nodeArgs: ctx.serverNodeArgs });
    const admin = new Http(server.url, ctx.adminKey, 4);
    let reader: Http | undefined;
    try {
      const { readerKey } = await setUp(admin, org);
      reader = new Http(server.url, readerKey, 4);
      const cloned = await server.call({
        op: "clone",
        template: {
          org,
          kind: "volumeset",
          scope: GVC,
          name: "bench-tmpl-vs",
          cycleTags: { team: ["blue", "green"], shard: ["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9"] },
        },
        count: n,
        prefix: "vs-",
        start: 0,
      });
      await admin.expect([200, 202, 204], "DELETE", `/org/${org}/gvc/${GVC}/volumeset/bench-tmpl-vs`);
      report.note(
        `scaling: N=${n}: ${cloned.created} volume sets written through the store in ${Math.round(cloned.ms ?? 0)} ms`,
      );
      // A list or query answers one page (the first DEFAULT_PAGE_SIZE items) and a next link while more remain.
      const visible = Math.min(n / 2, DEFAULT_PAGE_SIZE);
      const shardMatches = Math.min(n / 10, DEFAULT_PAGE_SIZE);
      let policies = 0;
      for (const p of ps) {
        policies = await growPolicies(server, org, policies, p);
        const listPath = `/org/${org}/gvc/${GVC}/volumeset`;
        const first = await reader.expect(200, "GET", listPath);
        const returned = items(first.body).length;
        if (returned !== visible) {
          report.note(`scaling: N=${n} P=${p}: the reader's list returned ${returned} items, expected ${visible}`);
        }
        const list = await timeSequential(() => reader!.send("GET", listPath, undefined, { parse: false }), timing);
        const queryBody = {
          kind: "volumeset",
          spec: { match: "all", terms: [{ op: "=", tag: "shard", value: "s4" }] },
        };
        const firstQuery = await reader.expect(200, "POST", `${listPath}/-query`, queryBody);
        const queried = items(firstQuery.body).length;
        if (queried !== shardMatches) {
          report.note(`scaling: N=${n} P=${p}: the reader's query returned ${queried} items, expected ${shardMatches}`);
        }
        const query = await timeSequential(
          () => reader!.send("POST", `${listPath}/-query`, queryBody, { parse: false }),
          timing,
        );
        const reportPath = `${listPath}/vs-000004/-accessreport`;
        const asReader = await reader.send("GET", reportPath);
        const reportClient = asReader.status === 200 ? reader : admin;
        const access = await timeSequential(
          () => reportClient.send("GET", reportPath, undefined, { parse: false }),
          timing,
        );
        const common = { records: n, policies: p, latencyUnit: "ms" };
        report.add({
          name: `scale.list.n${n}.p${p}`,
          value: list.p50,
          unit: "ms",
          n: list.n,
          p50: list.p50,
          p99: list.p99,
          items: returned,
          bytes: list.bytes,
          ...common,
          ...(n === 10_000 && p === 1_000 ? { target: "< 50 ms", met: list.p50 < 50 } : {}),
        });
        report.add({
          name: `scale.query.n${n}.p${p}`,
          value: query.p50,
          unit: "ms",
          n: query.n,
          p50: query.p50,
          p99: query.p99,
          items: queried,
          ...common,
        });
        report.add({
          name: `scale.accessreport.n${n}.p${p}`,
          value: access.p50,
          unit: "ms",
          n: access.n,
          p50: access.p50,
          p99: access.p99,
          principal: reportClient === reader ? "reader" : "admin (the reader got " + asReader.status + ")",
          ...common,
        });
        cells.push({ n, p, list: list.p50, query: query.p50, report: access.p50 });
      }
      // The same list as a superuser: no per-item filtering (its policy targets all), so the difference is authz.
      const adminList = await timeSequential(
        () => admin.send("GET", `/org/${org}/gvc/${GVC}/volumeset`, undefined, { parse: false }),
        timing,
      );
      report.add({
        name: `scale.list-superuser.n${n}.p${ps[ps.length - 1]}`,
        value: adminList.p50,
        unit: "ms",
        n: adminList.n,
        p50: adminList.p50,
        p99: adminList.p99,
        records: n,
        items: n,
      });
      const stats = await server.call({ op: "stats" });
      const rss = rssBytes(server.pid);
      report.add({
        name: `footprint.rss.n${n}`,
        value: (Number.isNaN(rss) ? (stats.rss ?? 0) : rss) / 2 ** 20,
        unit: "MiB",
        n: 1,
        heapUsedMiB: (stats.heapUsed ?? 0) / 2 ** 20,
        heapLiveAfterGcMiB: (stats.heapLive ?? Number.NaN) / 2 ** 20,
        records: n,
        policies: ps[ps.length - 1],
        after: "list, query and access report requests",
      });
    } finally {
      await reader?.close();
      await admin.close();
      await server.call({ op: "close" }).catch(() => undefined);
      await server.stop();
    }
    sizes.set(n, fileSize(data));
    report.add({
      name: `footprint.sqlite-bytes.n${n}`,
      value: (sizes.get(n) ?? 0) / 2 ** 20,
      unit: "MiB",
      n: 1,
      records: n,
      policies: ps[ps.length - 1],
    });
  }
  const smallest = ns[0] ?? 1_000;
  const largest = ns[ns.length - 1] ?? 10_000;
  const perThousand = (((sizes.get(largest) ?? 0) - (sizes.get(smallest) ?? 0)) / (largest - smallest)) * 1_000;
  report.add({
    name: "footprint.sqlite-per-1k-volumesets",
    value: perThousand / 1024,
    unit: "KiB",
    n: largest - smallest,
    from: `(size at N=${largest} − size at N=${smallest}) / ${(largest - smallest) / 1000}`,
  });
  const cell = (n: number, p: number) => cells.find((c) => c.n === n && c.p === p);
  const pMax = ps[ps.length - 1] ?? 100;
  const pMin = ps[0] ?? 10;
  for (const measure of ["list", "query", "report"] as const) {
    for (let i = 1; i < ns.length; i++) {
      const lo = cell(ns[i - 1] ?? 0, pMax);
      const hi = cell(ns[i] ?? 0, pMax);
      if (lo && hi) {
        report.add({
          name: `scale.${measure}.growth-n${lo.n}-to-n${hi.n}`,
          value: hi[measure] / lo[measure],
          unit: "ratio",
          n: 2,
          linearWouldBe: hi.n / lo.n,
          policies: pMax,
        });
      }
    }
    for (const n of ns) {
      const lo = cell(n, pMin);
      const hi = cell(n, pMax);
      if (lo && hi) {
        report.add({
          name: `scale.${measure}.growth-p${pMin}-to-p${pMax}.n${n}`,
          value: hi[measure] / lo[measure],
          unit: "ratio",
          n: 2,
          flatWouldBe: 1,
          records: n,
        });
      }
    }
  }
  return { cells };
}

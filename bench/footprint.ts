/**
 * Benchmark 5 — start-up. `cpln-local` is spawned as a real command and timed from spawn to its first 200 on
 * `/about`: on a new data file (which seeds the org's built-ins) and on an existing one; a bare fastify process
 * started the same way is the floor (node start-up plus fastify). Memory and disk per record come from the scaling
 * benchmark, which already holds 100k records.
 */
import { Http } from "./lib/http.js";
import { startBareServer, startCplnLocal } from "./lib/procs.js";
import { distribution, type Report } from "./lib/report.js";
import type { BenchContext } from "./context.js";

export async function footprint(ctx: BenchContext, report: Report): Promise<void> {
  const runs = ctx.quick ? 2 : 5;
  const cold: number[] = [];
  const warm: number[] = [];
  const bare: number[] = [];
  let seededRecords = 0;
  for (let i = 0; i < runs; i++) {
    const data = ctx.tempFile(`start-${i}.db`);
    const first = await startCplnLocal({ data, org: ctx.org, adminKey: ctx.adminKey });
    cold.push(first.startupMs);
    if (i === 0) {
      const http = new Http(first.url, ctx.adminKey, 1);
      const policies = await http.expect(200, "GET", `/org/${ctx.org}/policy`);
      const locations = await http.expect(200, "GET", `/org/${ctx.org}/location`);
      const count = (body: unknown) => ((body as { items?: unknown[] }).items ?? []).length;
      seededRecords = count(policies.body) + count(locations.body);
      await http.close();
    }
    await first.stop();
    const again = await startCplnLocal({ data, org: ctx.org, adminKey: ctx.adminKey });
    warm.push(again.startupMs);
    await again.stop();
    const floor = await startBareServer();
    bare.push(floor.startupMs);
    await floor.stop();
  }
  const c = distribution(cold);
  const w = distribution(warm);
  const b = distribution(bare);
  report.add({
    name: "footprint.cold-start.new-data-file",
    value: c.p50,
    unit: "ms",
    n: c.n,
    p50: c.p50,
    p99: c.max,
    what: "spawn → first 200 on /about, seeding built-ins",
    seededPoliciesAndLocations: seededRecords,
  });
  report.add({
    name: "footprint.cold-start.existing-data-file",
    value: w.p50,
    unit: "ms",
    n: w.n,
    p50: w.p50,
    p99: w.max,
    what: "spawn → first 200 on /about",
  });
  report.add({
    name: "footprint.cold-start.bare-fastify",
    value: b.p50,
    unit: "ms",
    n: b.n,
    p50: b.p50,
    p99: b.max,
    what: "spawn → first 200 (node + fastify floor)",
  });
  report.add({ name: "footprint.cold-start.ratio-to-bare", value: c.p50 / b.p50, unit: "ratio", n: c.n + b.n });
}

/**
 * Benchmark 2 — provider throughput. Volume sets are created, updated and deleted through Pulumi's real
 * dynamic-provider host (a child process) at concurrency 16, against cpln-local (another child process); each
 * operation is the engine's whole step (Check+Create, Check+Diff+Update, Delete). Then the same server gets the same
 * work from `CplnClient` directly, in this process: the ratio is the provider's overhead (gRPC, host, check, diff).
 */
import { CplnClient } from "../provider/client/index.js";
import type { DynamicProviderHost, PropertyMap } from "../tools/providerhost/host.js";
import { create, destroy, preview, startHost, update, urnOf, type Deployed } from "./lib/engine.js";
import { Http, runConcurrent } from "./lib/http.js";
import { childPids, cpuMs, startCplnLocal } from "./lib/procs.js";
import { providerText, typeToken } from "./lib/providers.js";
import { distribution, type Report } from "./lib/report.js";
import type { BenchContext } from "./context.js";
import { createGvc } from "./lib/setup.js";

const CONCURRENCY = 16;

function inputs(name: string, gvc: string, description: string, text: string): PropertyMap {
  return {
    name,
    gvc,
    initialCapacity: 10,
    performanceClass: "general-purpose-ssd",
    fileSystemType: "ext4",
    description,
    tags: { bench: "true" },
    __provider: text,
  };
}

function names(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(4, "0")}`);
}

export async function providerThroughput(ctx: BenchContext, report: Report): Promise<void> {
  const count = ctx.quick ? 200 : 1_000;
  const org = ctx.org;
  const server = await startCplnLocal({
    data: ctx.tempFile("provider.db"),
    org,
    adminKey: ctx.adminKey,
    nodeArgs: ctx.serverNodeArgs,
  });
  const admin = new Http(server.url, ctx.adminKey, 2);
  const client = new CplnClient({ endpoint: server.url, token: ctx.adminKey, org });
  let host: DynamicProviderHost | undefined;
  try {
    for (const gvc of ["tp", "raw", "warm"]) await createGvc(admin, org, gvc);
    host = await startHost({ org, endpoint: server.url, token: ctx.adminKey }, ctx.profileDir);
    const text = await providerText("VolumeSet");
    const type = typeToken("VolumeSet");
    const h = host;

    // CPU time per phase of each process (load-independent, unlike wall time on a shared machine).
    const hostPid = childPids("dynamic-provider")[0] ?? -1;
    const cpu = () => ({
      host: cpuMs(hostPid),
      server: cpuMs(server.pid),
      bench: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
    });
    const metered = async <T extends { latencies: number[] }>(run: () => Promise<T>) => {
      const before = cpu();
      const result = await run();
      const after = cpu();
      const per = (k: "host" | "server" | "bench") => (after[k] - before[k]) / result.latencies.length;
      return { ...result, cpuMsPerOp: { host: per("host"), server: per("server"), bench: per("bench") } };
    };
    const provider = {
      create: (gvc: string, list: string[]) => {
        const states: Deployed[] = new Array<Deployed>(list.length);
        return runConcurrent(list, CONCURRENCY, async (name, i) => {
          states[i] = await create(h, urnOf(type, `${gvc}-${name}`), inputs(name, gvc, "created", text));
        }).then((run) => ({ run, states }));
      },
      update: (states: Deployed[]) =>
        runConcurrent(states, CONCURRENCY, async (state, i) => {
          const next = inputs(String(state.inputs.name), String(state.inputs.gvc), "updated", text);
          states[i] = await update(h, state, next);
        }),
      /** The same update split in two phases: every Check + Diff first, then every Update RPC alone. */
      updateInPhases: async (states: Deployed[], description: string) => {
        const plans: PropertyMap[] = new Array<PropertyMap>(states.length);
        const plan = await metered(() =>
          runConcurrent(states, CONCURRENCY, async (state, i) => {
            const next = inputs(String(state.inputs.name), String(state.inputs.gvc), description, text);
            const planned = await preview(h, state, next);
            if (planned.changes !== true) throw new Error(`${state.urn}: the diff found no change to update`);
            plans[i] = planned.checked;
          }),
        );
        const apply = await metered(() =>
          runConcurrent(states, CONCURRENCY, async (state, i) => {
            const news = plans[i] as PropertyMap;
            const outputs = await h.update(state.id, state.urn, state.outputs, news, state.inputs);
            states[i] = { ...state, inputs: news, outputs };
          }),
        );
        return { plan, apply };
      },
      delete: (states: Deployed[]) => runConcurrent(states, CONCURRENCY, (state) => destroy(h, state)),
    };
    const raw = {
      create: (gvc: string, list: string[]) =>
        runConcurrent(list, CONCURRENCY, async (name) => {
          await client.createVolumeSet(gvc, {
            name,
            description: `bench volume set ${name}`,
            tags: { bench: "true" },
            spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd", fileSystemType: "ext4" },
          });
        }),
      patch: (gvc: string, list: string[], n: number) =>
        runConcurrent(list, CONCURRENCY, async (name) => {
          await client.patchVolumeSet(gvc, name, { description: `raw patch ${n}` });
        }),
      delete: (gvc: string, list: string[]) =>
        runConcurrent(list, CONCURRENCY, async (name) => {
          await client.deleteVolumeSet(gvc, name);
        }),
    };

    // Warm-up of both paths (first calls deserialize the provider, open connections, compile hot code).
    const warm = names("warm", 48);
    const warmed = await provider.create("warm", warm);
    await provider.update(warmed.states);
    await raw.patch("warm", warm, 0);
    await provider.delete(warmed.states);

    const list = names("tp", count);
    const created = await metered(() => provider.create("tp", list).then(({ run, states }) => ({ ...run, states })));
    const updated = await metered(() => provider.update(created.states));
    const patched = await metered(() => raw.patch("tp", list, 1));
    const phased = await provider.updateInPhases(created.states, "updated in phases");
    const deleted = await metered(() => provider.delete(created.states));
    const rawList = names("raw", count);
    const rawCreated = await metered(() => raw.create("raw", rawList));
    const rawDeleted = await metered(() => raw.delete("raw", rawList));

    const figure = (
      name: string,
      what: string,
      run: { latencies: number[]; wallMs: number; cpuMsPerOp?: Record<string, number> },
    ) => {
      const d = distribution(run.latencies);
      const opsPerSecond = (run.latencies.length / run.wallMs) * 1000;
      report.add({
        name,
        value: opsPerSecond,
        unit: "ops/s",
        n: d.n,
        p50: d.p50,
        p99: d.p99,
        latencyUnit: "ms",
        concurrency: CONCURRENCY,
        ...(run.cpuMsPerOp ? { cpuMsPerOp: run.cpuMsPerOp } : {}),
        what,
      });
      return opsPerSecond;
    };
    const pCreate = figure(
      "provider.create.ops",
      "Check + Create through the dynamic-provider host (POST + GET)",
      created,
    );
    const pUpdate = figure("provider.update.ops", "Check + Diff + Update through the host (one PATCH)", updated);
    figure("provider.update-plan.ops", "Check + Diff alone (no request), every resource", phased.plan);
    const pUpdateRpc = figure(
      "provider.update-rpc.ops",
      "the Update RPC alone, after every plan (one PATCH)",
      phased.apply,
    );
    const pDelete = figure("provider.delete.ops", "Delete through the host (one DELETE)", deleted);
    const rPatch = figure(
      "provider.raw-client-patch.ops",
      "CplnClient.patchVolumeSet, same server, same concurrency",
      patched,
    );
    const rCreate = figure("provider.raw-client-create.ops", "CplnClient.createVolumeSet", rawCreated);
    const rDelete = figure("provider.raw-client-delete.ops", "CplnClient.deleteVolumeSet", rawDeleted);
    const updateRatio = pUpdate / rPatch;
    report.add({
      name: "provider.update.ratio-to-raw-patch",
      value: updateRatio,
      unit: "ratio",
      n: count * 2,
      target: ">= 0.5",
      met: updateRatio >= 0.5,
    });
    report.add({
      name: "provider.update-rpc.ratio-to-raw-patch",
      value: pUpdateRpc / rPatch,
      unit: "ratio",
      n: count * 2,
    });
    report.add({ name: "provider.create.ratio-to-raw-create", value: pCreate / rCreate, unit: "ratio", n: count * 2 });
    report.add({ name: "provider.delete.ratio-to-raw-delete", value: pDelete / rDelete, unit: "ratio", n: count * 2 });
    const left = await admin.expect(200, "GET", `/org/${org}/gvc/tp/volumeset`);
    const remaining = ((left.body as { items?: unknown[] }).items ?? []).length;
    if (remaining !== 0) report.note(`provider: ${remaining} volume sets left in gvc tp after the delete phase`);
  } finally {
    await host?.stop();
    await admin.close();
    await server.stop();
  }
}

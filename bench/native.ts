/**
 * Benchmark "native" — the engine's update step (Check + Diff + Update, one PATCH) at concurrency 16 through three
 * providers speaking the same ResourceProvider protocol to the same cpln-local, in the same run:
 *
 * - the thinnest provider (`bench/servers/thinnest-provider.ts`: Check echoes, Diff says "some", Update is one bare
 *   undici PATCH) — the yardstick;
 * - the native plugin (`pulumi-resource-cpln-native`, the executable as the engine starts it);
 * - the dynamic-provider host (Pulumi's `cmd/dynamic-provider` with the serialized `__provider`).
 *
 * The ratio of each adapter's update rate to the thinnest one's is what this repository's code costs over the
 * protocol itself (target ≥ 0.8). After a warm-up round each, the three run in interleaved rounds (thin, native,
 * dynamic, thin, ...; 5, or 3 with `--quick`), so load from elsewhere on the machine falls on all three alike. Each
 * ratio is the median of the per-round ratios, as in the service benchmark: a stall of the machine during one round
 * moves one ratio, not the figure. The ratio of the rates over all rounds is kept beside it (`ratioOfTotals`).
 */
import path from "node:path";
import { CplnClient } from "../provider/client/index.js";
import { NativePluginClient, type Props } from "../tools/native/client.js";
import type { BenchContext } from "./context.js";
import { create as dynamicCreate, startHost, update as dynamicUpdate, urnOf, type Deployed } from "./lib/engine.js";
import { Http, runConcurrent } from "./lib/http.js";
import { distDir, repoRoot, startCplnLocal } from "./lib/procs.js";
import { providerText, typeToken } from "./lib/providers.js";
import { distribution, ratioOfRounds, type Report } from "./lib/report.js";
import { createGvc } from "./lib/setup.js";

const CONCURRENCY = 16;
const secret = (value: unknown) => ({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value });

interface State {
  urn: string;
  id: string;
  inputs: Props;
  outputs: Props;
}

/** The engine's update step over a ResourceProvider client: Check, Diff, Update when the diff says so. */
async function protocolUpdate(plugin: NativePluginClient, state: State, news: Props): Promise<State> {
  const checked = await plugin.check(state.urn, state.inputs, news);
  if (checked.failures.length) throw new Error(`${state.urn}: ${JSON.stringify(checked.failures)}`);
  const diff = await plugin.diff(state.id, state.urn, state.outputs, checked.inputs, state.inputs);
  if (diff.replaces.length) throw new Error(`${state.urn}: unexpected replace`);
  if (diff.changes === "none") throw new Error(`${state.urn}: the diff found no change`);
  const outputs = await plugin.update(state.id, state.urn, state.outputs, checked.inputs, state.inputs);
  return { ...state, inputs: checked.inputs, outputs };
}

function names(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(4, "0")}`);
}

export async function nativeThroughput(ctx: BenchContext, report: Report): Promise<void> {
  const count = ctx.quick ? 200 : 1_000;
  const rounds = ctx.quick ? 3 : 5;
  const org = ctx.org;
  const server = await startCplnLocal({ data: ctx.tempFile("native.db"), org, adminKey: ctx.adminKey });
  const admin = new Http(server.url, ctx.adminKey, 2);
  const client = new CplnClient({ endpoint: server.url, token: ctx.adminKey, org });
  const config = { org, endpoint: server.url, token: secret(ctx.adminKey) };
  const plugins: NativePluginClient[] = [];
  // `--profile`: the native plugin and the thinnest provider record CPU profiles of the measured rounds only.
  const profiled = (name: string) =>
    ctx.profileDir === undefined
      ? {}
      : {
          env: {
            NODE_OPTIONS: `--require ${path.join(distDir, "bench", "servers", "profile-preload.js")}`,
            BENCH_PROFILE_DIR: ctx.profileDir,
            BENCH_PROFILE_NAME: name,
            BENCH_PROFILE_START: "SIGUSR2",
          },
        };
  const host = await startHost({ org, endpoint: server.url, token: ctx.adminKey });
  try {
    for (const gvc of ["thin", "nat", "dyn"]) await createGvc(admin, org, gvc);
    const native = await NativePluginClient.executable(path.join(repoRoot, "bin", "pulumi-resource-cpln-native"), {
      cwd: ctx.tempDir,
      ...profiled("native-plugin"),
    });
    plugins.push(native);
    await native.configure(config);
    const thinnest = await NativePluginClient.spawn({
      command: process.execPath,
      args: [path.join(distDir, "bench", "servers", "thinnest-provider.js")],
      cwd: ctx.tempDir,
      ...profiled("thinnest-provider"),
    });
    plugins.push(thinnest);
    await thinnest.configure(config);

    // The same objects for each provider: volume sets in their own gvc.
    const nativeType = "cpln-native:index:VolumeSet";
    const body = (name: string) => ({
      name,
      gvc: "",
      initialCapacity: 10,
      performanceClass: "general-purpose-ssd" as const,
      fileSystemType: "ext4" as const,
      description: "created",
      tags: { bench: "true" },
    });
    const thinStates: State[] = [];
    await runConcurrent(names("thin", count), CONCURRENCY, async (name, i) => {
      const { gvc: _gvc, ...rest } = body(name);
      const { initialCapacity, performanceClass, fileSystemType, ...meta } = rest;
      await client.createVolumeSet("thin", { ...meta, spec: { initialCapacity, performanceClass, fileSystemType } });
      const inputs = { ...body(name), gvc: "thin" };
      thinStates[i] = {
        urn: urnOf("thin:index:VolumeSet", name),
        id: `/org/${org}/gvc/thin/volumeset/${name}`,
        inputs,
        outputs: inputs,
      };
    });
    const nativeStates: State[] = [];
    await runConcurrent(names("nat", count), CONCURRENCY, async (name, i) => {
      const urn = urnOf(nativeType, name);
      const checked = await native.check(urn, {}, { ...body(name), gvc: "nat" });
      const created = await native.create(urn, checked.inputs);
      nativeStates[i] = { urn, id: created.id, inputs: checked.inputs, outputs: created.outputs };
    });
    const text = await providerText("VolumeSet");
    const dynamicStates: Deployed[] = [];
    await runConcurrent(names("dyn", count), CONCURRENCY, async (name, i) => {
      const urn = urnOf(typeToken("VolumeSet"), name);
      dynamicStates[i] = await dynamicCreate(host, urn, { ...body(name), gvc: "dyn", __provider: text });
    });

    let round = 0;
    const thinRun = () => {
      round++;
      return runConcurrent(thinStates, CONCURRENCY, async (state, i) => {
        thinStates[i] = await protocolUpdate(thinnest, state, { ...state.inputs, description: `thin ${round}` });
      });
    };
    const nativeRun = () => {
      round++;
      return runConcurrent(nativeStates, CONCURRENCY, async (state, i) => {
        nativeStates[i] = await protocolUpdate(native, state, { ...state.inputs, description: `native ${round}` });
      });
    };
    const dynamicRun = () => {
      round++;
      return runConcurrent(dynamicStates, CONCURRENCY, async (state, i) => {
        // A program's inputs: the checked ones less what check adds (the provider, the dynamic providers' selfLink).
        const { __provider: _p, selfLink: _s, ...inputs } = state.inputs;
        dynamicStates[i] = await dynamicUpdate(host, state, {
          ...inputs,
          description: `dyn ${round}`,
          __provider: text,
        });
      });
    };
    // Warm-up: one full round each (first calls load code, open connections, compile hot paths).
    await thinRun();
    await nativeRun();
    await dynamicRun();

    // Interleaved rounds, so that load from elsewhere on the machine falls on every provider alike.
    type Run = { latencies: number[]; wallMs: number };
    const runs: Record<"thin" | "nat" | "dyn", Run[]> = { thin: [], nat: [], dyn: [] };
    if (ctx.profileDir !== undefined) {
      for (const plugin of plugins) if (plugin.pid !== undefined) process.kill(plugin.pid, "SIGUSR2");
    }
    for (let i = 0; i < rounds; i++) {
      runs.thin.push(await thinRun());
      runs.nat.push(await nativeRun());
      runs.dyn.push(await dynamicRun());
    }

    const rate = (run: Run) => (run.latencies.length / run.wallMs) * 1000;
    const total = (key: keyof typeof runs): Run => ({
      latencies: runs[key].flatMap((run) => run.latencies),
      wallMs: runs[key].reduce((sum, run) => sum + run.wallMs, 0),
    });
    const figure = (name: string, what: string, key: keyof typeof runs) => {
      const all = total(key);
      const d = distribution(all.latencies);
      report.add({
        name,
        value: rate(all),
        unit: "ops/s",
        n: d.n,
        p50: d.p50,
        p99: d.p99,
        latencyUnit: "ms",
        concurrency: CONCURRENCY,
        ratesPerRound: runs[key].map((run) => Math.round(rate(run))),
        what,
      });
    };
    figure("native.thinnest-update.ops", "thinnest provider: Check + Diff + Update (bare PATCH)", "thin");
    figure("native.update.ops", "native plugin: Check + Diff + Update (one PATCH)", "nat");
    figure("native.dynamic-update.ops", "dynamic-provider host: Check + Diff + Update (one PATCH)", "dyn");
    const ratioFigure = (name: string, key: "nat" | "dyn") => {
      const { value, ratiosPerRound } = ratioOfRounds(runs[key].map(rate), runs.thin.map(rate));
      report.add({
        name,
        value,
        unit: "ratio",
        n: count * rounds,
        ratiosPerRound,
        ratioOfTotals: rate(total(key)) / rate(total("thin")),
        target: ">= 0.8",
        met: value >= 0.8,
      });
    };
    ratioFigure("native.update.ratio-to-thinnest", "nat");
    ratioFigure("native.dynamic-update.ratio-to-thinnest", "dyn");
  } finally {
    for (const plugin of plugins) await plugin.stop();
    await host.stop();
    await client.close();
    await admin.close();
    await server.stop();
  }
}

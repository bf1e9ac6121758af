/**
 * Renders a run (`bench/results/latest.json` by default) as the Markdown tables of `bench/README.md`:
 * `node dist/bench/render.js [file]`.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "./lib/procs.js";
import type { Figure } from "./lib/report.js";

interface Run {
  command: string;
  mode: string;
  started: string;
  seconds: number;
  machine: Record<string, unknown>;
  figures: Figure[];
  notes: string[];
}

const fmt = (value: number | undefined, digits = 1): string =>
  value === undefined || !Number.isFinite(value) ? "–" : value.toFixed(digits);

/** A figure's per-round list (`ratiosPerRound`, `ratesPerRound`) as one cell; empty when it has none. */
const perRound = (figure: Figure | undefined, key: string, digits: number): string =>
  Array.isArray(figure?.[key]) ? (figure[key] as number[]).map((x) => x.toFixed(digits)).join(" ") : "";

function table(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");
}

export function render(run: Run): string {
  const by = new Map(run.figures.map((f) => [f.name, f]));
  const get = (name: string) => by.get(name);
  const met = (f: Figure | undefined) => (f?.target === undefined ? "" : `${f.target} ${f.met ? "✓" : "✗ missed"}`);
  const m = run.machine;
  const out: string[] = [];
  out.push(
    `Command \`${run.command}\`, ${run.started} (${run.seconds} s). Machine: ${String(m["cpus"])} × ${String(m["cpuModel"])}, ` +
      `${String(m["totalMemoryMiB"])} MiB, ${String(m["platform"])}, node ${String(m["node"])}; load average at the end ` +
      `${JSON.stringify(m["loadAverage"])} (shared with other work: absolute times are noise, ratios are the figures).`,
  );

  const kinds = ["volumeset", "policy", "location"];
  const steps = ["create", "noop-preview", "update-field", "update-binding", "read", "delete"];
  out.push("\n**1. HTTP requests per operation** (from the server's request log; target in brackets)\n");
  out.push(
    table(
      ["resource", ...steps],
      kinds.map((k) => [
        k,
        ...steps.map((s) => {
          const f = get(`requests.${k}.${s}`);
          return f ? `${f.value} (${String(f.target).replace(/\s+/g, "")})${f.met ? "" : " ✗"}` : "–";
        }),
      ]),
    ),
  );

  out.push("\n**2. Provider throughput** (concurrency 16; latency per operation in ms)\n");
  const providerRows = [
    ["create: Check + Create", "provider.create.ops", "provider.create.ratio-to-raw-create", "raw POST"],
    ["update: Check + Diff + Update", "provider.update.ops", "provider.update.ratio-to-raw-patch", "raw PATCH"],
    ["… Check + Diff alone", "provider.update-plan.ops", undefined, ""],
    ["… Update RPC alone", "provider.update-rpc.ops", "provider.update-rpc.ratio-to-raw-patch", "raw PATCH"],
    ["delete", "provider.delete.ops", "provider.delete.ratio-to-raw-delete", "raw DELETE"],
    ["raw `CplnClient` POST", "provider.raw-client-create.ops", undefined, ""],
    ["raw `CplnClient` PATCH", "provider.raw-client-patch.ops", undefined, ""],
    ["raw `CplnClient` DELETE", "provider.raw-client-delete.ops", undefined, ""],
  ] as const;
  out.push(
    table(
      [
        "operation",
        "ops/s",
        "p50",
        "p99",
        "CPU ms/op: host · bench process (engine or client) · server",
        "ratio",
        "target",
      ],
      providerRows.map(([label, name, ratioName, against]) => {
        const f = get(name);
        const r = ratioName ? get(ratioName) : undefined;
        const cpu = f?.["cpuMsPerOp"] as Record<string, number> | undefined;
        const cpuText = cpu ? `${fmt(cpu["host"], 2)} · ${fmt(cpu["bench"], 2)} · ${fmt(cpu["server"], 2)}` : "";
        return [
          label,
          fmt(f?.value, 0),
          fmt(f?.p50),
          fmt(f?.p99),
          cpuText,
          r ? `${fmt(r.value, 2)} of ${against}` : "",
          met(r),
        ];
      }),
    ),
  );

  out.push(
    "\n**3. Service throughput** (autocannon, 10 connections; median of alternating rounds; latency in ms; loader " +
      "cores: the share of one core autocannon used in the bare route's rounds, near 1 when that rate is the loader's " +
      "limit rather than the route's)\n",
  );
  const shapes = [
    ["GET one volume set", "get"],
    ["PATCH one volume set", "patch"],
    ["POST create", "post"],
    ["GET list of 100", "list100"],
  ] as const;
  out.push(
    table(
      [
        "request",
        "cpln-local req/s",
        "p50",
        "p99",
        "CPU µs/req",
        "bare fastify req/s",
        "CPU µs/req",
        "loader cores",
        "ratio",
        "per round",
        "target",
      ],
      shapes.map(([label, key]) => {
        const f = get(`service.${key}.rps`);
        const b = get(`service.bare-${key}.rps`);
        const r = get(`service.${key}.ratio-to-bare`);
        return [
          label,
          fmt(f?.value, 0),
          fmt(f?.p50, 0),
          fmt(f?.p99, 0),
          fmt(f?.["cpuUsPerRequest"] as number | undefined, 0),
          fmt(b?.value, 0),
          fmt(b?.["cpuUsPerRequest"] as number | undefined, 0),
          fmt(b?.["loaderCores"] as number | undefined, 2),
          fmt(r?.value, 2),
          perRound(r, "ratiosPerRound", 2),
          met(r),
        ];
      }),
    ),
  );

  const sameBytes = get("service.list100.ratio-to-bare-same-bytes");
  const sameBytesBare = get("service.bare-same-bytes-list100.rps");
  if (sameBytes && sameBytesBare) {
    out.push(
      `\nThe list of 100 beside a bare route answering as many bytes: ${fmt(sameBytesBare.value, 0)} req/s, ratio ` +
        `${fmt(sameBytes.value, 2)} (no target; the target's bare route answers 54 bytes).\n`,
    );
  }

  const storing = (["patch", "post"] as const).flatMap((key) => {
    const route = get(`service.storing-${key}.rps`);
    const toStoring = get(`service.${key}.ratio-to-storing`);
    const floor = get(`service.storing-${key}.ratio-to-bare`);
    if (!route || !toStoring || !floor) return [];
    return [
      `${key.toUpperCase()} ${fmt(route.value, 0)} req/s (${fmt(route["cpuUsPerRequest"] as number | undefined, 0)} ` +
        `µs CPU per request; ${fmt(floor.value, 2)} of the bare route), cpln-local ${fmt(toStoring.value, 2)} of it`,
    ];
  });
  if (storing.length > 0) {
    out.push(
      `\nWrites beside the storing route (the same bodies kept through cpln-local's SQLite store, answered once ` +
        `durable, nothing else; no target): ${storing.join("; ")}.\n`,
    );
  }

  const httpFloor = get("service.http-floor-post.rps");
  const httpFloorRatio = get("service.http-floor-post.ratio-to-bare");
  if (httpFloor && httpFloorRatio) {
    out.push(
      `\nThe POST beside cpln-local's HTTP stack answering it without its domain (its parser, authentication, hooks and ` +
        `serializer; no target): ${fmt(httpFloor.value, 0)} req/s (${fmt(httpFloor["cpuUsPerRequest"] as number | undefined, 0)} ` +
        `µs CPU per request; ${fmt(httpFloorRatio.value, 2)} of the bare route).\n`,
    );
  }
  const inProcess = (["patch", "post"] as const).flatMap((key) => {
    const cpu = get(`service.in-process-${key}.cpu`);
    const ceiling = get(`service.${key}.in-process-ceiling-to-bare`);
    if (!cpu || !ceiling) return [];
    return [
      `${key.toUpperCase()} ${fmt(cpu.value, 0)} µs CPU per write, at most ${fmt(ceiling.value, 2)} of the bare route`,
    ];
  });
  if (inProcess.length > 0) {
    out.push(
      `\nThe same writes through cpln-local's record service in one process, no HTTP (authentication, the write, its ` +
        `answer's JSON, the wait for its commit; no target): ${inProcess.join("; ")} on the one thread that does ` +
        `this work, whatever answers the HTTP.\n`,
    );
  }

  const adapters = [
    { label: "thinnest provider", rate: "native.thinnest-update.ops", ratio: undefined },
    { label: "native plugin", rate: "native.update.ops", ratio: "native.update.ratio-to-thinnest" },
    { label: "dynamic host", rate: "native.dynamic-update.ops", ratio: "native.dynamic-update.ratio-to-thinnest" },
  ].filter((adapter) => get(adapter.rate));
  if (adapters.length > 0) {
    out.push(
      "\n**6. The update step through each adapter** (Check + Diff + Update, concurrency 16; latency in ms; ratio = " +
        "the adapter's rate over the thinnest provider's, median of per-round ratios)\n",
    );
    out.push(
      table(
        ["adapter", "ops/s", "p50", "p99", "per round", "ratio", "per round", "target"],
        adapters.map(({ label, rate, ratio }) => {
          const f = get(rate);
          const r = ratio === undefined ? undefined : get(ratio);
          return [
            label,
            fmt(f?.value, 0),
            fmt(f?.p50),
            fmt(f?.p99),
            perRound(f, "ratesPerRound", 0),
            r ? fmt(r.value, 3) : "",
            perRound(r, "ratiosPerRound", 3),
            met(r),
          ];
        }),
      ),
    );
  }

  const motoKeys = ["create", "get", "update", "list10"].filter((key) => get(`moto.${key}.ratio`));
  if (motoKeys.length > 0) {
    out.push("\n**7. cpln-local beside moto** (volume set vs SSM parameter; 10 connections, undici; p99 in ms)\n");
    out.push(
      table(
        ["operation", "cpln-local req/s", "p99", "moto req/s", "p99", "ratio", "target"],
        motoKeys.map((key) => {
          const c = get(`moto.cpln-${key}.rps`);
          const m = get(`moto.moto-${key}.rps`);
          const r = get(`moto.${key}.ratio`);
          return [
            String(c?.["title"] ?? key).replace(/^cpln-local: /, ""),
            fmt(c?.value, 0),
            fmt(c?.p99, 0),
            fmt(m?.value, 0),
            fmt(m?.p99, 0),
            fmt(r?.value, 2),
            met(r),
          ];
        }),
      ),
    );
  }

  const engineSteps = ["up", "edit", "no-op", "destroy"].filter((step) => get(`engine.thin.${step}.seconds`));
  if (engineSteps.length > 0) {
    out.push(
      "\n**8. Whole runs by the real Pulumi engine** (100 volume sets + 20 policies; seconds, median over rounds; " +
        "requests all/mutating per step; ratio = thinnest time / adapter time, median of per-round ratios)\n",
    );
    const seconds = (adapter: string, step: string) => {
      const f = get(`engine.${adapter}.${step}.seconds`);
      const requests = (f?.["requests"] as number[] | undefined)?.[0];
      const writes = (f?.["writes"] as number[] | undefined)?.[0];
      return `${fmt(f?.value)} s (${requests ?? "–"}/${writes ?? "–"})`;
    };
    const ratio = (adapter: string, step: string) => {
      const f = get(`engine.${adapter}.${step}.ratio-to-thinnest`);
      const rounds = ((f?.["rounds"] as number[] | undefined) ?? []).map((r) => fmt(r, 2)).join(" ");
      return `${fmt(f?.value, 2)} (${rounds})${f?.target ? (f.met ? " ✓" : " ✗") : ""}`;
    };
    out.push(
      table(
        ["step", "thinnest", "native", "dynamic", "native / thinnest", "dynamic / thinnest"],
        [
          ...engineSteps.map((step) => [
            step,
            seconds("thin", step),
            seconds("native", step),
            seconds("dynamic", step),
            ratio("native", step),
            ratio("dynamic", step),
          ]),
          ["all four steps", "", "", "", ratio("native", "all-steps"), ratio("dynamic", "all-steps")],
        ],
      ),
    );
  }

  const cells = run.figures.filter((f) => /^scale\.list\.n\d+\.p\d+$/.test(f.name));
  const ns = [...new Set(cells.map((f) => Number(f["records"])))].sort((a, b) => a - b);
  const ps = [...new Set(cells.map((f) => Number(f["policies"])))].sort((a, b) => a - b);
  out.push(
    "\n**4. Scaling** (p50 ms over HTTP, as a non-superuser whose group policy grants view on half the records)\n",
  );
  const rows: string[][] = [];
  for (const n of ns) {
    for (const p of ps) {
      const list = get(`scale.list.n${n}.p${p}`);
      rows.push([
        String(n),
        String(p),
        `${fmt(list?.value)}${list?.target ? (list.met ? " ✓" : " ✗") : ""}`,
        fmt(get(`scale.query.n${n}.p${p}`)?.value),
        fmt(get(`scale.accessreport.n${n}.p${p}`)?.value, 2),
        p === ps[ps.length - 1] ? fmt(get(`scale.list-superuser.n${n}.p${p}`)?.value) : "",
      ]);
    }
  }
  out.push(table(["N", "P", "list", "query", "access report", "list as superuser"], rows));
  const growth = run.figures.filter((f) => f.name.includes(".growth-"));
  if (growth.length) {
    out.push(
      `\nGrowth: ${growth
        .filter((f) => f.name.startsWith("scale.list.") || f.name.startsWith("scale.query."))
        .map((f) => `${f.name.replace("scale.", "").replace(".growth-", " ")} ×${fmt(f.value, 2)}`)
        .join("; ")} (linear in N would be ×10; flat in P ×1).`,
    );
  }

  out.push("\n**5. Footprint**\n");
  const startRows = [
    ["cold start, new data file (seeds built-ins)", "footprint.cold-start.new-data-file", "ms"],
    ["cold start, existing data file", "footprint.cold-start.existing-data-file", "ms"],
    ["bare fastify process, same measure", "footprint.cold-start.bare-fastify", "ms"],
    ...ns.map((n) => [`RSS of the server with ${n} volume sets, after serving`, `footprint.rss.n${n}`, "MiB"]),
    ["SQLite file per 1,000 volume sets", "footprint.sqlite-per-1k-volumesets", "KiB"],
  ];
  out.push(
    table(
      ["what", "value", "live heap after a full GC"],
      startRows.map(([label, name, unit]) => {
        const f = get(name ?? "");
        const live = f?.["heapLiveAfterGcMiB"];
        return [label ?? "", `${fmt(f?.value, 0)} ${unit}`, typeof live === "number" ? `${fmt(live, 0)} MiB` : ""];
      }),
    ),
  );
  if (run.notes.length) out.push(`\nNotes: ${run.notes.join("; ")}`);
  return out.join("\n");
}

if (require.main === module) {
  const file = process.argv[2] ?? path.join(repoRoot, "bench", "results", "latest.json");
  process.stdout.write(`${render(JSON.parse(readFileSync(file, "utf8")) as Run)}\n`);
}

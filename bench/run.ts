/**
 * `npm run bench` (full) and `npm run bench -- --quick` (CI, under two minutes). Runs the five benchmarks in one
 * process, prints one JSON object per figure as it is measured, then a short table, and writes the whole run to
 * `bench/results/latest.json`. The exit code is 1 only when the request counts of benchmark 1 differ from their
 * targets (or could not be measured); every other figure is printed, never enforced — a slow machine must not fail
 * a build. `--only=requests,provider,native,service,scaling,startup,moto,engine,coldstart,app,app-yaml` runs a subset
 * (the exit rule is the same; moto, app and app-yaml only when named, engine and coldstart not in `--quick`'s default set);
 * `--skip=<names>` leaves some out of the default set (CI: `--quick --skip=service`); `--profile`
 * starts every server process with `--cpu-prof` (profiles in `bench/results/profiles/`, summarized by
 * `node dist/bench/profile-summary.js bench/results/profiles`).
 */
import path from "node:path";
import { appRuns } from "./app.js";
import { appYamlRuns } from "./app-yaml.js";
import { coldStart } from "./coldstart.js";
import { BenchContext } from "./context.js";
import { engineRuns } from "./engine.js";
import { footprint } from "./footprint.js";
import { motoSideBySide } from "./moto.js";
import { nativeThroughput } from "./native.js";
import { repoRoot } from "./lib/procs.js";
import { Report } from "./lib/report.js";
import { providerThroughput } from "./provider.js";
import { requestsPerOperation } from "./requests.js";
import { scaling } from "./scaling.js";
import { serviceThroughput } from "./service.js";

const benchmarks = {
  requests: requestsPerOperation,
  provider: providerThroughput,
  native: nativeThroughput,
  service: serviceThroughput,
  scaling,
  startup: footprint,
  moto: motoSideBySide,
  engine: engineRuns,
  coldstart: coldStart,
  app: appRuns,
  "app-yaml": appYamlRuns,
} as const;
type BenchName = keyof typeof benchmarks;

function benchNames(option: string, list: string): BenchName[] {
  const names = list.split(",");
  for (const name of names) {
    if (!(name in benchmarks))
      throw new Error(`${option}: unknown benchmark "${name}" (one of ${Object.keys(benchmarks).join(", ")})`);
  }
  return names as BenchName[];
}

function parseArgs(argv: string[]): { quick: boolean; profile: boolean; only: BenchName[] } {
  let quick = false;
  let skip: BenchName[] = [];
  let profile = false;
  // moto (a Python install) and app (beside @pulumiverse/cpln) run only when named; engine (whole runs by the real
  // Pulumi engine, minutes) in a full run or when named, never in --quick's default set.
  let only: BenchName[] | undefined;
  for (const arg of argv) {
    if (arg === "--quick") quick = true;
    else if (arg === "--profile") profile = true;
    else if (arg.startsWith("--only=")) only = benchNames("--only", arg.slice("--only=".length));
    else if (arg.startsWith("--skip=")) skip = benchNames("--skip", arg.slice("--skip=".length));
    else throw new Error(`unknown argument "${arg}" (use --quick, --profile, --only=<names>, --skip=<names>)`);
  }
  if (only && skip.length > 0) throw new Error("--only and --skip: use one of them");
  only ??= (Object.keys(benchmarks) as BenchName[]).filter(
    (name) =>
      !skip.includes(name) &&
      name !== "moto" &&
      name !== "app" &&
      name !== "app-yaml" &&
      !(quick && (name === "engine" || name === "coldstart")),
  );
  return { quick, profile, only };
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const { quick, profile, only } = parseArgs(args);
  const command = ["npm run bench", ...(args.length ? ["--", ...args] : [])].join(" ");
  const report = new Report(command, quick ? "quick" : "full");
  const profileDir = profile ? path.join(repoRoot, "bench", "results", "profiles") : undefined;
  const ctx = new BenchContext(quick, profileDir);
  const started = performance.now();
  let countsOk = true;
  const errors: Record<string, string> = {};
  try {
    for (const name of only) {
      const t0 = performance.now();
      process.stdout.write(`# ${name}: started\n`);
      try {
        const result = await benchmarks[name](ctx, report);
        if (name === "requests" && result && typeof result === "object" && "countsOk" in result) {
          countsOk = Boolean(result.countsOk);
        }
      } catch (error) {
        const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
        errors[name] = text;
        process.stdout.write(`# ${name}: FAILED\n${text}\n`);
        if (name === "requests") countsOk = false;
      }
      process.stdout.write(`# ${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    }
  } finally {
    ctx.cleanup();
  }
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`\n${report.table()}\n\n`);
  const file = path.join(repoRoot, "bench", "results", "latest.json");
  report.write(file, { benchmarks: only, seconds: Math.round(seconds * 10) / 10, requestCountsOk: countsOk, errors });
  process.stdout.write(
    `# ${only.length} benchmark(s) in ${seconds.toFixed(1)} s; written to ${path.relative(process.cwd(), file)}\n`,
  );
  if (!countsOk)
    process.stdout.write("# FAIL: the request counts per operation differ from their targets (benchmark 1)\n");
  const failed = Object.keys(errors);
  // A section that threw measured nothing: its figures are missing from the report, so the run fails.
  if (failed.length > 0) process.stdout.write(`# FAIL: ${failed.join(", ")} threw (above)\n`);
  return countsOk && failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);

import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** One measured figure; printed as one JSON line and kept for `bench/results/latest.json`. */
export interface Figure {
  /** Dotted name: `<benchmark>.<subject>.<measure>`, e.g. `service.get.rps`. */
  name: string;
  value: number;
  unit: string;
  /** Samples behind the value (requests, operations, runs). */
  n: number;
  p50?: number;
  p99?: number;
  /** Where the figure has one: the target it is held to and whether it was met. */
  target?: string;
  met?: boolean;
  /** Anything else worth keeping beside the figure (errors, status counts, sizes). */
  [extra: string]: unknown;
}

/** Percentile of already sorted samples (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] ?? Number.NaN;
}

export interface Distribution {
  n: number;
  mean: number;
  p50: number;
  p99: number;
  max: number;
}

export function distribution(samples: readonly number[]): Distribution {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    n: sorted.length,
    mean: sorted.length ? sum / sorted.length : Number.NaN,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/**
 * The ratios of two rates measured in alternating rounds, round by round (`over[i] / under[i]`, to 3 decimals), and
 * their median: a stall of the machine during one round moves one ratio, not the figure.
 */
export function ratioOfRounds(
  over: readonly number[],
  under: readonly number[],
): { value: number; ratiosPerRound: number[] } {
  const ratios = over.map((rate, i) => rate / (under[i] ?? Number.NaN));
  return { value: median(ratios), ratiosPerRound: ratios.map((ratio) => Math.round(ratio * 1000) / 1000) };
}

/** Rounds for display and JSON: 3 significant decimals are more than a shared machine can tell apart. */
export function round(value: number, digits = 3): number {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function roundDeep(value: unknown): unknown {
  if (typeof value === "number") return round(value);
  if (Array.isArray(value)) return value.map(roundDeep);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, roundDeep(v)]));
  }
  return value;
}

export function machine(): Record<string, unknown> {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? "unknown",
    cpuSpeedMHz: cpus[0]?.speed ?? 0,
    totalMemoryMiB: Math.round(os.totalmem() / 2 ** 20),
    freeMemoryMiB: Math.round(os.freemem() / 2 ** 20),
    loadAverage: os.loadavg().map((l) => round(l, 2)),
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
  };
}

/** Collects the figures of one run, prints each as a JSON line as it comes, and writes the whole run at the end. */
export class Report {
  readonly figures: Figure[] = [];
  readonly notes: string[] = [];
  private readonly started = new Date();

  constructor(
    private readonly command: string,
    private readonly mode: "quick" | "full",
  ) {}

  add(figure: Figure): Figure {
    const rounded: Figure = { ...figure };
    for (const [key, value] of Object.entries(figure)) rounded[key] = roundDeep(value);
    this.figures.push(rounded);
    process.stdout.write(`${JSON.stringify(rounded)}\n`);
    return rounded;
  }

  note(text: string): void {
    this.notes.push(text);
    process.stdout.write(`# ${text}\n`);
  }

  /** The short table: name, value with unit, p50/p99, target. */
  table(): string {
    const rows = this.figures.map((f) => [
      f.name,
      `${f.value} ${f.unit}`,
      f.p50 === undefined ? "" : String(f.p50),
      f.p99 === undefined ? "" : String(f.p99),
      f.target === undefined ? "" : `${f.target} ${f.met ? "ok" : "MISSED"}`,
    ]);
    const header = ["figure", "value", "p50", "p99", "target"];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
    const line = (cells: string[]) =>
      cells
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join("  ")
        .trimEnd();
    return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
  }

  write(file: string, extra: Record<string, unknown>): void {
    mkdirSync(path.dirname(file), { recursive: true });
    const body = {
      command: this.command,
      mode: this.mode,
      started: this.started.toISOString(),
      finished: new Date().toISOString(),
      machine: machine(),
      ...extra,
      notes: this.notes,
      figures: this.figures,
    };
    writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
  }
}

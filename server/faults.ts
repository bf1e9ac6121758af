/**
 * Fault injection for reliability tests: a share of requests fail with 503 or 429 before their handler runs, are
 * answered late, or have their connection cut after the handler committed its write.
 */

export type FaultMode = "503" | "429" | "delay" | "cut";

export interface FaultOptions {
  /** Share of requests that get a fault, 0..1. */
  rate: number;
  modes: FaultMode[];
  /** Delay of the `delay` mode (default 200 ms). */
  delayMs?: number;
  /** Seed of the pseudo-random choice, for reproducible runs. */
  seed?: number;
}

export const faultModes: readonly FaultMode[] = ["503", "429", "delay", "cut"];

/** mulberry32: small, fast, seedable. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function validateFaults(options: FaultOptions): FaultOptions {
  if (!(typeof options.rate === "number" && options.rate >= 0 && options.rate <= 1)) {
    throw new Error(`faults.rate must be a number between 0 and 1 (got ${String(options.rate)})`);
  }
  if (!Array.isArray(options.modes) || options.modes.length === 0) {
    throw new Error(`faults.modes must list at least one of ${faultModes.join(", ")}`);
  }
  for (const mode of options.modes) {
    if (!faultModes.includes(mode))
      throw new Error(`Unknown fault mode "${String(mode)}" (use ${faultModes.join(", ")})`);
  }
  if (options.delayMs !== undefined && !(options.delayMs >= 0)) throw new Error("faults.delayMs must be >= 0");
  return options;
}

/** Parses the CLI form `rate=0.2,modes=503+429+cut,delayMs=100,seed=7`. */
export function parseFaults(text: string): FaultOptions {
  const options: FaultOptions = { rate: 0, modes: [] };
  for (const part of text.split(",")) {
    const [key, value = ""] = part.split("=", 2).map((s) => s.trim()) as [string, string?];
    if (key === "rate") options.rate = Number(value);
    else if (key === "modes") options.modes = value.split("+").filter((m) => m !== "") as FaultMode[];
    else if (key === "delayMs") options.delayMs = Number(value);
    else if (key === "seed") options.seed = Number(value);
    else throw new Error(`Unknown fault option "${key}" (use rate, modes, delayMs, seed)`);
  }
  return validateFaults(options);
}

export class FaultInjector {
  private options: FaultOptions | undefined;
  private random: () => number = Math.random;
  /** A separate sequence, so the faults a seed picks do not depend on which of them were 503/429. */
  private retryRandom: () => number = Math.random;

  constructor(options?: FaultOptions) {
    this.set(options);
  }

  /** Replaces the fault settings; undefined (or rate 0) turns injection off. */
  set(options: FaultOptions | undefined): void {
    this.options = options === undefined ? undefined : validateFaults({ ...options, modes: [...options.modes] });
    this.random = options?.seed !== undefined ? seededRandom(options.seed) : Math.random;
    this.retryRandom = options?.seed !== undefined ? seededRandom(options.seed ^ 0x5bd1e995) : Math.random;
  }

  get delayMs(): number {
    return this.options?.delayMs ?? 200;
  }

  /** `Retry-After` of an injected 503/429: 0 or 1 second, from the same (seedable) sequence. */
  retryAfter(): string {
    return this.retryRandom() < 0.5 ? "0" : "1";
  }

  /** The fault for the next request, if any. */
  pick(): FaultMode | undefined {
    const options = this.options;
    if (!options || options.rate <= 0) return undefined;
    if (this.random() >= options.rate) return undefined;
    return options.modes[Math.floor(this.random() * options.modes.length)] ?? options.modes[0];
  }
}

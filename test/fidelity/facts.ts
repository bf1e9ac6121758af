/**
 * The outside facts (`fidelity/facts/*.json`, recorded from Control Plane's published artefacts) and the per-source
 * tally the fidelity suite prints.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface FactSource {
  /** A GitHub repository (`owner/name`) with `commit`, or an npm package with `version`. */
  repo?: string;
  commit?: string;
  package?: string;
  version?: string;
  path: string;
  url?: string;
  what?: string;
}

export interface Fact {
  id: string;
  source: FactSource;
  /** The fact is recorded but another one (`supersededBy`) is followed, for `reason`. */
  supersededBy?: string;
  reason?: string;
  [field: string]: unknown;
}

export interface FactFile {
  topic: string;
  facts: Fact[];
}

const FACTS_DIR = join(__dirname, "..", "..", "fidelity", "facts");

export function loadFacts(file: string): FactFile {
  return JSON.parse(readFileSync(join(FACTS_DIR, file), "utf8")) as FactFile;
}

/** The name a source is counted under: the repository, the package, or the host of a web page. */
export function sourceName(source: FactSource): string {
  return source.repo ?? source.package ?? (source.url !== undefined ? new URL(source.url).host : "unknown");
}

/** Counts facts per source as the suite checks them, and prints the tally. */
export class Tally {
  private readonly counts = new Map<string, { held: number; failed: number; superseded: number }>();

  private entry(fact: Fact) {
    const name = sourceName(fact.source);
    let entry = this.counts.get(name);
    if (entry === undefined) {
      entry = { held: 0, failed: 0, superseded: 0 };
      this.counts.set(name, entry);
    }
    return entry;
  }

  /** Runs `check` for `fact` and counts it as held or failed (rethrowing the failure). */
  async check(fact: Fact, check: () => Promise<void> | void): Promise<void> {
    const entry = this.entry(fact);
    try {
      await check();
      entry.held += 1;
    } catch (error) {
      entry.failed += 1;
      throw error;
    }
  }

  superseded(fact: Fact): void {
    this.entry(fact).superseded += 1;
  }

  print(title: string): void {
    const lines = [...this.counts.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(
        ([name, c]) =>
          `  ${name}: ${c.held} of ${c.held + c.failed} facts hold` +
          (c.superseded > 0 ? ` (${c.superseded} recorded, superseded by another source)` : ""),
      );
    console.log(`fidelity: ${title}\n${lines.join("\n")}`);
  }
}

/**
 * Summarizes V8 CPU profiles (`.cpuprofile`, as written by `node --cpu-prof`): the functions with the most self time,
 * grouped by function and source location. `node dist/bench/profile-summary.js <file|dir> [top]`. `npm run bench --
 * --profile` leaves the profiles of the servers it started in `bench/results/profiles/`.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface HotSpot {
  name: string;
  selfMs: number;
  share: number;
}

export function hotSpots(profile: CpuProfile, top = 20): { totalMs: number; spots: HotSpot[] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const delta = (profile.timeDeltas[i] ?? 0) / 1000;
    total += delta;
    const frame = byId.get(id)?.callFrame;
    const where = frame?.url
      ? `${frame.url.replace(/^file:\/\//, "").replace(process.cwd() + "/", "")}:${frame.lineNumber + 1}`
      : "";
    const key = `${frame?.functionName || "(anonymous)"}${where ? ` ${where}` : ""}`;
    self.set(key, (self.get(key) ?? 0) + delta);
  });
  const spots = [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, ms]) => ({ name, selfMs: Math.round(ms), share: total ? ms / total : 0 }));
  return { totalMs: Math.round(total), spots };
}

/** Where a frame's code lives: `node_modules/<package>`, `dist/<layer>`, `node:` internals, or a V8 pseudo-frame. */
function area(url: string, functionName: string): string {
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg?.[1]) return pkg[1];
  const dist = /\/dist\/([^/]+)/.exec(url);
  if (dist?.[1]) return `cpln-pulumi ${dist[1]}/`;
  return url.startsWith("node:") ? "node internals" : url;
}

/** Self time grouped by `area`, i.e. which package or layer the CPU went to. */
export function byArea(profile: CpuProfile): { totalMs: number; areas: HotSpot[] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const delta = (profile.timeDeltas[i] ?? 0) / 1000;
    total += delta;
    const frame = byId.get(id)?.callFrame;
    const key = area(frame?.url ?? "", frame?.functionName ?? "");
    self.set(key, (self.get(key) ?? 0) + delta);
  });
  const areas = [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([name, ms]) => ({ name, selfMs: Math.round(ms), share: total ? ms / total : 0 }));
  return { totalMs: Math.round(total), areas };
}

function main(): void {
  const target = process.argv[2];
  const top = Number(process.argv[3] ?? "25");
  if (!target) throw new Error("usage: profile-summary.js <file.cpuprofile|dir> [top]");
  const files = statSync(target).isDirectory()
    ? readdirSync(target)
        .filter((f) => f.endsWith(".cpuprofile"))
        .map((f) => path.join(target, f))
    : [target];
  const line = (s: HotSpot) =>
    `${(s.share * 100).toFixed(1).padStart(5)}%  ${String(s.selfMs).padStart(6)} ms  ${s.name}\n`;
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
    const { totalMs, spots } = hotSpots(profile, top);
    process.stdout.write(`\n${file} — ${totalMs} ms sampled\nby package or layer (self time):\n`);
    for (const a of byArea(profile).areas.slice(0, 15)) process.stdout.write(line(a));
    process.stdout.write("hottest functions (self time):\n");
    for (const s of spots) process.stdout.write(line(s));
  }
}

if (require.main === module) main();

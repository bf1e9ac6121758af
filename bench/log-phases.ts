/**
 * Where one engine command's time goes, from the engine's own log (`pulumi up|destroy -v=9 --logtostderr --logflow`:
 * JSON lines, each with its `time`), as bench/app.ts writes them with `CPLN_BENCH_APP_LOG_DIR` (lib/cli-timer.ts;
 * the file name starts with the CLI's spawn time in µs, the origin here).
 * `node dist/bench/log-phases.js <file.log|dir> [--calls]` prints per log, ms from the spawn:
 * - `A` spawn → the update starts (`*** Starting Update`): the CLI's start, the stack, its config and secrets, the
 *   language host's first answers — the same work whatever the provider;
 * - `B` → the first resource call (Check, Diff, Create, Update, Delete, Read): the program up to its first resource
 *   (an up) and the provider plugin's start, launch → handshake given apart (`plugin`: the last resource plugin
 *   launched; `launches` counts them);
 * - `C` first → last resource call's end: the resources' chain — requests, the provider's work, the engine's steps
 *   and checkpoint writes between them (`busy`: the sum of the calls' own times);
 * - `D` → the log's last line: the program's end, the plugins killed, the last checkpoint;
 * and with `--calls` every call with its start and duration.
 */
import * as fs from "node:fs";
import path from "node:path";

interface Call {
  op: string;
  name: string;
  start: number;
  end: number;
}

export interface Phases {
  file: string;
  a: number;
  b: number;
  plugin: number;
  c: number;
  busy: number;
  d: number;
  total: number;
  launches: number;
  checkpoints: number;
  calls: Call[];
}

const callPattern = /Provider\[\w+\]\.(Check|Diff|Create|Update|Delete|Read)\(([^)]*)\)[ :]+(executing|success)/;

export function phases(file: string): Phases {
  const origin = Number(/(\d{13,})/.exec(path.basename(file))?.[1] ?? NaN) / 1000;
  if (!Number.isFinite(origin)) throw new Error(`${file}: the name does not start with the spawn time in µs`);
  const open = new Map<string, number>();
  const calls: Call[] = [];
  let start: number | undefined;
  let launch: number | undefined;
  let handshake: number | undefined;
  let last = 0;
  let launches = 0;
  let checkpoints = 0;
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    let entry: { time?: string; msg?: string };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      // The engine's goroutines sometimes write two entries on one line; such a line is left out.
      continue;
    }
    if (entry.time === undefined) continue;
    const at = Date.parse(entry.time) - origin;
    const message = entry.msg ?? "";
    last = Math.max(last, at);
    if (start === undefined && /\*\*\* Starting/.test(message)) start = at;
    if (message.includes("newPlugin(): Launching plugin") && message.includes("(resource)")) {
      launches += 1;
      launch = at;
      handshake = undefined;
    }
    if (handshake === undefined && launch !== undefined && /^Handshake|GetPluginInfo\(\) executing/.test(message)) {
      handshake = at;
    }
    if (message.includes("checkpoint to")) checkpoints += 1;
    const call = callPattern.exec(message);
    if (call) {
      const [, op, args, state] = call as unknown as [string, string, string, string];
      const urn = args.split(",").find((part) => part.startsWith("urn:")) ?? args;
      const name = urn.split("::").slice(-2).join("::");
      const key = `${op} ${name}`;
      if (state === "executing") open.set(key, at);
      else calls.push({ op, name, start: open.get(key) ?? at, end: at });
    }
  }
  calls.sort((x, y) => x.start - y.start);
  const first = calls[0]?.start ?? last;
  const lastEnd = Math.max(...calls.map((call) => call.end), first);
  const a = start ?? 0;
  return {
    file: path.basename(file),
    a,
    b: first - a,
    plugin: launch !== undefined && handshake !== undefined ? handshake - launch : NaN,
    c: lastEnd - first,
    busy: calls.reduce((sum, call) => sum + call.end - call.start, 0),
    d: last - lastEnd,
    total: last,
    launches,
    checkpoints,
    calls,
  };
}

function main(): void {
  const target = process.argv[2];
  if (!target) throw new Error("usage: node dist/bench/log-phases.js <file.log|dir> [--calls]");
  const files = fs.statSync(target).isDirectory()
    ? fs
        .readdirSync(target)
        .filter((name) => name.endsWith(".log"))
        .sort()
        .map((name) => path.join(target, name))
    : [target];
  const ms = (value: number): string => (Number.isFinite(value) ? value.toFixed(0) : "-").padStart(6);
  process.stdout.write("     A      B plugin      C   busy      D  total launches checkpoints  log\n");
  for (const file of files) {
    const p = phases(file);
    process.stdout.write(
      `${ms(p.a)} ${ms(p.b)} ${ms(p.plugin)} ${ms(p.c)} ${ms(p.busy)} ${ms(p.d)} ${ms(p.total)} ${String(p.launches).padStart(8)} ${String(p.checkpoints).padStart(11)}  ${p.file}\n`,
    );
    if (process.argv.includes("--calls")) {
      for (const call of p.calls) {
        process.stdout.write(`         ${ms(call.start)} +${ms(call.end - call.start)}  ${call.op} ${call.name}\n`);
      }
    }
  }
}

if (require.main === module) main();

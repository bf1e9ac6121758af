/**
 * Loaded into every test worker (vitest.config.ts `setupFiles`): when the worker ends — its file done, the run
 * interrupted (SIGINT, SIGTERM, SIGHUP), or its vitest gone — every process it started, and theirs, is killed. Tests start servers, the
 * Pulumi CLI, language hosts and plugins; Pulumi starts each plugin in a process group of its own
 * (pulumi/pulumi sdk/go/common/resource/plugin/plugin.go, `cmdutil.RegisterProcessGroup`), so killing a child's group
 * misses its plugins, and an interrupted run left a `dynamic-provider/index.js` whose parent was 1 (issue 38). The
 * process tree is read from `ps` (Linux and macOS), which also finds children in other groups while their parent
 * lives.
 */
import { spawnSync } from "node:child_process";

/** The processes below `root`, parents before children. */
export function descendants(root: number): { pid: number; command: string }[] {
  const listed = spawnSync("ps", ["-A", "-o", "pid=,ppid=,args="], { encoding: "utf8" });
  if (listed.status !== 0) return [];
  const children = new Map<number, { pid: number; command: string }[]>();
  for (const line of listed.stdout.split("\n")) {
    const match = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (!match) continue;
    const entry = { pid: Number(match[1]), command: match[3]! };
    const parent = Number(match[2]);
    children.set(parent, [...(children.get(parent) ?? []), entry]);
  }
  const found: { pid: number; command: string }[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (child.pid === process.pid) continue;
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/** Kills every process below this one; returns what was still running. */
export function reap(): { pid: number; command: string }[] {
  // `ps` itself is a child while it runs: it has exited by the time its list is read.
  const left = descendants(process.pid).filter((entry) => !/^ps -A -o /.test(entry.command));
  for (const { pid } of left) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  return left;
}

// Once per worker process, however many files it runs.
const installed = Symbol.for("cpln-pulumi.reap");
if (!(globalThis as Record<symbol, unknown>)[installed]) {
  (globalThis as Record<symbol, unknown>)[installed] = true;
  install();
}

function install(): void {
  process.once("exit", () => {
    const left = reap();
    if (left.length > 0) {
      process.stderr.write(
        `test worker ${process.pid} ended with ${left.length} process(es) still running, killed:\n` +
          left.map(({ pid, command }) => `  ${pid} ${command.slice(0, 160)}\n`).join(""),
      );
    }
  });

  // A forks worker talks to vitest over IPC. When vitest is gone without stopping it (interrupted by a signal sent to
  // it alone, or killed), the channel closes and nothing else tells the worker: it ran its file on to the end with
  // parent 1 (seen: a publicTypes worker still compiling user projects a minute after its vitest). Vitest ends a
  // worker by killing it, not by closing the channel first.
  if (process.connected) {
    process.once("disconnect", () => {
      reap();
      process.exit(129);
    });
  }

  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      reap();
      // As if the signal had ended the worker: 128 + its number.
      process.exit(128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as const)[signal]);
    });
  }
}

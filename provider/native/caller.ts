/**
 * Who may call the native plugin. The plugin listens on a TCP port of 127.0.0.1, which every local process can reach,
 * and Pulumi gives plugins no credential to check: the engine starts the plugin, reads the port from its first stdout
 * line and dials 127.0.0.1:<port> without credentials (pulumi/pulumi `sdk/go/common/resource/plugin/plugin.go`,
 * `newPlugin`, v3.274.1; its Handshake request carries addresses and directories, no secret). A Unix socket or a
 * per-run secret would need the engine's cooperation, which it does not offer. What the plugin can check is the
 * caller itself: on Linux the kernel tells who holds the other end of a loopback connection.
 *
 * The rule: a call is served when the connection's client socket belongs to an ancestor of the plugin process, as
 * recorded when the plugin started: the engine, which starts an executable plugin itself (`exec.Command` in the same
 * `newPlugin`), or, for a source-based plugin, the engine above the language host that runs it (`RunPlugin`). The
 * process group is no guide: the engine gives every plugin its own (`cmdutil.RegisterProcessGroup`, `Setpgid`).
 * Ancestors are the processes that could already inspect the plugin (ptrace is allowed to ancestors even under
 * Yama's `ptrace_scope = 1`), so trusting them adds nothing; every other process — another user's, or an unrelated
 * one of the same user — gets PERMISSION_DENIED before the provider sees the call. The lookup: the peer's port → its
 * row of /proc/net/tcp (uid, inode) → an ancestor whose /proc/<pid>/fd holds `socket:[inode]`, the ancestor's start
 * time checked so a reused pid does not pass. Reading /proc/net/tcp walks every socket of the host (25 ms on the
 * machine this was measured on), so a verdict is kept per peer port for `VERDICT_TTL_MS` and the table is read again
 * only after that (concurrent checks share one read): the engine keeps one connection per plugin, so a run pays about
 * one read per second. The price is a window of that length after a connection closes in which a new connection from
 * the same port would inherit its verdict (docs/security.md).
 *
 * Where /proc/net/tcp does not exist (macOS, Windows) the check is not available: the plugin says so once on stderr
 * and serves as before (docs/security.md).
 */
import { readFileSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as grpc from "@grpc/grpc-js";

/** A verdict on one call: served, or refused with the reason (sent to the caller as PERMISSION_DENIED). */
export type Verdict = { allowed: true } | { allowed: false; reason: string };

export interface CallerCheckOptions {
  /** The port the plugin serves on (the client socket's remote port); known once the server is bound. */
  port: () => number;
  /** The first process allowed to call, with its ancestors (default: this process's parent). */
  parentPid?: number;
  /** Root of the proc file system (tests point it elsewhere); default `/proc`. */
  procRoot?: string;
  /** Called once when the check is unavailable on this system. */
  warn?: (message: string) => void;
}

/** `127.0.0.1:5000`, `ipv4:127.0.0.1:5000`, `[::ffff:127.0.0.1]:5000` → 5000. */
export function peerPort(peer: string): number | undefined {
  const match = /:(\d+)$/.exec(peer);
  return match ? Number(match[1]) : undefined;
}

const LOOPBACK_HEX = "0100007F";
const hexPort = (port: number) => port.toString(16).toUpperCase().padStart(4, "0");

/** The (uid, inode) of the ESTABLISHED loopback socket from `clientPort` to `serverPort`, read from /proc/net/tcp. */
export function findClientSocket(
  table: string,
  clientPort: number,
  serverPort: number,
): { uid: number; inode: string } | undefined {
  const local = `${LOOPBACK_HEX}:${hexPort(clientPort)}`;
  const remote = `${LOOPBACK_HEX}:${hexPort(serverPort)}`;
  // Only the rows holding the connection are split: the kernel writes local, remote and state one space apart
  // (`get_tcp4_sock` in net/ipv4/tcp_ipv4.c), and a host's table can hold thousands of rows.
  const needle = ` ${local} ${remote} 01 `;
  for (let at = table.indexOf(needle); at !== -1; at = table.indexOf(needle, at + 1)) {
    const start = table.lastIndexOf("\n", at) + 1;
    const end = table.indexOf("\n", at);
    const fields = table
      .slice(start, end === -1 ? undefined : end)
      .trim()
      .split(/\s+/);
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
    if (start > 0 && fields[1] === local && fields[2] === remote && fields[3] === "01") {
      return { uid: Number(fields[7]), inode: fields[9] ?? "" };
    }
  }
  return undefined;
}

/**
 * The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses): index 0 is the state,
 * 1 the parent pid, 2 the process group, 19 the start time.
 */
export function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** How long a verdict on a peer port stands before /proc/net/tcp is read again. */
export const VERDICT_TTL_MS = 1000;

/** A process as first seen: pid and start time (a later process reusing the pid has another start time). */
interface Ancestor {
  pid: string;
  start: string;
}

export class CallerCheck {
  private readonly procRoot: string;
  private readonly verdicts = new Map<number, { inode: string; verdict: Verdict; at: number }>();
  private table: Promise<string> | undefined;
  private readonly ancestors: Ancestor[] = [];
  private available: boolean | undefined;

  constructor(private readonly options: CallerCheckOptions) {
    this.procRoot = options.procRoot ?? "/proc";
    this.ancestors = this.ancestorsAtStart(options.parentPid ?? process.ppid);
  }

  /** The parent, its parent, … up to (not including) pid 1, each with its start time; read once, at start. */
  private ancestorsAtStart(parent: number): Ancestor[] {
    const chain: Ancestor[] = [];
    let pid = parent;
    while (pid > 1 && chain.length < 64) {
      let fields: string[];
      try {
        fields = statFields(readFileSync(`${this.procRoot}/${pid}/stat`, "utf8"));
      } catch {
        break;
      }
      chain.push({ pid: String(pid), start: fields[19] ?? "" });
      pid = Number(fields[1]);
    }
    return chain;
  }

  private async stillRunning(ancestor: Ancestor): Promise<boolean> {
    try {
      return statFields(await fs.readFile(`${this.procRoot}/${ancestor.pid}/stat`, "utf8"))[19] === ancestor.start;
    } catch {
      return false;
    }
  }

  private async holdsSocket(pid: string, inode: string): Promise<boolean> {
    const dir = `${this.procRoot}/${pid}/fd`;
    let fds: string[];
    try {
      fds = await fs.readdir(dir);
    } catch {
      return false;
    }
    const target = `socket:[${inode}]`;
    for (const fd of fds) {
      try {
        if ((await fs.readlink(`${dir}/${fd}`)) === target) return true;
      } catch {
        // The descriptor closed while we looked.
      }
    }
    return false;
  }

  /**
   * The verdict `check` would give at once, without a read: when the check is unavailable, or a verdict on this peer
   * port still stands; undefined when `check` has to look.
   */
  known(peer: string): Verdict | undefined {
    if (this.available === false) return { allowed: true };
    if (this.available === undefined) return undefined;
    const clientPort = peerPort(peer);
    const cached = clientPort === undefined ? undefined : this.verdicts.get(clientPort);
    return cached && Date.now() - cached.at < VERDICT_TTL_MS ? cached.verdict : undefined;
  }

  /** The verdict on a call from `peer` (grpc's `call.getPeer()`). */
  async check(peer: string): Promise<Verdict> {
    if (this.available === undefined) {
      this.available = await fs.access(`${this.procRoot}/net/tcp`).then(
        () => true,
        () => false,
      );
      if (!this.available) {
        this.options.warn?.(
          "cannot check who calls this plugin on this system (no /proc/net/tcp): any local process can call it",
        );
      }
    }
    if (!this.available) return { allowed: true };
    const clientPort = peerPort(peer);
    if (clientPort === undefined) return { allowed: false, reason: `unknown peer ${peer}` };
    const cached = this.verdicts.get(clientPort);
    if (cached && Date.now() - cached.at < VERDICT_TTL_MS) return cached.verdict;
    // One read of the table for every check waiting at the same moment.
    this.table ??= fs.readFile(`${this.procRoot}/net/tcp`, "utf8").finally(() => (this.table = undefined));
    const port = this.options.port();
    // A shared read may have started before this connection existed: one fresh read before a refusal.
    const socket =
      findClientSocket(await this.table, clientPort, port) ??
      findClientSocket(await fs.readFile(`${this.procRoot}/net/tcp`, "utf8"), clientPort, port);
    if (!socket) return { allowed: false, reason: `no loopback connection from port ${clientPort}` };
    if (cached && cached.inode === socket.inode) {
      cached.at = Date.now();
      return cached.verdict;
    }
    let verdict: Verdict = { allowed: false, reason: "the caller is not the engine that started this plugin" };
    if (socket.uid !== process.getuid?.()) {
      verdict = { allowed: false, reason: "the caller runs as another user" };
    } else {
      for (const ancestor of this.ancestors) {
        if ((await this.holdsSocket(ancestor.pid, socket.inode)) && (await this.stillRunning(ancestor))) {
          verdict = { allowed: true };
          break;
        }
      }
    }
    if (this.verdicts.size > 1000) this.verdicts.clear();
    this.verdicts.set(clientPort, { inode: socket.inode, verdict, at: Date.now() });
    return verdict;
  }
}

type Handler = (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => void;

/**
 * The service with every unary handler behind `check`: a refused call answers PERMISSION_DENIED and never reaches
 * the provider.
 */
export function guardService<S extends object>(service: S, check: CallerCheck): S {
  const guarded: Record<string, Handler> = {};
  for (const [name, handler] of Object.entries(service) as [string, Handler][]) {
    const decide = (
      verdict: Verdict,
      call: grpc.ServerUnaryCall<unknown, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ) => {
      if (verdict.allowed) handler(call, callback);
      else {
        const message = `refused: ${verdict.reason} (pulumi-resource-cpln-native serves only its engine)`;
        callback({ code: grpc.status.PERMISSION_DENIED, details: message, message, name: "Error" }, null);
      }
    };
    guarded[name] = (call, callback) => {
      // A verdict that still stands is applied at once (no promise per call); otherwise the check looks.
      const known = check.known(call.getPeer());
      if (known !== undefined) {
        decide(known, call, callback);
        return;
      }
      check.check(call.getPeer()).then(
        (verdict) => decide(verdict, call, callback),
        (error: unknown) => {
          const message = `refused: the caller could not be checked (${String(error)})`;
          callback({ code: grpc.status.PERMISSION_DENIED, details: message, message, name: "Error" }, null);
        },
      );
    };
  }
  return guarded as S;
}

/**
 * Who may call the native plugin. The plugin listens on a TCP port of 127.0.0.1, which every local process can reach,
 * and Pulumi gives plugins no credential to check: the engine starts `pulumi-resource-<name> <engine address>`, reads
 * the port from the first stdout line and connects without any token (pulumi/pulumi `sdk/go/common/resource/plugin/
 * plugin.go`, `newPlugin`: the port is the only handshake; nodejs `@pulumi/pulumi/provider/server.ts`, `main`, binds
 * an insecure server on 127.0.0.1). A Unix socket or a per-run secret would need the engine's cooperation, which it
 * does not offer. What the plugin can check is the caller itself: on Linux the kernel tells who holds the other end
 * of a loopback connection.
 *
 * The rule: a call is served when the connection's client socket belongs to the plugin's parent process (the engine,
 * which starts an executable plugin itself) or to a process of the parent's process group (a source-based plugin is
 * started by the language host, a child of the engine in the engine's group). Everything else — another user's
 * process, an unrelated process of the same user in another process group — gets PERMISSION_DENIED. The lookup:
 * the peer's port → its row of /proc/net/tcp (uid, inode) → the process whose /proc/<pid>/fd holds `socket:[inode]`.
 * Verdicts are cached per (peer port, socket inode), so the scan runs once per connection.
 *
 * Where /proc/net/tcp does not exist (macOS, Windows) the check is not available: the plugin says so once on stderr
 * and serves as before (docs/security.md).
 */
import * as fs from "node:fs/promises";
import * as grpc from "@grpc/grpc-js";

/** A verdict on one call: served, or refused with the reason (sent to the caller as PERMISSION_DENIED). */
export type Verdict = { allowed: true } | { allowed: false; reason: string };

export interface CallerCheckOptions {
  /** The port the plugin serves on (the client socket's remote port); known once the server is bound. */
  port: () => number;
  /** The process allowed to call, with its process group (default: this process's parent). */
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
  for (const line of table.split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
    if (fields[1] === local && fields[2] === remote && fields[3] === "01") {
      return { uid: Number(fields[7]), inode: fields[9] ?? "" };
    }
  }
  return undefined;
}

/** Field 5 of /proc/<pid>/stat (the process group); the command name in field 2 may hold spaces and parentheses. */
export function processGroupOf(stat: string): number | undefined {
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const pgrp = Number(rest[2]);
  return Number.isInteger(pgrp) ? pgrp : undefined;
}

export class CallerCheck {
  private readonly procRoot: string;
  private readonly parentPid: number;
  private readonly verdicts = new Map<string, Verdict>();
  private available: boolean | undefined;

  constructor(private readonly options: CallerCheckOptions) {
    this.procRoot = options.procRoot ?? "/proc";
    this.parentPid = options.parentPid ?? process.ppid;
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

  private async groupOf(pid: string): Promise<number | undefined> {
    try {
      return processGroupOf(await fs.readFile(`${this.procRoot}/${pid}/stat`, "utf8"));
    } catch {
      return undefined;
    }
  }

  /** Whether a process of `group` (other than the parent, already checked) holds the socket. */
  private async groupHolds(group: number, inode: string): Promise<boolean> {
    const pids = (await fs.readdir(this.procRoot)).filter((name) => /^\d+$/.test(name));
    for (const pid of pids) {
      if (pid === String(this.parentPid) || pid === String(process.pid)) continue;
      if ((await this.groupOf(pid)) === group && (await this.holdsSocket(pid, inode))) return true;
    }
    return false;
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
    const socket = findClientSocket(
      await fs.readFile(`${this.procRoot}/net/tcp`, "utf8"),
      clientPort,
      this.options.port(),
    );
    if (!socket) return { allowed: false, reason: `no loopback connection from port ${clientPort}` };
    const key = `${clientPort}/${socket.inode}`;
    const cached = this.verdicts.get(key);
    if (cached) return cached;
    let verdict: Verdict;
    if (socket.uid !== process.getuid?.()) {
      verdict = { allowed: false, reason: "the caller runs as another user" };
    } else if (await this.holdsSocket(String(this.parentPid), socket.inode)) {
      verdict = { allowed: true };
    } else {
      const group = await this.groupOf(String(this.parentPid));
      verdict =
        group !== undefined && (await this.groupHolds(group, socket.inode))
          ? { allowed: true }
          : { allowed: false, reason: "the caller is not the engine that started this plugin" };
    }
    if (this.verdicts.size > 1000) this.verdicts.clear();
    this.verdicts.set(key, verdict);
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
    guarded[name] = (call, callback) => {
      check.check(call.getPeer()).then(
        (verdict) => {
          if (verdict.allowed) handler(call, callback);
          else {
            const message = `refused: ${verdict.reason} (pulumi-resource-cpln-native serves only its engine)`;
            callback({ code: grpc.status.PERMISSION_DENIED, details: message, message, name: "Error" }, null);
          }
        },
        (error: unknown) => {
          const message = `refused: the caller could not be checked (${String(error)})`;
          callback({ code: grpc.status.PERMISSION_DENIED, details: message, message, name: "Error" }, null);
        },
      );
    };
  }
  return guarded as S;
}

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
 * one of the same user — gets PERMISSION_DENIED before the provider sees the call. The lookup: the peer's address AND
 * port → its row of /proc/net/tcp (or tcp6) (uid, inode) → an ancestor whose /proc/<pid>/fd holds `socket:[inode]`,
 * the ancestor's start time checked so a reused pid does not pass. The address counts: every 127.x address is local
 * on Linux, so another process can bind 127.0.0.2:P beside the engine's 127.0.0.1:P and connect; a lookup by port
 * alone found the engine's row and served it (issue 39). Reading /proc/net/tcp walks every socket of the host (25 ms
 * on the machine this was measured on), so a verdict is kept per peer (address and port) for `VERDICT_TTL_MS` and the
 * table is read again only after that (concurrent checks share one read): the engine keeps one connection per plugin,
 * so a run pays about one read per second. The price is a window of that length after a connection closes in which a
 * new connection from the same address and port would inherit its verdict (docs/security.md).
 *
 * Where /proc/net/tcp does not exist (macOS, Windows) the check is not available: the plugin says so once on stderr
 * and serves as before (docs/security.md).
 */
import { readFileSync } from "node:fs";
import * as fs from "node:fs/promises";
import { isIPv4, isIPv6 } from "node:net";
import { endianness } from "node:os";
import * as grpc from "@grpc/grpc-js";

/** A verdict on one call: served, or refused with the reason (sent to the caller as PERMISSION_DENIED). */
export type Verdict = { allowed: true } | { allowed: false; reason: string };

export interface CallerCheckOptions {
  /** The port the plugin serves on (the client socket's remote port); known once the server is bound. */
  port: () => number;
  /** The first process allowed to call, with its ancestors (default: this process's parent). */
  parentPid?: number;
  /** The address the plugin serves on (the client socket's remote address); default 127.0.0.1. */
  host?: string;
  /** Root of the proc file system (tests point it elsewhere); default `/proc`. */
  procRoot?: string;
  /** Called once when the check is unavailable on this system. */
  warn?: (message: string) => void;
}

/** A peer as grpc names it (`127.0.0.1:5000`, `ipv4:127.0.0.1:5000`, `[::1]:5000`, `::ffff:127.0.0.2:5000`). */
export interface PeerAddress {
  /** The address as the kernel's socket tables print it (`0100007F` for 127.0.0.1 on a little-endian host). */
  hex: string;
  /** Which table holds the connection: `tcp` (IPv4) or `tcp6` (IPv6, IPv4-mapped included). */
  table: "tcp" | "tcp6";
  port: number;
}

/** `127.0.0.1:5000`, `ipv4:127.0.0.1:5000`, `[::ffff:127.0.0.1]:5000` → 5000. */
export function peerPort(peer: string): number | undefined {
  const match = /:(\d+)$/.exec(peer);
  return match ? Number(match[1]) : undefined;
}

/** The 4 bytes of a dotted IPv4 address, or undefined. */
function ipv4Bytes(text: string): number[] | undefined {
  if (!isIPv4(text)) return undefined;
  return text.split(".").map(Number);
}

/** The 16 bytes of an IPv6 address (`::` and a dotted IPv4 tail allowed), or undefined. */
function ipv6Bytes(text: string): number[] | undefined {
  if (!isIPv6(text)) return undefined;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  const tail = dotted ? (ipv4Bytes(dotted[1] ?? "") ?? []) : [];
  const body = dotted ? text.slice(0, -(dotted[1] ?? "").length).replace(/:$/, ":0:0") : text;
  const groupsOf = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  const [head = "", rest] = body.split("::");
  const left = groupsOf(head);
  const right = rest === undefined ? [] : groupsOf(rest);
  const groups = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = groups.flatMap((g) => [g >> 8, g & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes.length === 16 ? bytes : undefined;
}

/**
 * How /proc/net/tcp{,6} print an address: each 32-bit word of the network-order address as the host reads it, `%08X`
 * (`get_tcp4_sock` / `get_tcp6_sock`), so on a little-endian host each group of four bytes is reversed.
 */
function tableHex(bytes: number[], littleEndian: boolean): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 4) {
    const word = bytes.slice(i, i + 4);
    if (littleEndian) word.reverse();
    out += word.map((b) => b.toString(16).toUpperCase().padStart(2, "0")).join("");
  }
  return out;
}

/** A peer's address and port as the socket table names them; undefined for anything but a TCP/IP peer. */
export function peerAddress(peer: string, littleEndian = endianness() === "LE"): PeerAddress | undefined {
  const match = /^(?:ipv[46]:)?\[?([^\]]*?)\]?:(\d+)$/.exec(peer);
  if (!match) return undefined;
  const host = match[1] ?? "";
  const port = Number(match[2]);
  if (port < 1 || port > 0xffff) return undefined;
  const v4 = ipv4Bytes(host);
  if (v4) return { hex: tableHex(v4, littleEndian), table: "tcp", port };
  const v6 = ipv6Bytes(host);
  return v6 ? { hex: tableHex(v6, littleEndian), table: "tcp6", port } : undefined;
}

/** The server's own address in the family of `peer`'s table (an IPv4 server seen from tcp6 is IPv4-mapped). */
export function serverAddress(host: string, table: "tcp" | "tcp6", littleEndian = endianness() === "LE"): string {
  const v4 = ipv4Bytes(host);
  if (table === "tcp") return v4 ? tableHex(v4, littleEndian) : "";
  const bytes = v4 ? [...Array<number>(10).fill(0), 0xff, 0xff, ...v4] : ipv6Bytes(host);
  return bytes ? tableHex(bytes, littleEndian) : "";
}

const hexPort = (port: number) => port.toString(16).toUpperCase().padStart(4, "0");

/**
 * The (uid, inode) of the ESTABLISHED socket whose local end is exactly `client` (address and port: another loopback
 * address with the same port is another socket) and whose remote end is `server`, read from /proc/net/tcp{,6}.
 * Addresses are in the table's form (`peerAddress`, `serverAddress`).
 */
export function findClientSocket(
  table: string,
  client: { hex: string; port: number },
  server: { hex: string; port: number },
): { uid: number; inode: string } | undefined {
  if (client.hex === "" || server.hex === "") return undefined;
  const local = `${client.hex}:${hexPort(client.port)}`;
  const remote = `${server.hex}:${hexPort(server.port)}`;
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
  private readonly host: string;
  /** Verdicts by peer text (`127.0.0.1:41234`): the address and the port. */
  private readonly verdicts = new Map<string, { inode: string; verdict: Verdict; at: number }>();
  private readonly tables = new Map<"tcp" | "tcp6", Promise<string>>();
  private readonly ancestors: Ancestor[] = [];
  private available: boolean | undefined;

  constructor(private readonly options: CallerCheckOptions) {
    this.procRoot = options.procRoot ?? "/proc";
    this.host = options.host ?? "127.0.0.1";
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
   * (address and port) still stands; undefined when `check` has to look.
   */
  known(peer: string): Verdict | undefined {
    if (this.available === false) return { allowed: true };
    if (this.available === undefined) return undefined;
    const cached = this.verdicts.get(peer);
    return cached && Date.now() - cached.at < VERDICT_TTL_MS ? cached.verdict : undefined;
  }

  /** The table's text; one read for every check waiting on the same table at the same moment. */
  private readTable(name: "tcp" | "tcp6"): Promise<string> {
    let read = this.tables.get(name);
    if (!read) {
      read = fs.readFile(`${this.procRoot}/net/${name}`, "utf8").finally(() => this.tables.delete(name));
      this.tables.set(name, read);
    }
    return read;
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
    const client = peerAddress(peer);
    if (!client) return { allowed: false, reason: `unknown peer ${peer}` };
    // Verdicts are kept per peer text, which names the address and the port: 127.0.0.2:P is not 127.0.0.1:P.
    const cached = this.verdicts.get(peer);
    if (cached && Date.now() - cached.at < VERDICT_TTL_MS) return cached.verdict;
    const server = { hex: serverAddress(this.host, client.table), port: this.options.port() };
    // A shared read may have started before this connection existed: one fresh read before a refusal.
    const socket =
      findClientSocket(await this.readTable(client.table), client, server) ??
      findClientSocket(
        await fs.readFile(`${this.procRoot}/net/${client.table}`, "utf8").catch(() => ""),
        client,
        server,
      );
    if (!socket) return { allowed: false, reason: `no loopback connection from ${peer}` };
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
    this.verdicts.set(peer, { inode: socket.inode, verdict, at: Date.now() });
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

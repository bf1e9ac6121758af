// The caller check matches the peer's whole address, not its port alone (issue 39 item 1). Every 127.x address is
// local on Linux, so a process can bind 127.0.0.2:P, where P is the engine's client port (read from the
// world-readable /proc/net/tcp), and connect to the plugin: a check by port found the engine's row 127.0.0.1:P and
// served the spoofed call. Needs `npm run build` and Linux.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import { endianness } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CallerCheck, findClientSocket, peerAddress, serverAddress } from "../../provider/native/caller.js";
import {
  executable,
  nativeClient,
  repoRoot,
  scratchDir,
  secret,
  serverModule,
  takeRequests,
  urnFor,
  type NativePluginClient,
  type RunningServer,
} from "./support.js";

const GROUP = "cpln-native:index:Group";
const PERMISSION_DENIED = 7;
let server: RunningServer;
let plugin: NativePluginClient;

beforeAll(async () => {
  server = await serverModule.startServer({ recordRequests: true });
  plugin = await nativeClient.NativePluginClient.executable(executable, { cwd: scratchDir() });
  await plugin.configure({ org: server.org, endpoint: server.url, token: secret(server.adminKey) });
});
afterAll(async () => {
  await plugin?.stop();
  await server?.close();
});

/** The local ports of this process's established connections to 127.0.0.1:`port` (the engine's client ports). */
function enginePorts(port: number): number[] {
  const remote = `0100007F:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  const mine = new Set(
    fs.readdirSync("/proc/self/fd").map((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return "";
      }
    }),
  );
  return fs
    .readFileSync("/proc/net/tcp", "utf8")
    .split("\n")
    .map((row) => row.trim().split(/\s+/))
    .filter((f) => f[2] === remote && f[3] === "01" && f[1]?.startsWith("0100007F:") && mine.has(`socket:[${f[9]}]`))
    .map((f) => parseInt(f[1]?.split(":")[1] ?? "", 16));
}

/**
 * Another process (its own process group) binds `localAddress:localPort`, connects to the plugin and sends
 * GetPluginInfo and Create (a group) as raw gRPC over HTTP/2. Returns each call's grpc-status (0 = served).
 */
async function spoof(localAddress: string, localPort: number): Promise<Record<string, number>> {
  const dir = scratchDir();
  const script = path.join(dir, "spoof.cjs");
  const resolve = (id: string) => JSON.stringify(require.resolve(id, { paths: [repoRoot] }));
  fs.writeFileSync(
    script,
    `const http2 = require("node:http2");
const net = require("node:net");
const pb = require(${resolve("@pulumi/pulumi/proto/provider_pb")});
const { Struct } = require(${resolve("google-protobuf/google/protobuf/struct_pb")});
const session = http2.connect("http://127.0.0.1:${plugin.port}", {
  createConnection: () =>
    net.connect({ host: "127.0.0.1", port: ${plugin.port}, localAddress: ${JSON.stringify(localAddress)}, localPort: ${localPort} }),
});
session.on("error", (e) => { process.stderr.write(String(e)); process.exit(2); });
const call = (method, message) => new Promise((done) => {
  const body = Buffer.alloc(5 + message.length);
  body.writeUInt32BE(message.length, 1);
  Buffer.from(message).copy(body, 5);
  const stream = session.request({ ":method": "POST", ":path": "/pulumirpc.ResourceProvider/" + method,
    "content-type": "application/grpc", te: "trailers" });
  let status = -1;
  stream.on("response", (h) => { if (h["grpc-status"] !== undefined) status = Number(h["grpc-status"]); });
  stream.on("trailers", (h) => { status = Number(h["grpc-status"]); });
  stream.on("data", () => {});
  stream.on("close", () => done(status));
  stream.end(body);
});
(async () => {
  const create = new pb.CreateRequest();
  create.setUrn(${JSON.stringify(urnFor(GROUP, "spoofed"))});
  create.setProperties(Struct.fromJavaScript({ name: "planted-from-127-0-0-2", org: ${JSON.stringify(server.org)} }));
  const result = {
    getPluginInfo: await call("GetPluginInfo", new Uint8Array()),
    create: await call("Create", create.serializeBinary()),
  };
  process.stdout.write(JSON.stringify(result));
  session.close();
})();
`,
  );
  const child = spawn(process.execPath, [script], { detached: true, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  const code = await new Promise<number | null>((done) => child.on("close", (exit) => done(exit)));
  fs.rmSync(dir, { recursive: true, force: true });
  expect(code).toBe(0);
  return JSON.parse(out) as Record<string, number>;
}

describe("a caller on another loopback address with the engine's port", () => {
  it("127.0.0.2:<engine's client port> is refused every call, nothing reaches cpln-local; the engine is served", async () => {
    // The engine's connection is up and its verdict fresh (a verdict kept by port alone would be reused).
    expect(await plugin.getPluginInfo()).toMatch(/^\d+\.\d+\.\d+/);
    const ports = enginePorts(plugin.port);
    expect(ports.length).toBeGreaterThan(0);
    takeRequests(server);
    for (const port of ports) {
      expect(await spoof("127.0.0.2", port)).toEqual({ getPluginInfo: PERMISSION_DENIED, create: PERMISSION_DENIED });
    }
    expect(takeRequests(server)).toEqual([]);
    const lookup = await server.app.inject({
      url: `/org/${server.org}/group/planted-from-127-0-0-2`,
      headers: { authorization: `Bearer ${server.adminKey}` },
    });
    expect(lookup.statusCode).toBe(404);
    const created = await plugin.create(urnFor(GROUP, "engine"), { name: "still-served", org: server.org });
    expect(created.id).toBe(`/org/${server.org}/group/still-served`);
  });
});

describe("the lookup by address and port", () => {
  const row = (sl: number, local: string, remote: string, uid: number, inode: string) =>
    `${String(sl).padStart(4)}: ${local} ${remote} 01 00000000:00000000 00:00000000 00000000 ${String(uid).padStart(5)}        0 ${inode} 1 0`;
  const header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode";

  it("names IPv4, IPv6 and IPv4-mapped peers as the kernel's tables print them, on either byte order", () => {
    expect(peerAddress("127.0.0.1:41394", true)).toEqual({ hex: "0100007F", table: "tcp", port: 41394 });
    expect(peerAddress("ipv4:127.0.0.2:41394", true)).toEqual({ hex: "0200007F", table: "tcp", port: 41394 });
    expect(peerAddress("127.0.0.2:41394", false)).toEqual({ hex: "7F000002", table: "tcp", port: 41394 });
    expect(peerAddress("[::1]:5000", true)).toEqual({
      hex: "00000000000000000000000001000000",
      table: "tcp6",
      port: 5000,
    });
    expect(peerAddress("::1:5000", true)).toEqual({
      hex: "00000000000000000000000001000000",
      table: "tcp6",
      port: 5000,
    });
    expect(peerAddress("::ffff:127.0.0.2:5000", true)).toEqual({
      hex: "0000000000000000FFFF00000200007F",
      table: "tcp6",
      port: 5000,
    });
    expect(peerAddress("[fe80::1:2]:7", false)?.hex).toBe("FE800000000000000000000000010002");
    expect(peerAddress("unix:/tmp/x")).toBeUndefined();
    expect(peerAddress("unknown")).toBeUndefined();
    expect(serverAddress("127.0.0.1", "tcp", true)).toBe("0100007F");
    expect(serverAddress("127.0.0.1", "tcp6", true)).toBe("0000000000000000FFFF00000100007F");
  });

  it("finds the row of the peer's exact address: 127.0.0.2:P is not the engine's 127.0.0.1:P (IPv4 and IPv6)", () => {
    const server4 = { hex: "0100007F", port: 0x1f90 };
    const tcp = [
      header,
      row(0, "0100007F:A1B2", "0100007F:1F90", 1000, "424242"),
      row(1, "0200007F:A1B2", "0100007F:1F90", 1000, "999"),
    ].join("\n");
    expect(findClientSocket(tcp, { hex: "0100007F", port: 0xa1b2 }, server4)).toEqual({ uid: 1000, inode: "424242" });
    expect(findClientSocket(tcp, { hex: "0200007F", port: 0xa1b2 }, server4)).toEqual({ uid: 1000, inode: "999" });
    expect(findClientSocket(tcp, { hex: "0300007F", port: 0xa1b2 }, server4)).toBeUndefined();
    const mapped = (last: string) => `0000000000000000FFFF0000${last}`;
    const tcp6 = [
      header,
      row(0, `${mapped("0100007F")}:A1B2`, `${mapped("0100007F")}:1F90`, 1000, "5151"),
      row(1, `${mapped("0200007F")}:A1B2`, `${mapped("0100007F")}:1F90`, 1000, "6161"),
    ].join("\n");
    const server6 = { hex: mapped("0100007F"), port: 0x1f90 };
    expect(findClientSocket(tcp6, { hex: mapped("0200007F"), port: 0xa1b2 }, server6)?.inode).toBe("6161");
    expect(findClientSocket(tcp6, { hex: mapped("0100007F"), port: 0xa1b2 }, server6)?.inode).toBe("5151");
  });

  it("serves the ancestor's socket and refuses the spoof on the same port, before and after a verdict is kept", async () => {
    // A proc tree: ancestor 4242 holds socket 424242 (127.0.0.1:0xA1B2 → the plugin); 127.0.0.2:0xA1B2 is another's.
    const procRoot = fs.mkdtempSync(path.join(scratchDir(), "proc-"));
    const uid = process.getuid?.() ?? 0;
    fs.mkdirSync(path.join(procRoot, "net"));
    fs.mkdirSync(path.join(procRoot, "4242", "fd"), { recursive: true });
    fs.writeFileSync(
      path.join(procRoot, "4242", "stat"),
      "4242 (engine) S 1 4242 4242 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 777 1 2",
    );
    fs.symlinkSync("socket:[424242]", path.join(procRoot, "4242", "fd", "3"));
    const table = [
      header,
      row(0, "0100007F:A1B2", "0100007F:1F90", uid, "424242"),
      row(1, "0200007F:A1B2", "0100007F:1F90", uid, "999"),
    ].join("\n");
    // The table as this host's byte order prints it (the rows above are little-endian).
    const le = endianness() === "LE";
    fs.writeFileSync(path.join(procRoot, "net", "tcp"), le ? table : table.replace(/0([12])00007F/g, "7F00000$1"));
    const engine = `127.0.0.1:${0xa1b2}`;
    const spoofed = `127.0.0.2:${0xa1b2}`;
    const refused = { allowed: false, reason: "the caller is not the engine that started this plugin" };
    // The spoof first: the table is read for its own row.
    const fresh = new CallerCheck({ port: () => 0x1f90, parentPid: 4242, procRoot });
    expect(await fresh.check(spoofed)).toEqual(refused);
    expect(await fresh.check(engine)).toEqual({ allowed: true });
    // The engine first: its verdict is kept for its address and port only, so the spoof on the same port is looked up.
    const warm = new CallerCheck({ port: () => 0x1f90, parentPid: 4242, procRoot });
    expect(await warm.check(engine)).toEqual({ allowed: true });
    expect(warm.known(engine)).toEqual({ allowed: true });
    expect(warm.known(spoofed)).toBeUndefined();
    expect(await warm.check(spoofed)).toEqual(refused);
    expect(await warm.check(`127.0.0.3:${0xa1b2}`)).toEqual({
      allowed: false,
      reason: `no loopback connection from 127.0.0.3:${0xa1b2}`,
    });
  });
});

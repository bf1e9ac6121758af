// The native plugin serves only the engine that started it (issue 18 item 8): a call from another process (another
// process group) is refused with PERMISSION_DENIED before it reaches the provider; a second Configure is refused; after
// Configure the plugin never falls back to the environment (CPLN_TOKEN cannot be sent to an endpoint a later caller
// names). The plugin is spawned as the engine spawns it (this test process is its parent). Needs `npm run build`.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CallerCheck, findClientSocket, peerPort, statFields, VERDICT_TTL_MS } from "../../provider/native/caller.js";
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

/**
 * Runs a gRPC client in a separate Node.js process against the plugin's port: GetPluginInfo, Configure (pointing at
 * `endpoint`) and Create of a group. `detached`: the process gets its own process group (an unrelated process).
 * Returns each call's gRPC status code (0 = served).
 */
async function otherProcess(port: number, detached: boolean, endpoint: string): Promise<Record<string, number>> {
  const dir = scratchDir();
  const script = path.join(dir, "caller.cjs");
  const resolve = (id: string) => JSON.stringify(require.resolve(id, { paths: [repoRoot] }));
  fs.writeFileSync(
    script,
    `const grpc = require(${resolve("@grpc/grpc-js")});
const { ResourceProviderClient } = require(${resolve("@pulumi/pulumi/proto/provider_grpc_pb")});
const pb = require(${resolve("@pulumi/pulumi/proto/provider_pb")});
const { Empty } = require(${resolve("google-protobuf/google/protobuf/empty_pb")});
const { Struct } = require(${resolve("google-protobuf/google/protobuf/struct_pb")});
const client = new ResourceProviderClient("127.0.0.1:${port}", grpc.credentials.createInsecure());
const status = (method, request) =>
  new Promise((done) => client[method](request, (error) => done(error ? error.code : 0)));
(async () => {
  const configure = new pb.ConfigureRequest();
  configure.setArgs(Struct.fromJavaScript({ endpoint: ${JSON.stringify(endpoint)} }));
  const create = new pb.CreateRequest();
  create.setUrn(${JSON.stringify(urnFor(GROUP, "planted"))});
  create.setProperties(Struct.fromJavaScript({ name: "planted-by-another-process", org: ${JSON.stringify(server.org)} }));
  const result = {
    getPluginInfo: await status("getPluginInfo", new Empty()),
    configure: await status("configure", configure),
    create: await status("create", create),
  };
  process.stdout.write(JSON.stringify(result));
  client.close();
})();
`,
  );
  const child = spawn(process.execPath, [script], { detached, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  const code = await new Promise<number | null>((done) => child.on("close", (exit) => done(exit)));
  fs.rmSync(dir, { recursive: true, force: true });
  expect(code).toBe(0);
  return JSON.parse(out) as Record<string, number>;
}

const PERMISSION_DENIED = 7;
const FAILED_PRECONDITION = 9;

describe("callers", () => {
  it("a process in another process group is refused every call; nothing reaches cpln-local; the engine is served", async () => {
    takeRequests(server);
    expect(await otherProcess(plugin.port, true, "http://127.0.0.1:9")).toEqual({
      getPluginInfo: PERMISSION_DENIED,
      configure: PERMISSION_DENIED,
      create: PERMISSION_DENIED,
    });
    expect(takeRequests(server)).toEqual([]);
    const lookup = await server.app.inject({
      url: `/org/${server.org}/group/planted-by-another-process`,
      headers: { authorization: `Bearer ${server.adminKey}` },
    });
    expect(lookup.statusCode).toBe(404);
    const created = await plugin.create(urnFor(GROUP, "mine"), { name: "made-by-the-engine", org: server.org });
    expect(created.id).toBe(`/org/${server.org}/group/made-by-the-engine`);
  });

  it("a process of the engine's own process group that is not its ancestor is refused too", async () => {
    expect(await otherProcess(plugin.port, false, "http://127.0.0.1:9")).toEqual({
      getPluginInfo: PERMISSION_DENIED,
      configure: PERMISSION_DENIED,
      create: PERMISSION_DENIED,
    });
  });

  it("the engine above a launcher (as above a language host) is served: callers may be any ancestor", async () => {
    // sh stays between this process and the plugin (`; true` keeps it from exec-ing the plugin).
    const launched = await nativeClient.NativePluginClient.spawn({
      command: "/bin/sh",
      args: ["-c", `"${executable}" "$0"; true`],
      cwd: scratchDir(),
    });
    try {
      const shell = String(launched.pid);
      const pluginPid = Number(fs.readFileSync(`/proc/${shell}/task/${shell}/children`, "utf8").trim().split(" ")[0]);
      expect(statFields(fs.readFileSync(`/proc/${pluginPid}/stat`, "utf8"))[1]).toBe(shell);
      expect(await launched.getPluginInfo()).toMatch(/^\d+\.\d+\.\d+/);
    } finally {
      await launched.stop();
    }
  });
});

describe("configuration", () => {
  it("a second Configure is refused and the first configuration stays", async () => {
    await expect(plugin.configure({ endpoint: "http://127.0.0.1:9" })).rejects.toMatchObject({
      code: FAILED_PRECONDITION,
      message: expect.stringContaining("cpln-native is already configured; a second Configure is refused"),
    });
    takeRequests(server);
    await plugin.create(urnFor(GROUP, "after"), { name: "after-second-configure", org: server.org });
    expect(takeRequests(server).map((r) => [r.method, r.path, r.status])).toEqual([
      ["POST", `/org/${server.org}/group`, 201],
    ]);
  });

  it("after Configure the environment's CPLN_TOKEN never goes to an endpoint a later Configure names", async () => {
    const elsewhere = await serverModule.startServer({ recordRequests: true });
    const withEnv = await nativeClient.NativePluginClient.executable(executable, {
      cwd: scratchDir(),
      env: { CPLN_TOKEN: elsewhere.adminKey },
    });
    try {
      await withEnv.configure({ org: server.org, endpoint: server.url, token: secret(server.adminKey) });
      await expect(withEnv.configure({ org: elsewhere.org, endpoint: elsewhere.url })).rejects.toMatchObject({
        code: FAILED_PRECONDITION,
      });
      await withEnv.create(urnFor(GROUP, "env"), { name: "not-redirected", org: server.org });
      expect(elsewhere.requests()).toEqual([]);
      const stored = await server.app.inject({
        url: `/org/${server.org}/group/not-redirected`,
        headers: { authorization: `Bearer ${server.adminKey}` },
      });
      expect(stored.statusCode).toBe(200);
    } finally {
      await withEnv.stop();
      await elsewhere.close();
    }
  });
});

describe("the lookup", () => {
  const table = [
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
    "   0: 0100007F:A1B2 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 424242 1 0",
    "   1: 0100007F:1F90 0100007F:A1B2 01 00000000:00000000 00:00000000 00000000  1000        0 434343 1 0",
    "   2: 0100007F:C000 0100007F:1F90 06 00000000:00000000 00:00000000 00000000     0        0 0 1 0",
  ].join("\n");
  // 127.0.0.1 as a little-endian host's table prints it.
  const from = (port: number) => ({ hex: "0100007F", port });
  const pluginEnd = from(0x1f90);

  it("finds the client end of an established loopback connection (uid, inode), not the server end", () => {
    expect(findClientSocket(table, from(0xa1b2), pluginEnd)).toEqual({ uid: 1000, inode: "424242" });
    expect(findClientSocket(table, from(0xc000), pluginEnd)).toBeUndefined();
    expect(findClientSocket(table, from(0x1234), pluginEnd)).toBeUndefined();
  });

  it("finds the row among thousands (each other row left unsplit), and not in the header or a non-established row", () => {
    const rows = Array.from(
      { length: 20_000 },
      (_, i) =>
        `${String(i + 3).padStart(4)}: 0100007F:${(0x2000 + i).toString(16).toUpperCase()} 0100007F:1F90 06 ` +
        "00000000:00000000 00:00000000 00000000  1000        0 0 1 0",
    );
    const big = [
      table,
      ...rows,
      "20003: 0100007F:D00D 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000 0 777 1 0",
    ].join("\n");
    expect(findClientSocket(big, from(0xd00d), pluginEnd)).toEqual({ uid: 1000, inode: "777" });
    expect(findClientSocket(big, from(0xa1b2), pluginEnd)).toEqual({ uid: 1000, inode: "424242" });
    expect(findClientSocket(big, from(0x2005), pluginEnd)).toBeUndefined();
    expect(
      findClientSocket(" 0100007F:A1B2 0100007F:1F90 01 x x x x 1000 0 1", from(0xa1b2), pluginEnd),
    ).toBeUndefined();
  });

  it("reads peers and process groups as grpc and the kernel write them", () => {
    expect(peerPort("127.0.0.1:41234")).toBe(41234);
    expect(peerPort("ipv4:127.0.0.1:41234")).toBe(41234);
    expect(peerPort("unix:/tmp/x")).toBeUndefined();
    const fields = statFields("4242 (node (x) y) S 1 4240 4239 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 987654 1 2");
    expect([fields[0], fields[1], fields[2], fields[19]]).toEqual(["S", "1", "4240", "987654"]);
  });

  it("a verdict that still stands is known without a read; none before the first check or after its time", async () => {
    const procRoot = fs.mkdtempSync(path.join(scratchDir(), "proc-"));
    fs.mkdirSync(path.join(procRoot, "net"));
    // The client end (port 0xA1B2 → the plugin's 0x1F90) belongs to another user: refused, and that verdict kept.
    fs.writeFileSync(
      path.join(procRoot, "net", "tcp"),
      table.replace("  1000        0 424242", `  ${(process.getuid?.() ?? 0) + 1}        0 424242`),
    );
    const check = new CallerCheck({ port: () => 0x1f90, parentPid: 1, procRoot });
    const peer = `127.0.0.1:${0xa1b2}`;
    expect(check.known(peer)).toBeUndefined();
    const verdict = await check.check(peer);
    expect(verdict).toEqual({ allowed: false, reason: "the caller runs as another user" });
    expect(check.known(peer)).toEqual(verdict);
    expect(check.known(`127.0.0.1:${0xc000}`)).toBeUndefined();
    const now = Date.now();
    vi.spyOn(Date, "now").mockReturnValue(now + VERDICT_TTL_MS + 1);
    try {
      expect(check.known(peer)).toBeUndefined();
    } finally {
      vi.restoreAllMocks();
    }
  });
});

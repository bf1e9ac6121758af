// What the plugin's start and its first request load, since every `pulumi` command pays for it: loading the plugin
// builds no zod schema (each kind's schemas are built at its first use, api/lazy.ts) and does not load re2js (the
// `=~` query engine, api/patterns.ts), and a request through the client goes out through Node's own HTTP client,
// loading no undici (neither the package nor Node's built-in copy: its parser is WebAssembly that V8 compiles in the
// process's first request; provider/client/transport.ts). Each check runs in a fresh `node` (this test's worker has loaded all of
// them long before), on the compiled dist/ (run `npm run build` first).
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./support.js";

interface Loaded {
  /** Schemas given a description (`.describe()` adds each to zod's global registry) while the modules loaded. */
  describedAtLoad: number;
  /** Whether re2js (the `=~` query engine, which builds its Unicode tables as it loads) was loaded by then. */
  re2jsAtLoad: boolean;
  status: number;
  body: unknown;
  builtinUndici: boolean;
  undiciFiles: string[];
  /** WebAssembly modules compiled in the child (undici's llhttp is one). */
  wasmCompiled: number;
}

// The child: counts zod's global-registry additions while the plugin's server module and the client load, then sends
// one GET through the client to a node:http server of its own and reports what was loaded.
const child = `
const path = require("node:path");
const http = require("node:http");
const { z } = require("zod");
let wasmCompiled = 0;
const Module = WebAssembly.Module;
WebAssembly.Module = function (...args) { wasmCompiled += 1; return new Module(...args); };
const compile = WebAssembly.compile;
WebAssembly.compile = function (...args) { wasmCompiled += 1; return compile.apply(this, args); };
let described = 0;
const add = z.globalRegistry.add;
z.globalRegistry.add = function (...args) { described += 1; return add.apply(this, args); };
require("./dist/provider/native/server.js");
const client = require("./dist/provider/client/http.js");
const describedAtLoad = described;
const re2jsAtLoad = Object.keys(require.cache).some((f) => f.includes(path.sep + "re2js" + path.sep));
const server = http.createServer((req, res) => {
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify({ path: req.url, auth: req.headers.authorization === "Bearer t" }));
});
server.listen(0, "127.0.0.1", async () => {
  const endpoint = "http://127.0.0.1:" + server.address().port;
  const response = await client.request({ endpoint, token: "t" }, { method: "GET", path: "/org/o" });
  await client.closePool(endpoint);
  server.close();
  const marker = path.sep + "undici" + path.sep;
  const files = Object.keys(require.cache).filter((f) => f.includes(marker));
  process.stdout.write(JSON.stringify({
    describedAtLoad,
    re2jsAtLoad,
    status: response.status,
    body: response.body,
    wasmCompiled,
    builtinUndici: process.moduleLoadList.some((m) => m.includes("internal/deps/undici")),
    undiciFiles: files.map((f) => f.slice(f.lastIndexOf(marker) + marker.length).split(path.sep).join("/")),
  }));
});
`;

function loaded(): Loaded {
  const result = spawnSync(process.execPath, ["-e", child], { cwd: repoRoot, encoding: "utf8", timeout: 120_000 });
  if (result.status !== 0) throw new Error(`the child failed (${result.status}): ${result.stderr}`);
  return JSON.parse(result.stdout) as Loaded;
}

describe("what the plugin loads at its start and its first request", () => {
  const seen = loaded();

  it("builds no zod schema while its modules load", () => {
    expect(seen.describedAtLoad).toBe(0);
  });

  it("does not load re2js, which only a query's `=~` pattern needs", () => {
    expect(seen.re2jsAtLoad).toBe(false);
  });

  it("sends the request through Node's HTTP client: no undici loaded, no WebAssembly compiled", () => {
    expect({ status: seen.status, body: seen.body }).toEqual({ status: 200, body: { path: "/org/o", auth: true } });
    expect(seen.undiciFiles).toEqual([]);
    expect(seen.builtinUndici).toBe(false);
    expect(seen.wasmCompiled).toBe(0);
  });
});

// The child: starts the plugin's server in-process and calls its service table as grpc-js would (a call with a
// `request`, a callback): what is loaded after the start, after GetPluginInfo and GetSchema, and after CheckConfig
// (whose answer schedules the core's load), and whether a Configure given before the core loaded reaches it.
const coreChild = `
const path = require("node:path");
const { Struct } = require("google-protobuf/google/protobuf/struct_pb");
const { Empty } = require("google-protobuf/google/protobuf/empty_pb");
const provproto = require("@pulumi/pulumi/proto/provider_pb");
const { startNativeProvider } = require("./dist/provider/native/server.js");
const loaded = () => {
  const files = Object.keys(require.cache);
  return {
    zod: files.some((f) => f.includes(path.sep + "zod" + path.sep)),
    core: files.some((f) => f.endsWith(path.join("dist", "provider", "runtime.js"))),
  };
};
(async () => {
  const { server, provider } = await startNativeProvider(0);
  const service = provider.service();
  const call = (name, request) =>
    new Promise((resolve, reject) => service[name]({ request }, (error, answer) => (error ? reject(error) : resolve(answer))));
  const seen = { atStart: loaded() };
  await call("getPluginInfo", new Empty());
  const schema = await call("getSchema", new provproto.GetSchemaRequest());
  seen.afterSchema = { ...loaded(), schemaName: JSON.parse(schema.getSchema()).name };
  const config = { org: "o", endpoint: "http://127.0.0.1:9", token: "t0123456789" };
  const check = new provproto.CheckRequest();
  check.setUrn("urn:pulumi:s::p::pulumi:providers:cpln-native::default");
  check.setOlds(Struct.fromJavaScript({}));
  check.setNews(Struct.fromJavaScript(config));
  const checked = await call("checkConfig", check);
  seen.failures = checked.getFailuresList().length;
  const configure = new provproto.ConfigureRequest();
  configure.setArgs(Struct.fromJavaScript(config));
  await call("configure", configure);
  seen.afterConfigure = loaded();
  await new Promise((resolve) => setImmediate(resolve));
  seen.afterPreload = loaded();
  // The org a Check fills in comes from the config: the Configure made before the core loaded reached it.
  const runtime = require("./dist/provider/runtime.js");
  seen.checkedOrg = (await runtime.check("Gvc", {}, { name: "app" })).inputs.org;
  server.forceShutdown();
  process.stdout.write(JSON.stringify(seen));
})().catch((error) => { process.stderr.write(String(error && error.stack || error)); process.exit(1); });
`;

describe("what the plugin's server loads before its first resource call", () => {
  const result = spawnSync(process.execPath, ["-e", coreChild], { cwd: repoRoot, encoding: "utf8", timeout: 120_000 });
  if (result.status !== 0) throw new Error(`the child failed (${result.status}): ${result.stderr}`);
  const seen = JSON.parse(result.stdout) as Record<string, unknown>;

  it("starts and answers GetPluginInfo and GetSchema without loading zod or the core", () => {
    expect(seen.atStart).toEqual({ zod: false, core: false });
    expect(seen.afterSchema).toEqual({ zod: false, core: false, schemaName: "cpln-native" });
  });

  it("loads the core right after answering CheckConfig, and a Configure made before reaches it", () => {
    expect(seen.failures).toBe(0);
    expect(seen.afterConfigure).toEqual({ zod: false, core: false });
    expect(seen.afterPreload).toEqual({ zod: true, core: true });
    expect(seen.checkedOrg).toBe("o");
  });
});

// The plugin's archive for a machine with Node.js (`npm run plugin:archive`, tools/native/archive.ts), as the engine
// tests install it: the launcher at the root, the plugin bundled into one file beside package.json and schema.json,
// and nothing else of the package (no node_modules). Unpacked, its launcher is run as the engine runs a plugin and
// drives a volume set's create and delete against cpln-local, with no node_modules in reach. Needs `npm run build`.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  NativeStack,
  nativeClient,
  repoRoot,
  scratchDir,
  secret,
  serverModule,
  type NativePluginClient,
  type RunningServer,
} from "./support.js";

const PLUGIN = "pulumi-resource-cpln-native";
const version = (JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string })
  .version;
const work = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-native-archive-test-"));
const unpacked = path.join(work, "plugin");
const stamp = path.join(work, "stamp.json");

let archive = "";
let server: RunningServer;
let plugin: NativePluginClient;

beforeAll(async () => {
  const out = execFileSync(
    process.execPath,
    [path.join(repoRoot, "dist", "tools", "native", "archive.js"), "--out", path.join(work, "out"), "--stamp", stamp],
    { cwd: repoRoot, encoding: "utf8" },
  );
  archive = out.trim().split("\n").pop() ?? "";
  fs.mkdirSync(unpacked);
  execFileSync("tar", ["-xzf", archive, "-C", unpacked]);
  server = await serverModule.startServer({ recordRequests: true });
}, 300_000);

afterAll(async () => {
  await plugin?.stop();
  await server?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

describe("the plugin archive for a machine with Node.js", () => {
  it("holds the launcher, the bundled plugin, package.json and schema.json, and nothing else of the package", () => {
    expect(path.basename(archive)).toMatch(
      new RegExp(`^${PLUGIN}-v${version.replace(/\./g, "\\.")}-[a-z]+-[a-z0-9]+\\.tar\\.gz$`),
    );
    const entries = execFileSync("tar", ["-tzf", archive], { encoding: "utf8" })
      .trim()
      .split("\n")
      .filter((entry) => !entry.endsWith("/"))
      .sort();
    const docs = ["LICENSE", "README.md"].filter((doc) => fs.existsSync(path.join(repoRoot, doc)));
    expect(entries).toEqual([...docs, "dist/provider/native/main.js", "package.json", PLUGIN, "schema.json"].sort());
    expect(fs.readFileSync(path.join(unpacked, PLUGIN), "utf8")).toBe(
      fs.readFileSync(path.join(repoRoot, "bin", PLUGIN), "utf8"),
    );
    expect(fs.statSync(path.join(unpacked, PLUGIN)).mode & 0o111).toBe(0o111);
    // The stamp names what the bundle was made from: the compiled plugin and the dependencies it inlines.
    const inputs = Object.keys((JSON.parse(fs.readFileSync(stamp, "utf8")) as { inputs: object }).inputs);
    expect(inputs).toEqual(expect.arrayContaining(["dist/provider/native/main.js", "dist/provider/native/server.js"]));
    expect(inputs.some((file) => file.startsWith("node_modules/@grpc/grpc-js/"))).toBe(true);
  });

  it("runs from its launcher with no node_modules in reach, and answers its version and schema.json", async () => {
    // Unpacked outside the checkout: a require of anything not in the bundle would find nothing and end the plugin.
    for (let dir = unpacked; dir !== path.dirname(dir); dir = path.dirname(dir)) {
      expect(fs.existsSync(path.join(dir, "node_modules")), dir).toBe(false);
    }
    plugin = await nativeClient.NativePluginClient.executable(path.join(unpacked, PLUGIN), {
      cwd: scratchDir(),
      env: { NODE_OPTIONS: undefined, NODE_PATH: undefined },
    });
    expect(fs.readlinkSync(`/proc/${plugin.pid}/exe`)).toBe(fs.realpathSync(process.execPath));
    expect(fs.readFileSync(`/proc/${plugin.pid}/cmdline`, "utf8").split("\0")).toContain(
      path.join(unpacked, "dist", "provider", "native", "main.js"),
    );
    expect(await plugin.getPluginInfo()).toBe(version);
    expect(await plugin.getSchema()).toBe(fs.readFileSync(path.join(repoRoot, "schema.json"), "utf8"));
  });

  it("creates and deletes a volume set in cpln-local", async () => {
    await plugin.configure({ org: server.org, endpoint: server.url, token: secret(server.adminKey) });
    const vs = new NativeStack(plugin, server, "cpln-native:index:VolumeSet", "data");
    const created = await vs.up({ gvc: "default", initialCapacity: 20, performanceClass: "general-purpose-ssd" });
    const link = `/org/${server.org}/gvc/default/volumeset/${vs.outputs.name as string}`;
    expect(created.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `POST /org/${server.org}/gvc/default/volumeset 201`,
    ]);
    expect(await vs.destroy()).toEqual([{ method: "DELETE", path: link, status: 202, body: undefined }]);
  });
});

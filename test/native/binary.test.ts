// The plugin as released: scripts/plugin-binary.sh builds the single executable and its archive, and the binary taken
// out of the archive is run as the engine runs a plugin — with no `node` anywhere on PATH — and driven over gRPC
// through a volume set's create, update and delete against cpln-local. Needs `npm run build` (for cpln-local and the
// gRPC client); the binary itself is built from the sources.
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
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
const archiveName = `${PLUGIN}-v${version}-linux-amd64.tar.gz`;
const work = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-native-binary-"));
const outDir = path.join(work, "release");
const unpacked = path.join(work, "plugin");
/** The only directory on the plugin's PATH: empty, so neither `node` nor anything else can be found there. */
const emptyPath = path.join(work, "empty-path");
const binary = path.join(unpacked, PLUGIN);

let archive = "";
let server: RunningServer;
let plugin: NativePluginClient;

beforeAll(async () => {
  const built = spawnSync("bash", [path.join(repoRoot, "scripts", "plugin-binary.sh"), "--out", outDir], {
    encoding: "utf8",
  });
  if (built.status !== 0) throw new Error(`scripts/plugin-binary.sh failed: ${built.stderr}`);
  archive = built.stdout.trim().split("\n").pop() ?? "";
  fs.mkdirSync(unpacked);
  fs.mkdirSync(emptyPath);
  execFileSync("tar", ["-xzf", archive, "-C", unpacked]);
  server = await serverModule.startServer({ recordRequests: true });
}, 300_000);

afterAll(async () => {
  await plugin?.stop();
  await server?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

describe.runIf(process.platform === "linux" && process.arch === "x64")("the single-executable plugin", () => {
  it("is archived under Pulumi's name with the binary at the root, and the checksums file matches it", () => {
    expect(path.basename(archive)).toBe(archiveName);
    const entries = execFileSync("tar", ["-tzf", archive], { encoding: "utf8" }).trim().split("\n").sort();
    expect(entries).toEqual(["LICENSE", "README.md", PLUGIN].filter((e) => e !== "LICENSE" || hasLicense()));
    const digest = createHash("sha256").update(fs.readFileSync(archive)).digest("hex");
    const checksums = fs.readFileSync(path.join(outDir, `${PLUGIN}-v${version}-checksums.txt`), "utf8");
    expect(checksums).toBe(`${digest}  ${archiveName}\n`);
    // An ELF executable, not a script: no interpreter line to name a runtime.
    expect(fs.readFileSync(binary).subarray(0, 4)).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
    expect(fs.statSync(binary).mode & 0o111).toBe(0o111);
  });

  it("starts with no node on PATH, as its own process, and answers its version and schema.json", async () => {
    expect(spawnSync("/bin/sh", ["-c", "command -v node"], { env: { PATH: emptyPath } }).status).not.toBe(0);
    plugin = await nativeClient.NativePluginClient.executable(binary, {
      cwd: scratchDir(),
      env: { PATH: emptyPath, NODE_OPTIONS: undefined, NODE_PATH: undefined },
    });
    // The process serving gRPC is the binary itself: no launcher, no node started under it.
    expect(fs.readlinkSync(`/proc/${plugin.pid}/exe`)).toBe(binary);
    expect(fs.readFileSync(`/proc/${plugin.pid}/environ`, "utf8").split("\0")).toContain(`PATH=${emptyPath}`);
    expect(await plugin.getPluginInfo()).toBe(version);
    expect(await plugin.getSchema()).toBe(fs.readFileSync(path.join(repoRoot, "schema.json"), "utf8"));
  });

  it("creates, updates and deletes a volume set in cpln-local", async () => {
    expect(await plugin.configure({ org: server.org, endpoint: server.url, token: secret(server.adminKey) })).toEqual({
      acceptSecrets: true,
      supportsPreview: true,
    });
    const vs = new NativeStack(plugin, server, "cpln-native:index:VolumeSet", "data");
    const base = { gvc: "default", initialCapacity: 20, performanceClass: "general-purpose-ssd" };
    const created = await vs.up(base);
    const name = vs.outputs.name as string;
    const link = `/org/${server.org}/gvc/default/volumeset/${name}`;
    expect(created.requests).toEqual([
      {
        method: "POST",
        path: `/org/${server.org}/gvc/default/volumeset`,
        status: 201,
        body: {
          name,
          description: name,
          tags: {},
          spec: { initialCapacity: 20, performanceClass: "general-purpose-ssd", fileSystemType: "ext4" },
        },
      },
    ]);
    const updated = await vs.up({ ...base, initialCapacity: 30 });
    expect(updated.op).toBe("update");
    expect(updated.requests).toEqual([
      { method: "PATCH", path: link, status: 200, body: { spec: { initialCapacity: 30 } } },
    ]);
    expect(await vs.destroy()).toEqual([{ method: "DELETE", path: link, status: 202, body: undefined }]);
    expect(await plugin.read(link, vs.urn, { org: server.org })).toEqual({ id: "", props: {}, inputs: {} });
    expect(plugin.logs().join("\n")).not.toContain(server.adminKey);
  });
});

function hasLicense(): boolean {
  return fs.existsSync(path.join(repoRoot, "LICENSE"));
}

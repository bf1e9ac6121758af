// The plugin installed as a user installs a release: no --file. A local HTTP server on 127.0.0.1:0 serves the release
// archives and checksums under the paths of schema.json's pluginDownloadURL (a GitHub release's asset addresses), and
// the real CLI installs from it — `pulumi plugin install resource cpln-native <v> --server <url>` with the checksum,
// and the engine on its own from a program's `pluginDownloadURL`. The installed single executable then runs a YAML
// program's up and destroy against cpln-local with no `node` on PATH.
import { execFile, execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, ORG, repoRoot, requestLog, startCplnLocal, type RunningServer } from "./harness.js";
import { engineEnv, requireEngine, skipWithoutEngine } from "./support.js";

const PLUGIN = "pulumi-resource-cpln-native";
const version = (JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string })
  .version;
const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, "schema.json"), "utf8")) as { pluginDownloadURL: string };
const archiveName = `${PLUGIN}-v${version}-linux-amd64.tar.gz`;

const work = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-release-host-"));
const releaseDir = path.join(work, "release");
/** Every request the release host received, as `GET /path → status`. */
const served: string[] = [];
let host: http.Server;
let hostOrigin = "";
let server: RunningServer;
/** Where the archives are, as schema.json's pluginDownloadURL says, on the local host instead of GitHub. */
const downloadUrl = () => schema.pluginDownloadURL.replace(/^https:\/\/github\.com/, hostOrigin);
/** The release's path prefix on GitHub: /<owner>/<repo>/releases/download/v<version>. */
const releasePath = () => new URL(schema.pluginDownloadURL.replace("${VERSION}", version)).pathname;

function world(name: string): { env: Record<string, string>; home: string; dir: string } {
  const { binDir } = requireEngine();
  const dir = path.join(work, name);
  fs.mkdirSync(dir);
  const env = engineEnv(dir, binDir);
  // The engine's bin directory alone: the CLI and the YAML host are Go binaries; no node anywhere on PATH.
  env.PATH = binDir;
  return { env, home: env.PULUMI_HOME!, dir };
}

/** The CLI, asynchronously: the release host and cpln-local answer it from this process. */
function pulumi(
  env: Record<string, string>,
  cwd: string,
  args: string[],
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      requireEngine().pulumi,
      args,
      { cwd, env, encoding: "utf8", timeout: 300_000, maxBuffer: 1 << 26 },
      (error, stdout, stderr) =>
        resolve({ status: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

const sha256Of = (name: string): string => {
  const line = fs
    .readFileSync(path.join(releaseDir, `${PLUGIN}-v${version}-checksums.txt`), "utf8")
    .split("\n")
    .find((entry) => entry.endsWith(`  ${name}`));
  if (line === undefined) throw new Error(`no checksum for ${name}`);
  return line.split(" ")[0]!;
};

beforeAll(async () => {
  if (skipWithoutEngine) return;
  const built = spawnSync("bash", [path.join(repoRoot, "scripts", "plugin-binary.sh"), "--out", releaseDir], {
    encoding: "utf8",
  });
  if (built.status !== 0) throw new Error(`scripts/plugin-binary.sh failed: ${built.stderr}`);
  // A release host: GET <release path>/<asset> answers the asset's bytes, anything else 404.
  host = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://host");
    const asset = url.pathname.startsWith(`${releasePath()}/`) ? url.pathname.slice(releasePath().length + 1) : "";
    const file = path.join(releaseDir, asset);
    const found = req.method === "GET" && asset !== "" && !asset.includes("/") && fs.existsSync(file);
    served.push(`${req.method} ${url.pathname} → ${found ? 200 : 404}`);
    if (!found) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/gzip", "content-length": fs.statSync(file).size });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
  hostOrigin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
  server = await startCplnLocal();
}, 300_000);

afterAll(async () => {
  await new Promise((resolve) => host?.close(resolve));
  await server?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

describe.skipIf(skipWithoutEngine || process.platform !== "linux" || process.arch !== "x64")(
  "the plugin from a release host",
  () => {
    it("schema.json's pluginDownloadURL is the GitHub release of the version", () => {
      expect(schema.pluginDownloadURL).toMatch(
        /^https:\/\/github\.com\/[^/]+\/[^/]+\/releases\/download\/v\$\{VERSION\}$/,
      );
    });

    it("a wrong checksum is refused and installs nothing", async () => {
      const { env, home, dir } = world("bad-checksum");
      served.length = 0;
      const result = await pulumi(env, dir, [
        "plugin",
        "install",
        "resource",
        "cpln-native",
        version,
        "--server",
        downloadUrl(),
        "--checksum",
        "00".repeat(32),
      ]);
      expect(result.status).not.toBe(0);
      expect(`${result.stdout}${result.stderr}`).toMatch(/checksum/i);
      expect(served).toEqual([`GET ${releasePath()}/${archiveName} → 200`]);
      expect(fs.existsSync(path.join(home, "plugins", `resource-cpln-native-v${version}`, PLUGIN))).toBe(false);
    }, 300_000);

    it("`pulumi plugin install --server` fetches the archive once, checks its SHA-256 and installs the binary", async () => {
      const { env, home, dir } = world("install");
      served.length = 0;
      const result = await pulumi(env, dir, [
        "plugin",
        "install",
        "resource",
        "cpln-native",
        version,
        "--server",
        downloadUrl(),
        "--checksum",
        sha256Of(archiveName),
      ]);
      expect(result.status, result.stderr).toBe(0);
      expect(served).toEqual([`GET ${releasePath()}/${archiveName} → 200`]);
      const installed = path.join(home, "plugins", `resource-cpln-native-v${version}`, PLUGIN);
      const unpacked = path.join(dir, "unpacked");
      fs.mkdirSync(unpacked);
      execFileSync("tar", ["-xzf", path.join(releaseDir, archiveName), "-C", unpacked, PLUGIN]);
      expect(fs.readFileSync(installed).equals(fs.readFileSync(path.join(unpacked, PLUGIN)))).toBe(true);
      const listed = await pulumi(env, dir, ["plugin", "ls", "--json"]);
      expect(JSON.parse(listed.stdout)).toEqual([
        expect.objectContaining({ name: "cpln-native", kind: "resource", version }),
      ]);
    }, 300_000);

    it("the engine installs it on its own from a program's pluginDownloadURL, then runs up and destroy without node", async () => {
      const { env, home, dir } = world("program");
      // Automatic acquisition on, as for a user: the engine fetches what the program names and is not installed.
      delete env.PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION;
      expect(spawnSync("/bin/sh", ["-c", "command -v node"], { env: { PATH: env.PATH! } }).status).not.toBe(0);
      fs.writeFileSync(
        path.join(dir, "Pulumi.yaml"),
        [
          "name: release-host",
          "runtime: yaml",
          "resources:",
          "  data:",
          "    type: cpln-native:index:VolumeSet",
          "    properties:",
          "      name: data",
          "      gvc: default",
          "      initialCapacity: 10",
          "      performanceClass: general-purpose-ssd",
          "    options:",
          `      version: ${version}`,
          // The release's own address: a YAML option is a plain string (pulumi-yaml refuses an interpolation there,
          // and `${VERSION}` is one); the SDKs carry the template, which the engine fills.
          `      pluginDownloadURL: ${downloadUrl().replace("${VERSION}", version)}`,
          "",
        ].join("\n"),
      );
      const ok = async (args: string[]) => {
        const result = await pulumi(env, dir, args);
        expect(result.status, `pulumi ${args.join(" ")}\n${result.stdout}${result.stderr}`).toBe(0);
        return result;
      };
      await ok(["stack", "init", "dev"]);
      await ok(["config", "set", "cpln-native:org", ORG]);
      await ok(["config", "set", "cpln-native:endpoint", server.url]);
      await ok(["config", "set", "--secret", "cpln-native:token", ADMIN_KEY]);
      served.length = 0;
      const log = requestLog(server);
      await ok(["up", "--yes", "--non-interactive"]);
      expect(served).toEqual([`GET ${releasePath()}/${archiveName} → 200`]);
      expect(fs.existsSync(path.join(home, "plugins", `resource-cpln-native-v${version}`, PLUGIN))).toBe(true);
      const link = `/org/${ORG}/gvc/default/volumeset/data`;
      expect(
        log()
          .filter((r) => r.method !== "GET")
          .map((r) => `${r.method} ${r.path} ${r.status}`),
      ).toEqual([`POST /org/${ORG}/gvc/default/volumeset 201`]);
      await ok(["destroy", "--yes", "--non-interactive"]);
      expect(
        log()
          .filter((r) => r.method !== "GET")
          .map((r) => `${r.method} ${r.path} ${r.status}`),
      ).toEqual([`DELETE ${link} 202`]);
      expect(served).toHaveLength(1);
    }, 600_000);

    it("docs/_index.md's YAML example runs with the plugin installed from the release host", async () => {
      const { env, dir } = world("registry-example");
      const ok = async (args: string[]) => {
        const result = await pulumi(env, dir, args);
        expect(result.status, `pulumi ${args.join(" ")}\n${result.stdout}${result.stderr}`).toBe(0);
        return result;
      };
      await ok(["plugin", "install", "resource", "cpln-native", version, "--server", downloadUrl()]);
      const page = fs.readFileSync(path.join(repoRoot, "docs", "_index.md"), "utf8");
      const example = /```yaml\n([\s\S]*?)```/.exec(page)?.[1];
      expect(example).toContain("type: cpln-native:index:ServiceAccount");
      fs.writeFileSync(path.join(dir, "Pulumi.yaml"), example!);
      await ok(["stack", "init", "dev"]);
      await ok(["config", "set", "cpln-native:org", ORG]);
      await ok(["config", "set", "cpln-native:endpoint", server.url]);
      await ok(["config", "set", "--secret", "cpln-native:token", ADMIN_KEY]);
      const log = requestLog(server);
      await ok(["up", "--yes", "--non-interactive"]);
      const created = log()
        .filter((r) => r.method === "POST")
        .map((r) => `${r.path} ${r.status}`)
        .sort();
      // The group, the service account, and its key (the -addKey action).
      expect(created).toEqual([
        expect.stringMatching(new RegExp(`^/org/${ORG}/group 201$`)),
        expect.stringMatching(new RegExp(`^/org/${ORG}/serviceaccount 201$`)),
        expect.stringMatching(new RegExp(`^/org/${ORG}/serviceaccount/ci-[0-9a-f]{7}/-addKey 20[01]$`)),
      ]);
      const outputs = JSON.parse((await ok(["stack", "output", "--json"])).stdout) as Record<string, string>;
      expect(outputs.group).toMatch(new RegExp(`^/org/${ORG}/group/deployers-[0-9a-f]{7}$`));
      expect(outputs.key).toBe("[secret]");
      const group = (await (
        await fetch(`${server.url}${outputs.group}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })
      ).json()) as { memberLinks: string[] };
      expect(group.memberLinks).toEqual([
        expect.stringMatching(new RegExp(`^/org/${ORG}/serviceaccount/ci-[0-9a-f]{7}$`)),
      ]);
      await ok(["destroy", "--yes", "--non-interactive"]);
      const gone = await fetch(`${server.url}${outputs.group}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      expect(gone.status).toBe(404);
    }, 600_000);
  },
);

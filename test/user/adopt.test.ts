/**
 * Issue 21 item 4: `adopt: true` as a user meets it through the `cpln-pulumi-run` CLI (a child process) against
 * cpln-local, with both adapters. An existing volume set carries a tag the program does not declare: `preview` says the
 * step will adopt it and lists every change its PATCH will make (the undeclared tag's removal first among them),
 * sending no write; `up` reports "adopted" (not "created") and sends exactly that PATCH; a second `up` is unchanged.
 */
import { spawn } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repoRoot = path.resolve(__dirname, "..", "..");
const load = createRequire(__filename);
const { startServer } = load(
  path.join(repoRoot, "dist", "server", "index.js"),
) as typeof import("../../server/index.js");
type RunningServer = Awaited<ReturnType<typeof startServer>>;

const cli = path.join(repoRoot, "dist", "tools", "runner", "cli.js");
const adminKey = `adopt-admin-${crypto.randomBytes(8).toString("hex")}`;
const ORG = "demo";

let work: string;
let server: RunningServer;

const fixture = path.join(repoRoot, "test", "fixtures", "adopt-program");

/** A copy of the fixture program (test/fixtures/adopt-program) in a fresh directory, resolving the repo's packages. */
function program(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(work, prefix));
  for (const file of ["Pulumi.yaml", "index.ts"]) fs.copyFileSync(path.join(fixture, file), path.join(dir, file));
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"), "dir");
  return dir;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runner(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: work,
      env: { ...process.env, CPLN_TOKEN: "", CPLN_ORG: "", CPLN_ENDPOINT: "", PULUMI_CONFIG_PASSPHRASE: "adopt-test" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    const guard = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}

interface Recorded {
  method: string;
  path: string;
  body?: unknown;
  status: number;
}

/** Requests cpln-local served since the last call, as `METHOD path status` with the body of writes. */
function requestsSince(): () => Recorded[] {
  let seen = server.requests().length;
  return () => {
    const all = server.requests() as Recorded[];
    const fresh = all.slice(seen);
    seen = all.length;
    return fresh.map(({ method, path: p, body, status }) => ({ method, path: p, status, body }));
  };
}

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-adopt-"));
  server = await startServer({
    host: "127.0.0.1",
    port: 0,
    data: ":memory:",
    org: ORG,
    adminKey,
    recordRequests: true,
  });
});

afterAll(async () => {
  await server?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe.each(["dynamic", "native"] as const)("adopt: true through cpln-pulumi-run --provider %s", (provider) => {
  it("preview lists what adopting changes (no write); up reports 'adopted' and sends exactly that PATCH", async () => {
    const name = `legacy-${provider}`;
    const link = `/org/${ORG}/gvc/default/volumeset/${name}`;
    const created = await fetch(`${server.url}/org/${ORG}/gvc/default/volumeset`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        name,
        description: "legacy",
        tags: { owner: "ops" },
        spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" },
      }),
    });
    expect(created.status).toBe(201);
    const dir = program(`${provider}-`);
    const tokenFile = path.join(dir, "token");
    fs.writeFileSync(tokenFile, adminKey, { mode: 0o600 });
    const args = (command: string) => [
      command,
      dir,
      "--state",
      path.join(dir, "state.json"),
      "--provider",
      provider,
      "--config",
      `cpln:org=${ORG}`,
      "--config",
      `cpln:endpoint=${server.url}`,
      "--config",
      `adopt-program:name=${name}`,
      "--secret-file",
      `cpln:token=${tokenFile}`,
    ];
    const type = provider === "native" ? "cpln-native:index:VolumeSet" : "pulumi-nodejs:dynamic/cpln:VolumeSet";
    const changes = "description (set), tags.owner (remove), tags.team (set), spec.initialCapacity (set)";
    const sent = requestsSince();

    const preview = await runner(args("preview"));
    expect(preview.code, preview.stderr).toBe(0);
    const previewLines = preview.stdout.trimEnd().split("\n");
    expect(previewLines.slice(1)).toEqual([
      "Previewing update of stack adopt-program/dev",
      `  +~ adopt   ${type} legacy  adopt (planned) of ${link}: the adopting PATCH changes ${changes}`,
      "Outputs:",
      '  version: {"unknown":true}',
      "Resources: 1 to adopt",
    ]);
    // Check read the object; nothing was written.
    expect(sent()).toEqual([{ method: "GET", path: link, status: 200, body: undefined }]);

    const up = await runner(args("up"));
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout.trimEnd().split("\n").slice(1)).toEqual([
      "Update of stack adopt-program/dev",
      `  +~ adopt   ${type} legacy  adopted ${link}: the adopting PATCH changes ${changes}`,
      "Outputs:",
      "  version: 2",
      "Resources: 1 adopted",
    ]);
    const upRequests = sent();
    expect(upRequests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET ${link} 200`,
      `POST /org/${ORG}/gvc/default/volumeset 409`,
      `GET ${link} 200`,
      `PATCH ${link} 200`,
    ]);
    expect(upRequests[3]?.body).toEqual({
      description: "adopted by the stack",
      tags: { owner: null, team: "data" },
      spec: { initialCapacity: 20 },
    });

    const again = await runner(args("up"));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`  =  same    ${type} legacy  unchanged\n`);
    expect(again.stdout).toContain("Resources: 1 unchanged");
    expect(sent().filter((r) => r.method !== "GET")).toEqual([]);
  });
});

describe("adopt: true when nothing exists yet", () => {
  it("is an ordinary create: up says created; check's GET found nothing (404)", async () => {
    const dir = program("fresh-");
    const tokenFile = path.join(dir, "token");
    fs.writeFileSync(tokenFile, adminKey, { mode: 0o600 });
    const link = `/org/${ORG}/gvc/default/volumeset/fresh-data`;
    const common = [dir, "--state", path.join(dir, "state.json"), "--config", `cpln:org=${ORG}`];
    common.push("--config", "adopt-program:name=fresh-data");
    const config = [...common, "--config", `cpln:endpoint=${server.url}`, "--secret-file", `cpln:token=${tokenFile}`];
    const sent = requestsSince();
    const up = await runner(["up", ...config]);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toContain(`  +  create  pulumi-nodejs:dynamic/cpln:VolumeSet legacy  created ${link}\n`);
    expect(up.stdout).toContain("Resources: 1 created");
    expect(sent().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET ${link} 404`,
      `POST /org/${ORG}/gvc/default/volumeset 201`,
    ]);
  });
});

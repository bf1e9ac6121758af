// `cpln-pulumi-run --provider native`: an unchanged example program (examples/volumeset-autoscaling) whose
// `cpln-pulumi` classes become the native ones, registered as `cpln-native:index:*` and served by the native plugin
// the runner spawns (bin/pulumi-resource-cpln-native), configured from the stack's `cpln:*` config. `--diff` prints
// the plugin's detailed diff beside the changed paths and the request sent; a destroy needs no option (each resource
// in state goes to the provider of its type). Needs `npm run build`.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SeedDocument } from "../../server/index.js";
import { repoRoot, serverModule, takeRequests, type RunningServer } from "./support.js";

const ORG = "test";
const ADMIN_KEY = "native-runner-admin.0f1e2d3c4b5a69788796a5b4c3d2e1f0";
const cli = path.join(repoRoot, "dist", "tools", "runner", "cli.js");
const programDir = path.join(repoRoot, "examples", "volumeset-autoscaling");
const seed = JSON.parse(fs.readFileSync(path.join(repoRoot, "examples", "seed.json"), "utf8")) as SeedDocument;

let server: RunningServer;
let work: string;
let stateFile: string;
/** Everything the runner printed, across the runs. */
const printed: string[] = [];

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-native-runner-"));
  stateFile = path.join(work, "state.json");
  server = await serverModule.startServer({
    host: "127.0.0.1",
    port: 0,
    org: ORG,
    adminKey: ADMIN_KEY,
    seed,
    recordRequests: true,
  });
});

afterAll(async () => {
  await server?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

function runner(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PULUMI_CONFIG_PASSPHRASE: "native-runner-test-passphrase" };
  for (const key of ["CPLN_TOKEN", "CPLN_ORG", "CPLN_ENDPOINT", "PULUMI_DEBUG", "CPLN_DEBUG"]) delete env[key];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cli, ...args, "--state", stateFile],
      { cwd: work, env, timeout: 900_000 },
      (e, o, r) => {
        printed.push(String(o), String(r));
        resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, stdout: String(o), stderr: String(r) });
      },
    );
  });
}

const config = (extra: string[] = []) => [
  "--config",
  `cpln:org=${ORG}`,
  "--config",
  `cpln:endpoint=${server.url}`,
  // The token from a file, off the command line (a `--secret k=v` prints a warning).
  "--secret-file",
  `cpln:token=${tokenFile()}`,
  ...extra,
];

function tokenFile(): string {
  const file = path.join(os.tmpdir(), `cpln-native-runner-token-${process.pid}`);
  fs.writeFileSync(file, `${ADMIN_KEY}\n`, { mode: 0o600 });
  return file;
}

const link = new RegExp(`^/org/${ORG}/gvc/default/volumeset/logs-[0-9a-f]{7}$`);

describe("cpln-pulumi-run --provider native", () => {
  let selfLink = "";

  it("up registers the program's VolumeSet as cpln-native:index:VolumeSet and the plugin creates it", async () => {
    takeRequests(server);
    const up = await runner(["up", programDir, "--provider", "native", ...config()]);
    expect(up.stderr).toBe("");
    expect(up.code).toBe(0);
    const created = /^ {2}\+ {2}create {2}cpln-native:index:VolumeSet logs {2}created (\S+)$/m.exec(up.stdout);
    expect(created, up.stdout).not.toBeNull();
    selfLink = created![1]!;
    expect(selfLink).toMatch(link);
    expect(takeRequests(server).filter((r) => r.method !== "GET")).toEqual([
      expect.objectContaining({ method: "POST", path: `/org/${ORG}/gvc/default/volumeset`, status: 201 }),
    ]);
    const state = JSON.parse(fs.readFileSync(stateFile, "utf8")) as { resources: { type: string; id: string }[] };
    expect(state.resources.map((r) => [r.type, r.id])).toEqual([["cpln-native:index:VolumeSet", selfLink]]);
  });

  it("an edited up with --diff prints the changed paths, the plugin's detailed diff and the one PATCH", async () => {
    const edited = await runner([
      "up",
      programDir,
      "--provider",
      "native",
      "--diff",
      ...config(["--config", "volumeset-autoscaling:maxCapacity=1000"]),
    ]);
    expect(edited.stderr).toBe("");
    expect(edited.stdout.trimEnd().split("\n").slice(0, 6)).toEqual([
      "offline runner: stand-in for the Pulumi engine (Pulumi CLI not found)",
      "Update of stack volumeset-autoscaling/dev",
      "  ~  update  cpln-native:index:VolumeSet logs  updated autoscaling",
      "       changes: autoscaling.maxCapacity",
      "       detailed diff: autoscaling.maxCapacity UPDATE",
      `       sent: PATCH ${selfLink} {"spec":{"autoscaling":{"maxCapacity":1000}}} → 200`,
    ]);
    expect(edited.stdout).toContain("Resources: 1 updated");
  });

  it("destroy, without --provider, deletes through the plugin; the token is in no output and not in the state", async () => {
    const destroyed = await runner(["destroy", programDir]);
    expect(destroyed.stderr).toBe("");
    expect(destroyed.stdout.trimEnd().split("\n").slice(1)).toEqual([
      "Destroy of stack volumeset-autoscaling/dev",
      `  -  delete  cpln-native:index:VolumeSet logs  deleted ${selfLink}: destroy`,
      "Resources: 1 deleted",
    ]);
    expect(takeRequests(server).filter((r) => r.method === "DELETE")).toEqual([
      expect.objectContaining({ method: "DELETE", path: selfLink, status: 202 }),
    ]);
    const missing = await fetch(`${server.url}${selfLink}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(missing.status).toBe(404);
    expect(fs.readFileSync(stateFile, "utf8")).not.toContain(ADMIN_KEY);
    expect(printed.length).toBe(6);
    expect(printed.filter((text) => text.includes(ADMIN_KEY))).toEqual([]);
  });
});

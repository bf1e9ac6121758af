/**
 * Issue 21, item 3, as a user meets it: one stack with a Policy, a PolicyBinding on it, a ServiceAccount and its key,
 * run through the offline runner (tools/runner, from dist/) against cpln-local: up → refresh → up. The refresh calls
 * nothing a change made outside the program (the PolicyBinding's grant and the key are the stack's own), the second
 * up is all `same` with no write, and the account keeps its grant. Then a change made by hand is drift, by name.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../dist/server/index.js";
import { runProgram, type RunProgramResult } from "../../dist/tools/runner/index.js";

const programDir = path.resolve(__dirname, "..", "fixtures", "agree-program");
const ADMIN_KEY = "agree-admin.0f1e2d3c4b5a69788796a5b4c3d2e1f0";

let server: RunningServer;
let dir: string;

beforeAll(async () => {
  server = await startServer({ host: "127.0.0.1", port: 0, data: ":memory:", org: "demo", adminKey: ADMIN_KEY });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "agree-"));
});

afterAll(async () => {
  await server?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function run(options: { refresh?: boolean; destroy?: boolean } = {}): Promise<RunProgramResult> {
  return runProgram({
    programDir,
    stateFile: path.join(dir, "state.json"),
    config: { "cpln:endpoint": server.url, "cpln:org": "demo", "cpln:token": ADMIN_KEY },
    secretConfigKeys: ["cpln:token"],
    recordRequests: true,
    env: { PULUMI_CONFIG_PASSPHRASE: "agree" },
    ...options,
  });
}

const lines = (result: RunProgramResult): string[] =>
  result.steps.map((s) => `${s.op} ${s.urn.split("::").at(-1)}: ${s.detail}`);
const writes = (result: RunProgramResult): string[] =>
  result.steps.flatMap((s) => (s.requests ?? []).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`));

async function bindingsOf(name: string): Promise<Record<string, string[]>> {
  const response = await fetch(`${server.url}/org/demo/policy/${name}`, { headers: { authorization: ADMIN_KEY } });
  const record = (await response.json()) as { bindings: { permissions: string[]; principalLinks: string[] }[] };
  return Object.fromEntries(record.bindings.map((b) => [b.permissions.join(","), b.principalLinks]));
}

describe("a Policy, its PolicyBinding, a ServiceAccount and its key in one stack", () => {
  let policy = "";
  let account = "";

  it("up creates the four resources", async () => {
    const result = await run();
    expect(result.steps.map((s) => `${s.op} ${s.urn.split("::").at(-1)}`).sort()).toEqual([
      "create ci",
      "create ci-edit",
      "create ci-key",
      "create volumes",
    ]);
    policy = result.outputs.policyName as string;
    account = result.outputs.accountName as string;
    expect(await bindingsOf(policy)).toEqual({
      view: ["/org/demo/group/viewers"],
      edit: [`/org/demo/serviceaccount/${account}`],
    });
  });

  it("refresh: only computed outputs of the policy and the account changed (versions), nothing outside the program", async () => {
    const result = await run({ refresh: true });
    expect(writes(result)).toEqual([]);
    expect(lines(result).sort()).toEqual([
      "refresh ci: refreshed: computed lastModified, version (no input changed)",
      "refresh volumes: refreshed: computed lastModified, version (no input changed)",
      "same ci-edit: unchanged",
      "same ci-key: unchanged",
    ]);
  });

  it("up after the refresh: all four unchanged, no write, and the account keeps its grant", async () => {
    const result = await run();
    expect(result.steps.map((s) => s.op)).toEqual(["same", "same", "same", "same"]);
    expect(writes(result)).toEqual([]);
    expect(await bindingsOf(policy)).toEqual({
      view: ["/org/demo/group/viewers"],
      edit: [`/org/demo/serviceaccount/${account}`],
    });
  });

  it("a principal granted by hand is drift, named as such", async () => {
    const response = await fetch(`${server.url}/org/demo/policy/${policy}`, {
      method: "PATCH",
      headers: { authorization: ADMIN_KEY, "content-type": "application/json" },
      body: JSON.stringify({
        "$patch/bindings": [{ permissions: ["edit"], "$append/principalLinks": ["//group/viewers"] }],
      }),
    });
    expect(response.status).toBe(200);
    const result = await run({ refresh: true });
    expect(lines(result).sort()).toEqual([
      "refresh volumes: refreshed: bindings changed outside the program",
      "same ci-edit: unchanged",
      "same ci-key: unchanged",
      "same ci: unchanged",
    ]);
    const destroyed = await run({ destroy: true });
    expect(destroyed.steps.map((s) => s.op)).toEqual(["delete", "delete", "delete", "delete"]);
  });
});

/**
 * Every example under examples/ runs end to end against a real cpln-local (in-process, request log on): up → a
 * second up that changes nothing and sends zero mutating requests → the example's one edit, which must send exactly
 * the expected PATCH → destroy, after which the org's records are as they were before the first up.
 *
 * Programs run through the offline runner (tools/runner, compiled in dist/) twice — with the dynamic classes through
 * Pulumi's dynamic-provider host, and with the native classes through the native plugin (`provider: "native"`: same
 * program, `cpln-native:index:*` registrations, same assertions). The same examples through the real Pulumi engine
 * are test/engine/examples.test.ts. Everything that Pulumi serializes is loaded from dist/ (see vitest.config).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer, type SeedDocument } from "../../dist/server/index.js";
import { runWithRunner, type DemoResult, type DemoRun, type DemoRunOptions } from "../../dist/tools/demo-engines.js";
import {
  adminApi,
  filesUnder,
  isMutating,
  orgSnapshot as snapshotOf,
  forgetUndeletable,
  type Recorded,
} from "../support/org.js";
import { exampleCases, ORG, type ExampleCase } from "./cases.js";

const repoRoot = path.resolve(__dirname, "..", "..");
const seed = JSON.parse(fs.readFileSync(path.join(repoRoot, "examples", "seed.json"), "utf8")) as SeedDocument;
const ADMIN_KEY = "programs-admin.5d1c0b2a9e8f7a6b5c4d3e2f1a0b9c8d";

const api = (server: RunningServer, method: string, urlPath: string, body?: unknown): Promise<unknown> =>
  adminApi(server, ADMIN_KEY, method, urlPath, body);
const orgSnapshot = (server: RunningServer): Promise<Record<string, unknown>> => snapshotOf(server, ORG, ADMIN_KEY);

const stepLabels = (result: DemoResult, op: string): string[] =>
  result.steps
    .filter((step) => step.op === op)
    .map((step) => `${step.type} ${step.name}`)
    .sort();

/** Runs every example; `tokenPrefix` is what every resource's type token starts with (which provider served it). */
function lifecycle(
  engine: string,
  start: (options: DemoRunOptions) => Promise<DemoRun>,
  tokenPrefix = "pulumi-nodejs:dynamic/cpln:",
): void {
  for (const example of exampleCases) describeExample(engine, start, example, tokenPrefix);
}

function describeExample(
  engine: string,
  start: (options: DemoRunOptions) => Promise<DemoRun>,
  example: ExampleCase,
  tokenPrefix: string,
): void {
  describe(`examples/${example.name} (${engine})`, () => {
    let server: RunningServer;
    let run: DemoRun;
    let workDir: string;
    let before: Record<string, unknown>;
    let seen = 0;
    const newRequests = (): Recorded[] => {
      const all = server.requests() as Recorded[];
      const fresh = all.slice(seen);
      seen = all.length;
      return fresh;
    };

    beforeAll(async () => {
      workDir = fs.mkdtempSync(path.join(os.tmpdir(), `cpln-program-${example.name}-`));
      server = await startServer({
        host: "127.0.0.1",
        port: 0,
        org: ORG,
        adminKey: ADMIN_KEY,
        seed,
        recordRequests: true,
      });
      before = await orgSnapshot(server);
      for (const call of example.before ?? []) await api(server, call.method, call.path, call.body);
      newRequests();
      run = await start({
        programDir: path.join(repoRoot, "examples", example.name),
        workDir,
        org: ORG,
        endpoint: server.url,
        token: ADMIN_KEY,
        config: example.config,
      });
    });

    afterAll(async () => {
      await run?.close();
      await server?.close();
      fs.rmSync(workDir, { recursive: true, force: true });
    });

    it("up creates the program's resources; secrets stay secret and the token is nowhere in the state", async () => {
      const result = await run.up({});
      const adopts = example.adopts ?? [];
      expect(stepLabels(result, "create")).toEqual(example.creates.filter((label) => !adopts.includes(label)).sort());
      expect(stepLabels(result, "adopt")).toEqual([...adopts].sort());
      expect(result.steps.filter((step) => !step.token.startsWith(tokenPrefix))).toEqual([]);
      expect(result.steps.filter((step) => !["create", "adopt", "read"].includes(step.op))).toEqual([]);
      for (const name of example.secretOutputs ?? []) expect(result.outputs[name], name).toEqual({ secret: true });
      const state = filesUnder(workDir);
      expect(state.length).toBeGreaterThan(0);
      for (const { file, text } of state) {
        expect(text.includes(ADMIN_KEY), file).toBe(false);
        expect(text.includes("BOOTSTRAP_TOKEN"), file).toBe(false);
      }
      newRequests();
    });

    it("a second up changes nothing: every step is same, zero mutating requests", async () => {
      const result = await run.up({});
      expect(result.steps.filter((step) => step.op !== "same" && step.op !== "read")).toEqual([]);
      expect(stepLabels(result, "same")).toEqual([...example.creates].sort());
      expect(newRequests().filter(isMutating)).toEqual([]);
    });

    it("the edit sends exactly the expected PATCH", async () => {
      const result = await run.up(example.edit);
      const sent = newRequests().filter(isMutating);
      expect(sent.map(({ method, path: p, body }) => ({ method, path: p, body }))).toEqual(
        example.expected.map((request) => ({
          method: request.method,
          path: expect.stringMatching(request.path),
          body: request.body,
        })),
      );
      expect(sent.every((request) => request.status === 200)).toBe(true);
      expect(result.steps.filter((step) => step.op === "update")).toHaveLength(example.expected.length);
    });

    it("destroy leaves the org as it was before the first up, but for the audit contexts it created", async () => {
      const result = await run.destroy();
      expect(stepLabels(result, "delete")).toEqual([...example.creates].sort());
      // Audit contexts cannot be deleted: destroy forgets them and they stay. Everything else is as before.
      const after = await orgSnapshot(server);
      const stayed = Object.keys(after).filter((link) => !(link in before));
      expect(forgetUndeletable(before, after)).toEqual(stayed);
      expect(stayed).toHaveLength(example.creates.filter((label) => label.startsWith("AuditContext ")).length);
      expect(after).toEqual(before);
    });
  });
}

lifecycle("offline runner", runWithRunner);
lifecycle(
  "offline runner, native plugin",
  (options) => runWithRunner({ ...options, provider: "native" }),
  "cpln-native:index:",
);

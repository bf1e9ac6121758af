/**
 * Every example under examples/ through the REAL Pulumi CLI (scripts/engine.sh), with the dynamic classes and with the
 * native classes served by the cpln-native plugin installed from its release archive: up → a second up with zero
 * writes → `preview --diff` of the example's edit (the changed paths, nothing sent) → the edit's up (exactly the
 * expected PATCH) → an out-of-band change: `refresh` takes it in, `up --expect-no-changes` fails without writing, the
 * next up puts the program's values back (the same PATCH) → destroy leaves the org as it was.
 *
 * TypeScript programs run as inline Automation API programs in a child process (dist/tools/automation), which reads
 * outputs only after the first up and takes each run's changes from the engine's summary event: see
 * docs/real-engine.md. One engine environment per file (PULUMI_HOME with the plugin, file backend); one stack and one
 * cpln-local (in process, org `test`) per example and adapter, so that the stacks run side by side — up to
 * $CPLN_ENGINE_STACKS at a time (default 4) — each with its own request log and org snapshot.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { availableParallelism } from "node:os";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { EngineStep } from "../../dist/tools/automation/client.js";
import { exampleCases, type ExampleCase } from "./cases.js";
import {
  ADMIN_KEY,
  api,
  EngineDriver,
  engineWorld,
  filesUnder,
  isMutating,
  orgAfterDestroy,
  orgSnapshot,
  repoRoot,
  requestLog,
  stackConfig,
  startCplnLocal,
  type EngineWorld,
  type Recorded,
  type RunningServer,
} from "./harness.js";
import { skipWithoutEngine } from "./support.js";

interface StateResource {
  type: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}
type Adapter = "dynamic" | "native";
const tokenPrefix: Record<Adapter, string> = { dynamic: "pulumi-nodejs:dynamic/cpln:", native: "cpln-native:index:" };

/**
 * The detailed-diff paths the native plugin reports for each example's edit (an array that changes length is one
 * change of the whole array). Dynamic resources have no detailed diff: the Node SDK's dynamic `DiffResult` has no
 * `detailedDiff` nor `diffs` (pulumi/pulumi sdk/nodejs/dynamic/index.ts), so the engine names no property.
 */
const previewPaths: Record<string, string[]> = {
  quickstart: ["bindings[0].principalLinks"],
  "volumeset-autoscaling": ["autoscaling.maxCapacity"],
  "policy-bindings": ["bindings[1].principalLinks"],
  "location-toggle": ["enabled"],
  "cloudaccount-query": ["description", "targetLinks"],
  "mk8s-join": ['tags["node-pool"]'],
  "ci-identity": ["memberLinks"],
  "existing-resources": ["initialCapacity"],
  app: ["containers[0].env[0].value"],
};

const label = (step: { type: string; name: string }): string =>
  `${step.type.slice(step.type.lastIndexOf(":") + 1)} ${step.name}`;
const labels = (steps: EngineStep[], op: string): string[] =>
  steps
    .filter((step) => step.op === op)
    .map(label)
    .sort();

let world: EngineWorld;
/** A step of one stack: after the one before it, never beside it. */
const step = it.sequential;

/**
 * How many stacks run at once: that many lanes, each running its share of the stacks one after the other. Most of a
 * step's time is spent waiting on the CLI, the plugins and the language runtime's round trips, so stacks side by side
 * finish sooner even on 2 cores; more than a few only add load. (Lanes, not a semaphore in a hook: vitest holds one of
 * its `maxConcurrency` slots for every running hook, so hooks waiting for a semaphore starve the ones holding it.)
 */
const lanes = Number(process.env.CPLN_ENGINE_STACKS) || Math.min(4, Math.max(2, availableParallelism()));
const stacks = exampleCases.flatMap((example) =>
  (["dynamic", "native"] as const).map((adapter) => ({ example, adapter })),
);

/**
 * A stack's lane: round robin, shifted by one every round, so that a lane does not get every dynamic stack (a dynamic
 * stack costs ~1.5× a native one: its provider process loads the Node SDK on every command); with 2 lanes, taking them
 * in turn gave one lane 812 s and the other 566 s of the file's 906.
 */
const laneOf = (index: number): number => (index + Math.floor(index / lanes)) % lanes;

/**
 * Requests per example, adapter and step (all of them, and the mutating ones), printed as a table when the file ends
 * (and written as JSON to $CPLN_ENGINE_REQUESTS when set): the record of what each real-engine step cost.
 */
const requestCounts: Record<string, Record<string, { requests: number; writes: number }>> = {};
const stepOfTest: [RegExp, string][] = [
  [/^up creates/, "up"],
  [/^pulumi stack export/, "stack export"],
  [/^a second up/, "no-op up"],
  [/^preview --diff/, "preview --diff"],
  [/^the edit sends/, "edit up"],
  [/^an out-of-band change/, "refresh, drift"],
  [/^destroy/, "destroy"],
];

function counted(stack: string, log: () => Recorded[], currentTest: () => string): () => Recorded[] {
  return () => {
    const fresh = log();
    const test = currentTest();
    const step = stepOfTest.find(([pattern]) => pattern.test(test))?.[1] ?? test;
    const tally = ((requestCounts[stack] ??= {})[step] ??= { requests: 0, writes: 0 });
    tally.requests += fresh.length;
    tally.writes += fresh.filter(isMutating).length;
    return fresh;
  };
}

function printRequestCounts(): void {
  const steps = stepOfTest.map(([, step]) => step);
  const rows = Object.entries(requestCounts).map(
    ([stack, byStep]) =>
      `| ${stack} | ${steps.map((step) => (byStep[step] ? `${byStep[step].requests} / ${byStep[step].writes}` : "")).join(" | ")} |`,
  );
  if (rows.length === 0) return;
  const header = `| example / adapter | ${steps.join(" | ")} |\n|${"---|".repeat(steps.length + 1)}`;
  console.log(`Requests per step (all / mutating), cpln-local's request log:\n${header}\n${rows.join("\n")}`);
  if (process.env.CPLN_ENGINE_REQUESTS) {
    fs.writeFileSync(process.env.CPLN_ENGINE_REQUESTS, `${JSON.stringify(requestCounts, null, 2)}\n`);
  }
}

describe.skipIf(skipWithoutEngine)("examples through the real Pulumi engine", () => {
  beforeAll(() => {
    world = engineWorld("examples", true);
  });
  afterAll(() => {
    world?.close();
    printRequestCounts();
  });

  for (let lane = 0; lane < lanes; lane++) {
    describe(`stacks ${lane + 1} of ${lanes}`, { concurrent: true }, () => {
      for (const { example, adapter } of stacks.filter((_, index) => laneOf(index) === lane)) {
        describe.sequential(`examples/${example.name}`, () => describeStack(example, adapter));
      }
    });
  }
});

/**
 * One stack: an example through one adapter. Its lane runs beside the others (`concurrent`); its steps run in order
 * (`it.sequential`), each on the state the one before left.
 */
function describeStack(example: ExampleCase, adapter: "dynamic" | "native"): void {
  // (Two plain blocks where the example's suite and its loop over the adapters were: the steps below kept their place.)
  {
    {
      describe(adapter, () => {
        const it = step;
        let suite: { server: RunningServer; world: EngineWorld };
        let before: Record<string, unknown>;
        let currentTest = "";
        /** The first up's outputs (secret ones in plaintext), which the export must not hold. */
        let upOutputs: Record<string, { value: unknown; secret: boolean }> = {};
        let driver: EngineDriver;
        let newRequests: () => Recorded[];
        /** Forgets the requests the test itself made (its snapshots and out-of-band changes): not the step's. */
        let ownRequests: () => Recorded[];
        let workDir: string;

        beforeEach(({ task }) => {
          currentTest = task.name;
        });

        beforeAll(async () => {
          suite = { server: await startCplnLocal(), world };
          before = await orgSnapshot(suite.server);
          for (const call of example.before ?? []) await api(suite.server, call.method, call.path, call.body);
          ownRequests = requestLog(suite.server);
          newRequests = counted(`${example.name} / ${adapter}`, ownRequests, () => currentTest);
          // A workspace directory per stack: the inline workspace writes its project's Pulumi.yaml there.
          workDir = path.join(suite.world.workDir, `${example.name}-${adapter}`);
          fs.mkdirSync(workDir);
          driver = await EngineDriver.start({
            programDir: path.join(repoRoot, "examples", example.name),
            workDir,
            binDir: suite.world.binDir,
            stackName: `${example.name}-${adapter}`,
            provider: adapter,
            config: stackConfig(suite.server, example.config),
            env: suite.world.env,
          });
        });

        afterAll(async () => {
          await driver?.close();
          await suite?.server.close();
        });

        it("up creates the program's resources through this adapter; secret outputs are secret", async () => {
          // Examples with secret outputs run at -v=9 --logtostderr: the engine's and the plugins' logs are checked.
          const verbose = (example.secretOutputs ?? []).length > 0;
          const result = await driver.run({ cmd: "up", verbose });
          expect(labels(result.steps, "create")).toEqual([...example.creates].sort());
          expect(result.steps.filter((step) => !step.type.startsWith(tokenPrefix[adapter]))).toEqual([]);
          // Objects the program reads (`Resource.get`, existing-resources) are read steps, every up.
          expect(result.steps.filter((step) => step.op !== "create" && step.op !== "read")).toEqual([]);
          // The plugin is the one installed from the archive, not an executable found on PATH.
          expect(`${result.stdout}${result.stderr}`).not.toContain("from $PATH");
          for (const name of example.secretOutputs ?? []) expect(result.outputs[name]?.secret, name).toBe(true);
          upOutputs = result.outputs;
          newRequests(); // the up's requests, for the table
          if (verbose) {
            expect(result.stderr.length).toBeGreaterThan(10_000);
            const secrets = (example.secretOutputs ?? []).map((name) => String(result.outputs[name]?.value));
            expect(result.stderr.includes(ADMIN_KEY), "token in the -v=9 log").toBe(false);
            expect(result.stdout.includes(ADMIN_KEY), "token in the output").toBe(false);
            for (const secret of secrets) {
              expect(result.stdout.includes(secret), "secret output in the output").toBe(false);
              // At -v=9 the engine logs what the program's SDK logs at debug level, and the Node SDK logs each
              // RegisterResource response with its values, secrets unwrapped (pulumi/pulumi sdk/nodejs/runtime/
              // resource.ts, "RegisterResource RPC finished"): there and only there does a secret output show.
              const lines = result.stderr.split("\n").filter((line) => line.includes(secret));
              expect(
                lines.filter((line) => !line.includes("RegisterResource RPC finished")),
                "secret output in the -v=9 log outside the SDK's debug line",
              ).toEqual([]);
            }
          }
        });

        it("pulumi stack export: secret outputs are ciphertext, the token and the secrets are nowhere in it", async () => {
          const exported = await suite.world.pulumi(
            ["stack", "export", "--stack", `${example.name}-${adapter}`],
            workDir,
          );
          expect(exported.status, exported.stderr).toBe(0);
          const text = exported.stdout;
          expect(text.includes(ADMIN_KEY), "token in the export").toBe(false);
          const secrets = (example.secretOutputs ?? []).map((name) => String(upOutputs[name]?.value));
          for (const secret of secrets) expect(secret.length, "secret output's value").toBeGreaterThan(20);
          for (const secret of secrets) expect(text.includes(secret), "secret output in the export").toBe(false);
          const resources = (JSON.parse(text) as { deployment: { resources: StateResource[] } }).deployment.resources;
          const ciphertext = (value: unknown) => Object.keys(value as object).sort();
          const encrypted = ["4dabf18193072939515e22adb298388d", "ciphertext"];
          const stackOutputs = resources.find((r) => r.type === "pulumi:pulumi:Stack")!.outputs!;
          for (const name of example.secretOutputs ?? [])
            expect(ciphertext(stackOutputs[name]), name).toEqual(encrypted);
          for (const resource of resources.filter((r) => r.type.endsWith(":ServiceAccountKey"))) {
            expect(ciphertext(resource.outputs!.key)).toEqual(encrypted);
          }
          // A secret's data: the program gives it in plaintext; input and output are ciphertext in both adapters.
          for (const resource of resources.filter((r) => r.type.endsWith(":Secret"))) {
            expect(ciphertext(resource.inputs!.data), "Secret inputs.data").toEqual(encrypted);
            expect(ciphertext(resource.outputs!.data), "Secret outputs.data").toEqual(encrypted);
          }
          // And in no file the engine wrote (backend, workspace settings), plugins' own files aside.
          const plugins = (dir: string) => path.basename(dir) === "plugins";
          for (const { file, text: content } of filesUnder(suite.world.workDir, plugins)) {
            expect(content.includes(ADMIN_KEY), file).toBe(false);
            for (const secret of secrets) expect(content.includes(secret), file).toBe(false);
          }
          expect(newRequests().filter(isMutating)).toEqual([]);
        });

        it("a second up changes nothing: every step is same, zero mutating requests", async () => {
          const result = await driver.run({ cmd: "up", outputs: false });
          expect(result.steps.filter((step) => step.op !== "same" && step.op !== "read")).toEqual([]);
          expect(labels(result.steps, "same")).toEqual([...example.creates].sort());
          expect(newRequests().filter(isMutating)).toEqual([]);
        });

        it("preview --diff of the edit shows the changed resource (and, native, its detailed-diff paths); sends nothing", async () => {
          const result = await driver.run({ cmd: "preview", config: example.edit });
          const updates = result.steps.filter((step) => step.op === "update");
          // The edited object is among the planned updates. Through the dynamic provider a resource whose inputs
          // come from the edited one's outputs (existing-resources: the policy on the volume set's self link) is
          // planned as an update too: during preview those outputs are unknown and the dynamic DiffResult cannot
          // say "no change" for unknowns. The up that follows sends only the expected PATCH (next test).
          const update = updates.find((step) => step.id !== undefined && example.expected[0]!.path.test(step.id));
          expect(update, JSON.stringify(updates)).toBeDefined();
          if (adapter === "native") expect(updates).toHaveLength(example.expected.length);
          expect(result.stdout).toContain(`~ ${update!.type}: (update)`);
          expect(result.stdout).toContain(
            `[urn=urn:pulumi:${example.name}-${adapter}::${example.name}::${update!.type}::${update!.name}]`,
          );
          if (adapter === "native") {
            const paths = previewPaths[example.name]!;
            expect(Object.keys(update!.detailedDiff!).sort()).toEqual([...paths].sort());
            const topLevel = [...new Set(paths.map((p) => /^[A-Za-z]+/.exec(p)![0]))].sort();
            expect(update!.diffs!.slice().sort()).toEqual(topLevel);
            // The diff view descends to the changed properties.
            for (const property of topLevel) expect(result.stdout).toMatch(new RegExp(`[~+-] ${property}\\s*: `));
          } else {
            expect(update!.diffs).toBeUndefined();
            expect(update!.detailedDiff).toBeUndefined();
          }
          expect(newRequests().filter(isMutating)).toEqual([]);
        });

        let editedPath = "";
        let beforeEdit: Record<string, unknown> = {};

        it("the edit sends exactly the expected PATCH", async () => {
          const target = example.expected[0]!.path;
          const edited = (await orgSnapshot(suite.server)) as Record<string, Record<string, unknown>>;
          editedPath = Object.keys(edited).find((link) => target.test(link))!;
          expect(editedPath).toBeDefined();
          beforeEdit = edited[editedPath]!;
          ownRequests();
          const result = await driver.run({ cmd: "up", outputs: false });
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

        it("an out-of-band change: refresh takes it in; preview and up --expect-no-changes fail; up's fix is the PATCH", async () => {
          // The edited object put back as it was before the edit (a PUT of its earlier body), outside Pulumi.
          const { id: _id, created: _created, links: _links, status: _status, ...body } = beforeEdit;
          await api(suite.server, "PUT", editedPath, body);
          ownRequests();
          const refreshed = await driver.run({ cmd: "refresh" });
          expect(refreshed.summary?.update).toBe(1);
          expect(newRequests().filter(isMutating)).toEqual([]);
          const previewed = await driver.send({ cmd: "preview", expectNoChanges: true });
          expect(previewed.ok).toBe(false);
          expect(newRequests().filter(isMutating)).toEqual([]);
          // `up --expect-no-changes` fails only after the update ran (pulumi/pulumi pkg/cmd/pulumi/operations/up.go:
          // NoChangesExpectedError once UpdateStack returned changes): the drift is fixed by exactly the PATCH.
          const failed = await driver.send({ cmd: "up", expectNoChanges: true });
          expect(failed.ok).toBe(false);
          expect(failed.ok ? "" : failed.error).toContain(
            "error: no changes were expected for update but changes were proposed",
          );
          const sent = newRequests().filter(isMutating);
          expect(sent.map(({ method, path: p, body: b }) => ({ method, path: p, body: b }))).toEqual(
            example.expected.map((request) => ({ method: request.method, path: editedPath, body: request.body })),
          );
        });

        it("destroy leaves the org as it was before the first up", async () => {
          const result = await driver.run({ cmd: "destroy" });
          expect(labels(result.steps, "delete")).toEqual([...example.creates].sort());
          newRequests(); // destroy's requests, for the table
          expect(await orgAfterDestroy(suite.server, before)).toEqual(before);
        });
      });
    }
  }
}

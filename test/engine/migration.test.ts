/**
 * Moving a stack from the dynamic classes to the native ones (`cpln-pulumi/native`, whose classes carry an alias
 * from the dynamic type token), by the REAL engine: the stack is built with the dynamic classes, the same program
 * then runs with the native classes and the example's edit; the engine follows the aliases, replaces nothing, and
 * the only request is the edit's PATCH. Destroy through the plugin restores the org.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { exampleCases } from "./cases.js";
import {
  EngineDriver,
  engineWorld,
  isMutating,
  orgAfterDestroy,
  orgSnapshot,
  repoRoot,
  requestLog,
  stackConfig,
  startCplnLocal,
  type EngineWorld,
} from "./harness.js";
import { skipWithoutEngine } from "./support.js";

/** The two examples' stacks run side by side: each its own cpln-local (its own request log and org), one world. */
describe.skipIf(skipWithoutEngine).concurrent("dynamic → native migration through the real engine", () => {
  const suite = {} as { world: EngineWorld };
  beforeAll(() => {
    suite.world = engineWorld("migration", true);
  });
  afterAll(() => suite.world?.close());

  // quickstart: VolumeSet, Policy, Location; ci-identity: ServiceAccount, ServiceAccountKey (a secret), Group,
  // AuditContext, PolicyBinding.
  for (const example of exampleCases.filter((e) => ["quickstart", "ci-identity"].includes(e.name))) {
    it(`examples/${example.name}: no replacement, no request but the edit's PATCH, secrets still secret`, async ({
      expect,
      onTestFinished,
    }) => {
      const server = await startCplnLocal();
      onTestFinished(() => server.close());
      const before = await orgSnapshot(server);
      const workDir = path.join(suite.world.workDir, example.name);
      fs.mkdirSync(workDir);
      const start = (provider: "dynamic" | "native") =>
        EngineDriver.start({
          programDir: path.join(repoRoot, "examples", example.name),
          workDir,
          binDir: suite.world.binDir,
          stackName: "migrate",
          provider,
          config: stackConfig(server, example.config),
          env: suite.world.env,
        });
      const dynamic = await start("dynamic");
      const built = await dynamic.run({ cmd: "up" });
      await dynamic.close();
      const ids = Object.fromEntries(built.steps.map((step) => [step.name, step.id]));
      expect(built.steps.every((step) => step.type.startsWith("pulumi-nodejs:dynamic/cpln:"))).toBe(true);

      const newRequests = requestLog(server);
      const native = await start("native");
      try {
        const moved = await native.run({ cmd: "up", config: example.edit });
        // Every resource is now the plugin's, with the same id; only the edited one is updated.
        expect(moved.steps.every((step) => step.type.startsWith("cpln-native:index:"))).toBe(true);
        expect(Object.fromEntries(moved.steps.map((step) => [step.name, step.id]))).toEqual(ids);
        expect(moved.steps.filter((step) => !["same", "update"].includes(step.op))).toEqual([]);
        expect(moved.steps.filter((step) => step.op === "update")).toHaveLength(example.expected.length);
        const sent = newRequests().filter(isMutating);
        expect(sent.map(({ method, path: p, body }) => ({ method, path: p, body }))).toEqual(
          example.expected.map((request) => ({
            method: request.method,
            path: expect.stringMatching(request.path),
            body: request.body,
          })),
        );
        for (const name of example.secretOutputs ?? []) expect(moved.outputs[name]?.secret, name).toBe(true);
        const { deployment } = await native.run({ cmd: "export" });
        const types = (deployment as { resources: { type: string }[] }).resources.map((r) => r.type);
        expect(types.filter((type) => type.startsWith("pulumi-nodejs:dynamic"))).toEqual([]);
        const destroyed = await native.run({ cmd: "destroy" });
        expect(destroyed.steps.filter((step) => step.op === "delete")).toHaveLength(example.creates.length);
        expect(await orgAfterDestroy(server, before)).toEqual(before);
      } finally {
        await native.close();
      }
    });
  }
});

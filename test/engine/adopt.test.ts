/**
 * Issue 21 item 4 with the REAL engine: a program adopting an existing volume set (test/fixtures/adopt-program), with
 * both adapters. The engine names every such step a create (a provider cannot rename it), so the provider says what
 * the step will do at check time, as an Engine.Log warning: `pulumi preview` shows "adopting <link> (it exists): the
 * adopting PATCH changes ..." with every change (the undeclared tag's removal among them) and writes nothing; `pulumi
 * up` shows it again and sends exactly that PATCH. The native plugin logs it under the resource; the dynamic-provider
 * host cannot say which resource it is checking (its check gets no URN), so there it is one of the run's diagnostics.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import {
  api,
  EngineDriver,
  engineWorld,
  isMutating,
  ORG,
  repoRoot,
  requestLog,
  stackConfig,
  startCplnLocal,
  type EngineWorld,
} from "./harness.js";
import { skipWithoutEngine } from "./support.js";

/** The three stacks run side by side: each its own cpln-local (so its own request log), one engine world. */
describe.skipIf(skipWithoutEngine).concurrent("adopt: true through the real engine", () => {
  const suite = {} as { world: EngineWorld };
  beforeAll(() => {
    suite.world = engineWorld("adopt", true);
  });
  afterAll(() => suite.world?.close());

  for (const provider of ["dynamic", "native"] as const) {
    it(`${provider}: preview warns what adopting will change (no write); up sends exactly that PATCH`, async ({
      expect,
      onTestFinished,
    }) => {
      const server = await startCplnLocal();
      onTestFinished(() => server.close());
      const name = `legacy-${provider}`;
      const link = `/org/${ORG}/gvc/default/volumeset/${name}`;
      await api(server, "POST", `/org/${ORG}/gvc/default/volumeset`, {
        name,
        description: "legacy",
        tags: { owner: "ops" },
        spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" },
      });
      const workDir = path.join(suite.world.workDir, provider);
      fs.mkdirSync(workDir);
      const driver = await EngineDriver.start({
        programDir: path.join(repoRoot, "test", "fixtures", "adopt-program"),
        workDir,
        binDir: suite.world.binDir,
        stackName: `adopt-${provider}`,
        provider,
        config: stackConfig(server, { "adopt-program:name": name }),
        env: suite.world.env,
      });
      const urn = `urn:pulumi:adopt-${provider}::adopt-program::cpln-native:index:VolumeSet::legacy`;
      const notice =
        `adopting ${link} (it exists): the adopting PATCH changes ` +
        "description (set), tags.owner (remove), tags.team (set), spec.initialCapacity (set)";
      try {
        const sent = requestLog(server);
        const preview = await driver.run({ cmd: "preview" });
        expect(preview.steps.map((step) => `${step.op} ${step.name}`)).toContain("create legacy");
        const expected = { urn: provider === "native" ? urn : "", severity: "warning", message: notice };
        expect(preview.diagnostics, preview.stdout).toContainEqual(expected);
        expect(sent().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`GET ${link} 200`]);

        const up = await driver.run({ cmd: "up" });
        expect(up.diagnostics, up.stdout).toContainEqual(expected);
        // What the user reads: the warning in the run's Diagnostics.
        expect(up.stdout).toContain(`\nDiagnostics:\n`);
        expect(up.stdout).toContain(`    warning: ${notice}\n`);
        expect(up.steps.find((step) => step.name === "legacy")).toMatchObject({ op: "create", id: link });
        const writes = sent().filter(isMutating);
        expect(writes.map(({ method, path: p, status, body }) => ({ method, path: p, status, body }))).toEqual([
          expect.objectContaining({ method: "POST", path: `/org/${ORG}/gvc/default/volumeset`, status: 409 }),
          {
            method: "PATCH",
            path: link,
            status: 200,
            body: {
              description: "adopted by the stack",
              tags: { owner: null, team: "data" },
              spec: { initialCapacity: 20 },
            },
          },
        ]);
        const again = await driver.run({ cmd: "up", expectNoChanges: true });
        expect(again.diagnostics?.filter((d) => d.severity !== "debug")).toEqual([]);
        expect(sent().filter(isMutating)).toEqual([]);
        await driver.run({ cmd: "destroy" });
      } finally {
        await driver.close();
      }
    });
  }

  it("when nothing exists yet it is an ordinary create: no warning; check's GET found nothing (404)", async ({
    expect,
    onTestFinished,
  }) => {
    const server = await startCplnLocal();
    onTestFinished(() => server.close());
    const name = "fresh-data";
    const link = `/org/${ORG}/gvc/default/volumeset/${name}`;
    const workDir = path.join(suite.world.workDir, "fresh");
    fs.mkdirSync(workDir);
    const driver = await EngineDriver.start({
      programDir: path.join(repoRoot, "test", "fixtures", "adopt-program"),
      workDir,
      binDir: suite.world.binDir,
      stackName: "adopt-fresh",
      provider: "dynamic",
      config: stackConfig(server, { "adopt-program:name": name }),
      env: suite.world.env,
    });
    try {
      const sent = requestLog(server);
      const up = await driver.run({ cmd: "up" });
      expect(up.steps.find((step) => step.name === "legacy")).toMatchObject({ op: "create", id: link });
      expect(up.diagnostics?.filter((d) => d.severity !== "debug")).toEqual([]);
      expect(sent().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
        `GET ${link} 404`,
        `POST /org/${ORG}/gvc/default/volumeset 201`,
      ]);
      await driver.run({ cmd: "destroy" });
    } finally {
      await driver.close();
    }
  });
});

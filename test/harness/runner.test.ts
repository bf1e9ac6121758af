// The offline program runner end to end: a real program (test/fixtures/file-program) run in a fresh process per
// run, its dynamic resources sent to the real provider host, state kept between runs. The tests in the first
// describe share one stack and run in order, like successive `pulumi up`s.
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as Runner from "../../tools/runner/index.js";
import type * as Values from "../../tools/runner/values.js";

const load = createRequire(__filename);
const runner = load(path.resolve(__dirname, "../../dist/tools/runner/index.js")) as typeof Runner;
const values = load(path.resolve(__dirname, "../../dist/tools/runner/values.js")) as typeof Values;
const programDir = path.resolve(__dirname, "../fixtures/file-program");
const type = "pulumi-nodejs:dynamic/files:Record";
const urn = (name: string): string => `urn:pulumi:dev::file-program::${type}::${name}`;

const token = `tok-${crypto.randomBytes(8).toString("hex")}`;
const note = `note-${crypto.randomBytes(8).toString("hex")}`;
let dir: string;
let stateFile: string;

const opsLog = (): string[] => fs.readFileSync(path.join(dir, "ops.log"), "utf8").trim().split("\n");
const record = (key: string): Record<string, unknown> | undefined => {
  const file = path.join(dir, `${key}.json`);
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>) : undefined;
};
const ops = (result: Runner.RunProgramResult): string[] => result.steps.map((s) => `${s.op} ${s.urn.split("::")[3]}`);
const mutatingCalls = (result: Runner.RunProgramResult): string[] =>
  result.requests.filter((r) => ["create", "update", "delete"].includes(r.method)).map((r) => r.method);

/** Runs the fixture program with the whole stack config (the given settings over the defaults). */
function up(settings: Record<string, string> = {}, extra: Partial<Runner.RunProgramOptions> = {}) {
  return runner.runProgram({
    programDir,
    stateFile,
    replaceConfig: true,
    config: { "files:dir": dir, "files:token": token, "files:secretNote": note, ...settings },
    secretConfigKeys: ["files:token", "files:secretNote"],
    ...extra,
  });
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "runner-test-"));
  stateFile = path.join(dir, "state.json");
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("runProgram: successive runs of one stack", () => {
  it("first up creates every resource, with secret outputs hidden in the printed form", async () => {
    const result = await up();
    expect(ops(result).sort()).toEqual(["create greeting", "create note"]);
    expect(opsLog().sort()).toEqual(["create greeting", "create note"]);
    expect(record("greeting")).toMatchObject({ content: "hello", tags: ["fixture"], revision: 1 });
    expect(record("note")).toMatchObject({ content: note });
    expect(result.outputs).toEqual({
      greetingRevision: 1,
      greetingPath: path.join(dir, "greeting.json"),
      noteContent: { secret: true },
    });
    expect(values.isSecret(result.outputsWithSecrets.noteContent)).toBe(true);
    expect(values.stripSecrets(result.outputsWithSecrets.noteContent as Values.PropertyValue)).toBe(note);
    const printed = runner.formatRun(result);
    expect(printed.split("\n")[0]).toBe("offline runner: stand-in for the Pulumi engine (Pulumi CLI not found)");
    expect(printed).not.toContain(note);
    expect(printed).not.toContain(token);
    console.info(
      `first up: ${result.timings.totalMs.toFixed(0)} ms (host start ${result.timings.hostStartMs?.toFixed(0)} ms); ` +
        result.requests.map((r) => `${r.method} ${r.ms.toFixed(0)} ms`).join(", "),
    );
  });

  it("second up of the unchanged program is all `same`, with zero writes", async () => {
    const stateBefore = fs.readFileSync(stateFile, "utf8");
    const result = await up();
    expect(ops(result).sort()).toEqual(["same greeting", "same note"]);
    expect(result.summary).toMatchObject({ same: 2, create: 0, update: 0, replace: 0, delete: 0 });
    expect(mutatingCalls(result)).toEqual([]);
    expect(opsLog()).toHaveLength(2);
    expect(fs.readFileSync(stateFile, "utf8")).toBe(stateBefore);
    expect(result.outputs.greetingRevision).toBe(1);
    console.info(`no-op up: ${result.timings.totalMs.toFixed(0)} ms`);
  });

  it("preview of an edit plans one update and changes nothing", async () => {
    const stateBefore = fs.readFileSync(stateFile, "utf8");
    const result = await up({ "files:greeting": "planned" }, { preview: true });
    expect(result.preview).toBe(true);
    expect(ops(result).sort()).toEqual(["same note", "update greeting"]);
    expect(result.steps.find((s) => s.op === "update")?.changedKeys).toEqual(["content"]);
    expect(mutatingCalls(result)).toEqual([]);
    expect(opsLog()).toHaveLength(2);
    expect(record("greeting")).toMatchObject({ content: "hello" });
    expect(fs.readFileSync(stateFile, "utf8")).toBe(stateBefore);
  });

  it("an edited program produces exactly one update", async () => {
    const result = await up({ "files:greeting": "hi" });
    expect(result.steps.filter((s) => s.op !== "same")).toEqual([
      expect.objectContaining({ urn: urn("greeting"), op: "update", id: "greeting", changedKeys: ["content"] }),
    ]);
    expect(mutatingCalls(result)).toEqual(["update"]);
    expect(opsLog().slice(2)).toEqual(["update greeting"]);
    expect(record("greeting")).toMatchObject({ content: "hi", revision: 2 });
    expect(result.outputs.greetingRevision).toBe(2);
  });

  it("a resource added to the program is created, and deleted once removed", async () => {
    const added = await up({ "files:greeting": "hi", "files:withExtra": "true" });
    expect(added.steps.filter((s) => s.op !== "same").map((s) => `${s.op} ${s.id}`)).toEqual(["create extra"]);
    expect(record("extra")).toMatchObject({ content: "extra after 2" });
    expect(added.outputs.extraContent).toBe("extra after 2");

    const removed = await up({ "files:greeting": "hi" });
    expect(removed.steps.filter((s) => s.op !== "same")).toEqual([
      expect.objectContaining({ urn: urn("extra"), op: "delete", id: "extra" }),
    ]);
    expect(record("extra")).toBeUndefined();
    expect(opsLog().slice(3)).toEqual(["create extra", "delete extra"]);
  });

  it("a replacing change creates the new record first and deletes the old one at the end", async () => {
    const result = await up({ "files:greeting": "hi", "files:greetingKey": "greeting-b" });
    const replace = result.steps.find((s) => s.op === "replace");
    expect(replace).toMatchObject({ urn: urn("greeting"), id: "greeting-b", replaces: ["key"] });
    expect(opsLog().slice(5)).toEqual(["create greeting-b", "delete greeting"]);
    expect(record("greeting")).toBeUndefined();
    expect(record("greeting-b")).toMatchObject({ content: "hi", revision: 1 });
  });

  it("a delete-before-replace change deletes the old record before creating the new one", async () => {
    const settings = {
      "files:greeting": "hi",
      "files:greetingKey": "greeting-c",
      "files:replaceFirst": "delete-first",
    };
    const result = await up(settings);
    expect(result.steps.find((s) => s.op === "replace")).toMatchObject({ id: "greeting-c", replaces: ["key"] });
    expect(opsLog().slice(7)).toEqual(["delete greeting-b", "create greeting-c"]);
    expect(record("greeting-b")).toBeUndefined();
    expect(record("greeting-c")).toMatchObject({ content: "hi" });
  });

  it("a check failure fails the run with the provider's reason and deletes nothing", async () => {
    const stateBefore = JSON.parse(fs.readFileSync(stateFile, "utf8")) as { resources: unknown[] };
    const error = await up({ "files:greetingKey": "Not A Key" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(runner.ProgramRunError);
    expect((error as Error).message).toMatch(/greeting: check failed:\n\s+- key: key must be/);
    expect(opsLog()).toHaveLength(9);
    const stateAfter = JSON.parse(fs.readFileSync(stateFile, "utf8")) as { resources: unknown[] };
    expect(stateAfter.resources).toEqual(stateBefore.resources);
  });

  it("keeps no secret in plaintext in the state file; the generated key file is private", () => {
    const text = fs.readFileSync(stateFile, "utf8");
    expect(text).not.toContain(token);
    expect(text).not.toContain(note);
    const state = JSON.parse(text) as {
      config: Record<string, unknown>;
      resources: { urn: string; outputs: Record<string, unknown> }[];
    };
    expect(state.config["files:token"]).toEqual({ secure: expect.stringMatching(/^v1:/) });
    const noteOutputs = state.resources.find((r) => r.urn === urn("note"))?.outputs;
    expect(noteOutputs?.content).toEqual({ [values.secretSigKey]: values.secretSig, ciphertext: expect.any(String) });
    expect(fs.statSync(`${stateFile}.key`).mode & 0o777).toBe(0o600);
  });

  it("destroy deletes everything in state and leaves it empty", async () => {
    const result = await runner.runProgram({ stateFile, destroy: true });
    expect(ops(result).sort()).toEqual(["delete greeting", "delete note"]);
    expect(record("greeting-c")).toBeUndefined();
    expect(record("note")).toBeUndefined();
    const state = JSON.parse(fs.readFileSync(stateFile, "utf8")) as { resources: unknown[]; pendingDeletes: unknown[] };
    expect(state.resources).toEqual([]);
    expect(state.pendingDeletes).toEqual([]);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith(".json") && f !== "state.json")).toEqual([]);
  });
});

describe("runProgram: passphrase-encrypted state", () => {
  it("encrypts with PULUMI_CONFIG_PASSPHRASE and refuses a wrong one before touching anything", async () => {
    const passDir = fs.mkdtempSync(path.join(os.tmpdir(), "runner-pass-"));
    try {
      const passState = path.join(passDir, "state.json");
      const options = {
        programDir,
        stateFile: passState,
        config: { "files:dir": passDir, "files:token": token, "files:secretNote": note },
        secretConfigKeys: ["files:token", "files:secretNote"],
      };
      const first = await runner.runProgram({ ...options, env: { PULUMI_CONFIG_PASSPHRASE: "correct horse" } });
      expect(first.summary.create).toBe(2);
      const state = JSON.parse(fs.readFileSync(passState, "utf8")) as { secretsProvider: { type: string } };
      expect(state.secretsProvider.type).toBe("passphrase");
      expect(fs.existsSync(`${passState}.key`)).toBe(false);
      expect(fs.readFileSync(passState, "utf8")).not.toContain(note);

      await expect(
        runner.runProgram({ ...options, env: { PULUMI_CONFIG_PASSPHRASE: "wrong" }, destroy: true }),
      ).rejects.toThrow(/incorrect PULUMI_CONFIG_PASSPHRASE/);
      expect(fs.readFileSync(path.join(passDir, "ops.log"), "utf8").trim().split("\n")).toHaveLength(2);

      const destroyed = await runner.runProgram({
        stateFile: passState,
        destroy: true,
        env: { PULUMI_CONFIG_PASSPHRASE: "correct horse" },
      });
      expect(destroyed.summary.delete).toBe(2);
    } finally {
      fs.rmSync(passDir, { recursive: true, force: true });
    }
  });
});

describe("runProgram: preview of a new stack", () => {
  it("plans every create with unknown computed outputs, and writes nothing", async () => {
    const previewDir = fs.mkdtempSync(path.join(os.tmpdir(), "runner-preview-"));
    try {
      const previewState = path.join(previewDir, "state.json");
      const result = await runner.runProgram({
        programDir,
        stateFile: previewState,
        preview: true,
        config: { "files:dir": previewDir, "files:token": token, "files:secretNote": note, "files:withExtra": "true" },
        secretConfigKeys: ["files:token", "files:secretNote"],
      });
      expect(ops(result).sort()).toEqual(["create extra", "create greeting", "create note"]);
      expect(result.steps.every((s) => s.id === undefined)).toBe(true);
      // `extra` depends on greeting.revision, unknown until greeting exists: its check got the unknown sentinel.
      expect(result.outputs).toMatchObject({ greetingRevision: { unknown: true }, extraContent: { unknown: true } });
      expect(result.outputsWithSecrets.greetingRevision).toBe(values.unknownValue);
      expect(result.requests.map((r) => r.method).filter((m) => m !== "configure" && m !== "check")).toEqual([]);
      expect(fs.readdirSync(previewDir)).toEqual([]);
    } finally {
      fs.rmSync(previewDir, { recursive: true, force: true });
    }
  });
});

describe("runProgram: partial failures and existing objects", () => {
  it("records a partially created resource so the next run updates it, and reads objects given by id", async () => {
    const partialDir = fs.mkdtempSync(path.join(os.tmpdir(), "runner-partial-"));
    try {
      const partialState = path.join(partialDir, "state.json");
      fs.writeFileSync(
        path.join(partialDir, "outside.json"),
        JSON.stringify({ key: "outside", content: "made elsewhere", revision: 7 }),
      );
      const run = (greeting: string) =>
        runner.runProgram({
          programDir,
          stateFile: partialState,
          config: {
            "files:dir": partialDir,
            "files:token": token,
            "files:secretNote": note,
            "files:greeting": greeting,
            "files:lookupKey": "outside",
          },
          secretConfigKeys: ["files:token", "files:secretNote"],
        });

      const failed = await run("fail-init").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(failed).toBeInstanceOf(runner.ProgramRunError);
      expect((failed as Error).message).toContain("record greeting was written but failed to initialise");
      const state = JSON.parse(fs.readFileSync(partialState, "utf8")) as { resources: { urn: string; id: string }[] };
      expect(state.resources.find((r) => r.urn === urn("greeting"))?.id).toBe("greeting");

      const fixed = await run("fixed");
      expect(ops(fixed).sort()).toEqual(["read lookup", "same note", "update greeting"]);
      expect(fixed.steps.find((s) => s.op === "read")?.id).toBe("outside");
      expect(fixed.outputs).toMatchObject({ greetingRevision: 2, lookupContent: "made elsewhere", lookupRevision: 7 });

      const destroyed = await runner.runProgram({ stateFile: partialState, destroy: true });
      expect(ops(destroyed).sort()).toEqual(["delete greeting", "delete note"]);
      expect(fs.existsSync(path.join(partialDir, "outside.json"))).toBe(true);
      expect(fs.readFileSync(path.join(partialDir, "ops.log"), "utf8").trim().split("\n").sort()).toEqual(
        ["create greeting", "create note", "delete greeting", "delete note", "update greeting"].sort(),
      );
    } finally {
      fs.rmSync(partialDir, { recursive: true, force: true });
    }
  });
});

describe("runProgram: unsupported resources", () => {
  it("rejects a non-dynamic resource type with a message saying the runner only runs dynamic resources", async () => {
    const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), "runner-other-"));
    try {
      fs.writeFileSync(path.join(otherDir, "Pulumi.yaml"), "name: other\nruntime: nodejs\n");
      fs.writeFileSync(
        path.join(otherDir, "index.ts"),
        [
          `import * as pulumi from ${JSON.stringify(load.resolve("@pulumi/pulumi"))};`,
          'export const bucket = new pulumi.CustomResource("aws:s3/bucket:Bucket", "b", {}).urn;',
        ].join("\n"),
      );
      await expect(
        runner.runProgram({ programDir: otherDir, stateFile: path.join(otherDir, "s.json") }),
      ).rejects.toThrow(
        /aws:s3\/bucket:Bucket "b" is not a dynamic resource; the offline runner only runs dynamic-provider resources/,
      );
    } finally {
      fs.rmSync(otherDir, { recursive: true, force: true });
    }
  });
});

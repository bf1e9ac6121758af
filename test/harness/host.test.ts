// The real dynamic-provider host, driven over gRPC the way the engine drives it, with a small file-backed provider.
// Harness and fixture are loaded natively from dist/ and through the TypeScript hook: vitest's transform would break
// closure serialization.
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as Harness from "./index.js";
import type * as FileProvider from "../fixtures/file-provider/index.js";

const load = createRequire(__filename);
const harness = load(path.resolve(__dirname, "../../dist/test/harness/index.js")) as typeof Harness;
const { makeSecret, isSecret, unknownValue, ProviderHostError } = harness;
const fixture = harness.requireTypeScript(
  path.resolve(__dirname, "../fixtures/file-provider/index.ts"),
) as typeof FileProvider;

const token = `tok-${crypto.randomBytes(8).toString("hex")}`;
const type = "pulumi-nodejs:dynamic/files:Record";
const urn = harness.urnFor(type, "rec");

let host: Harness.DynamicProviderHost;
let dir: string;
let providerText: string;
/** Every response the host sent, to check that the token never comes back. */
const responses: unknown[] = [];
const seen = <T>(value: T): T => {
  responses.push(value);
  return value;
};

const opsLog = (): string[] => {
  const file = path.join(dir, "ops.log");
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n") : [];
};
const recordOnDisk = (key: string): Record<string, unknown> | undefined => {
  const file = path.join(dir, `${key}.json`);
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>) : undefined;
};
const hmac = (key: string, content: string): string =>
  crypto.createHmac("sha256", token).update(`${key}\n${content}`).digest("hex");
const inputs = (extra: Record<string, Harness.PropertyValue>): Harness.PropertyMap => ({
  __provider: providerText,
  ...extra,
});

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "host-test-"));
  const registration = await harness.captureDynamicRegistration(
    () => new fixture.FileRecord("rec", { key: "alpha", content: "one" }),
  );
  expect(registration.type).toBe(type);
  providerText = registration.inputs.__provider as string;
  host = await harness.startHost();
  console.info(`host start: ${host.startMs.toFixed(0)} ms (port ${host.port})`);
});

afterAll(async () => {
  await host?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("DynamicProviderHost against the real dynamic-provider host", () => {
  it("serializes the provider from the program's construction, without captured config", () => {
    expect(providerText).toContain("exports.handler");
    expect(providerText).toContain('req.config.get("files:token")');
    expect(providerText).not.toContain(token);
  });

  it("configure sends the secret config value sig-wrapped; the host declines secrets like the engine expects", async () => {
    const result = seen(await host.configure({ "files:dir": dir, "files:token": token }, ["files:token"]));
    expect(result).toEqual({ acceptSecrets: false });
  });

  it("rejects un-namespaced config keys before calling the host", async () => {
    const calls = host.calls.length;
    await expect(host.configure({ dir }, [])).rejects.toThrow('config key "dir" must be namespaced');
    expect(host.calls.length).toBe(calls);
  });

  it("check returns a failure per bad property and writes nothing", async () => {
    const started = performance.now();
    const result = seen(await host.check(urn, {}, inputs({ key: "Not A Key", content: 5, tags: "x" })));
    console.info(`first check: ${(performance.now() - started).toFixed(0)} ms`);
    expect(result.failures.map((f) => f.property).sort()).toEqual(["content", "key", "tags"]);
    expect(result.failures.find((f) => f.property === "key")?.reason).toMatch(/a-z, 0-9/);
    expect(opsLog()).toEqual([]);
  });

  it("check accepts the preview unknown sentinel and passes it through", async () => {
    const result = seen(await host.check(urn, {}, inputs({ key: "alpha", content: unknownValue })));
    expect(result.failures).toEqual([]);
    expect(result.inputs.content).toBe(unknownValue);
  });

  it("strips secret wrappers before the host sees them, and remarkSecrets marks same-named outputs", async () => {
    const result = seen(await host.check(urn, {}, inputs({ key: "alpha", content: makeSecret("hidden") })));
    // The provider saw a plain string (a wrapper would have failed "content must be a string").
    expect(result.failures).toEqual([]);
    expect(result.inputs.content).toBe("hidden");
    const remarked = host.remarkSecrets(result.inputs, ["content", "absent"]);
    expect(isSecret(remarked.content)).toBe(true);
    expect(remarked.key).toBe("alpha");
    expect("absent" in remarked).toBe(false);
  });

  it("runs create → read → diff (none / change / replace) → update → delete, with the files to match", async () => {
    const timings: string[] = [];
    const timed = async <T>(label: string, call: () => Promise<T>): Promise<T> => {
      const started = performance.now();
      const result = seen(await call());
      timings.push(`${label} ${(performance.now() - started).toFixed(0)} ms`);
      return result;
    };

    const checked = await timed("check", () =>
      host.check(urn, {}, inputs({ key: "alpha", content: "one", tags: ["a"] })),
    );
    expect(checked.failures).toEqual([]);
    expect(checked.inputs).toEqual({ __provider: providerText, key: "alpha", content: "one", tags: ["a"] });

    // create
    const created = await timed("create", () => host.create(urn, checked.inputs));
    expect(created.id).toBe("alpha");
    expect(created.outputs).toEqual({
      __provider: providerText,
      key: "alpha",
      content: "one",
      tags: ["a"],
      revision: 1,
      path: path.join(dir, "alpha.json"),
    });
    // The signature proves the token reached the provider through Configure.
    expect(recordOnDisk("alpha")).toMatchObject({ content: "one", revision: 1, signature: hmac("alpha", "one") });
    expect(opsLog()).toEqual(["create alpha"]);

    // read
    const read = await timed("read", () => host.read("alpha", urn, created.outputs, checked.inputs));
    expect(read.id).toBe("alpha");
    expect(read.props).toEqual(created.outputs);
    expect(read.inputs).toEqual({ __provider: providerText, key: "alpha", content: "one", tags: ["a"] });

    // diff: nothing changed
    const same = await timed("diff", () => host.diff("alpha", urn, created.outputs, checked.inputs, checked.inputs));
    expect(same).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });

    // diff: an in-place change
    const changedInputs = inputs({ key: "alpha", content: "two", tags: ["a"] });
    const change = await timed("diff", () => host.diff("alpha", urn, created.outputs, changedInputs, checked.inputs));
    expect(change).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });

    // diff: a replacement, create-first and delete-first
    const renamed = inputs({ key: "beta", content: "one", tags: ["a"] });
    const replace = await timed("diff", () => host.diff("alpha", urn, created.outputs, renamed, checked.inputs));
    expect(replace).toEqual({ changes: true, replaces: ["key"], deleteBeforeReplace: false });
    const renamedFirst = { ...renamed, replaceStrategy: "delete-first" };
    const dbr = await timed("diff", () => host.diff("alpha", urn, created.outputs, renamedFirst, checked.inputs));
    expect(dbr).toEqual({ changes: true, replaces: ["key"], deleteBeforeReplace: true });
    expect(opsLog()).toEqual(["create alpha"]);

    // update returns the full outputs
    const updated = await timed("update", () =>
      host.update("alpha", urn, created.outputs, changedInputs, checked.inputs),
    );
    expect(updated).toEqual({ ...created.outputs, content: "two", revision: 2 });
    expect(recordOnDisk("alpha")).toMatchObject({ content: "two", revision: 2, signature: hmac("alpha", "two") });
    expect(opsLog()).toEqual(["create alpha", "update alpha"]);

    // delete, then read reports the resource gone (empty id)
    await timed("delete", () => host.delete("alpha", urn, updated, changedInputs));
    expect(recordOnDisk("alpha")).toBeUndefined();
    expect(opsLog()).toEqual(["create alpha", "update alpha", "delete alpha"]);
    const gone = await timed("read", () => host.read("alpha", urn, updated, changedInputs));
    expect(gone.id).toBe("");
    console.info(`per call: ${timings.join(", ")}`);
  });

  it("surfaces provider errors as ProviderHostError with the gRPC code and the provider's message", async () => {
    const props = inputs({ key: "ghost", content: "x", revision: 1, path: path.join(dir, "ghost.json") });
    const error = await host.update("ghost", urn, props, inputs({ key: "ghost", content: "y" })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderHostError);
    expect(error).toMatchObject({ method: "update", code: 2, details: "record ghost does not exist" });
    expect((error as Error).message).toContain("(gRPC UNKNOWN): record ghost does not exist");
    expect(recordOnDisk("ghost")).toBeUndefined();
  });

  it("reports a partial create (error carrying an id) as ProviderHostError.initFailure", async () => {
    const error = await host.create(urn, inputs({ key: "delta", content: "fail-init" })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderHostError);
    expect(error).toMatchObject({
      method: "create",
      code: 2,
      details: "record delta was written but failed to initialise",
      initFailure: {
        id: "delta",
        properties: { key: "delta", content: "fail-init", revision: 1, path: path.join(dir, "delta.json") },
        reasons: ["content is fail-init"],
      },
    });
    expect(recordOnDisk("delta")).toMatchObject({ content: "fail-init" });
    seen((error as Harness.ProviderHostError).initFailure);
  });

  it("never returns the secret config value in any response or log line", () => {
    expect(responses.length).toBeGreaterThan(10);
    for (const response of responses) expect(JSON.stringify(response) ?? "").not.toContain(token);
    expect(host.logs().join("\n")).not.toContain(token);
  });

  it("withHost configures a host for the body, then stop() kills its process group and waits for it", async () => {
    let pid = 0;
    let other: Harness.DynamicProviderHost | undefined;
    const config = { "files:dir": dir, "files:token": token };
    const checked = await harness.withHost(
      async (h) => {
        other = h;
        pid = h.pid as number;
        expect(() => process.kill(pid, 0)).not.toThrow();
        return h.check(urn, {}, inputs({ key: "gamma", content: "x" }));
      },
      { config, secretKeys: ["files:token"] },
    );
    expect(checked.failures).toEqual([]);
    expect(other?.calls.map((c) => c.method)).toEqual(["configure", "check"]);
    expect(() => process.kill(-pid, 0)).toThrow(/ESRCH/);
    await expect(other?.check(urn, {}, inputs({ key: "gamma", content: "x" }))).rejects.toBeInstanceOf(
      ProviderHostError,
    );
    await other?.stop();
  });
});

// Secret hygiene: the token is set in the program's stack config and environment (as a real program would have it)
// and sent to the real host as a secret config value; it must appear in no `__provider` text, no check result, no
// output or read input, no error message and no host log line. Needs `npm run build`.
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as PulumiModule from "@pulumi/pulumi";
import { harness, programInputs, ResourceStack, sdk, startEnv, stopEnv, type Env } from "./support.js";

const pulumi = createRequire(__filename)("@pulumi/pulumi") as typeof PulumiModule;

let env: Env;
let token = "";
const seen: unknown[] = [];
const providerTexts: Record<string, unknown> = {};

beforeAll(async () => {
  env = await startEnv();
  token = env.server.adminKey;
  // What a program process holds: the token in stack config and in the environment.
  pulumi.runtime.setConfig("cpln:token", token);
  process.env.CPLN_TOKEN = token;
  const inputsOf = async (construct: () => void) => (await programInputs(construct)).inputs;
  const volumeSet = await inputsOf(() => new sdk.VolumeSet("v", { gvc: "default", initialCapacity: 10 }));
  const policy = await inputsOf(() => new sdk.Policy("p", { targetKind: "gvc", target: "all" }));
  const location = await inputsOf(() => new sdk.Location("l", { name: "aws-us-east-1" }));
  const group = await inputsOf(() => new sdk.Group("g", {}));
  const serviceAccount = await inputsOf(() => new sdk.ServiceAccount("s", {}));
  const key = await inputsOf(() => new sdk.ServiceAccountKey("k", { serviceAccount: "s", description: "k" }));
  const audit = await inputsOf(() => new sdk.AuditContext("a", {}));
  const cloud = await inputsOf(() => new sdk.CloudAccount("c", { provider: "aws" }));
  const binding = await inputsOf(
    () => new sdk.PolicyBinding("b", { policy: "p", permissions: ["view"], principalLinks: ["//group/g"] }),
  );
  Object.assign(providerTexts, {
    VolumeSet: volumeSet.__provider,
    Policy: policy.__provider,
    Location: location.__provider,
    Group: group.__provider,
    ServiceAccount: serviceAccount.__provider,
    ServiceAccountKey: key.__provider,
    AuditContext: audit.__provider,
    CloudAccount: cloud.__provider,
    PolicyBinding: binding.__provider,
  });
});
afterAll(async () => {
  delete process.env.CPLN_TOKEN;
  await stopEnv(env);
});

describe("serialized providers", () => {
  it.each([
    "VolumeSet",
    "Policy",
    "Location",
    "Group",
    "ServiceAccount",
    "ServiceAccountKey",
    "AuditContext",
    "CloudAccount",
    "PolicyBinding",
  ])("%s: __provider is a small plain string that only requires the runtime by package path", (kind) => {
    const text = providerTexts[kind];
    expect(typeof text).toBe("string"); // a captured secret would make it a secret value
    const source = text as string;
    expect(source).toContain('require("cpln-pulumi/dist/provider/runtime.js")');
    expect(source).toContain(`typeName: "${kind}"`);
    expect(source).not.toContain(token);
    expect(source).not.toMatch(/zod|undici|CplnClient|adminKey|Bearer/);
    expect(source.length).toBeLessThan(4096);
  });
});

describe("a whole lifecycle with the token as secret config", () => {
  it("the host declines secrets, so the engine strips them before every call", async () => {
    const host = await harness.startHost();
    try {
      const { acceptSecrets } = await host.configure(
        { "cpln:token": token, "cpln:endpoint": env.server.url, "cpln:org": env.server.org },
        ["cpln:token"],
      );
      expect(acceptSecrets).toBe(false);
    } finally {
      await host.stop();
    }
  });

  it("no check result, output, read result or read input holds the token", async () => {
    const stack = new ResourceStack(env, "pulumi-nodejs:dynamic/cpln:VolumeSet", "v");
    const news = async (capacity: number) =>
      (
        await programInputs(
          () =>
            new sdk.VolumeSet("v", {
              gvc: "default",
              initialCapacity: capacity,
              performanceClass: "general-purpose-ssd",
            }),
        )
      ).inputs;
    await stack.up(await news(10));
    seen.push(stack.inputs, stack.outputs);
    await stack.up(await news(20));
    seen.push(stack.inputs, stack.outputs);
    await stack.refresh();
    seen.push(stack.inputs, stack.outputs);
    await stack.destroy();
    expect(stack.id).toBe("");
    for (const value of seen) expect(JSON.stringify(value)).not.toContain(token);
    expect(env.host.logs().join("\n")).not.toContain(token);
  });
});

describe("errors", () => {
  it("a rejected token: the error names the request and the status, never the token", async () => {
    const wrongToken = "not-a-real-key-7c2d0f8e1b.SECRET";
    const host = await harness.startHost();
    try {
      await host.configure({ "cpln:token": wrongToken, "cpln:endpoint": env.server.url, "cpln:org": env.server.org }, [
        "cpln:token",
      ]);
      const urn = harness.urnFor("pulumi-nodejs:dynamic/cpln:Policy", "p");
      const { inputs } = await host.check(
        urn,
        {},
        {
          __provider: providerTexts.Policy as string,
          __logicalName: "p",
          targetKind: "gvc",
          target: "all",
        },
      );
      const error = await host.create(urn, inputs).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toMatch(/Creating Policy "p-[0-9a-f]{7}" failed: POST \/org\/[^ ]+\/policy failed \(401/);
      expect(error?.message).not.toContain(wrongToken);
      expect(error?.message).not.toContain("SECRET");
      expect(host.logs().join("\n")).not.toContain(wrongToken);
    } finally {
      await host.stop();
    }
  });

  it("API errors (missing location, 409 conflict, a PATCH into an org the key cannot reach) carry no token", async () => {
    const messages: string[] = [];
    const fail = async (run: () => Promise<unknown>) => {
      const error = await run().then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error).toBeInstanceOf(Error);
      messages.push(error?.message ?? "");
    };
    const location = new ResourceStack(env, "pulumi-nodejs:dynamic/cpln:Location", "nowhere");
    await fail(async () =>
      location.up((await programInputs(() => new sdk.Location("nowhere", { name: "aws-nowhere-1" }))).inputs),
    );
    await env.client.createPolicy({ name: "taken", targetKind: "gvc", target: "all" });
    const policy = new ResourceStack(env, "pulumi-nodejs:dynamic/cpln:Policy", "taken");
    await fail(async () =>
      policy.up(
        (await programInputs(() => new sdk.Policy("taken", { name: "taken", targetKind: "gvc", target: "all" })))
          .inputs,
      ),
    );
    // A state pointing into another org: the PATCH is refused by the server.
    const urn = harness.urnFor("pulumi-nodejs:dynamic/cpln:VolumeSet", "gone");
    await fail(() =>
      env.host.update(
        "/org/nope/gvc/default/volumeset/x",
        urn,
        { __provider: providerTexts.VolumeSet as string },
        {
          __provider: providerTexts.VolumeSet as string,
          gvc: "default",
          initialCapacity: 10,
          name: "x",
          org: "nope",
        },
      ),
    );
    expect(messages).toHaveLength(3);
    expect(messages[0]).toMatch(/Location "aws-nowhere-1" does not exist/);
    expect(messages[1]).toMatch(/409/);
    for (const message of messages) expect(message).not.toContain(token);
    expect(env.host.logs().join("\n")).not.toContain(token);
  });
});

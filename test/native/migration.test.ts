// Moving a TypeScript stack from the dynamic classes to the native ones: a VolumeSet created through Pulumi's real
// dynamic-provider host, then the program switched to `cpln-pulumi/native`. The native class registers under the
// alias of the dynamic type, the plugin's DiffConfig does not replace anything when the default provider changes,
// its Check keeps the stored inputs exactly (the old `__provider` included) and its Diff is empty: zero writes.
// Needs `npm run build`.
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as NativeSdk from "../../sdk/native/index.js";
import { programInputs, ResourceStack, sdk, startEnv, stopEnv, takeRequests, type Env } from "../provider/support.js";
import { executable, nativeClient, scratchDir, secret, type NativePluginClient } from "./support.js";

const load = createRequire(__filename);
const native = load("../../dist/sdk/native/index.js") as typeof NativeSdk;
const harness = load("../../dist/test/harness/index.js") as typeof import("../harness/index.js");

let env: Env;
let plugin: NativePluginClient;
beforeAll(async () => {
  env = await startEnv();
  plugin = await nativeClient.NativePluginClient.executable(executable, { cwd: scratchDir() });
  await plugin.configure({ org: env.server.org, endpoint: env.server.url, token: secret(env.server.adminKey) });
});
afterAll(async () => {
  await plugin?.stop();
  await stopEnv(env);
});

describe("dynamic → native migration", () => {
  it("the native classes register cpln-native:index:<Type> (get too), with the alias of the dynamic type", async () => {
    const registrations = await harness.captureDynamicRegistrations(
      () => new native.VolumeSet("data", { gvc: "default", initialCapacity: 20 }),
    );
    expect(registrations.map((r) => r.type)).toEqual(["cpln-native:index:VolumeSet"]);
    const read = await harness.captureDynamicRegistrations(() =>
      native.Policy.get("viewers", "/org/acme/policy/viewers-gvc"),
    );
    expect(read.map((r) => r.type)).toEqual(["cpln-native:index:Policy"]);
    const options = native.nativeResourceOptions("VolumeSet", { protect: true });
    expect(options).toMatchObject({ protect: true, aliases: [{ type: "pulumi-nodejs:dynamic/cpln:VolumeSet" }] });
  });

  it("a stack created with the dynamic classes makes zero writes after the switch", async () => {
    const args = {
      gvc: "default",
      initialCapacity: 20,
      performanceClass: "general-purpose-ssd" as const,
      tags: { team: "storage" },
    };
    const dynamicStack = new ResourceStack(env, "pulumi-nodejs:dynamic/cpln:VolumeSet", "data");
    const { inputs: dynamicInputs } = await programInputs(() => new sdk.VolumeSet("data", args));
    expect((await dynamicStack.up(dynamicInputs)).op).toBe("create");
    expect(typeof dynamicStack.inputs.__provider).toBe("string");

    // The program now uses the native class: same name, same args.
    const registrations = await harness.captureDynamicRegistrations(() => new native.VolumeSet("data", args));
    const news = registrations[0]!.inputs;
    takeRequests(env.server);

    // The default provider changes from pulumi-nodejs to cpln-native: DiffConfig must not ask for a replace.
    const providerUrn = "urn:pulumi:stack::project::pulumi:providers:cpln-native::default";
    const config = await plugin.diffConfig(providerUrn, {}, { org: env.server.org, endpoint: env.server.url });
    expect(config.replaces).toEqual([]);

    const urn = "urn:pulumi:stack::project::cpln-native:index:VolumeSet::data";
    const checked = await plugin.check(urn, dynamicStack.inputs, news);
    expect(checked.failures).toEqual([]);
    // The same inputs, but the self link the dynamic classes' check adds for previews (provider/runtime.ts,
    // checkWithLink): the native plugin previews an update with the old outputs, so it has no need of it.
    const { selfLink, ...withoutLink } = dynamicStack.inputs;
    expect(selfLink).toBe(dynamicStack.id);
    expect(checked.inputs).toEqual(withoutLink);
    const diff = await plugin.diff(dynamicStack.id, urn, dynamicStack.outputs, checked.inputs, dynamicStack.inputs);
    expect(diff).toMatchObject({ changes: "none", replaces: [], detailedDiff: {} });
    expect(takeRequests(env.server)).toEqual([]);

    // And the native plugin manages it from here on: an edit is one PATCH on the same object.
    const edited = await plugin.check(urn, checked.inputs, { ...news, initialCapacity: 25 });
    const editDiff = await plugin.diff(dynamicStack.id, urn, dynamicStack.outputs, edited.inputs);
    expect(editDiff.detailedDiff).toEqual({ initialCapacity: "UPDATE" });
    await plugin.update(dynamicStack.id, urn, dynamicStack.outputs, edited.inputs);
    expect(takeRequests(env.server)).toEqual([
      { method: "PATCH", path: dynamicStack.id, status: 200, body: { spec: { initialCapacity: 25 } } },
    ]);
    await plugin.delete(dynamicStack.id, urn, dynamicStack.outputs);
  });
});

// A type's secret fields are secret inputs as well as outputs: the plugin's Check wraps them even when the program
// sent them in plaintext, as an SDK generated from schema.json does (the Python, Go and YAML SDKs mark `data` secret
// only as an output: `additional_secret_outputs`), because the engine stores the inputs Check returns. Without it the
// app example's Python program left the Secret's `data` in plaintext in the state (test/engine/app-python.test.ts).
// Needs `npm run build`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  executable,
  nativeClient,
  scratchDir,
  secret,
  serverModule,
  takeRequests,
  urnFor,
  type NativePluginClient,
  type RunningServer,
} from "./support.js";

let server: RunningServer;
let plugin: NativePluginClient;

beforeAll(async () => {
  server = await serverModule.startServer({ recordRequests: true });
  plugin = await nativeClient.NativePluginClient.executable(executable, { cwd: scratchDir() });
  await plugin.configure({ org: server.org, endpoint: server.url, token: secret(server.adminKey) });
});

afterAll(async () => {
  await plugin?.stop();
  await server?.close();
});

describe("secret inputs", () => {
  const urn = urnFor("cpln-native:index:Secret", "settings");
  const data = { DATABASE_URL: "postgres://app@db:5432/app", API_KEY: "not-a-real-key" };

  it("Check returns a Secret's plaintext data as a secret input, and nothing else as secret", async () => {
    const checked = await plugin.check(urn, {}, { name: "settings", type: "dictionary", data, description: "app" });
    expect(checked.failures).toEqual([]);
    expect(checked.inputs.data).toEqual(secret(data));
    expect(checked.inputs.type).toBe("dictionary");
    expect(checked.inputs.description).toBe("app");
    // An input the program sent as a secret stays one, once (not wrapped twice).
    const again = await plugin.check(urn, {}, { name: "settings", type: "dictionary", data: secret(data) });
    expect(again.inputs.data).toEqual(secret(data));
  });

  it("Create with those inputs stores the data and answers it secret", async () => {
    const { inputs } = await plugin.check(urn, {}, { name: "settings", type: "dictionary", data });
    takeRequests(server);
    const created = await plugin.create(urn, inputs);
    expect(created.outputs.data).toEqual(secret(data));
    expect(takeRequests(server).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `POST /org/${server.org}/secret 201`,
    ]);
    const revealed = await fetch(`${server.url}/org/${server.org}/secret/settings/-reveal`, {
      headers: { authorization: `Bearer ${server.adminKey}` },
    });
    expect(((await revealed.json()) as { data: unknown }).data).toEqual(data);
    await plugin.delete(created.id, urn, created.outputs);
  });
});

// ServiceAccount and ServiceAccountKey through Pulumi's real dynamic-provider host against cpln-local. The account:
// create, no-op, update, keyNames, delete. The key: create = one POST -addKey whose key is an output only (the SDK
// marks it secret) and authenticates; no-op; a description change replaces it (new key added, old one revoked with
// $drop/keys); read; delete = one PATCH revoking it. The key appears in no __provider, no input, no other output, no
// host log line and no error. Needs `npm run build`.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import type * as PulumiModule from "@pulumi/pulumi";
import type { ServiceAccountArgs, ServiceAccountKeyArgs } from "../../sdk/index.js";
import {
  harness,
  inputsOf,
  programInputs,
  ResourceStack,
  sdk,
  withEnv,
  type Env,
  type PropertyMap,
} from "./support.js";

interface RegisterRequest {
  getName(): string;
  getAdditionalsecretoutputsList(): string[];
}

const SA = "pulumi-nodejs:dynamic/cpln:ServiceAccount";
const KEY = "pulumi-nodejs:dynamic/cpln:ServiceAccountKey";

let env: Env;
let org = "";
withEnv((started) => {
  env = started;
  org = started.server.org;
});

function accountInputs(args: ServiceAccountArgs): Promise<PropertyMap> {
  return inputsOf(SA, () => new sdk.ServiceAccount("ci", args));
}

function keyInputs(args: ServiceAccountKeyArgs): Promise<PropertyMap> {
  return inputsOf(KEY, () => new sdk.ServiceAccountKey("ci-key", args));
}

/** True when `key` authenticates against the server. */
async function authenticates(key: string): Promise<boolean> {
  const response = await fetch(`${env.server.url}/org/${org}/serviceaccount`, {
    headers: { authorization: `Bearer ${key}` },
  });
  await response.text();
  return response.status === 200;
}

describe("ServiceAccount and ServiceAccountKey lifecycle", () => {
  let account: ResourceStack;
  let key: ResourceStack;
  let link = "";
  let name = "";
  const keys: string[] = [];
  /** Names of the keys added by hand (not by a ServiceAccountKey resource): the account's keyNames. */
  const keyNamesByHand: string[] = [];
  const seen: unknown[] = [];

  it("account create: one POST and a generated name; keyNames is empty", async () => {
    account = new ResourceStack(env, SA, "ci");
    const step = await account.up(await accountInputs({ tags: { purpose: "ci" } }));
    name = account.outputs.name as string;
    expect(name).toMatch(/^ci-[0-9a-f]{7}$/);
    link = `/org/${org}/serviceaccount/${name}`;
    expect(step.requests).toEqual([
      {
        method: "POST",
        path: `/org/${org}/serviceaccount`,
        status: 201,
        body: { name, description: name, tags: { purpose: "ci" } },
      },
    ]);
    expect(account.id).toBe(link);
    expect(account.outputs).toMatchObject({ origin: "default", keyNames: [], org, selfLink: link, version: 1 });
    expect(await account.up(await accountInputs({ tags: { purpose: "ci" } }))).toMatchObject({
      op: "same",
      requests: [],
    });
  });

  it("key create: one POST -addKey and one PATCH marking it; the key is an output that authenticates, and nowhere else", async () => {
    key = new ResourceStack(env, KEY, "ci-key");
    const inputs = await keyInputs({ serviceAccount: name, description: "GitHub Actions" });
    const step = await key.up(inputs);
    const value = key.outputs.key as string;
    const keyName = key.outputs.name as string;
    expect(step.requests).toEqual([
      { method: "POST", path: `${link}/-addKey`, status: 200, body: { description: "GitHub Actions" } },
      {
        method: "PATCH",
        path: link,
        status: 200,
        body: { tags: { [`cpln/pulumiServiceAccountKey.${keyName}`]: "true" } },
      },
    ]);
    expect(value.startsWith(`${keyName}.`)).toBe(true);
    keys.push(value);
    expect(key.id).toBe(`${link}#${keyName}`);
    expect(key.outputs).toMatchObject({
      serviceAccount: name,
      description: "GitHub Actions",
      org,
      name: keyName,
      serviceAccountLink: link,
    });
    expect(await authenticates(value)).toBe(true);
    const { key: _secret, ...others } = key.outputs;
    seen.push(inputs, key.inputs, others);

    // The account's read leaves out the stack's own (marked) key; a key added by hand shows by its name only.
    const refreshed = await account.refresh();
    expect(refreshed.requests).toEqual([{ method: "GET", path: link, status: 200, body: undefined }]);
    expect(account.outputs.keyNames).toEqual([]);
    const byHand = await env.client.addServiceAccountKey(name, "by hand");
    keys.push(byHand.key);
    keyNamesByHand.push(byHand.name);
    await account.refresh();
    expect(account.outputs.keyNames).toEqual([byHand.name]);
    seen.push(account.outputs, account.inputs);
  });

  it("no-op: the same args send nothing; read is one GET of the account and keeps the key from the state", async () => {
    expect(await key.up(await keyInputs({ serviceAccount: name, description: "GitHub Actions" }))).toMatchObject({
      op: "same",
      requests: [],
    });
    const before = key.outputs.key;
    const refreshed = await key.refresh();
    expect(refreshed).toEqual({ gone: false, requests: [{ method: "GET", path: link, status: 200, body: undefined }] });
    expect(key.outputs.key).toBe(before);
    expect(key.inputs).toMatchObject({ serviceAccount: name, description: "GitHub Actions", org });
    expect(key.inputs).not.toHaveProperty("key");
  });

  it("a description change replaces the key: -addKey, then the old key revoked with $drop/keys", async () => {
    const oldName = key.outputs.name as string;
    const oldKey = key.outputs.key as string;
    const step = await key.up(await keyInputs({ serviceAccount: name, description: "GitHub Actions (rotated)" }));
    expect(step.op).toBe("replace");
    // Create first: CI can switch to the new key before the old one is revoked.
    expect(step.diff).toEqual({ changes: true, replaces: ["description"], deleteBeforeReplace: false });
    const newName = key.outputs.name as string;
    expect(newName).not.toBe(oldName);
    expect(step.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `POST ${link}/-addKey 200`,
      `PATCH ${link} 200`,
      `PATCH ${link} 200`,
    ]);
    expect(step.requests.slice(1).map((r) => r.body)).toEqual([
      { tags: { [`cpln/pulumiServiceAccountKey.${newName}`]: "true" } },
      { "$drop/keys": [oldName], tags: { [`cpln/pulumiServiceAccountKey.${oldName}`]: null } },
    ]);
    keys.push(key.outputs.key as string);
    expect(await authenticates(oldKey)).toBe(false);
    expect(await authenticates(key.outputs.key as string)).toBe(true);
    const { key: _secret, ...others } = key.outputs;
    seen.push(key.inputs, others);
  });

  it("account update: one PATCH with the description only; keys untouched", async () => {
    const step = await account.up(await accountInputs({ tags: { purpose: "ci" }, description: "CI identity" }));
    expect(step.requests).toEqual([{ method: "PATCH", path: link, status: 200, body: { description: "CI identity" } }]);
    expect(account.outputs.keyNames).toEqual(keyNamesByHand);
  });

  it("key delete: one PATCH revoking it and removing its marker; the key no longer authenticates and a refresh drops it", async () => {
    const keyName = key.outputs.name as string;
    const value = key.outputs.key as string;
    const state = { id: key.id, outputs: key.outputs, inputs: key.inputs };
    expect(await key.destroy()).toEqual([
      {
        method: "PATCH",
        path: link,
        status: 200,
        body: { "$drop/keys": [keyName], tags: { [`cpln/pulumiServiceAccountKey.${keyName}`]: null } },
      },
    ]);
    expect(await authenticates(value)).toBe(false);
    Object.assign(key, state);
    expect((await key.refresh()).gone).toBe(true);
  });

  it("the keys appear in no __provider, input, non-secret output, host log line or error", async () => {
    const { inputs } = await programInputs(
      () => new sdk.ServiceAccountKey("k", { serviceAccount: name, description: "k" }),
    );
    const provider = inputs.__provider as string;
    // An error from the key's resource: it names the request, and holds no key.
    const error = await env.host
      .create(harness.urnFor(KEY, "bad"), { __provider: provider, serviceAccount: "missing-account", org })
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(error?.message).toMatch(/Creating ServiceAccountKey failed: POST .*missing-account\/-addKey failed \(404/);
    seen.push(error?.message, provider);
    const text = JSON.stringify(seen) + env.host.logs().join("\n");
    for (const value of keys) {
      expect(text).not.toContain(value);
      expect(text).not.toContain(value.split(".")[1]);
    }
  });

  it("account delete: one DELETE", async () => {
    expect(await account.destroy()).toEqual([{ method: "DELETE", path: link, status: 202, body: undefined }]);
    expect(await env.client.getByLink(link)).toBeUndefined();
  });
});

describe("ServiceAccountKey in a program", () => {
  it("the SDK class registers with additionalSecretOutputs [key], keeping the program's own", async () => {
    const load = createRequire(__filename);
    const pulumi = load("@pulumi/pulumi") as typeof PulumiModule;
    const settings = load("@pulumi/pulumi/runtime/settings") as {
      getMonitor(): { registerResource(req: RegisterRequest, callback: unknown): unknown };
      waitForRPCs(): Promise<void>;
    };
    await pulumi.runtime.setMocks(
      { newResource: async (args) => ({ id: `${args.name}-id`, state: args.inputs }), call: async () => ({}) },
      "project",
      "stack",
      false,
    );
    const monitor = settings.getMonitor();
    const register = monitor.registerResource.bind(monitor);
    const secretLists: Record<string, string[]> = {};
    monitor.registerResource = (req, callback) => {
      secretLists[req.getName()] = req.getAdditionalsecretoutputsList();
      return register(req, callback);
    };
    new sdk.ServiceAccountKey("plain", { serviceAccount: "ci", description: "plain" });
    new sdk.ServiceAccountKey(
      "more",
      { serviceAccount: "ci", description: "more" },
      { additionalSecretOutputs: ["name"] },
    );
    await settings.waitForRPCs();
    expect(secretLists).toEqual({ plain: ["key"], more: ["name", "key"] });
  });
});

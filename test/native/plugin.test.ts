// The native plugin spawned as the engine spawns it (the executable), driven through the whole ResourceProvider
// protocol against cpln-local: schema, config, every resource's lifecycle with exact requests and detailed diffs,
// preview, import by id (self link and Terraform short forms), every function through Invoke, and the token in no
// response, log or error. Needs `npm run build`.
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as ProviderModule from "../../provider/index.js";
import {
  executable,
  NativeStack,
  pluginFolder,
  nativeClient,
  repoRoot,
  scratchDir,
  secret,
  SECRET_SIG_KEY,
  serverModule,
  takeRequests,
  UNKNOWN,
  urnFor,
  type NativePluginClient,
  type Props,
  type RunningServer,
} from "./support.js";

const providerModule = createRequire(__filename)("../../dist/provider/index.js") as typeof ProviderModule;
const isSecretWire = (value: unknown): boolean =>
  typeof value === "object" && value !== null && (value as Props)[SECRET_SIG_KEY] !== undefined;
const token = (name: string) => `cpln-native:index:${name}`;

let server: RunningServer;
let plugin: NativePluginClient;
let org = "";
/** Every response and error text the plugin produced, for the secrecy check at the end. */
const seen: string[] = [];

beforeAll(async () => {
  server = await serverModule.startServer({
    recordRequests: true,
    seed: {
      records: [
        { kind: "gvc", name: "other" },
        {
          kind: "mk8s",
          name: "edge",
          spec: {
            version: "1.28.4",
            provider: { generic: { location: "aws-eu-central-1", nodePools: [{ name: "general" }] } },
          },
        },
        { kind: "group", name: "ops", description: "Operators", memberLinks: ["//serviceaccount/controlplane"] },
      ],
    },
  });
  org = server.org;
  plugin = await nativeClient.NativePluginClient.executable(executable, { cwd: scratchDir() });
  // Record every response and error message the plugin sends back.
  for (const method of ["check", "diff", "create", "read", "update", "invoke", "configure", "checkConfig"] as const) {
    const original = (plugin[method] as (...args: unknown[]) => Promise<unknown>).bind(plugin);
    (plugin as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      try {
        const result = await original(...args);
        // Secrets the engine stores encrypted (the token CheckConfig hands back) are not plain text.
        seen.push(JSON.stringify(result, (_key, value: unknown) => (isSecretWire(value) ? "[secret]" : value)));
        return result;
      } catch (error) {
        seen.push(String(error));
        throw error;
      }
    };
  }
});

afterAll(async () => {
  await plugin?.stop();
  await server?.close();
});

describe("identity, schema and config", () => {
  it("GetPluginInfo answers the package version; GetSchema is exactly schema.json", async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string };
    expect(await plugin.getPluginInfo()).toBe(pkg.version);
    const schema = await plugin.getSchema();
    expect(schema).toBe(fs.readFileSync(path.join(repoRoot, "schema.json"), "utf8"));
    const parsed = JSON.parse(schema) as { name: string; resources: object; functions: object; config: object };
    expect(parsed.name).toBe("cpln-native");
    expect(Object.keys(parsed.resources).sort()).toEqual(Object.keys(providerModule.resources).map(token).sort());
    expect(Object.keys(parsed.functions).sort()).toEqual(Object.keys(providerModule.functions).map(token).sort());
    expect(parsed.config).toMatchObject({ variables: { token: { secret: true }, org: {}, endpoint: {} } });
  });

  it("CheckConfig names a bad endpoint and passes a secret token through still secret", async () => {
    const urn = urnFor("pulumi:providers:cpln-native", "default");
    const bad = await plugin.checkConfig(urn, { endpoint: "ftp://x", token: secret(server.adminKey) });
    expect(bad.failures).toEqual([
      { property: "endpoint", reason: 'cpln-native:endpoint must be an http(s) URL, got "ftp://x"' },
    ]);
    const good = await plugin.checkConfig(urn, { endpoint: server.url, org, token: secret(server.adminKey) });
    expect(good.failures).toEqual([]);
    expect(good.inputs.token).toEqual(secret(server.adminKey));
    const diff = await plugin.diffConfig(urn, { org, endpoint: server.url }, { org: "other", endpoint: server.url });
    expect(diff).toMatchObject({ changes: "some", diffs: ["org"], replaces: [] });
  });

  it("Configure takes org, endpoint and the secret token; accepts secrets and supports preview", async () => {
    const response = await plugin.configure({ org, endpoint: server.url, token: secret(server.adminKey) });
    expect(response).toEqual({ acceptSecrets: true, supportsPreview: true });
  });
});

describe("VolumeSet", () => {
  const TYPE = token("VolumeSet");
  let vs: NativeStack;
  let link = "";
  const base: Props = {
    gvc: "default",
    initialCapacity: 20,
    performanceClass: "general-purpose-ssd",
    tags: { team: "storage" },
  };

  it("check: failures carry property paths; unknowns pass in preview", async () => {
    const urn = urnFor(TYPE, "data");
    const bad = await plugin.check(urn, {}, { ...base, initialCapacity: 5, autoscaling: { maxCapacity: "x" } });
    expect(bad.failures.map((f) => f.property).sort()).toEqual(["autoscaling.maxCapacity", "initialCapacity"]);
    const preview = await plugin.check(urn, {}, { ...base, gvc: UNKNOWN, initialCapacity: UNKNOWN });
    expect(preview.failures).toEqual([]);
    expect(preview.inputs).toMatchObject({ gvc: UNKNOWN, initialCapacity: UNKNOWN, org });
    expect(preview.inputs.name).toMatch(/^data-[0-9a-f]{7}$/);
  });

  it("create in preview sends nothing and returns the inputs", async () => {
    takeRequests(server);
    const urn = urnFor(TYPE, "data");
    const inputs = (await plugin.check(urn, {}, base)).inputs;
    const created = await plugin.create(urn, inputs, true);
    expect(created.id).toBe("");
    expect(created.outputs).toMatchObject({ gvc: "default", initialCapacity: 20 });
    expect(takeRequests(server)).toEqual([]);
  });

  it("create: one POST, autonamed from the URN's name", async () => {
    vs = new NativeStack(plugin, server, TYPE, "data");
    const step = await vs.up(base);
    const name = vs.outputs.name as string;
    expect(name).toMatch(/^data-[0-9a-f]{7}$/);
    link = `/org/${org}/gvc/default/volumeset/${name}`;
    expect(vs.id).toBe(link);
    expect(step.requests).toEqual([
      {
        method: "POST",
        path: `/org/${org}/gvc/default/volumeset`,
        status: 201,
        body: {
          name,
          description: name,
          tags: { team: "storage" },
          spec: { initialCapacity: 20, performanceClass: "general-purpose-ssd", fileSystemType: "ext4" },
        },
      },
    ]);
    expect(vs.outputs).toMatchObject({ selfLink: link, org, gvc: "default", initialCapacity: 20 });
  });

  it("no-op: the same args diff to DIFF_NONE with zero requests", async () => {
    const step = await vs.up(base);
    expect(step.op).toBe("same");
    expect(step.diff).toMatchObject({ changes: "none", hasDetailedDiff: true, detailedDiff: {} });
    expect(step.requests).toEqual([]);
  });

  it("update: one PATCH with only what changed; detailedDiff has the nested paths", async () => {
    const args = { ...base, initialCapacity: 30, autoscaling: { maxCapacity: 100 }, tags: { owner: "ana" } };
    const step = await vs.up(args);
    expect(step.op).toBe("update");
    expect(step.diff).toMatchObject({
      changes: "some",
      replaces: [],
      diffs: ["initialCapacity", "autoscaling", "tags"],
      detailedDiff: {
        initialCapacity: "UPDATE",
        autoscaling: "ADD",
        "tags.owner": "ADD",
        "tags.team": "DELETE",
      },
    });
    expect(Object.keys(step.diff!.detailedDiff)).toHaveLength(4);
    expect(step.requests).toEqual([
      {
        method: "PATCH",
        path: link,
        status: 200,
        body: { tags: { team: null, owner: "ana" }, spec: { initialCapacity: 30, autoscaling: { maxCapacity: 100 } } },
      },
    ]);
    expect(vs.outputs).toMatchObject({
      initialCapacity: 30,
      autoscaling: { maxCapacity: 100 },
      tags: { owner: "ana" },
    });
    base.initialCapacity = 30;
    base.autoscaling = { maxCapacity: 100 };
    base.tags = { owner: "ana" };
  });

  it("read after an out-of-band change: refresh shows it, the next up puts the args back with one PATCH", async () => {
    const client = new (createRequire(__filename)("../../dist/provider/client/index.js").CplnClient)({
      endpoint: server.url,
      token: server.adminKey,
      org,
    });
    await client.patchByLink(link, { spec: { autoscaling: { maxCapacity: 200 } } });
    await client.close();
    const refreshed = await vs.refresh();
    expect(refreshed.requests).toEqual([{ method: "GET", path: link, status: 200, body: undefined }]);
    expect(vs.outputs).toMatchObject({ autoscaling: { maxCapacity: 200 } });
    expect(vs.inputs).toMatchObject({ autoscaling: { maxCapacity: 200 } });
    const step = await vs.up(base);
    expect(step.diff?.detailedDiff).toEqual({ "autoscaling.maxCapacity": "UPDATE" });
    expect(step.requests).toEqual([
      { method: "PATCH", path: link, status: 200, body: { spec: { autoscaling: { maxCapacity: 100 } } } },
    ]);
  });

  it("preview: an unknown value diffs as an UPDATE at its path; Update with preview sends nothing", async () => {
    takeRequests(server);
    const checked = await plugin.check(vs.urn, vs.inputs, { ...base, initialCapacity: UNKNOWN });
    expect(checked.failures).toEqual([]);
    const diff = await plugin.diff(vs.id, vs.urn, vs.outputs, checked.inputs, vs.inputs);
    expect(diff).toMatchObject({ changes: "some", replaces: [], detailedDiff: { initialCapacity: "UPDATE" } });
    const planned = await plugin.update(vs.id, vs.urn, vs.outputs, checked.inputs, vs.inputs, true);
    expect(planned).toMatchObject({ initialCapacity: UNKNOWN, selfLink: link });
    expect(takeRequests(server)).toEqual([]);
  });

  it("replace: fileSystemType is UPDATE_REPLACE; autonamed, so create-before-delete with a new name", async () => {
    const oldLink = link;
    const step = await vs.up({ ...base, fileSystemType: "xfs" });
    expect(step.op).toBe("replace");
    expect(step.diff).toMatchObject({
      replaces: ["fileSystemType"],
      deleteBeforeReplace: false,
      detailedDiff: { fileSystemType: "UPDATE_REPLACE" },
    });
    link = vs.id;
    expect(link).not.toBe(oldLink);
    expect(step.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `POST /org/${org}/gvc/default/volumeset 201`,
      `DELETE ${oldLink} 202`,
    ]);
  });

  it("delete: one DELETE; a Read afterwards reports it gone (empty id)", async () => {
    const urn = vs.urn;
    expect(await vs.destroy()).toEqual([{ method: "DELETE", path: link, status: 202, body: undefined }]);
    expect(await plugin.read(link, urn, { org })).toEqual({ id: "", props: {}, inputs: {} });
  });

  it("secret inputs stay secret: Check and Create wrap the same properties again", async () => {
    const urn = urnFor(TYPE, "hidden");
    const checked = await plugin.check(urn, {}, { ...base, tags: secret({ owner: "ana" }) });
    expect(checked.inputs.tags).toEqual(secret({ owner: "ana" }));
    const created = await plugin.create(urn, checked.inputs);
    expect(created.outputs.tags).toEqual(secret({ owner: "ana" }));
    expect(created.outputs.initialCapacity).toBe(30);
    await plugin.delete(created.id, urn, created.outputs);
  });
});

describe("Policy", () => {
  const TYPE = token("Policy");
  let policy: NativeStack;
  const link = () => `/org/${org}/policy/pinned`;
  const base: Props = {
    name: "pinned",
    targetKind: "gvc",
    targetLinks: ["//gvc/default"],
    bindings: [{ permissions: ["view"], principalLinks: ["//group/ops"] }],
  };

  it("create, no-op, update (exact PATCH, detailed paths), replace (delete first: the name is yours), delete", async () => {
    policy = new NativeStack(plugin, server, TYPE, "access");
    const created = await policy.up(base);
    expect(created.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`POST /org/${org}/policy 201`]);
    expect(policy.id).toBe(link());

    const same = await policy.up(base);
    expect(same).toMatchObject({ op: "same", requests: [] });

    const edited = { ...base, bindings: [{ permissions: ["view", "edit"], principalLinks: ["//group/ops"] }] };
    const updated = await policy.up(edited);
    expect(updated.diff).toMatchObject({ changes: "some", replaces: [], diffs: ["bindings"] });
    expect(Object.keys(updated.diff!.detailedDiff)).toEqual(["bindings[0].permissions"]);
    expect(updated.requests).toEqual([
      {
        method: "PATCH",
        path: link(),
        status: 200,
        // Bindings change principal by principal (a PolicyBinding's principals in them stay): the principal leaves
        // the view binding and joins the edit,view one (a partial the server appends) ...
        body: {
          "$patch/bindings": [
            { permissions: ["view"], "$drop/principalLinks": [`/org/${org}/group/ops`] },
            { permissions: ["view", "edit"], "$append/principalLinks": [`/org/${org}/group/ops`] },
          ],
        },
      },
      // ... and the view binding, now empty, is dropped.
      { method: "PATCH", path: link(), status: 200, body: { "$drop/bindings": ["view"] } },
    ]);

    const replaced = await policy.up({ ...edited, targetKind: "location", targetLinks: undefined });
    expect(replaced.diff).toMatchObject({
      replaces: ["targetKind"],
      deleteBeforeReplace: true,
      detailedDiff: { targetKind: "UPDATE_REPLACE", targetLinks: "DELETE" },
    });
    expect(replaced.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `DELETE ${link()} 202`,
      `POST /org/${org}/policy 201`,
    ]);
    expect(await policy.destroy()).toEqual([{ method: "DELETE", path: link(), status: 202, body: undefined }]);
  });
});

describe("Location", () => {
  const TYPE = token("Location");

  it("create adopts (GET + PATCH), no-op, update, delete restores the originals", async () => {
    const link = `/org/${org}/location/aws-eu-central-1`;
    const location = new NativeStack(plugin, server, TYPE, "frankfurt");
    const created = await location.up({ name: "aws-eu-central-1", enabled: false, tags: { team: "edge" } });
    expect(created.requests).toEqual([
      { method: "GET", path: link, status: 200, body: undefined },
      { method: "PATCH", path: link, status: 200, body: { tags: { team: "edge" }, spec: { enabled: false } } },
    ]);
    expect(await location.up({ name: "aws-eu-central-1", enabled: false, tags: { team: "edge" } })).toMatchObject({
      op: "same",
      requests: [],
    });
    const updated = await location.up({ name: "aws-eu-central-1", enabled: true, tags: { team: "edge" } });
    expect(updated.diff?.detailedDiff).toEqual({ enabled: "UPDATE" });
    expect(updated.requests).toEqual([{ method: "PATCH", path: link, status: 200, body: { spec: { enabled: true } } }]);
    const deleted = await location.destroy();
    expect(deleted.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`PATCH ${link} 200`]);
  });
});

describe("pulumi import: Read with only an id → Check → Diff is empty", () => {
  async function importSequence(type: string, name: string, id: string, expectedId: string) {
    const urn = urnFor(token(type), name);
    takeRequests(server);
    const read = await plugin.read(id, urn);
    expect(read.id).toBe(expectedId);
    expect(takeRequests(server)).toEqual([{ method: "GET", path: expectedId, status: 200, body: undefined }]);
    const checked = await plugin.check(urn, {}, read.inputs);
    expect(checked.failures).toEqual([]);
    const diff = await plugin.diff(read.id, urn, read.props, checked.inputs, read.inputs);
    expect(diff).toMatchObject({ changes: "none", detailedDiff: {} });
    expect(takeRequests(server)).toEqual([]);
    return read;
  }

  it("VolumeSet by self link and by `gvc:name`", async () => {
    const client = new (createRequire(__filename)("../../dist/provider/client/index.js").CplnClient)({
      endpoint: server.url,
      token: server.adminKey,
      org,
    });
    await client.createVolumeSet("other", {
      name: "imported",
      tags: { app: "db" },
      spec: { initialCapacity: 50, performanceClass: "general-purpose-ssd", snapshots: { retentionDuration: "3d" } },
    });
    await client.close();
    const link = `/org/${org}/gvc/other/volumeset/imported`;
    const byLink = await importSequence("VolumeSet", "imported", link, link);
    expect(byLink.inputs).toMatchObject({ gvc: "other", name: "imported", initialCapacity: 50, tags: { app: "db" } });
    await importSequence("VolumeSet", "imported", "other:imported", link);
  });

  it("Policy and Location by name", async () => {
    await importSequence("Policy", "viewers", "viewers-gvc", `/org/${org}/policy/viewers-gvc`);
    await importSequence("Location", "virginia", "aws-us-east-1", `/org/${org}/location/aws-us-east-1`);
  });

  it("a short form that does not fit the kind is refused with the forms that work", async () => {
    await expect(plugin.read("imported", urnFor(token("VolumeSet"), "x"))).rejects.toThrow(
      /VolumeSet: "imported" is not an id of this resource: use its self link or "<gvc>:<name>"/,
    );
  });
});

describe("Invoke: every function", () => {
  const args: Record<string, (quotaId: string) => Props> = {
    getQuotas: () => ({}),
    getQuota: (quotaId) => ({ id: quotaId }),
    getCloudAccountPermissions: () => ({}),
    queryCloudAccounts: () => ({}),
    getServiceAccounts: () => ({}),
    getGroups: () => ({}),
    getPolicy: () => ({ name: "viewers-gvc" }),
    getLocation: () => ({ name: "aws-us-east-1" }),
    getGroupAccessReport: () => ({ name: "ops" }),
    getMk8sJoinScript: () => ({ name: "edge", options: { nodePoolName: "general" } }),
  };

  const declared = Object.keys(providerModule.declaredFunctionsByName);

  it("the table and the declared resources' get<Type> cover the registry", () => {
    expect(declared.length).toBeGreaterThan(0);
    expect([...Object.keys(args), ...declared].sort()).toEqual(Object.keys(providerModule.functions).sort());
  });

  it("each declared function answers through Invoke; a missing object is an error naming it", async () => {
    for (const name of declared) {
      const shape = (providerModule.declaredFunctionsByName[name]!.args() as unknown as { shape: object }).shape;
      const gvc = "gvc" in shape ? { gvc: "default" } : {};
      if ("name" in shape) {
        await expect(plugin.invoke(token(name), { name: "missing", ...gvc }), name).rejects.toThrow(
          /: no such [a-z0-9]+ \(404\)/,
        );
      } else {
        const { result, failures } = await plugin.invoke(token(name), gvc);
        expect(failures, name).toEqual([]);
        expect(Object.keys(result).length, name).toBeGreaterThan(0);
      }
    }
    const gvc = await plugin.invoke(token("getGvc"), { name: "default" });
    expect(gvc.result).toMatchObject({ kind: "gvc", name: "default" });
  });

  it("each function answers through Invoke; the join script comes back as a secret", async () => {
    const quotas = await plugin.invoke(token("getQuotas"), {});
    const quotaId = ((quotas.result.items as Props[])[0] as Props).id as string;
    for (const [name, make] of Object.entries(args)) {
      const { result, failures } = await plugin.invoke(token(name), make(quotaId));
      expect(failures, name).toEqual([]);
      expect(Object.keys(result).length, name).toBeGreaterThan(0);
    }
    const join = await plugin.invoke(token("getMk8sJoinScript"), args.getMk8sJoinScript!(quotaId));
    expect(join.result.name).toBe("edge");
    expect(join.result.script).toMatchObject({
      "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
    });
    const policy = await plugin.invoke(token("getPolicy"), { name: "viewers-gvc" });
    expect(policy.result).toMatchObject({ name: "viewers-gvc", targetKind: "gvc" });
  });

  it("bad arguments come back as failures naming the field; an unknown token is an error", async () => {
    const bad = await plugin.invoke(token("getPolicy"), { name: "" });
    expect(bad.failures).toEqual([{ property: "name", reason: "must not be empty" }]);
    await expect(plugin.invoke(token("getNothing"), {})).rejects.toThrow(
      /unknown function "cpln-native:index:getNothing"/,
    );
  });
});

describe("ServiceAccountKey", () => {
  it("the key a Create returns, and a Read carries forward, is wrapped as a secret by the plugin itself", async () => {
    const accountUrn = urnFor(token("ServiceAccount"), "keyed");
    const account = await plugin.create(accountUrn, (await plugin.check(accountUrn, {}, { name: "keyed" })).inputs);
    const urn = urnFor(token("ServiceAccountKey"), "keyed-key");
    // Plain inputs, no secret anywhere: only the type's declared secret output makes `key` secret.
    const checked = await plugin.check(urn, {}, { serviceAccount: "keyed", description: "for CI" });
    const created = await plugin.create(urn, checked.inputs);
    expect(isSecretWire(created.outputs.key)).toBe(true);
    const key = (created.outputs.key as { value: unknown }).value;
    expect(typeof key).toBe("string");
    expect(created.outputs.name).toBe(String(key).split(".")[0]);
    const read = await plugin.read(created.id, urn, created.outputs, checked.inputs);
    expect(read.props.key).toEqual(created.outputs.key);
    expect(isSecretWire(read.props.description)).toBe(false);
    await plugin.delete(created.id, urn, created.outputs);
    await plugin.delete(account.id, accountUrn, account.outputs);
  });
});

describe("secrecy", () => {
  it("the token is in no response, error or plugin log", async () => {
    await expect(plugin.read("a:b:c", urnFor(token("Policy"), "x"))).rejects.toThrow(/not an id of this resource/);
    expect(seen.length).toBeGreaterThan(20);
    for (const text of [...seen, ...plugin.logs()]) expect(text).not.toContain(server.adminKey);
  });
});

describe("the source-based plugin folder (PulumiPlugin.yaml, runtime: nodejs)", () => {
  it("runs through the Node.js language host's run-plugin, serves the same provider, honours Cancel", async () => {
    const folderPlugin = await nativeClient.NativePluginClient.pluginFolder(pluginFolder, { cwd: scratchDir() });
    try {
      expect(await folderPlugin.getSchema()).toBe(fs.readFileSync(path.join(repoRoot, "schema.json"), "utf8"));
      await folderPlugin.configure({ org, endpoint: server.url, token: secret(server.adminKey) });
      takeRequests(server);
      const { result } = await folderPlugin.invoke(token("getLocation"), { name: "aws-us-east-1" });
      expect(result).toMatchObject({ name: "aws-us-east-1" });
      expect(takeRequests(server).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
        `GET /org/${org}/location/aws-us-east-1 200`,
      ]);
      for (const line of folderPlugin.logs()) expect(line).not.toContain(server.adminKey);
      // Cancel: the engine is shutting down; later calls are refused without a request.
      await folderPlugin.cancel();
      await expect(folderPlugin.invoke(token("getLocation"), { name: "aws-us-east-1" })).rejects.toThrow(
        /the provider was cancelled/,
      );
      expect(takeRequests(server)).toEqual([]);
    } finally {
      await folderPlugin.stop();
    }
  });
});

describe("config from the environment", () => {
  it("CPLN_ORG / CPLN_ENDPOINT / CPLN_TOKEN stand in for provider config; missing org and token name cpln-native:*", async () => {
    const fromEnv = await nativeClient.NativePluginClient.executable(executable, {
      cwd: scratchDir(),
      env: { CPLN_ORG: org, CPLN_ENDPOINT: server.url, CPLN_TOKEN: server.adminKey },
    });
    try {
      await fromEnv.configure({});
      const { result } = await fromEnv.invoke(token("getPolicy"), { name: "viewers-gvc" });
      expect(result).toMatchObject({ name: "viewers-gvc" });
    } finally {
      await fromEnv.stop();
    }
    const noToken = await nativeClient.NativePluginClient.executable(executable, { cwd: scratchDir() });
    try {
      await noToken.configure({ endpoint: server.url });
      const urn = urnFor(token("Policy"), "p");
      const noOrg = await noToken.check(urn, {}, { targetKind: "gvc", target: "all" });
      expect(noOrg.failures).toEqual([
        {
          property: "org",
          reason: "no organization is configured: set the org input, the cpln-native:org stack config or CPLN_ORG",
        },
      ]);
      const checked = await noToken.check(urn, {}, { targetKind: "gvc", target: "all", org });
      expect(checked.failures).toEqual([]);
      await expect(noToken.create(urn, checked.inputs)).rejects.toThrow(
        /No Control Plane token: set the stack config `cpln-native:token` \(pulumi config set --secret cpln-native:token <token>\)/,
      );
    } finally {
      await noToken.stop();
    }
  });

  it("cpln-native:timeoutSeconds (or CPLN_TIMEOUT) bounds each API call; a bad value names the key", async () => {
    // An endpoint that accepts connections and never answers: only the configured limit ends the call.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
    const clients: NativePluginClient[] = [];
    try {
      for (const [config, env, limitMs] of [
        [{ timeoutSeconds: 1 }, {}, 1000],
        [{ timeoutSeconds: "1.5" }, {}, 1500],
        [{}, { CPLN_TIMEOUT: "2" }, 2000],
      ] as const) {
        const client = await nativeClient.NativePluginClient.executable(executable, { cwd: scratchDir(), env });
        clients.push(client);
        await client.configure({ org, endpoint: url, token: secret(server.adminKey), ...config });
        await expect(client.invoke(token("getLocation"), { name: "aws-us-east-1" })).rejects.toThrow(
          `no complete response within the time limit of ${limitMs} ms`,
        );
      }
      const bad = await nativeClient.NativePluginClient.executable(executable, { cwd: scratchDir() });
      clients.push(bad);
      await expect(bad.configure({ org, endpoint: url, timeoutSeconds: "soon" })).rejects.toThrow(
        'timeoutSeconds: cpln-native:timeoutSeconds must be a positive number of seconds, got "soon"',
      );
    } finally {
      await Promise.all(clients.map((client) => client.stop()));
      silent.close();
    }
  });
});

// Non-authoritative resources and their authoritative targets in one stack agree (issue 21, item 3), through Pulumi's
// real dynamic-provider host against cpln-local: a Policy and a PolicyBinding on it, a ServiceAccount and its
// ServiceAccountKey. Across up / refresh / up neither reports the other's effects as drift, nothing is dropped, and
// both orders of operations in one run give the same server state. Exact requests from the server's log. Needs
// `npm run build`.
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import type { PolicyArgs, PolicyBindingArgs, ServiceAccountArgs, ServiceAccountKeyArgs } from "../../sdk/index.js";
import {
  harness,
  inputsOf,
  programInputs,
  ResourceStack,
  sdk,
  serverRecord,
  takeRequests,
  withEnv,
  type Env,
  type PropertyMap,
  type RecordedRequest,
} from "./support.js";

const POLICY = "pulumi-nodejs:dynamic/cpln:Policy";
const BINDING = "pulumi-nodejs:dynamic/cpln:PolicyBinding";
const SA = "pulumi-nodejs:dynamic/cpln:ServiceAccount";
const KEY = "pulumi-nodejs:dynamic/cpln:ServiceAccountKey";

let env: Env;
let org = "";
withEnv(
  {
    records: [
      { kind: "group", name: "viewers-team" },
      { kind: "group", name: "editors" },
      { kind: "serviceaccount", name: "ci" },
      { kind: "serviceaccount", name: "deploy" },
    ],
  },
  (started) => {
    env = started;
    org = started.server.org;
  },
);

const full = (href: string) => href.replace("//", `/org/${org}/`);

function policyInputs(name: string, args: PolicyArgs): Promise<PropertyMap> {
  return inputsOf(POLICY, () => new sdk.Policy(name, args));
}

function bindingInputs(name: string, args: PolicyBindingArgs): Promise<PropertyMap> {
  return inputsOf(BINDING, () => new sdk.PolicyBinding(name, args));
}

/** The policy's bindings on the server, as permission key → principals (sorted). */
async function serverBindings(link: string): Promise<Record<string, string[]>> {
  const record = (await serverRecord(env, link)) as {
    bindings?: { permissions: string[]; principalLinks: string[] }[];
  };
  return Object.fromEntries(
    (record.bindings ?? []).map((b) => [[...b.permissions].sort().join(","), [...b.principalLinks].sort()]),
  );
}

/** A value as the API sees it: empty objects and arrays are absent (a read reports `tags: {}` for no tags). */
function pruned(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.map(pruned);
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value)
    .map(([k, v]) => [k, pruned(v)] as const)
    .filter(([, v]) => v !== undefined);
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

/** The input-shaped state without `__provider`, as the API sees it. */
function declared(inputs: PropertyMap): unknown {
  const { __provider: _provider, ...rest } = inputs;
  return pruned(rest);
}

/** Refreshes a resource and returns what changed: outputs other than version/lastModified, and inputs. */
async function refreshChanges(stack: ResourceStack): Promise<{
  requests: RecordedRequest[];
  outputs: string[];
  inputs: boolean;
}> {
  const beforeOutputs = { ...stack.outputs };
  const beforeInputs = declared(stack.inputs);
  const { requests } = await stack.refresh();
  const keys = new Set([...Object.keys(beforeOutputs), ...Object.keys(stack.outputs)]);
  const outputs = [...keys]
    .filter((k) => k !== "version" && k !== "lastModified")
    .filter((k) => !isDeepStrictEqual(beforeOutputs[k], stack.outputs[k]));
  const inputs = !isDeepStrictEqual(beforeInputs, declared(stack.inputs));
  return { requests, outputs, inputs };
}

describe("Policy + PolicyBinding in one stack: up, refresh, up", () => {
  const policyArgs: PolicyArgs = {
    name: "volumes",
    targetKind: "volumeset",
    target: "all",
    bindings: [{ permissions: ["view"], principalLinks: ["//group/viewers-team"] }],
  };
  const bindingArgs: PolicyBindingArgs = {
    policy: "volumes",
    permissions: ["edit"],
    principalLinks: ["//serviceaccount/ci"],
  };
  const link = () => `/org/${org}/policy/volumes`;
  let policy: ResourceStack;
  let binding: ResourceStack;

  it("up: the Policy is one POST, the PolicyBinding one PATCH that appends its principal and sets its marker", async () => {
    policy = new ResourceStack(env, POLICY, "volumes");
    binding = new ResourceStack(env, BINDING, "ci-edit");
    const created = await policy.up(await policyInputs("volumes", policyArgs));
    expect(created.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`POST /org/${org}/policy 201`]);
    const granted = await binding.up(await bindingInputs("ci-edit", bindingArgs));
    const marker = binding.outputs.markerTag as string;
    expect(marker).toMatch(/^cpln\/pulumiPolicyBinding\.[0-9a-f]{12}$/);
    expect(granted.requests).toEqual([
      {
        method: "PATCH",
        path: link(),
        status: 200,
        body: {
          "$patch/bindings": [{ permissions: ["edit"], "$append/principalLinks": [full("//serviceaccount/ci")] }],
          tags: { [marker]: `edit ${full("//serviceaccount/ci")}` },
        },
      },
    ]);
    expect(await serverBindings(link())).toEqual({
      view: [full("//group/viewers-team")],
      edit: [full("//serviceaccount/ci")],
    });
  });

  it("refresh: the Policy reads one GET and finds no drift (the PolicyBinding's grant and marker are not its own)", async () => {
    const changes = await refreshChanges(policy);
    expect(changes).toEqual({
      requests: [{ method: "GET", path: link(), status: 200, body: undefined }],
      outputs: [],
      inputs: false,
    });
    expect(policy.outputs.bindings).toEqual([
      { permissions: ["view"], principalLinks: [full("//group/viewers-team")] },
    ]);
    expect(policy.outputs.serverTags).toEqual({});
    expect(policy.outputs.tags).toEqual({});
    expect(await refreshChanges(binding)).toEqual({
      requests: [{ method: "GET", path: link(), status: 200, body: undefined }],
      outputs: [],
      inputs: false,
    });
  });

  it("up after the refresh: both unchanged, no request, and the account keeps its grant", async () => {
    expect(await policy.up(await policyInputs("volumes", policyArgs))).toMatchObject({ op: "same", requests: [] });
    expect(await binding.up(await bindingInputs("ci-edit", bindingArgs))).toMatchObject({ op: "same", requests: [] });
    expect(await serverBindings(link())).toEqual({
      view: [full("//group/viewers-team")],
      edit: [full("//serviceaccount/ci")],
    });
  });

  it("a principal added with the CLI is still drift for the Policy, and the next up removes only it", async () => {
    await env.client.patchByLink(link(), {
      "$patch/bindings": [{ permissions: ["edit"], "$append/principalLinks": [full("//group/editors")] }],
    });
    takeRequests(env.server);
    const changes = await refreshChanges(policy);
    expect(changes.outputs).toEqual(["bindings"]);
    expect(policy.outputs.bindings).toEqual([
      { permissions: ["view"], principalLinks: [full("//group/viewers-team")] },
      { permissions: ["edit"], principalLinks: [full("//group/editors")] },
    ]);
    const step = await policy.up(await policyInputs("volumes", policyArgs));
    expect(step.requests).toEqual([
      {
        method: "PATCH",
        path: link(),
        status: 200,
        body: { "$patch/bindings": [{ permissions: ["edit"], "$drop/principalLinks": [full("//group/editors")] }] },
      },
    ]);
    expect(await serverBindings(link())).toEqual({
      view: [full("//group/viewers-team")],
      edit: [full("//serviceaccount/ci")],
    });
    expect(await refreshChanges(policy)).toMatchObject({ outputs: [], inputs: false });
    expect(await policy.up(await policyInputs("volumes", policyArgs))).toMatchObject({ op: "same", requests: [] });
  });

  it("destroy (binding first, as the engine orders it): one PATCH dropping its principal and marker, one dropping the emptied binding", async () => {
    const marker = binding.outputs.markerTag as string;
    expect(await binding.destroy()).toEqual([
      {
        method: "PATCH",
        path: link(),
        status: 200,
        body: {
          "$patch/bindings": [{ permissions: ["edit"], "$drop/principalLinks": [full("//serviceaccount/ci")] }],
          tags: { [marker]: null },
        },
      },
      { method: "PATCH", path: link(), status: 200, body: { "$drop/bindings": ["edit"] } },
    ]);
    expect((await serverRecord(env, link()))?.tags).toEqual({});
    expect(await refreshChanges(policy)).toMatchObject({ outputs: [], inputs: false });
    expect(await policy.destroy()).toEqual([{ method: "DELETE", path: link(), status: 202, body: undefined }]);
  });
});

describe("Policy + PolicyBinding changing in one run, in either order (independent resources may run in any order)", () => {
  const before = (name: string): { policy: PolicyArgs; binding: PolicyBindingArgs } => ({
    policy: {
      name,
      targetKind: "volumeset",
      target: "all",
      bindings: [{ permissions: ["view"], principalLinks: ["//group/viewers-team"] }],
    },
    binding: { policy: name, permissions: ["edit"], principalLinks: ["//serviceaccount/ci"] },
  });
  // The second run: the Policy also grants edit (the PolicyBinding's binding) to a group and gives up view; the
  // PolicyBinding adds a principal.
  const after = (name: string): { policy: PolicyArgs; binding: PolicyBindingArgs } => ({
    policy: { ...before(name).policy, bindings: [{ permissions: ["edit"], principalLinks: ["//group/editors"] }] },
    binding: { ...before(name).binding, principalLinks: ["//serviceaccount/ci", "//serviceaccount/deploy"] },
  });

  it.each([
    ["Policy first", "first", ["policy", "binding"]],
    ["PolicyBinding first", "second", ["binding", "policy"]],
  ] as const)("%s: the same requests and the same end state, then refresh and up are quiet", async (_, name, order) => {
    const link = `/org/${org}/policy/${name}`;
    const policy = new ResourceStack(env, POLICY, name);
    const binding = new ResourceStack(env, BINDING, `${name}-ci`);
    await policy.up(await policyInputs(name, before(name).policy));
    await binding.up(await bindingInputs(`${name}-ci`, before(name).binding));
    await policy.refresh();
    await binding.refresh();
    const marker = binding.outputs.markerTag as string;

    const requests: Record<string, RecordedRequest[]> = {};
    for (const which of order) {
      const step =
        which === "policy"
          ? await policy.up(await policyInputs(name, after(name).policy))
          : await binding.up(await bindingInputs(`${name}-ci`, after(name).binding));
      expect(step.op, which).toBe("update");
      requests[which] = step.requests;
    }
    // The Policy appends its group to the edit binding (whether or not the PolicyBinding created it yet) and drops
    // its own view principal, then the emptied view binding; it never touches the PolicyBinding's principals.
    expect(requests.policy).toEqual([
      {
        method: "PATCH",
        path: link,
        status: 200,
        body: {
          "$patch/bindings": [
            { permissions: ["view"], "$drop/principalLinks": [full("//group/viewers-team")] },
            { permissions: ["edit"], "$append/principalLinks": [full("//group/editors")] },
          ],
        },
      },
      { method: "PATCH", path: link, status: 200, body: { "$drop/bindings": ["view"] } },
    ]);
    expect(requests.binding).toEqual([
      {
        method: "PATCH",
        path: link,
        status: 200,
        body: {
          "$patch/bindings": [{ permissions: ["edit"], "$append/principalLinks": [full("//serviceaccount/deploy")] }],
          tags: { [marker]: `edit ${full("//serviceaccount/ci")} ${full("//serviceaccount/deploy")}` },
        },
      },
    ]);
    expect(await serverBindings(link)).toEqual({
      edit: [full("//group/editors"), full("//serviceaccount/ci"), full("//serviceaccount/deploy")],
    });
    expect(policy.outputs.bindings).toEqual([{ permissions: ["edit"], principalLinks: [full("//group/editors")] }]);
    expect(binding.outputs.principalLinks).toEqual([full("//serviceaccount/ci"), full("//serviceaccount/deploy")]);

    expect(await refreshChanges(policy)).toMatchObject({ outputs: [], inputs: false });
    expect(await refreshChanges(binding)).toMatchObject({ outputs: [], inputs: false });
    expect(await policy.up(await policyInputs(name, after(name).policy))).toMatchObject({ op: "same", requests: [] });
    expect(await binding.up(await bindingInputs(`${name}-ci`, after(name).binding))).toMatchObject({
      op: "same",
      requests: [],
    });

    // The Policy giving up edit leaves the PolicyBinding's principals (and so the binding) in place: one PATCH.
    const giveUp = await policy.up(await policyInputs(name, before(name).policy));
    expect(giveUp.requests.map((r) => r.body)).toEqual([
      {
        "$patch/bindings": [
          { permissions: ["edit"], "$drop/principalLinks": [full("//group/editors")] },
          { permissions: ["view"], "$append/principalLinks": [full("//group/viewers-team")] },
        ],
      },
    ]);
    expect(await serverBindings(link)).toEqual({
      view: [full("//group/viewers-team")],
      edit: [full("//serviceaccount/ci"), full("//serviceaccount/deploy")],
    });
    await binding.destroy();
    await policy.destroy();
  });
});

describe("ServiceAccount + ServiceAccountKey in one stack: up, refresh, up", () => {
  const accountArgs: ServiceAccountArgs = { name: "builder", tags: { team: "platform" } };
  const keyArgs: ServiceAccountKeyArgs = { serviceAccount: "builder", description: "CI" };
  const link = () => `/org/${org}/serviceaccount/builder`;
  let account: ResourceStack;
  let key: ResourceStack;
  let marker = "";

  it("up: the key is one POST -addKey and one PATCH setting its marker on the account", async () => {
    account = new ResourceStack(env, SA, "builder");
    key = new ResourceStack(env, KEY, "builder-key");
    await account.up(await inputsOf(SA, () => new sdk.ServiceAccount("builder", accountArgs)));
    const step = await key.up(await inputsOf(KEY, () => new sdk.ServiceAccountKey("builder-key", keyArgs)));
    const keyName = key.outputs.name as string;
    marker = `cpln/pulumiServiceAccountKey.${keyName}`;
    expect(step.requests).toEqual([
      { method: "POST", path: `${link()}/-addKey`, status: 200, body: { description: "CI" } },
      { method: "PATCH", path: link(), status: 200, body: { tags: { [marker]: "true" } } },
    ]);
    expect((await serverRecord(env, link()))?.tags).toEqual({ team: "platform", [marker]: "true" });
  });

  it("refresh: the account finds no drift (its own key is not a change made outside), up sends nothing", async () => {
    expect(await refreshChanges(account)).toEqual({
      requests: [{ method: "GET", path: link(), status: 200, body: undefined }],
      outputs: [],
      inputs: false,
    });
    expect(account.outputs).toMatchObject({ keyNames: [], tags: { team: "platform" }, serverTags: {} });
    expect(await refreshChanges(key)).toMatchObject({ outputs: [], inputs: false });
    expect(await account.up(await inputsOf(SA, () => new sdk.ServiceAccount("builder", accountArgs)))).toMatchObject({
      op: "same",
      requests: [],
    });
  });

  it("a tag change on the account keeps the key's marker; a key added with the CLI is drift (keyNames)", async () => {
    const changed = { ...accountArgs, tags: { team: "infra" } };
    const step = await account.up(await inputsOf(SA, () => new sdk.ServiceAccount("builder", changed)));
    expect(step.requests.map((r) => r.body)).toEqual([{ tags: { team: "infra" } }]);
    expect((await serverRecord(env, link()))?.tags).toEqual({ team: "infra", [marker]: "true" });
    const cliKey = await env.client.addServiceAccountKey("builder", "by hand");
    takeRequests(env.server);
    const changes = await refreshChanges(account);
    expect(changes.outputs).toEqual(["keyNames"]);
    expect(account.outputs.keyNames).toEqual([cliKey.name]);
  });

  it("destroying the key: one PATCH revoking it and removing its marker", async () => {
    const keyName = key.outputs.name as string;
    expect(await key.destroy()).toEqual([
      { method: "PATCH", path: link(), status: 200, body: { "$drop/keys": [keyName], tags: { [marker]: null } } },
    ]);
    expect((await serverRecord(env, link()))?.tags).toEqual({ team: "infra" });
    expect(await refreshChanges(account)).toMatchObject({ outputs: [], inputs: false });
    await account.destroy();
  });
});

describe("ServiceAccountKey whose marker cannot be set", () => {
  it("a token that may add keys but not edit the account: create fails naming the key to revoke by hand", async () => {
    // A principal with addKey (and view) on service accounts, but not edit: -addKey works, the marker PATCH is a 403.
    const keymaker = await env.client.addServiceAccountKey("deploy", "keymaker");
    await env.client.createPolicy({
      name: "keymaker",
      targetKind: "serviceaccount",
      target: "all",
      bindings: [{ permissions: ["addKey", "view"], principalLinks: [full("//serviceaccount/deploy")] }],
    });
    const host = await harness.startHost();
    try {
      await host.configure({ "cpln:token": keymaker.key, "cpln:endpoint": env.server.url, "cpln:org": org }, [
        "cpln:token",
      ]);
      takeRequests(env.server);
      const link = `/org/${org}/serviceaccount/ci`;
      const { inputs } = await programInputs(
        () => new sdk.ServiceAccountKey("ci-key", { serviceAccount: "ci", description: "ci" }),
      );
      const urn = harness.urnFor(KEY, "ci-key");
      const checked = await host.check(urn, {}, inputs);
      const error = await host.create(urn, checked.inputs).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      const requests = takeRequests(env.server);
      expect(requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
        `POST ${link}/-addKey 200`,
        `PATCH ${link} 403`,
        `PATCH ${link} 403`,
      ]);
      const added = ((await serverRecord(env, link))?.keys as { name: string }[]).map((k) => k.name);
      expect(added).toHaveLength(1);
      expect(error?.message).toContain(
        `Key "${added[0]}" was added to ${link} but could not be marked nor revoked: revoke it by hand`,
      );
      expect(error?.message).not.toContain(keymaker.key);
    } finally {
      await host.stop();
    }
  });
});

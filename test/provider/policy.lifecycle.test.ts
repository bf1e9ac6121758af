// Policy through Pulumi's real dynamic-provider host against cpln-local: create, no-op (also with bindings and
// permissions reordered), binding and link updates as item directives (exact PATCH bodies), concurrency safety
// against another client, drift, replace, delete. Needs `npm run build`.
import { describe, expect, it } from "vitest";
import type { PolicyArgs } from "../../sdk/index.js";
import {
  grantingPolicies,
  harness,
  inputsOf,
  programInputs,
  ResourceStack,
  sdk,
  serverRecord,
  stable,
  takeRequests,
  withEnv,
  type Env,
  type PropertyMap,
} from "./support.js";

const TYPE = "pulumi-nodejs:dynamic/cpln:Policy";

let env: Env;
let org = "";
withEnv(
  {
    records: [
      { kind: "gvc", name: "other" },
      { kind: "group", name: "devs" },
      { kind: "group", name: "ops" },
      { kind: "group", name: "auditors" },
      { kind: "group", name: "extra" },
    ],
  },
  (started) => {
    env = started;
    org = started.server.org;
  },
);

function policyInputs(args: PolicyArgs): Promise<PropertyMap> {
  return inputsOf(TYPE, () => new sdk.Policy("access", args));
}

const group = (name: string) => `/org/${org}/group/${name}`;

describe("Policy lifecycle", () => {
  let policy: ResourceStack;
  let link = "";
  let args: PolicyArgs = {
    targetKind: "gvc",
    targetLinks: ["//gvc/default"],
    bindings: [
      { permissions: ["view"], principalLinks: ["//group/devs"] },
      { permissions: ["edit", "view"], principalLinks: ["//group/ops"] },
    ],
    tags: { purpose: "test" },
  };

  it("create: one POST with links in their full form and a generated name", async () => {
    policy = new ResourceStack(env, TYPE, "access");
    const step = await policy.up(await policyInputs(args));
    const name = policy.outputs.name as string;
    expect(name).toMatch(/^access-[0-9a-f]{7}$/);
    link = `/org/${org}/policy/${name}`;
    expect(step.requests).toEqual([
      {
        method: "POST",
        path: `/org/${org}/policy`,
        status: 201,
        body: {
          name,
          description: name,
          tags: { purpose: "test" },
          targetKind: "gvc",
          targetLinks: [`/org/${org}/gvc/default`],
          bindings: [
            { permissions: ["view"], principalLinks: [group("devs")] },
            { permissions: ["edit", "view"], principalLinks: [group("ops")] },
          ],
        },
      },
    ]);
    expect(policy.id).toBe(link);
    expect(policy.outputs).toMatchObject({
      targetKind: "gvc",
      targetLinks: [`/org/${org}/gvc/default`],
      origin: "default",
      org,
      selfLink: link,
      version: 1,
    });
    expect(await serverRecord(env, link)).toMatchObject({
      targetKind: "gvc",
      targetLinks: [`/org/${org}/gvc/default`],
      bindings: [
        { permissions: ["view"], principalLinks: [group("devs")] },
        { permissions: ["edit", "view"], principalLinks: [group("ops")] },
      ],
    });
    // What it grants: on the gvc it names, not on another (no `target: "all"` sent or stored).
    expect(await serverRecord(env, link)).not.toHaveProperty("target");
    expect(await grantingPolicies(env, `/org/${org}/gvc/default`)).toContain(link);
    expect(await grantingPolicies(env, `/org/${org}/gvc/other`)).not.toContain(link);
  });

  it("the same program, and one with bindings and permissions reordered: no changes, no request", async () => {
    expect(await policy.up(await policyInputs(args))).toMatchObject({ op: "same", requests: [] });
    const reordered: PolicyArgs = {
      ...args,
      bindings: [
        { permissions: ["view", "edit"], principalLinks: [`/org/${org}/group/ops`] },
        { permissions: ["view"], principalLinks: ["//group/devs"] },
      ],
    };
    expect(await policy.up(await policyInputs(reordered))).toMatchObject({ op: "same", requests: [] });
  });

  // Each update is one PATCH, except a binding's removal: its principals are dropped one by one (a PolicyBinding's
  // principals in the same binding must stay), then the binding, now empty, with a second PATCH.
  const updates: {
    what: string;
    change: (a: PolicyArgs) => PolicyArgs;
    patch: () => Record<string, unknown>;
    then?: () => Record<string, unknown>;
  }[] = [
    {
      what: "a principal added to one binding",
      change: (a) => ({
        ...a,
        bindings: [
          { permissions: ["view"], principalLinks: ["//group/devs", "//group/auditors"] },
          { permissions: ["edit", "view"], principalLinks: ["//group/ops"] },
        ],
      }),
      patch: () => ({ "$patch/bindings": [{ permissions: ["view"], "$append/principalLinks": [group("auditors")] }] }),
    },
    {
      what: "a binding removed",
      change: (a) => ({
        ...a,
        bindings: [{ permissions: ["view"], principalLinks: ["//group/devs", "//group/auditors"] }],
      }),
      patch: () => ({ "$patch/bindings": [{ permissions: ["edit", "view"], "$drop/principalLinks": [group("ops")] }] }),
      then: () => ({ "$drop/bindings": ["edit,view"] }),
    },
    {
      what: "a binding added",
      change: (a) => ({
        ...a,
        bindings: [
          { permissions: ["view"], principalLinks: ["//group/devs", "//group/auditors"] },
          { permissions: ["manage"], principalLinks: ["//group/ops"] },
        ],
      }),
      // A partial, which the server appends (or merges into a binding a PolicyBinding created meanwhile).
      patch: () => ({ "$patch/bindings": [{ permissions: ["manage"], "$append/principalLinks": [group("ops")] }] }),
    },
    {
      what: "target links: one dropped, one appended",
      change: (a) => ({ ...a, targetLinks: ["//gvc/other"] }),
      patch: () => ({
        "$drop/targetLinks": [`/org/${org}/gvc/default`],
        "$append/targetLinks": [`/org/${org}/gvc/other`],
      }),
    },
    {
      what: "target links replaced by target: all, and a tag changed",
      change: (a) => ({ ...a, targetLinks: undefined, target: "all", tags: { purpose: "all-gvcs" } }),
      patch: () => ({ targetLinks: null, target: "all", tags: { purpose: "all-gvcs" } }),
    },
  ];

  for (const update of updates) {
    const count = update.then === undefined ? "exactly one PATCH" : "two PATCHes";
    it(`update with ${update.what}: ${count} with that change only`, async () => {
      const before = await serverRecord(env, link);
      args = update.change(args);
      const step = await policy.up(await policyInputs(args));
      expect(step.op).toBe("update");
      expect(step.diff).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
      const bodies = [update.patch(), ...(update.then === undefined ? [] : [update.then()])];
      expect(step.requests).toEqual(bodies.map((body) => ({ method: "PATCH", path: link, status: 200, body })));
      const after = await serverRecord(env, link);
      expect(after?.version).toBe((before?.version as number) + bodies.length);
      const touched = Object.keys(update.patch()).map((key) => key.replace(/^\$\w+\//, ""));
      for (const field of Object.keys(stable(before))) {
        if (!touched.includes(field)) expect(after?.[field], field).toEqual(before?.[field]);
      }
      expect(policy.outputs.bindings).toEqual(after?.bindings);
      expect(policy.outputs.version).toBe(after?.version);
    });
  }

  it("concurrency: another client appends a principal to binding B while the provider changes binding A; both survive", async () => {
    const staleOutputs = policy.outputs;
    // Another client: one more principal in the `manage` binding.
    await env.client.patchByLink(link, {
      "$patch/bindings": [{ permissions: ["manage"], "$append/principalLinks": ["//group/extra"] }],
    });
    takeRequests(env.server);
    expect(policy.outputs).toBe(staleOutputs);

    // The provider, working from its (now stale) state, removes a principal from the `view` binding.
    args = {
      ...args,
      bindings: [
        { permissions: ["view"], principalLinks: ["//group/devs"] },
        { permissions: ["manage"], principalLinks: ["//group/ops"] },
      ],
    };
    const step = await policy.up(await policyInputs(args));
    expect(step.requests).toEqual([
      {
        method: "PATCH",
        path: link,
        status: 200,
        body: { "$patch/bindings": [{ permissions: ["view"], "$drop/principalLinks": [group("auditors")] }] },
      },
    ]);
    const bindings = (await serverRecord(env, link))?.bindings as { permissions: string[]; principalLinks: string[] }[];
    expect(bindings).toHaveLength(2);
    expect(bindings).toContainEqual({ permissions: ["view"], principalLinks: [group("devs")] });
    expect(bindings).toContainEqual({ permissions: ["manage"], principalLinks: [group("ops"), group("extra")] });
  });

  it("the other client's principal is drift: read finds it, diff reports it, the next update removes only it", async () => {
    const refreshed = await policy.refresh();
    expect(refreshed.requests).toEqual([{ method: "GET", path: link, status: 200, body: undefined }]);
    expect(policy.outputs.bindings).toContainEqual({
      permissions: ["manage"],
      principalLinks: [group("ops"), group("extra")],
    });

    const preview = await policy.preview(await policyInputs(args));
    expect(preview).toEqual({ diff: { changes: true, replaces: [], deleteBeforeReplace: false }, requests: [] });

    const step = await policy.up(await policyInputs(args));
    expect(step.requests).toEqual([
      {
        method: "PATCH",
        path: link,
        status: 200,
        body: { "$patch/bindings": [{ permissions: ["manage"], "$drop/principalLinks": [group("extra")] }] },
      },
    ]);
    expect(await policy.up(await policyInputs(args))).toMatchObject({ op: "same", requests: [] });
  });

  it("`target: all` set beside the links by another client is drift: the diff shows it, the update removes it", async () => {
    // Back to one listed gvc (the updates above left the policy on all of them).
    const listedArgs: PolicyArgs = { ...args, target: undefined, targetLinks: ["//gvc/default"] };
    const listed = await policy.up(await policyInputs(listedArgs));
    expect(listed.requests).toEqual([
      { method: "PATCH", path: link, status: 200, body: { target: null, targetLinks: [`/org/${org}/gvc/default`] } },
    ]);
    expect(await grantingPolicies(env, `/org/${org}/gvc/other`)).not.toContain(link);

    const other = await env.client.patchByLink(link, { target: "all" });
    expect(other).toMatchObject({ target: "all" });
    expect(await grantingPolicies(env, `/org/${org}/gvc/other`)).toContain(link);
    await policy.refresh();
    expect(policy.outputs.target).toBe("all");
    const preview = await policy.preview(await policyInputs(listedArgs));
    expect(preview).toEqual({ diff: { changes: true, replaces: [], deleteBeforeReplace: false }, requests: [] });

    const step = await policy.up(await policyInputs(listedArgs));
    expect(step.requests).toEqual([{ method: "PATCH", path: link, status: 200, body: { target: null } }]);
    expect(await serverRecord(env, link)).not.toHaveProperty("target");
    expect(await grantingPolicies(env, `/org/${org}/gvc/other`)).not.toContain(link);
    expect(await policy.up(await policyInputs(listedArgs))).toMatchObject({ op: "same", requests: [] });
    // And back to every gvc, for the tests below.
    expect((await policy.up(await policyInputs(args))).requests).toEqual([
      { method: "PATCH", path: link, status: 200, body: { target: "all", targetLinks: null } },
    ]);
  });

  it("replace on targetKind: the new policy (new generated name) is created before the old one is deleted", async () => {
    const oldLink = link;
    args = { ...args, targetKind: "location", bindings: [{ permissions: ["view"], principalLinks: ["//group/devs"] }] };
    const step = await policy.up(await policyInputs(args));
    expect(step.diff).toEqual({ changes: true, replaces: ["targetKind"], deleteBeforeReplace: false });
    link = policy.id;
    expect(link).not.toBe(oldLink);
    expect(step.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `POST /org/${org}/policy 201`,
      `DELETE ${oldLink} 202`,
    ]);
    expect(await serverRecord(env, oldLink)).toBeUndefined();
    expect(await serverRecord(env, link)).toMatchObject({ targetKind: "location", target: "all" });
  });

  it("delete: one DELETE; the policy is gone", async () => {
    const requests = await policy.destroy();
    expect(requests).toEqual([{ method: "DELETE", path: link, status: 202, body: undefined }]);
    expect(await serverRecord(env, link)).toBeUndefined();
  });
});

describe("Policy with a user-chosen name", () => {
  it("a targetKind change deletes first (the name is taken), and adopt takes over an existing policy", async () => {
    await env.client.createPolicy({ name: "pinned", targetKind: "gvc", target: "all" });
    takeRequests(env.server);
    const policy = new ResourceStack(env, TYPE, "pinned");
    const inputs = async (a: PolicyArgs) => {
      const { inputs: i } = await programInputs(() => new sdk.Policy("pinned", a));
      return i;
    };
    const base: PolicyArgs = {
      name: "pinned",
      targetKind: "gvc",
      target: "all",
      bindings: [{ permissions: ["view"], principalLinks: ["//group/devs"] }],
      adopt: true,
    };
    const link = `/org/${org}/policy/pinned`;
    const created = await policy.up(await inputs(base));
    expect(created.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET ${link} 200`, // check: what adopting will change
      `POST /org/${org}/policy 409`,
      `GET ${link} 200`,
      `PATCH ${link} 200`,
    ]);
    // The existing policy has no bindings: the binding is a partial, which the server appends.
    expect(created.requests[3]?.body).toEqual({
      "$patch/bindings": [{ permissions: ["view"], "$append/principalLinks": [group("devs")] }],
    });

    const step = await policy.up(await inputs({ ...base, targetKind: "location" }));
    expect(step.diff).toEqual({ changes: true, replaces: ["targetKind"], deleteBeforeReplace: true });
    // The replacement is checked like a new resource, so with adopt: true check reads the object (still the old one).
    expect(step.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET ${link} 200`,
      `DELETE ${link} 202`,
      `POST /org/${org}/policy 201`,
    ]);
    expect(await serverRecord(env, link)).toMatchObject({ targetKind: "location" });
    await policy.destroy();
    expect(await serverRecord(env, link)).toBeUndefined();
  });
});

describe("Policy.get", () => {
  it("reads a builtin policy by its self link with one GET", async () => {
    const link = `/org/${org}/policy/viewers-gvc`;
    const { inputs } = await programInputs(() => sdk.Policy.get("viewers", link));
    takeRequests(env.server);
    const read = await env.host.read(link, harness.urnFor(TYPE, "viewers"), inputs, {});
    expect(takeRequests(env.server)).toEqual([{ method: "GET", path: link, status: 200, body: undefined }]);
    expect(read.id).toBe(link);
    expect(read.props).toMatchObject({
      name: "viewers-gvc",
      targetKind: "gvc",
      origin: "builtin",
      org,
      selfLink: link,
    });
  });
});

// PolicyBinding (non-authoritative) through Pulumi's real dynamic-provider host against cpln-local, sharing one
// policy with a Policy resource (ignoreUndeclaredPrincipals), a second "stack" and a concurrent client edit. After
// every step each party's principals are exactly as it declared; deleting one leaves the others untouched. Exact
// request bodies and counts from the server's request log. Needs `npm run build`.
import { describe, expect, it } from "vitest";
import type { PolicyArgs, PolicyBindingArgs } from "../../sdk/index.js";
import {
  harness,
  inputsOf,
  programInputs,
  ResourceStack,
  sdk,
  takeRequests,
  withEnv,
  type Env,
  type PropertyMap,
} from "./support.js";

const BINDING = "pulumi-nodejs:dynamic/cpln:PolicyBinding";
const POLICY = "pulumi-nodejs:dynamic/cpln:Policy";

let env: Env;
let org = "";
const groups = ["owner", "owner2", "a1", "a2", "a3", "b1", "cli"];
withEnv({ records: groups.map((name) => ({ kind: "group", name })) }, (started) => {
  env = started;
  org = started.server.org;
});

const g = (name: string) => `/org/${org}/group/${name}`;
const rel = (name: string) => `//group/${name}`;

function bindingInputs(name: string, args: PolicyBindingArgs): Promise<PropertyMap> {
  return inputsOf(BINDING, () => new sdk.PolicyBinding(name, args));
}

/** The `tags` of a PATCH that sets a binding's marker (its key and principals) or, with `null`, removes it. */
function marker(stack: ResourceStack, value: string | null): Record<string, string | null> {
  return { [stack.outputs.markerTag as string]: value };
}

async function policyInputs(args: PolicyArgs): Promise<PropertyMap> {
  return (await programInputs(() => new sdk.Policy("shared", args))).inputs;
}

/** The policy's bindings on the server, as permission key → principals (sorted). */
async function serverBindings(link: string): Promise<Record<string, string[]> | undefined> {
  const record = (await env.client.getByLink(link)) as {
    bindings?: { permissions: string[]; principalLinks: string[] }[];
  };
  takeRequests(env.server);
  if (record === undefined) return undefined;
  return Object.fromEntries(
    (record.bindings ?? []).map((b) => [[...b.permissions].sort().join(","), [...b.principalLinks].sort()]),
  );
}

describe("PolicyBinding: two stacks, a Policy resource and a client on one policy", () => {
  const link = () => `/org/${org}/policy/shared`;
  let policy: ResourceStack;
  let a: ResourceStack; // stack A
  let b: ResourceStack; // stack B: a binding in the same permission set as A
  let bEdit: ResourceStack; // stack B: a binding of its own permission set
  let policyArgs: PolicyArgs;
  let aArgs: PolicyBindingArgs;
  const bArgs: PolicyBindingArgs = { policy: "shared", permissions: ["view"], principalLinks: [rel("b1")] };
  const bEditArgs: PolicyBindingArgs = {
    policy: "//policy/shared",
    permissions: ["edit"],
    principalLinks: [rel("b1")],
  };
  const cli: string[] = [];

  /** Every party sees exactly its own principals, and the server holds exactly the union. */
  async function expectParties(server: Record<string, string[]>): Promise<void> {
    expect(await serverBindings(link())).toEqual(server);
    for (const [stack, args] of [
      [a, aArgs],
      [b, bArgs],
      [bEdit, bEditArgs],
    ] as const) {
      if (stack.id === "") continue;
      await stack.refresh();
      expect(stack.outputs.principalLinks, stack.name).toEqual(
        (args.principalLinks as string[]).map((p) => p.replace("//", `/org/${org}/`)),
      );
    }
    if (policy.id !== "") {
      await policy.refresh();
      expect(policy.outputs.bindings).toEqual(
        (policyArgs.bindings as { permissions: string[]; principalLinks: string[] }[]).map((x) => ({
          permissions: x.permissions,
          principalLinks: x.principalLinks.map((p) => p.replace("//", `/org/${org}/`)),
        })),
      );
      expect(await policy.up(await policyInputs(policyArgs))).toMatchObject({ op: "same", requests: [] });
    }
    takeRequests(env.server);
  }

  it("the Policy resource creates the policy with its own binding (one POST)", async () => {
    policyArgs = {
      name: "shared",
      targetKind: "volumeset",
      target: "all",
      bindings: [{ permissions: ["view"], principalLinks: [rel("owner")] }],
      ignoreUndeclaredPrincipals: true,
    };
    policy = new ResourceStack(env, POLICY, "shared");
    const step = await policy.up(await policyInputs(policyArgs));
    expect(step.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`POST /org/${org}/policy 201`]);
    a = new ResourceStack(env, BINDING, "a");
    b = new ResourceStack(env, BINDING, "b");
    bEdit = new ResourceStack(env, BINDING, "b-edit");
    await expectParties({ view: [g("owner")] });
  });

  it("stack A's binding: create is one PATCH appending its principals to the view binding", async () => {
    aArgs = { policy: "shared", permissions: ["view"], principalLinks: [rel("a1"), rel("a2")] };
    const step = await a.up(await bindingInputs("a", aArgs));
    expect(step.requests).toEqual([
      {
        method: "PATCH",
        path: link(),
        status: 200,
        body: {
          "$patch/bindings": [{ permissions: ["view"], "$append/principalLinks": [g("a1"), g("a2")] }],
          tags: marker(a, `view ${g("a1")} ${g("a2")}`),
        },
      },
    ]);
    expect(a.id).toBe(`${link()}#view`);
    expect(a.outputs).toMatchObject({
      policy: link(),
      permissions: ["view"],
      principalLinks: [g("a1"), g("a2")],
      org,
      bindingKey: "view",
    });
    expect(await a.up(await bindingInputs("a", aArgs))).toMatchObject({ op: "same", requests: [] });
    await expectParties({ view: [g("a1"), g("a2"), g("owner")].sort() });
  });

  it("stack B's bindings: one in the same permission set, one that creates the edit binding (one PATCH each)", async () => {
    const step = await b.up(await bindingInputs("b", bArgs));
    expect(step.requests).toEqual([
      {
        method: "PATCH",
        path: link(),
        status: 200,
        body: {
          "$patch/bindings": [{ permissions: ["view"], "$append/principalLinks": [g("b1")] }],
          tags: marker(b, `view ${g("b1")}`),
        },
      },
    ]);
    const edit = await bEdit.up(await bindingInputs("b-edit", bEditArgs));
    expect(edit.requests).toEqual([
      {
        method: "PATCH",
        path: link(),
        status: 200,
        body: {
          "$patch/bindings": [{ permissions: ["edit"], "$append/principalLinks": [g("b1")] }],
          tags: marker(bEdit, `edit ${g("b1")}`),
        },
      },
    ]);
    await expectParties({ view: [g("a1"), g("a2"), g("b1"), g("owner")].sort(), edit: [g("b1")] });
  });

  it("a client appends a principal concurrently: no party reports drift, and the client's principal stays", async () => {
    await env.client.patchByLink(link(), {
      "$patch/bindings": [{ permissions: ["view"], "$append/principalLinks": [rel("cli")] }],
    });
    cli.push(g("cli"));
    takeRequests(env.server);
    await expectParties({ view: [g("a1"), g("a2"), g("b1"), g("cli"), g("owner")].sort(), edit: [g("b1")] });
  });

  it("stack A updates: one PATCH that drops and appends exactly its changed principals", async () => {
    aArgs = { ...aArgs, principalLinks: [rel("a1"), rel("a3")] };
    const step = await a.up(await bindingInputs("a", aArgs));
    expect(step.op).toBe("update");
    expect(step.diff).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(step.requests).toEqual([
      {
        method: "PATCH",
        path: link(),
        status: 200,
        body: {
          "$patch/bindings": [
            { permissions: ["view"], "$drop/principalLinks": [g("a2")], "$append/principalLinks": [g("a3")] },
          ],
          tags: marker(a, `view ${g("a1")} ${g("a3")}`),
        },
      },
    ]);
    await expectParties({ view: [g("a1"), g("a3"), g("b1"), g("cli"), g("owner")].sort(), edit: [g("b1")] });
  });

  it("the Policy resource updates its own binding principal by principal (one PATCH), others untouched", async () => {
    policyArgs = {
      ...policyArgs,
      bindings: [
        { permissions: ["view"], principalLinks: [rel("owner2")] },
        { permissions: ["edit"], principalLinks: [rel("owner")] },
      ],
    };
    const step = await policy.up(await policyInputs(policyArgs));
    expect(step.requests).toEqual([
      {
        method: "PATCH",
        path: link(),
        status: 200,
        body: {
          "$patch/bindings": [
            { permissions: ["view"], "$drop/principalLinks": [g("owner")], "$append/principalLinks": [g("owner2")] },
            { permissions: ["edit"], "$append/principalLinks": [g("owner")] },
          ],
        },
      },
    ]);
    await expectParties({
      view: [g("a1"), g("a3"), g("b1"), g("cli"), g("owner2")].sort(),
      edit: [g("b1"), g("owner")].sort(),
    });
  });

  it("a principal another party removed is drift for its owner only; the next up appends it back (one PATCH)", async () => {
    await env.client.patchByLink(link(), {
      "$patch/bindings": [{ permissions: ["view"], "$drop/principalLinks": [g("a3")] }],
    });
    takeRequests(env.server);
    const refreshed = await a.refresh();
    expect(refreshed.requests).toEqual([{ method: "GET", path: link(), status: 200, body: undefined }]);
    expect(a.outputs.principalLinks).toEqual([g("a1")]);
    const step = await a.up(await bindingInputs("a", aArgs));
    expect(step.requests).toEqual([
      {
        method: "PATCH",
        path: link(),
        status: 200,
        body: {
          "$patch/bindings": [{ permissions: ["view"], "$append/principalLinks": [g("a3")] }],
          tags: marker(a, `view ${g("a1")} ${g("a3")}`),
        },
      },
    ]);
    await expectParties({
      view: [g("a1"), g("a3"), g("b1"), g("cli"), g("owner2")].sort(),
      edit: [g("b1"), g("owner")].sort(),
    });
  });

  it("deleting stack B's view binding: one PATCH dropping only its principal; everyone else untouched", async () => {
    const unmarkB = marker(b, null);
    expect(await b.destroy()).toEqual([
      {
        method: "PATCH",
        path: link(),
        status: 200,
        body: {
          "$patch/bindings": [{ permissions: ["view"], "$drop/principalLinks": [g("b1")] }],
          tags: unmarkB,
        },
      },
    ]);
    await expectParties({
      view: [g("a1"), g("a3"), g("cli"), g("owner2")].sort(),
      edit: [g("b1"), g("owner")].sort(),
    });
  });

  it("a binding left empty is dropped: the Policy resource gives up edit, then stack B's edit binding is deleted", async () => {
    policyArgs = { ...policyArgs, bindings: [{ permissions: ["view"], principalLinks: [rel("owner2")] }] };
    const step = await policy.up(await policyInputs(policyArgs));
    expect(step.requests).toEqual([
      {
        method: "PATCH",
        path: link(),
        status: 200,
        body: { "$patch/bindings": [{ permissions: ["edit"], "$drop/principalLinks": [g("owner")] }] },
      },
    ]);
    const unmarkBEdit = marker(bEdit, null);
    expect(await bEdit.destroy()).toEqual([
      {
        method: "PATCH",
        path: link(),
        status: 200,
        body: {
          "$patch/bindings": [{ permissions: ["edit"], "$drop/principalLinks": [g("b1")] }],
          tags: unmarkBEdit,
        },
      },
      { method: "PATCH", path: link(), status: 200, body: { "$drop/bindings": ["edit"] } },
    ]);
    await expectParties({ view: [g("a1"), g("a3"), g("cli"), g("owner2")].sort() });
  });

  it("deleting stack A's binding leaves the Policy resource's and the client's principals", async () => {
    const unmarkA = marker(a, null);
    expect(await a.destroy()).toEqual([
      {
        method: "PATCH",
        path: link(),
        status: 200,
        body: {
          "$patch/bindings": [{ permissions: ["view"], "$drop/principalLinks": [g("a1"), g("a3")] }],
          tags: unmarkA,
        },
      },
    ]);
    await expectParties({ view: [g("cli"), g("owner2")].sort() });
    expect(cli).toEqual([g("cli")]);
  });

  it("the Policy resource's delete removes the policy (one DELETE): it owns it", async () => {
    expect(await policy.destroy()).toEqual([{ method: "DELETE", path: link(), status: 202, body: undefined }]);
    expect(await serverBindings(link())).toBeUndefined();
  });
});

describe("PolicyBinding edge cases", () => {
  it("a permissions change replaces it (create first); a missing policy is a clear error; .get reads a binding", async () => {
    await env.client.createPolicy({ name: "other", targetKind: "gvc", target: "all" });
    takeRequests(env.server);
    const link = `/org/${org}/policy/other`;
    const stack = new ResourceStack(env, BINDING, "x");
    await stack.up(await bindingInputs("x", { policy: "other", permissions: ["view"], principalLinks: [rel("a1")] }));
    const unmarkOld = marker(stack, null);
    const step = await stack.up(
      await bindingInputs("x", { policy: "other", permissions: ["edit", "view"], principalLinks: [rel("a1")] }),
    );
    expect(step.diff).toEqual({ changes: true, replaces: ["permissions"], deleteBeforeReplace: false });
    // The replacement has a marker of its own; the old one's goes with its principals.
    expect(Object.keys(unmarkOld)).not.toEqual([stack.outputs.markerTag]);
    expect(step.requests.map((r) => [r.method, r.body])).toEqual([
      [
        "PATCH",
        {
          "$patch/bindings": [{ permissions: ["edit", "view"], "$append/principalLinks": [g("a1")] }],
          tags: marker(stack, `edit,view ${g("a1")}`),
        },
      ],
      ["PATCH", { "$patch/bindings": [{ permissions: ["view"], "$drop/principalLinks": [g("a1")] }], tags: unmarkOld }],
      ["PATCH", { "$drop/bindings": ["view"] }],
    ]);
    expect(stack.id).toBe(`${link}#edit,view`);
    expect(await serverBindings(link)).toEqual({ "edit,view": [g("a1")] });

    const { inputs } = await programInputs(() => sdk.PolicyBinding.get("seen", `${link}#edit,view`));
    takeRequests(env.server);
    const read = await env.host.read(`${link}#edit,view`, harness.urnFor(BINDING, "seen"), inputs, {});
    expect(takeRequests(env.server)).toEqual([{ method: "GET", path: link, status: 200, body: undefined }]);
    expect(read.props).toMatchObject({ policy: link, permissions: ["edit", "view"], principalLinks: [g("a1")] });

    const missing = new ResourceStack(env, BINDING, "missing");
    const error = await missing
      .up(await bindingInputs("missing", { policy: "nope", permissions: ["view"], principalLinks: [rel("a1")] }))
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(error?.message).toContain(`Policy /org/${org}/policy/nope does not exist`);

    // A principal someone else already granted the same permissions: the API refuses the duplicate, and says why.
    const twice = new ResourceStack(env, BINDING, "twice");
    const duplicate = await twice
      .up(await bindingInputs("twice", { policy: "other", permissions: ["edit", "view"], principalLinks: [rel("a1")] }))
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(duplicate?.message).toContain(`already holds these permissions on ${link}`);
    expect(twice.id).toBe("");
    expect(await serverBindings(link)).toEqual({ "edit,view": [g("a1")] });
    await stack.destroy();
    expect(await serverBindings(link)).toEqual({});
  });

  it("a Policy adopting a shared policy with ignoreUndeclaredPrincipals appends to the existing binding", async () => {
    await env.client.createPolicy({
      name: "adopted",
      targetKind: "gvc",
      target: "all",
      bindings: [{ permissions: ["view"], principalLinks: [rel("cli")] }],
    });
    takeRequests(env.server);
    const link = `/org/${org}/policy/adopted`;
    const stack = new ResourceStack(env, POLICY, "adopted");
    const args: PolicyArgs = {
      name: "adopted",
      targetKind: "gvc",
      target: "all",
      bindings: [{ permissions: ["view"], principalLinks: [rel("owner")] }],
      adopt: true,
      ignoreUndeclaredPrincipals: true,
    };
    const step = await stack.up(await policyInputs(args));
    expect(step.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET ${link} 200`, // check: what adopting will change
      `POST /org/${org}/policy 409`,
      `GET ${link} 200`,
      `PATCH ${link} 200`,
    ]);
    expect(step.requests[3]?.body).toEqual({
      "$patch/bindings": [{ permissions: ["view"], "$append/principalLinks": [g("owner")] }],
    });
    expect(stack.outputs.bindings).toEqual([{ permissions: ["view"], principalLinks: [g("owner")] }]);
    expect(await serverBindings(link)).toEqual({ view: [g("cli"), g("owner")] });
    expect(await stack.up(await policyInputs(args))).toMatchObject({ op: "same", requests: [] });

    // Without the option the same resource owns the whole list: the other principal is drift and gets dropped.
    // Switching the option is an update without a request; the next refresh sees the whole list.
    const owning = await stack.up(await policyInputs({ ...args, ignoreUndeclaredPrincipals: false }));
    expect(owning).toMatchObject({ op: "update", requests: [] });
    await stack.refresh();
    const step2 = await stack.up(await policyInputs({ ...args, ignoreUndeclaredPrincipals: false }));
    expect(step2.requests.map((r) => r.body)).toEqual([
      { "$patch/bindings": [{ permissions: ["view"], "$drop/principalLinks": [g("cli")] }] },
    ]);
    // Switching it on again never drops a principal the old (whole-list) outputs held: it only appends.
    await env.client.patchByLink(link, {
      "$patch/bindings": [{ permissions: ["view"], "$append/principalLinks": [g("cli")] }],
    });
    await stack.refresh();
    takeRequests(env.server);
    const back = await stack.up(
      await policyInputs({ ...args, bindings: [{ permissions: ["view"], principalLinks: [rel("owner2")] }] }),
    );
    expect(back.requests.map((r) => r.body)).toEqual([
      { "$patch/bindings": [{ permissions: ["view"], "$append/principalLinks": [g("owner2")] }] },
    ]);
    expect(await serverBindings(link)).toEqual({ view: [g("cli"), g("owner"), g("owner2")] });
    expect(stack.outputs.bindings).toEqual([{ permissions: ["view"], principalLinks: [g("owner2")] }]);
    await stack.destroy();
  });

  it("check: a bad policy reference and a duplicate principal are failures naming the field", async () => {
    const urn = harness.urnFor(BINDING, "bad");
    const inputs = await bindingInputs("bad", {
      policy: "//group/x",
      permissions: ["view"],
      principalLinks: [rel("a1"), `/org/${org}/group/a1`],
    });
    const result = await env.host.check(urn, {}, inputs);
    expect(result.failures).toEqual([
      { property: "policy", reason: "must be a policy name, //policy/<name> or /org/<org>/policy/<name>" },
      { property: "principalLinks.1", reason: `duplicate principal '${g("a1")}'` },
    ]);
  });
});

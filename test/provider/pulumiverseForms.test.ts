// What a program written for @pulumiverse/cpln writes, accepted through Pulumi's real dynamic-provider host against
// cpln-local: principal and member links in the short `group/NAME` form, Policy targets named by name with `gvc`, and
// Group.identityMatcher. Asserts the exact requests (the API only ever sees full links) and that the same program
// again is a no-op. Needs `npm run build`.
import { describe, expect, it } from "vitest";
import type { GroupArgs, PolicyArgs } from "../../sdk/index.js";
import { harness, inputsOf, ResourceStack, sdk, serverRecord, withEnv, type Env, type PropertyMap } from "./support.js";

const POLICY = "pulumi-nodejs:dynamic/cpln:Policy";
const GROUP = "pulumi-nodejs:dynamic/cpln:Group";

let env: Env;
let org = "";
withEnv(
  {
    records: [
      { kind: "serviceaccount", name: "ci" },
      { kind: "group", name: "ops" },
      {
        kind: "volumeset",
        gvc: "default",
        name: "data",
        spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" },
      },
    ],
  },
  (started) => {
    env = started;
    org = started.server.org;
  },
);

const policyInputs = (args: PolicyArgs, name = "p"): Promise<PropertyMap> =>
  inputsOf(POLICY, () => new sdk.Policy(name, args));
const groupInputs = (args: GroupArgs, name = "g"): Promise<PropertyMap> =>
  inputsOf(GROUP, () => new sdk.Group(name, args));

describe("Policy written as for @pulumiverse/cpln", () => {
  const args: PolicyArgs = {
    name: "volumes",
    targetKind: "volumeset",
    gvc: "default",
    targetLinks: ["data"],
    bindings: [{ permissions: ["view"], principalLinks: ["group/ops", "serviceaccount/ci", "user/me@example.com"] }],
  };

  it("create: one POST with full target and principal links; gvc is not sent; the same program again is a no-op", async () => {
    const policy = new ResourceStack(env, POLICY, "volumes");
    const step = await policy.up(await policyInputs(args, "volumes"));
    const principals = [`/org/${org}/group/ops`, `/org/${org}/serviceaccount/ci`, `/org/${org}/user/me@example.com`];
    expect(step.requests).toEqual([
      {
        method: "POST",
        path: `/org/${org}/policy`,
        status: 201,
        body: {
          name: "volumes",
          description: "volumes",
          tags: {},
          targetKind: "volumeset",
          targetLinks: [`/org/${org}/gvc/default/volumeset/data`],
          bindings: [{ permissions: ["view"], principalLinks: principals }],
        },
      },
    ]);
    expect(policy.outputs).toMatchObject({ gvc: "default", targetLinks: [`/org/${org}/gvc/default/volumeset/data`] });
    expect(await serverRecord(env, policy.id)).toMatchObject({
      targetLinks: [`/org/${org}/gvc/default/volumeset/data`],
      bindings: [{ permissions: ["view"], principalLinks: principals }],
    });
    expect(await policy.up(await policyInputs(args, "volumes"))).toMatchObject({ op: "same", requests: [] });
    await policy.destroy();
  });

  it("an org-level target kind takes bare names without gvc; gvc with it is refused at check, naming the field", async () => {
    const inputs = await policyInputs({ name: "groups", targetKind: "group", targetLinks: ["ops", "//group/viewers"] });
    const checked = await env.host.check(harness.urnFor(POLICY, "groups"), {}, inputs);
    expect(checked.failures).toEqual([]);
    expect(checked.inputs.targetLinks).toEqual([`/org/${org}/group/ops`, `/org/${org}/group/viewers`]);

    const withGvc = await policyInputs({ name: "groups", targetKind: "group", gvc: "default", targetLinks: ["ops"] });
    const refused = await env.host.check(harness.urnFor(POLICY, "groups"), {}, withGvc);
    expect(refused.failures).toEqual([
      { property: "gvc", reason: "only for a targetKind that lives in a gvc; group objects live in the org" },
    ]);
    expect(env.server.requests()).toEqual([]);
  });

  it("a short link of something that is not a principal is still refused with the link rule", async () => {
    const inputs = await policyInputs({
      targetKind: "group",
      target: "all",
      bindings: [{ permissions: ["view"], principalLinks: ["policy/x"] }],
    });
    const checked = await env.host.check(harness.urnFor(POLICY, "bad"), {}, inputs);
    expect(checked.failures.map((f) => f.property)).toEqual(["bindings.0.principalLinks.0"]);
  });
});

describe("Group written as for @pulumiverse/cpln", () => {
  it("short member links and identityMatcher: one POST; an expression change is one PATCH of that field", async () => {
    const group = new ResourceStack(env, GROUP, "sso");
    const args: GroupArgs = {
      name: "sso",
      memberLinks: ["serviceaccount/ci", "user/me@example.com"],
      identityMatcher: { expression: "groups", language: "jmespath" },
    };
    const created = await group.up(await groupInputs(args, "sso"));
    expect(created.requests).toEqual([
      {
        method: "POST",
        path: `/org/${org}/group`,
        status: 201,
        body: {
          name: "sso",
          description: "sso",
          tags: {},
          memberLinks: [`/org/${org}/serviceaccount/ci`, `/org/${org}/user/me@example.com`],
          identityMatcher: { expression: "groups", language: "jmespath" },
        },
      },
    ]);
    expect(group.outputs.identityMatcher).toEqual({ expression: "groups", language: "jmespath" });
    expect(await group.up(await groupInputs(args, "sso"))).toMatchObject({ op: "same", requests: [] });

    const changed = { ...args, identityMatcher: { expression: "contains(groups, 'ops')", language: "jmespath" } };
    const step = await group.up(await groupInputs(changed as GroupArgs, "sso"));
    expect(step.requests).toEqual([
      {
        method: "PATCH",
        path: group.id,
        status: 200,
        body: { identityMatcher: { expression: "contains(groups, 'ops')" } },
      },
    ]);
    expect((await serverRecord(env, group.id))?.identityMatcher).toEqual({
      expression: "contains(groups, 'ops')",
      language: "jmespath",
    });
    await group.destroy();
  });
});

// Group through Pulumi's real dynamic-provider host against cpln-local: create (one POST, members in full form),
// no-op (also with members reordered), member changes as $append/$drop (exact PATCH bodies), a member another client
// adds survives the provider's update, adopt, .get, delete. Needs `npm run build`.
import { describe, expect, it } from "vitest";
import type { GroupArgs } from "../../sdk/index.js";
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
} from "./support.js";

const TYPE = "pulumi-nodejs:dynamic/cpln:Group";

let env: Env;
let org = "";
withEnv(
  {
    records: [
      { kind: "serviceaccount", name: "ci" },
      { kind: "serviceaccount", name: "deployer" },
      { kind: "serviceaccount", name: "auditor" },
    ],
  },
  (started) => {
    env = started;
    org = started.server.org;
  },
);

function groupInputs(args: GroupArgs, name = "team"): Promise<PropertyMap> {
  return inputsOf(TYPE, () => new sdk.Group(name, args));
}

const sa = (name: string) => `/org/${org}/serviceaccount/${name}`;

describe("Group lifecycle", () => {
  let group: ResourceStack;
  let link = "";
  let args: GroupArgs = { memberLinks: ["//serviceaccount/ci", "//serviceaccount/deployer"], tags: { team: "ci" } };

  it("create: one POST with members in their full form and a generated name", async () => {
    group = new ResourceStack(env, TYPE, "team");
    const step = await group.up(await groupInputs(args));
    const name = group.outputs.name as string;
    expect(name).toMatch(/^team-[0-9a-f]{7}$/);
    link = `/org/${org}/group/${name}`;
    expect(step.requests).toEqual([
      {
        method: "POST",
        path: `/org/${org}/group`,
        status: 201,
        body: { name, description: name, tags: { team: "ci" }, memberLinks: [sa("ci"), sa("deployer")] },
      },
    ]);
    expect(group.id).toBe(link);
    expect(group.outputs).toMatchObject({
      memberLinks: [sa("ci"), sa("deployer")],
      origin: "default",
      org,
      version: 1,
    });
    expect(await serverRecord(env, link)).toMatchObject({ memberLinks: [sa("ci"), sa("deployer")] });
  });

  it("the same program, and one with members reordered: no changes, no request", async () => {
    expect(await group.up(await groupInputs(args))).toMatchObject({ op: "same", requests: [] });
    const reordered = { ...args, memberLinks: [sa("deployer"), "//serviceaccount/ci"] };
    expect(await group.up(await groupInputs(reordered))).toMatchObject({ op: "same", requests: [] });
  });

  it("update: one member dropped and one appended, in one PATCH with only that change", async () => {
    args = { ...args, memberLinks: ["//serviceaccount/ci", "//serviceaccount/auditor"] };
    const step = await group.up(await groupInputs(args));
    expect(step.op).toBe("update");
    expect(step.requests).toEqual([
      {
        method: "PATCH",
        path: link,
        status: 200,
        body: { "$drop/memberLinks": [sa("deployer")], "$append/memberLinks": [sa("auditor")] },
      },
    ]);
    expect(group.outputs.memberLinks).toEqual([sa("ci"), sa("auditor")]);
    expect(group.outputs.version).toBe(2);
  });

  it("a member another client appends survives the provider's next update (a description change)", async () => {
    await env.client.patchByLink(link, { "$append/memberLinks": ["//serviceaccount/deployer"] });
    takeRequests(env.server);
    args = { ...args, description: "CI identities" };
    const step = await group.up(await groupInputs(args));
    expect(step.requests).toEqual([
      { method: "PATCH", path: link, status: 200, body: { description: "CI identities" } },
    ]);
    expect((await serverRecord(env, link))?.memberLinks).toEqual([sa("ci"), sa("auditor"), sa("deployer")]);
  });

  it("read: one GET; the other client's member is drift, and the next update drops only it", async () => {
    const refreshed = await group.refresh();
    expect(refreshed.requests).toEqual([{ method: "GET", path: link, status: 200, body: undefined }]);
    expect(group.outputs.memberLinks).toEqual([sa("ci"), sa("auditor"), sa("deployer")]);
    const step = await group.up(await groupInputs(args));
    expect(step.requests).toEqual([
      { method: "PATCH", path: link, status: 200, body: { "$drop/memberLinks": [sa("deployer")] } },
    ]);
  });

  it("delete: one DELETE; the group is gone", async () => {
    expect(await group.destroy()).toEqual([{ method: "DELETE", path: link, status: 202, body: undefined }]);
    expect(await serverRecord(env, link)).toBeUndefined();
  });
});

describe("Group with a member query", () => {
  it("create sends the query as given (one POST); the same program again is a no-op; a changed term is one PATCH", async () => {
    const query = (value: string): GroupArgs["memberQuery"] => ({
      kind: "user",
      spec: { match: "all", terms: [{ op: "~", property: "email", value }] },
    });
    const group = new ResourceStack(env, TYPE, "by-query");
    const created = await group.up(await groupInputs({ memberQuery: query("@ci.example.com") }, "by-query"));
    const name = group.outputs.name as string;
    expect(created.requests).toEqual([
      {
        method: "POST",
        path: `/org/${org}/group`,
        status: 201,
        body: { name, description: name, tags: {}, memberQuery: query("@ci.example.com") },
      },
    ]);
    expect(await group.up(await groupInputs({ memberQuery: query("@ci.example.com") }, "by-query"))).toMatchObject({
      op: "same",
      requests: [],
    });
    const step = await group.up(await groupInputs({ memberQuery: query("@ops.example.com") }, "by-query"));
    // The term is named by its property: only its value is sent.
    expect(step.requests).toEqual([
      {
        method: "PATCH",
        path: group.id,
        status: 200,
        body: { memberQuery: { spec: { "$patch/terms": [{ property: "email", value: "@ops.example.com" }] } } },
      },
    ]);
    expect((await env.client.getByLink(group.id))?.memberQuery).toMatchObject(query("@ops.example.com") as object);
    await group.destroy();
  });
});

describe("Group adopt and .get", () => {
  it("adopt: check's GET, POST 409, GET, and one PATCH with what differs; .get reads a group with one GET", async () => {
    const created = await fetch(`${env.server.url}/org/${org}/group`, {
      method: "POST",
      headers: { authorization: `Bearer ${env.server.adminKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "existing", memberLinks: ["//serviceaccount/ci"] }),
    });
    expect(created.status).toBe(201);
    takeRequests(env.server);
    const link = `/org/${org}/group/existing`;
    const group = new ResourceStack(env, TYPE, "existing");
    const step = await group.up(
      await groupInputs({
        name: "existing",
        memberLinks: ["//serviceaccount/ci", "//serviceaccount/auditor"],
        adopt: true,
      }),
    );
    expect(step.requests).toEqual([
      // Check reads the object to say what adopting will change, before anything changes.
      { method: "GET", path: link, status: 200, body: undefined },
      {
        method: "POST",
        path: `/org/${org}/group`,
        status: 409,
        // Tags stay present (empty) so that server tags are never replaced as a whole.
        body: { name: "existing", description: "existing", tags: {}, memberLinks: [sa("ci"), sa("auditor")] },
      },
      { method: "GET", path: link, status: 200, body: undefined },
      { method: "PATCH", path: link, status: 200, body: { "$append/memberLinks": [sa("auditor")] } },
    ]);

    const { inputs } = await programInputs(() => sdk.Group.get("viewers", `/org/${org}/group/viewers`));
    takeRequests(env.server);
    const read = await env.host.read(`/org/${org}/group/viewers`, harness.urnFor(TYPE, "viewers"), inputs, {});
    expect(takeRequests(env.server)).toEqual([
      { method: "GET", path: `/org/${org}/group/viewers`, status: 200, body: undefined },
    ]);
    expect(read.props).toMatchObject({ name: "viewers", origin: "builtin", selfLink: `/org/${org}/group/viewers` });
    await group.destroy();
  });
});

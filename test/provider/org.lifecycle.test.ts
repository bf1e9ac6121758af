// Org through Pulumi's real dynamic-provider host against cpln-local: adopt the org's settings (one GET, one PATCH of
// only what the args set), a no-op, an update of one setting (one PATCH of only it), an omitted arg left alone, and a
// delete that puts back the description, tags and settings the org had (a setting it lacked removed, its default
// refilled by the server). Needs `npm run build`.
import { describe, expect, it } from "vitest";
import { inputsOf, ResourceStack, sdk, serverRecord, withEnv, type Env } from "./support.js";

const TYPE = "pulumi-nodejs:dynamic/cpln:Org";

let env: Env;
let org = "";
withEnv((started) => {
  env = started;
  org = started.server.org;
});

type Args = Record<string, unknown>;
const Org = (sdk as unknown as Record<string, new (name: string, args: Args) => unknown>).Org!;
const orgInputs = (args: Args) => inputsOf(TYPE, () => new Org("settings", args));

describe("Org lifecycle", () => {
  let stack: ResourceStack;
  let before: Record<string, unknown>;
  const args: Args = {
    description: "acme production",
    sessionTimeoutSeconds: 1800,
    observability: { logsRetentionDays: 60, metricsRetentionDays: 30, tracesRetentionDays: 30 },
  };

  it("create adopts the org: one GET, one PATCH of only what the args set", async () => {
    before = (await serverRecord(env, `/org/${org}`))!;
    stack = new ResourceStack(env, TYPE, "settings");
    const step = await stack.up(await orgInputs(args));
    expect(step.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /org/${org}`, `PATCH /org/${org}`]);
    expect(step.requests[1]!.body).toEqual({
      description: "acme production",
      spec: { sessionTimeoutSeconds: 1800, observability: { logsRetentionDays: 60 } },
    });
    expect(stack.id).toBe(`/org/${org}`);
    expect(stack.outputs.original).toEqual({
      description: before.description,
      tags: before.tags ?? {},
      spec: before.spec,
    });
    expect(await serverRecord(env, stack.id)).toMatchObject({
      description: "acme production",
      spec: { sessionTimeoutSeconds: 1800 },
    });
  });

  it("the same program: no change, no request", async () => {
    expect(await stack.up(await orgInputs(args))).toMatchObject({ op: "same", requests: [] });
  });

  it("an edit of one setting is one PATCH of only it; an omitted setting stays as it is", async () => {
    const { sessionTimeoutSeconds: _dropped, ...rest } = args;
    const step = await stack.up(
      await orgInputs({ ...rest, observability: { ...(args.observability as Args), tracesRetentionDays: 7 } }),
    );
    expect(step.requests).toEqual([
      { method: "PATCH", path: stack.id, status: 200, body: { spec: { observability: { tracesRetentionDays: 7 } } } },
    ]);
    expect(await serverRecord(env, stack.id)).toMatchObject({ spec: { sessionTimeoutSeconds: 1800 } });
  });

  it("delete puts back what the org had: one PATCH; the org stays", async () => {
    const requests = await stack.destroy();
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([`PATCH /org/${org}`]);
    const after = (await serverRecord(env, `/org/${org}`))!;
    expect(after.description).toEqual(before.description);
    expect(after.spec).toEqual(before.spec);
  });

  it("an org the token cannot read is an error naming it, before any write", async () => {
    const other = new ResourceStack(env, TYPE, "elsewhere");
    await expect(other.up(await orgInputs({ org: "no-such-org", sessionTimeoutSeconds: 1200 }))).rejects.toThrow(
      /no-such-org/,
    );
    expect((env.server.requests() as { method: string }[]).filter((r) => r.method !== "GET")).toEqual([]);
  });
});

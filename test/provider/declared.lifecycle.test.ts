// Every resource a kind declares (`resource` in api/kinds/<kind>.ts), through Pulumi's real dynamic-provider host
// against cpln-local, from its declaration's example bodies alone: create (one POST of exactly the program's values),
// a no-op (no request), an update (one PATCH of exactly what changed), a change of an immutable field and a rename
// (replace: DELETE then POST), .get by self link, a refresh after another client's change (drift shown, the next up
// puts it back with one PATCH), delete (one DELETE). No per-kind list: a new declared kind is covered here by its
// declaration (test/provider/scratchKind.test.ts declares one). Needs `npm run build`.
import { describe, expect, it } from "vitest";
import {
  harness,
  inputsOf,
  load,
  programInputs,
  ResourceStack,
  sdk,
  serverRecord,
  withEnv,
  type Env,
} from "./support.js";
import type * as KindsModule from "../../api/kinds/index.js";
import { argsOf, plainFields, withPaths } from "../support/examples.js";
import type * as DeclaredFunctionsModule from "../../provider/functions/declared.js";

const { kindNames, kinds } = load("../../dist/api/kinds/index.js") as typeof KindsModule;

type Body = Record<string, unknown>;

const { declaredFunctions } = load("../../dist/provider/functions/declared.js") as typeof DeclaredFunctionsModule;

const declaredKinds = kindNames.filter((kind) => kinds[kind].resource !== undefined);

let env: Env;
let org = "";
withEnv((started) => {
  env = started;
  org = started.server.org;
});

it("at least one kind declares its resource, and the SDK has a dynamic and a native class for each", () => {
  expect(declaredKinds.length).toBeGreaterThan(0);
  const native = load("../../dist/sdk/native/index.js") as Record<string, unknown>;
  for (const kind of declaredKinds) {
    const typeName = kinds[kind].resource!.typeName;
    expect(typeof (sdk as unknown as Record<string, unknown>)[typeName], typeName).toBe("function");
    expect(typeof native[typeName], typeName).toBe("function");
  }
});

describe.each(declaredKinds)("declared resource of kind %s", (kind) => {
  const descriptor = kinds[kind];
  const typeName = descriptor.resource!.typeName;
  const type = `pulumi-nodejs:dynamic/cpln:${typeName}`;
  const Resource = (sdk as unknown as Record<string, new (name: string, args: Body) => unknown>)[typeName]!;
  const gvc = descriptor.scope === "gvc" ? { gvc: "default" } : {};
  const collection = descriptor.scope === "gvc" ? `/org/${"ORG"}/gvc/default/${kind}` : `/org/ORG/${kind}`;
  const at = (path: string) => path.replace("ORG", org);
  const created = descriptor.examples.create!(`declared-${kind}`);
  // The example names the object (a domain's name is a DNS name made from the one given).
  const name = created.name as string;
  // The example patch's plain fields (a directive such as `$replace/data` is no resource arg).
  const patch = plainFields(descriptor.examples.patch("m1"));
  const changes = descriptor.examples.immutableChange ?? {};
  let args: Body = { ...argsOf(created), ...gvc };
  let stack: ResourceStack;
  const redacted = (body: Body): Body =>
    Object.fromEntries(
      Object.entries(body).map(([key, value]) => [key, descriptor.revealOnly?.includes(key) ? "[redacted]" : value]),
    );
  const inputs = (values: Body, logical = "r") => inputsOf(type, () => new Resource(logical, values));
  // A kind with reveal-only fields is read through its `-reveal` endpoint (the fields are returned nowhere else).
  const reveals = (descriptor.revealOnly ?? []).length > 0 && descriptor.endpoints?.["reveal"] !== undefined;
  const readPath = (link: string) => (reveals ? `${link}/-reveal` : link);

  it("create: one POST of the example body (description defaults to the name)", async () => {
    stack = new ResourceStack(env, type, "r");
    const step = await stack.up(await inputs(args));
    expect(step.requests).toEqual([
      {
        method: "POST",
        path: at(collection),
        status: 201,
        // The server's create defaults are filled in by the provider's check (so that omitting one is no change).
        // The request log redacts reveal-only fields (a secret's data): they reached the server, never the log.
        body: redacted({ description: name, tags: {}, ...(descriptor.defaults?.(created) ?? created) }),
      },
    ]);
    expect(stack.id).toBe(`${at(collection)}/${name}`);
    expect(stack.outputs).toMatchObject({ ...args, org, selfLink: stack.id, version: 1 });
  });

  it("the same program again: no change, no request", async () => {
    expect(await stack.up(await inputs(args))).toMatchObject({ op: "same", requests: [] });
  });

  it("update: one PATCH holding exactly the example patch", async () => {
    args = { ...args, ...argsOf(patch) };
    const step = await stack.up(await inputs(args));
    expect(step.op).toBe("update");
    expect(step.requests).toEqual([{ method: "PATCH", path: stack.id, status: 200, body: patch }]);
    expect(await serverRecord(env, stack.id)).toMatchObject(patch);
  });

  it("refresh after another client's change shows it; the next up puts the program's value back in one PATCH", async () => {
    await env.client.patchByLink(stack.id, { description: "changed elsewhere" });
    const refreshed = await stack.refresh();
    expect(refreshed.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${readPath(stack.id)}`]);
    expect(stack.outputs.description).toBe("changed elsewhere");
    const step = await stack.up(await inputs(args));
    expect(step.requests).toEqual([
      { method: "PATCH", path: stack.id, status: 200, body: { description: patch.description ?? name } },
    ]);
  });

  // A reveal-only field the example patch replaces (a secret's data): refresh reads it through `-reveal`.
  const revealed = reveals
    ? (descriptor.revealOnly ?? []).find((field) => `$replace/${field}` in descriptor.examples.patch("x"))
    : undefined;
  if (revealed !== undefined)
    it(`refresh reads ${revealed} through -reveal: a change elsewhere shows; the next up puts the program's back`, async () => {
      const stored = async () => ((await env.client.getByLink(`${stack.id}/-reveal`)) as Body)[revealed];
      const programs = await stored();
      const elsewhere = descriptor.examples.patch("elsewhere")[`$replace/${revealed}`];
      await env.client.patchByLink(stack.id, { [`$replace/${revealed}`]: elsewhere } as never);
      const changed = await stored();
      expect(changed).not.toEqual(programs);
      const refreshed = await stack.refresh();
      expect(refreshed.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${stack.id}/-reveal`]);
      expect(stack.outputs[revealed]).toEqual(changed);
      const step = await stack.up(await inputs(args));
      expect(step.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`PATCH ${stack.id} 200`]);
      expect(await stored()).toEqual(programs);
    });

  it(".get reads the object by its self link with one GET", async () => {
    const { inputs: getInputs } = await programInputs(() =>
      (Resource as unknown as { get(n: string, id: string): unknown }).get("existing", stack.id),
    );
    const read = await env.host.read(stack.id, harness.urnFor(type, "existing"), getInputs, {});
    expect(read.id).toBe(stack.id);
    expect(read.props).toMatchObject({ name, selfLink: stack.id, org });
  });

  it(`get${typeName} reads the object as the API returns it; an unknown name is an error naming it`, async () => {
    const get = declaredFunctions(Object.values(kinds))[`get${typeName}`]!;
    const settings: Record<string, string> = {
      "cpln:org": org,
      "cpln:endpoint": env.server.url,
      "cpln:token": env.server.adminKey,
    };
    const functionEnv = { stackConfig: { get: (key: string) => settings[key] } };
    const record = (await get.run({ name, ...gvc }, functionEnv)) as Body;
    // A kind with reveal-only fields is read through -reveal: its data included, and marked secret in the schema.
    expect(record).toEqual(
      reveals ? await env.client.getByLink(`${stack.id}/-reveal`) : await serverRecord(env, stack.id),
    );
    expect(get.secretResultFields ?? []).toEqual(reveals ? descriptor.revealOnly : []);
    if (reveals) for (const field of descriptor.revealOnly ?? []) expect(record[field]).toBeDefined();
    await expect(get.run({ name: "missing", ...gvc }, functionEnv)).rejects.toThrow(
      `GET ${at(collection)}/missing: no such ${kind} (404)`,
    );
    await expect(get.run({ ...gvc }, functionEnv)).rejects.toThrow(/name/);
  });

  // Only for kinds with an immutable field: defined, not skipped, so that a run counts no skipped tests.
  if (Object.keys(changes).length > 0)
    it("a change of an immutable field replaces: the object deleted first (its name is the program's), then one POST", async () => {
      const changed = argsOf(withPaths(created, changes));
      const replaced = Object.keys(argsOf(withPaths({}, changes))).sort();
      args = { ...args, ...Object.fromEntries(replaced.map((arg) => [arg, changed[arg]])) };
      const step = await stack.up(await inputs(args));
      expect(step.op).toBe("replace");
      expect([...(step.diff?.replaces ?? [])].sort()).toEqual(replaced);
      expect(step.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        `DELETE ${at(collection)}/${name}`,
        `POST ${at(collection)}`,
      ]);
      const record = (await serverRecord(env, stack.id)) as Body;
      expect(withPaths(record, changes)).toEqual(record);
    });

  it("a new name replaces: the old object deleted first, then one POST", async () => {
    const renamed = descriptor.examples.create!(`declared-${kind}-2`).name as string;
    args = { ...args, name: renamed };
    const step = await stack.up(await inputs(args));
    expect(step.op).toBe("replace");
    expect(step.diff?.replaces).toEqual(["name"]);
    expect(step.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `DELETE ${at(collection)}/${name}`,
      `POST ${at(collection)}`,
    ]);
    expect(await serverRecord(env, `${at(collection)}/${name}`)).toBeUndefined();
    expect(stack.id).toBe(`${at(collection)}/${renamed}`);
  });

  it("delete: one DELETE, and the object is gone", async () => {
    const link = stack.id;
    const requests = await stack.destroy();
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([`DELETE ${link}`]);
    expect(await serverRecord(env, link)).toBeUndefined();
  });
});

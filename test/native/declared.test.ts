// Every resource a kind declares (`resource` in api/kinds/<kind>.ts), through the native plugin spawned as the engine
// spawns it, against cpln-local, from the declaration's example bodies alone: create (one POST), a no-op (no request),
// an update (one PATCH of exactly the example patch), a change of an immutable field (replaced: DELETE then POST),
// `pulumi import` by self link and by the short id (Read → Check → Diff empty; reveal-only fields read by `-reveal`),
// delete (one DELETE). No per-kind
// list: a new declared kind is covered here by its declaration (test/provider/scratchKind.test.ts declares one).
// Needs `npm run build`.
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as KindsModule from "../../api/kinds/index.js";
import { argsOf, plainFields, withPaths } from "../support/examples.js";
import {
  executable,
  NativeStack,
  nativeClient,
  scratchDir,
  secret,
  SECRET_SIG_KEY,
  serverModule,
  takeRequests,
  urnFor,
  type NativePluginClient,
  type Props,
  type RunningServer,
} from "./support.js";

const { kindNames, kinds } = createRequire(__filename)("../../dist/api/kinds/index.js") as typeof KindsModule;
const declaredKinds = kindNames.filter((kind) => kinds[kind].resource !== undefined);
const token = (name: string) => `cpln-native:index:${name}`;

let server: RunningServer;
let plugin: NativePluginClient;
let org = "";

beforeAll(async () => {
  server = await serverModule.startServer({ recordRequests: true });
  org = server.org;
  plugin = await nativeClient.NativePluginClient.executable(executable, { cwd: scratchDir() });
  await plugin.configure({ org, endpoint: server.url, token: secret(server.adminKey) });
});

afterAll(async () => {
  await plugin?.stop();
  await server?.close();
});

describe.each(declaredKinds)("declared native resource of kind %s", (kind) => {
  const descriptor = kinds[kind];
  const typeName = descriptor.resource!.typeName;
  const type = token(typeName);
  const gvc = descriptor.scope === "gvc" ? { gvc: "default" } : {};
  const collection = () => (descriptor.scope === "gvc" ? `/org/${org}/gvc/default/${kind}` : `/org/${org}/${kind}`);
  const example = descriptor.examples.create!(`native-${kind}`);
  const name = String(example["name"]);
  const patch = plainFields(descriptor.examples.patch("n1"));
  // The request log redacts reveal-only fields (a secret's data): they reached the server, never the log.
  const redacted = (body: Props): Props =>
    Object.fromEntries(
      Object.entries(body).map(([key, value]) => [key, descriptor.revealOnly?.includes(key) ? "[redacted]" : value]),
    );
  const changes = descriptor.examples.immutableChange ?? {};
  // A kind with reveal-only fields is read through its `-reveal` endpoint (the fields are returned nowhere else).
  const reveals = (descriptor.revealOnly ?? []).length > 0 && descriptor.endpoints?.["reveal"] !== undefined;
  const readPath = (link: string) => (reveals ? `${link}/-reveal` : link);
  let args: Props = { ...argsOf(example), ...gvc };
  let stack: NativeStack;

  it("create: one POST of the example body; the id is the self link", async () => {
    stack = new NativeStack(plugin, server, type, "r");
    const step = await stack.up(args);
    expect(step.requests).toEqual([
      {
        method: "POST",
        path: collection(),
        status: 201,
        body: redacted({ description: name, tags: {}, ...(descriptor.defaults?.(example) ?? example) }),
      },
    ]);
    expect(stack.id).toBe(`${collection()}/${name}`);
    expect(stack.outputs).toMatchObject({ name, org, selfLink: stack.id, version: 1 });
  });

  it("the same args: DIFF_NONE, no request", async () => {
    const step = await stack.up(args);
    expect(step).toMatchObject({ op: "same", diff: { changes: "none", detailedDiff: {} }, requests: [] });
  });

  it("update: one PATCH holding exactly the example patch's fields", async () => {
    args = { ...args, ...argsOf(patch) };
    const step = await stack.up(args);
    expect(step.op).toBe("update");
    expect(step.diff?.replaces).toEqual([]);
    expect(step.requests).toEqual([{ method: "PATCH", path: stack.id, status: 200, body: patch }]);
  });

  // Only for kinds with an immutable field: defined, not skipped, so that a run counts no skipped tests.
  if (Object.keys(changes).length > 0)
    it("a change of an immutable field replaces: the object deleted first (its name is the program's), then one POST", async () => {
      const changed = argsOf(withPaths(example, changes));
      const replaced = Object.keys(argsOf(withPaths({}, changes))).sort();
      args = { ...args, ...Object.fromEntries(replaced.map((arg) => [arg, changed[arg]])) };
      const step = await stack.up(args);
      expect(step.op).toBe("replace");
      expect([...(step.diff?.replaces ?? [])].sort()).toEqual(replaced);
      expect(step.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
        `DELETE ${collection()}/${name} 202`,
        `POST ${collection()} 201`,
      ]);
      const headers = { authorization: `Bearer ${server.adminKey}` };
      const record = (await server.app.inject({ method: "GET", url: stack.id, headers })).json<Props>();
      expect(withPaths(record, changes)).toEqual(record);
    });

  it("pulumi import by self link and by the short id: one GET each, then Check and Diff find nothing to change", async () => {
    const short = descriptor.scope === "gvc" ? `default:${name}` : name;
    for (const id of [stack.id, short]) {
      const urn = urnFor(type, "imported");
      takeRequests(server);
      const read = await plugin.read(id, urn);
      expect(read.id).toBe(stack.id);
      expect(takeRequests(server)).toEqual([{ method: "GET", path: readPath(stack.id), status: 200, body: undefined }]);
      // Everything the create body needs is read back (reveal-only fields through `-reveal`): Check finds nothing to
      // fix and Diff nothing to change.
      for (const field of reveals ? (descriptor.revealOnly ?? []) : []) {
        expect((read.inputs[field] as Props | undefined)?.[SECRET_SIG_KEY], `${field} is secret`).toBeDefined();
      }
      const checked = await plugin.check(urn, {}, read.inputs);
      expect(checked.failures).toEqual([]);
      const diff = await plugin.diff(read.id, urn, read.props, checked.inputs, read.inputs);
      expect([id, diff.changes, diff.detailedDiff]).toEqual([id, "none", {}]);
      expect(takeRequests(server)).toEqual([]);
    }
  });

  it("delete: one DELETE; a Read afterwards reports it gone", async () => {
    const link = stack.id;
    expect(await stack.destroy()).toEqual([{ method: "DELETE", path: link, status: 202, body: undefined }]);
    expect(await plugin.read(link, stack.urn, { org })).toEqual({ id: "", props: {}, inputs: {} });
  });
});

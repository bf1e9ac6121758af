/**
 * The plugin's first calls (bench "coldstart", measure `calls`): a fresh plugin, spawned as the engine spawns it, then
 * the first call of each kind an `up` and a `destroy` make for one workload — Configure, Check, Create, Diff, Read,
 * Delete — each timed from the request to the answer. A Node.js plugin pays for loading code and building the kind's
 * schemas at the first call of each kind (bench/README.md §9); a Go provider has no such cost.
 */
import { NativePluginClient } from "../tools/native/client.js";

export const callNames = ["port", "configure", "check", "create", "diff", "read", "delete"] as const;
export type CallName = (typeof callNames)[number];

/** A standard workload of one container in the seeded gvc `default`. */
const workload = {
  gvc: "default",
  type: "standard",
  containers: [{ name: "app", image: "nginx:1.27", ports: [{ number: 8080, protocol: "http" }] }],
};

/** One fresh plugin's first calls, ms each (`port`: spawn to the port on stdout); the workload is deleted again. */
export async function firstCalls(
  executable: string,
  cwd: string,
  env: Record<string, string>,
  server: { url: string; org: string; adminKey: string },
  name: string,
): Promise<Record<CallName, number>> {
  const started = performance.now();
  const plugin = await NativePluginClient.executable(executable, { cwd, env });
  const ms: Partial<Record<CallName, number>> = { port: performance.now() - started };
  const timed = async <T>(call: CallName, run: () => Promise<T>): Promise<T> => {
    const at = performance.now();
    const result = await run();
    ms[call] = performance.now() - at;
    return result;
  };
  try {
    const urn = `urn:pulumi:bench::coldstart::cpln-native:index:Workload::${name}`;
    await timed("configure", () => plugin.configure({ org: server.org, endpoint: server.url, token: server.adminKey }));
    const checked = await timed("check", () => plugin.check(urn, {}, { ...workload, name }));
    if (checked.failures.length > 0) throw new Error(`check failed: ${JSON.stringify(checked.failures)}`);
    const created = await timed("create", () => plugin.create(urn, checked.inputs));
    const edited = { ...checked.inputs, description: "edited" };
    const diff = await timed("diff", () => plugin.diff(created.id, urn, created.outputs, edited, checked.inputs));
    if (diff.changes !== "some") throw new Error(`diff of an edited description found ${diff.changes}`);
    const read = await timed("read", () => plugin.read(created.id, urn, created.outputs, checked.inputs));
    if (read.id !== created.id) throw new Error(`read answered id "${read.id}", not "${created.id}"`);
    await timed("delete", () => plugin.delete(created.id, urn, created.outputs, checked.inputs));
  } finally {
    await plugin.stop();
  }
  return ms as Record<CallName, number>;
}

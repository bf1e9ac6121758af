/**
 * The volume-set facts of `fidelity/facts/volumeset.json` that name a check (types-ts, terraform-provider-cpln, the
 * docs, the CLI bundle, shakacode/control-plane-flow and Control Plane's ai-plugin) replayed against cpln-local: the
 * list of every gvc's volume sets, and the status fields that say which workloads mount a set (`usedByWorkload`,
 * `workloadLinks`, `bindingId`). The facts without a check (a shared set's spec) are replayed by settings.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { ORG, admin, start } from "../server/helpers.js";
import { checkAllGvcs } from "./allGvcs.js";
import { loadFacts, Tally, type Fact } from "./facts.js";

let server: RunningServer;
const tally = new Tally();
const GVC = "fid-sets";
const sets = `/org/${ORG}/gvc/${GVC}/volumeset`;
const workloads = `/org/${ORG}/gvc/${GVC}/workload`;
let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

beforeAll(async () => {
  server = await start();
  expect((await admin(server).post(`/org/${ORG}/gvc`, { name: GVC })).status).toBe(201);
});
afterAll(async () => {
  await server.close();
  tally.print("volume-set facts of fidelity/facts/volumeset.json replayed against cpln-local");
});

type Json = Record<string, unknown>;
const EXT4 = { initialCapacity: 10, performanceClass: "general-purpose-ssd" };
const SHARED = { initialCapacity: 10, fileSystemType: "shared" };

async function newSet(spec: Json): Promise<string> {
  const name = unique("set");
  expect((await admin(server).post(sets, { name, spec })).status).toBe(201);
  return name;
}
const statusOf = async (set: string) => ((await admin(server).get(`${sets}/${set}`)).body as { status: Json }).status;
const container = (set?: string) => ({
  name: "main",
  image: "nginx:1.27",
  ports: [{ number: 8080 }],
  volumes: set === undefined ? [] : [{ uri: `cpln://volumeset/${set}`, path: "/data" }],
});
async function mount(type: string, set: string): Promise<string> {
  const name = unique("wl");
  const created = await admin(server).post(workloads, { name, spec: { type, containers: [container(set)] } });
  expect(created.status).toBe(201);
  return name;
}
async function remount(workload: string, set?: string): Promise<void> {
  const patched = await admin(server).patch(`${workloads}/${workload}`, { spec: { containers: [container(set)] } });
  expect(patched.status).toBe(200);
}
async function removed(workload: string): Promise<void> {
  expect((await admin(server).delete(`${workloads}/${workload}`)).status).toBe(202);
}

const checks: Record<string, (fact: Fact) => Promise<void>> = {
  "all-gvcs": async () => checkAllGvcs(server, "volumeset", GVC, (name) => ({ name, spec: EXT4 })),
  "use-fields": async (fact) => {
    const set = await newSet(EXT4);
    const workload = await mount("stateful", set);
    const status = await statusOf(set);
    for (const field of fact["fields"] as string[]) expect(status, field).toHaveProperty(field);
    await removed(workload);
    const cleared = await statusOf(set);
    for (const field of fact["fields"] as string[]) expect(cleared, field).not.toHaveProperty(field);
  },
  binding: async () => {
    const set = await newSet(EXT4);
    const workload = await mount("stateful", set);
    const first = (await statusOf(set))["bindingId"];
    expect(first).toEqual(expect.any(String));
    // "If a workload is updated to remove the volume set, then updated again to reattach it": a new id.
    await remount(workload);
    expect(await statusOf(set)).not.toHaveProperty("bindingId");
    await remount(workload, set);
    const second = (await statusOf(set))["bindingId"];
    expect(second).toEqual(expect.any(String));
    expect(second).not.toBe(first);
    await removed(workload);
  },
  "use-links": async () => {
    const set = await newSet(EXT4);
    const workload = await mount("stateful", set);
    const status = await statusOf(set);
    const linked = [status["usedByWorkload"], ...(status["workloadLinks"] as string[])] as string[];
    for (const link of linked) {
      expect(link.split("/").at(-1)).toBe(workload);
      const read = await admin(server).get(link);
      expect([read.status, (read.body as { name: string }).name]).toEqual([200, workload]);
    }
    await removed(workload);
  },
  bound: async () => {
    const set = await newSet(EXT4);
    const bound = await mount("stateful", set);
    expect(await statusOf(set)).toMatchObject({ usedByWorkload: `${workloads}/${bound}` });
    const shared = await newSet(SHARED);
    const many = [await mount("standard", shared), await mount("serverless", shared)].sort();
    const status = await statusOf(shared);
    expect(status["workloadLinks"]).toEqual(many.map((w) => `${workloads}/${w}`));
    expect(status).not.toHaveProperty("usedByWorkload");
    for (const w of [bound, ...many]) await removed(w);
  },
};

describe("volume sets", () => {
  const file = loadFacts("volumeset.json");
  const checked = file.facts.filter((f) => f["check"] !== undefined);

  it("every fact without a check is one settings.test.ts replays", () => {
    expect(file.facts.filter((f) => f["check"] === undefined).map((f) => f.id)).toEqual([
      "volumeset/shared-snapshots-encryption",
      "volumeset/shared-derived-class",
    ]);
  });

  it.each(checked.map((f) => [f.id, f] as const))("%s", async (_id, fact) => {
    const check = checks[String(fact["check"])];
    expect(check, `no check ${String(fact["check"])}`).toBeDefined();
    await tally.check(fact, () => (check as (fact: Fact) => Promise<void>)(fact));
  });
});

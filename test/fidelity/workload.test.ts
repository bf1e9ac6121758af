/**
 * The workload facts (`fidelity/facts/workload.json`, from types-ts, terraform-provider-cpln, the docs and the CLI)
 * replayed against cpln-local: types, the defaults the API fills, the refusals it states, the status it forms and
 * the deployments it serves, and the list of every gvc's workloads.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { ADMIN_KEY, ORG, admin, bearer, call, start } from "../server/helpers.js";
import { checkAllGvcs } from "./allGvcs.js";
import { loadFacts, Tally, type Fact } from "./facts.js";

let server: RunningServer;
const tally = new Tally();
const GVC = "facts";
const base = `/org/${ORG}/gvc/${GVC}/workload`;
let counter = 0;
const unique = () => `fw-${++counter}`;

beforeAll(async () => {
  server = await start();
  const gvc = await admin(server).post(`/org/${ORG}/gvc`, {
    name: GVC,
    spec: { staticPlacement: { locationLinks: ["//location/aws-us-west-2"] } },
  });
  expect(gvc.status).toBe(201);
});

afterAll(async () => {
  await server.close();
  tally.print("workload facts of fidelity/facts/workload.json replayed against cpln-local");
});

type Json = Record<string, unknown>;
const one = (port?: number) => ({ name: "c", image: "nginx", ...(port ? { ports: [{ number: port }] } : {}) });
/** A spec of `type` that passes every rule (a serverless workload exposes one port, a cron one has a job). */
const specOf = (type: string, extra: Json = {}): Json => ({
  type,
  containers: [type === "cron" ? one() : one(8080)],
  ...(type === "cron" ? { job: { schedule: "0 * * * *" } } : {}),
  ...extra,
});

async function create(spec: Json, name = unique()) {
  return admin(server).post(base, { name, spec });
}

async function created(spec: Json): Promise<Json & { name: string; spec: Json; status: Json; version: number }> {
  const answer = await create(spec);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body as Json & { name: string; spec: Json; status: Json; version: number };
}

/** The issues of a refused create (400), and proof that nothing was written. */
async function refusedIssues(spec: Json): Promise<unknown[]> {
  const name = unique();
  const answer = await create(spec, name);
  expect(answer.status, JSON.stringify(answer.body)).toBe(400);
  expect((await admin(server).get(`${base}/${name}`)).status).toBe(404);
  return (answer.body as { details: { issues: unknown[] } }).details.issues;
}

const at = (value: unknown, path: string[]): unknown =>
  path.reduce<unknown>((v, key) => (v as Json | undefined)?.[key], value);

const checks: Record<string, (fact: Fact) => Promise<void>> = {
  async types(fact) {
    for (const type of fact["types"] as string[]) expect((await created(specOf(type))).spec["type"]).toBe(type);
    expect(await refusedIssues(specOf("vm"))).toContainEqual(expect.objectContaining({ path: "spec.type" }));
  },
  async "default-type"(fact) {
    expect((await created({ containers: [one()] })).spec["type"]).toBe(fact["type"]);
  },
  async immutable() {
    const w = await created(specOf("standard"));
    const answer = await admin(server).patch(`${base}/${w.name}`, { spec: { type: "stateful" } });
    expect(answer.status).toBe(409);
    expect((await admin(server).get(`${base}/${w.name}`)).body).toEqual(w);
  },
  async defaults(fact) {
    const extra: Json = {};
    for (const key of ["job", "rolloutOptions", "firewallConfig", "requestRetryPolicy"]) {
      if (fact[key] !== undefined) extra[key] = fact[key];
    }
    const w = await created({ ...specOf(fact["type"] as string), ...extra });
    expect(at(w.spec, fact["path"] as string[])).toEqual(fact["expected"]);
    // The defaults hold on read, and after a `$replace/spec` sending the spec without them.
    expect(at((await admin(server).get(`${base}/${w.name}`)).body, ["spec", ...(fact["path"] as string[])])).toEqual(
      fact["expected"],
    );
    const refused = fact["refused"] as Json | undefined;
    if (refused) expect(await refusedIssues({ ...specOf(fact["type"] as string), ...refused })).not.toEqual([]);
  },
  async "container-defaults"(fact) {
    const w = await created({ type: "standard", containers: [fact["container"]] });
    expect((w.spec["containers"] as unknown[])[0]).toEqual(fact["expected"]);
  },
  async "probe-defaults"(fact) {
    const container = {
      ...one(8080),
      readinessProbe: { httpGet: { port: 8080 } },
      livenessProbe: { tcpSocket: { port: 8080 } },
    };
    const w = await created({ type: "standard", containers: [container] });
    const probes = (w.spec["containers"] as Json[])[0] as Json;
    expect({ readinessProbe: probes["readinessProbe"], livenessProbe: probes["livenessProbe"] }).toEqual(
      fact["expected"],
    );
  },
  async refused(fact) {
    expect(await refusedIssues(fact["spec"] as Json)).toContainEqual(fact["issue"]);
  },
  async ports(fact) {
    for (const port of fact["refused"] as number[]) {
      expect(await refusedIssues(specOf("standard", { containers: [one(port)] }))).toContainEqual(
        expect.objectContaining({ path: "spec.containers.0.ports.0.number" }),
      );
    }
    for (const port of fact["accepted"] as number[]) await created(specOf("standard", { containers: [one(port)] }));
  },
  async "container-names"(fact) {
    for (const name of fact["refused"] as string[]) {
      expect(await refusedIssues({ type: "standard", containers: [{ name, image: "x" }] })).toContainEqual(
        expect.objectContaining({ path: "spec.containers.0.name" }),
      );
    }
  },
  async "env-names"(fact) {
    for (const name of fact["refused"] as string[]) {
      const spec = { type: "standard", containers: [{ ...one(), env: [{ name, value: "v" }] }] };
      expect(await refusedIssues(spec)).toContainEqual(
        expect.objectContaining({ path: "spec.containers.0.env.0.name" }),
      );
    }
  },
  async volumes(fact) {
    const withVolumes = (volumes: Json[]) => ({ type: "standard", containers: [{ ...one(), volumes }] });
    const accepted = (fact["accepted"] as string[]).map((uri, i) => ({ uri, path: `/mnt/v${i}` }));
    await created(withVolumes(accepted));
    for (const uri of fact["refusedUris"] as string[]) {
      expect(await refusedIssues(withVolumes([{ uri, path: "/mnt/x" }]))).toContainEqual(
        expect.objectContaining({ path: "spec.containers.0.volumes.0.uri" }),
      );
    }
    for (const path of fact["refusedPaths"] as string[]) {
      expect(await refusedIssues(withVolumes([{ uri: "scratch://v", path }]))).toContainEqual(
        expect.objectContaining({ path: "spec.containers.0.volumes.0.path" }),
      );
    }
    if (fact["uniquePaths"] === true) {
      const twice = [
        { uri: "scratch://a", path: "/same" },
        { uri: "scratch://b", path: "/same" },
      ];
      expect(await refusedIssues(withVolumes(twice))).toContainEqual({
        path: "spec.containers.0.volumes.1.path",
        message: "duplicates the path of another volume of the container",
      });
    }
  },
  async volumeset() {
    const set = unique();
    const shared = unique();
    for (const [name, spec] of [
      [set, { initialCapacity: 10, performanceClass: "general-purpose-ssd" }],
      [shared, { initialCapacity: 10, fileSystemType: "shared" }],
    ] as const) {
      expect((await admin(server).post(`/org/${ORG}/gvc/${GVC}/volumeset`, { name, spec })).status).toBe(201);
    }
    const mount = (type: string, name: string) =>
      specOf(type, { containers: [{ ...one(8080), volumes: [{ uri: `cpln://volumeset/${name}`, path: "/data" }] }] });
    // Only a stateful workload mounts a non-shared set, and only one does; a shared one serves any number of any type.
    expect(await refusedIssues(mount("standard", set))).toHaveLength(1);
    await created(mount("stateful", set));
    expect(await refusedIssues(mount("stateful", set))).toHaveLength(1);
    await created(mount("standard", shared));
    await created(mount("serverless", shared));
    // A volume set of another gvc is not there to mount.
    expect(await refusedIssues(mount("stateful", "data-of-other-gvc"))).toHaveLength(1);
  },
  async "all-gvcs"() {
    await checkAllGvcs(server, "workload", GVC, (name) => ({ name, spec: specOf("standard") }));
  },
  async "replace-spec"() {
    const w = await created(specOf("standard"));
    const answer = await admin(server).patch(`${base}/${w.name}`, {
      "$replace/spec": { type: "standard", containers: [{ name: "c", image: "nginx:2" }] },
    });
    expect(answer.status).toBe(200);
    const spec = (answer.body as { spec: Json }).spec;
    expect(spec["containers"]).toEqual([
      { name: "c", image: "nginx:2", cpu: "50m", memory: "128Mi", inheritEnv: false },
    ]);
    expect(spec["defaultOptions"]).toEqual(w.spec["defaultOptions"]);
  },
  async status(fact) {
    const w = await created(specOf("serverless"));
    for (const field of fact["fields"] as string[]) expect([field, w.status[field]]).not.toEqual([field, undefined]);
  },
  async endpoint() {
    const w = await created(specOf("serverless"));
    const gvc = (await admin(server).get(`/org/${ORG}/gvc/${GVC}`)).body as Json;
    const alias = typeof gvc["alias"] === "string" ? gvc["alias"] : GVC;
    expect(w.status["canonicalEndpoint"]).toBe(`https://${w.name}-${alias}.cpln.app`);
    expect(w.status["internalName"]).toBe(`${w.name}.${GVC}.cpln.local`);
    expect(w.status["parentId"]).toBe(gvc["id"]);
  },
  async deployments(fact) {
    const w = await created(specOf("serverless"));
    const list = await admin(server).get(`${base}/${w.name}/deployment`);
    expect(list.status).toBe(200);
    const items = (list.body as { items: Json[] }).items;
    expect(items.map((d) => [d["name"], d["kind"]])).toEqual([["aws-us-west-2", "deployment"]]);
    const one = await admin(server).get(`${base}/${w.name}/deployment/aws-us-west-2`);
    expect(one.body).toEqual(items[0]);
    for (const field of fact["statusFields"] as string[]) {
      expect([field, (items[0]?.["status"] as Json)[field]]).not.toEqual([field, undefined]);
    }
    const write = await call(server, "PATCH", `${base}/${w.name}/deployment/aws-us-west-2`, {
      auth: bearer(ADMIN_KEY),
      body: {},
    });
    expect(write.status).toBe(405);
  },
};

describe("workload facts", () => {
  const file = loadFacts("workload.json");
  it.each(file.facts.map((f) => [f.id, f] as const))("%s", async (_id, fact) => {
    const check = checks[fact["check"] as string];
    if (check === undefined) throw new Error(`no check ${String(fact["check"])} for ${fact.id}`);
    try {
      await tally.check(fact, () => check(fact));
    } finally {
      // The gvc holds at most 5 workloads (its workloads-per-gvc quota): each fact starts from an empty one.
      const listed = (await admin(server).get(base)).body as { items: { name: string }[] };
      for (const w of listed.items) expect((await admin(server).delete(`${base}/${w.name}`)).status).toBe(202);
    }
  });
});

/**
 * A volume set's status reports the workloads that mount it (`cpln://volumeset/<name>`), as terraform-provider-cpln
 * reads it: `usedByWorkload` (the bound workload's link), `workloadLinks` (every workload using it) and `bindingId`
 * (new for each new connection). Set and cleared with the workload's create, patch and delete, in the same write;
 * the set's own version and lastModified do not move.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { ANY_ID, ORG, admin, apiError, start } from "./helpers.js";

let server: RunningServer;
const sets = `/org/${ORG}/gvc/default/volumeset`;
const workloads = `/org/${ORG}/gvc/default/workload`;
const link = (name: string) => `${workloads}/${name}`;
let parentId = "";

beforeAll(async () => {
  server = await start();
  parentId = ((await admin(server).get(`/org/${ORG}/gvc/default`)).body as { id: string }).id;
  for (const [name, spec] of [
    ["data", { initialCapacity: 10, performanceClass: "general-purpose-ssd" }],
    ["files", { initialCapacity: 10, fileSystemType: "shared" }],
  ] as const) {
    expect((await admin(server).post(sets, { name, spec })).status).toBe(201);
  }
});
afterAll(async () => {
  await server.close();
});

type Set = { status: Record<string, unknown>; version: number; lastModified: string };
const setOf = async (name: string) => (await admin(server).get(`${sets}/${name}`)).body as Set;

const mounting = (name: string, type: string, set: string) => ({
  name,
  spec: {
    type,
    containers: [
      {
        name: "main",
        image: "nginx:1.27",
        ports: [{ number: 8080 }],
        volumes: [{ uri: `cpln://volumeset/${set}`, path: "/data" }],
      },
    ],
  },
});

describe("a non-shared volume set and the stateful workload mounting it", () => {
  it("a create that mounts it sets usedByWorkload, workloadLinks and a bindingId; version and lastModified stay", async () => {
    const before = await setOf("data");
    expect(before.status).toEqual({ parentId });
    expect((await admin(server).post(workloads, mounting("db", "stateful", "data"))).status).toBe(201);
    const after = await setOf("data");
    expect(after.status).toEqual({
      parentId,
      usedByWorkload: link("db"),
      workloadLinks: [link("db")],
      bindingId: ANY_ID,
    });
    expect([after.version, after.lastModified]).toEqual([before.version, before.lastModified]);
  });

  it("a patch keeping the mount keeps the binding; dropping it clears the fields; mounting again is a new binding", async () => {
    const bound = (await setOf("data")).status["bindingId"];
    const kept = await admin(server).patch(`${workloads}/db`, {
      description: "kept",
      spec: { "$patch/containers": [{ name: "main", env: [{ name: "MODE", value: "kept" }] }] },
    });
    expect(kept.status).toBe(200);
    expect((await setOf("data")).status["bindingId"]).toBe(bound);
    const dropped = await admin(server).patch(`${workloads}/db`, {
      spec: { "$patch/containers": [{ name: "main", volumes: [] }] },
    });
    expect(dropped.status).toBe(200);
    expect((await setOf("data")).status).toEqual({ parentId });
    const again = await admin(server).patch(`${workloads}/db`, {
      spec: { "$patch/containers": [{ name: "main", volumes: [{ uri: "cpln://volumeset/data", path: "/data" }] }] },
    });
    expect(again.status).toBe(200);
    const rebound = (await setOf("data")).status;
    expect(rebound).toEqual({ parentId, usedByWorkload: link("db"), workloadLinks: [link("db")], bindingId: ANY_ID });
    expect(rebound["bindingId"]).not.toBe(bound);
  });

  it("a refused mount by another workload (400) leaves the set's status as it was", async () => {
    const before = await setOf("data");
    const refused = await admin(server).post(workloads, mounting("db2", "stateful", "data"));
    expect(refused.body).toEqual(
      apiError(400, "BadRequest", expect.any(String), [
        {
          path: "spec.containers.0.volumes.0.uri",
          message: "mounts volume set data already mounted by workload db",
        },
      ]),
    );
    expect(await setOf("data")).toEqual(before);
  });

  it("deleting the workload clears them and gives the org's stored bytes back", async () => {
    const bytes = async () => {
      const quotas = (await admin(server).get(`/org/${ORG}/quota`)).body as {
        items: { name: string; current: number }[];
      };
      return quotas.items.find((q) => q.name === "stored-bytes")?.current;
    };
    const withUse = await bytes();
    expect((await admin(server).delete(`${workloads}/db`)).status).toBe(202);
    expect((await setOf("data")).status).toEqual({ parentId });
    // The workload's record and the set's use fields are both gone from the count.
    const after = await bytes();
    expect(after).toBeLessThan(withUse as number);
    expect((await admin(server).post(workloads, mounting("db", "stateful", "data"))).status).toBe(201);
    expect((await admin(server).delete(`${workloads}/db`)).status).toBe(202);
    expect(await bytes()).toBe(after);
  });
});

describe("a shared volume set", () => {
  it("lists every workload mounting it in workloadLinks (by name) and binds none; deletes take them out", async () => {
    expect((await admin(server).post(workloads, mounting("web-b", "serverless", "files"))).status).toBe(201);
    expect((await admin(server).post(workloads, mounting("web-a", "standard", "files"))).status).toBe(201);
    expect((await setOf("files")).status).toEqual({ parentId, workloadLinks: [link("web-a"), link("web-b")] });
    expect((await admin(server).delete(`${workloads}/web-a`)).status).toBe(202);
    expect((await setOf("files")).status).toEqual({ parentId, workloadLinks: [link("web-b")] });
    expect((await admin(server).delete(`${workloads}/web-b`)).status).toBe(202);
    expect((await setOf("files")).status).toEqual({ parentId });
  });
});

describe("a volume set made while a workload names it", () => {
  it("starts with that workload's use (a set deleted and made again under its name)", async () => {
    expect((await admin(server).post(workloads, mounting("keeper", "stateful", "data"))).status).toBe(201);
    expect((await admin(server).delete(`${sets}/data`)).status).toBe(202);
    const remade = await admin(server).post(sets, {
      name: "data",
      spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" },
    });
    expect(remade.status).toBe(201);
    expect((remade.body as Set).status).toEqual({
      parentId,
      usedByWorkload: link("keeper"),
      workloadLinks: [link("keeper")],
      bindingId: ANY_ID,
    });
  });
});

// VolumeSet through Pulumi's real dynamic-provider host against cpln-local: create, no-op, every kind of update
// (exact PATCH bodies), drift, adopt, get, replace (auto-named and user-named), delete. Needs `npm run build`.
import { describe, expect, it } from "vitest";
import type { VolumeSetArgs } from "../../sdk/index.js";
import {
  inputsOf,
  programInputs,
  ResourceStack,
  sdk,
  serverRecord,
  stable,
  takeRequests,
  withEnv,
  type Env,
  type PropertyMap,
} from "./support.js";

const TYPE = "pulumi-nodejs:dynamic/cpln:VolumeSet";

let env: Env;
withEnv({ records: [{ kind: "gvc", name: "other" }] }, (started) => {
  env = started;
});

function volumeSetInputs(args: VolumeSetArgs, logicalName = "data"): Promise<PropertyMap> {
  return inputsOf(TYPE, () => new sdk.VolumeSet(logicalName, args));
}

const base: VolumeSetArgs = {
  gvc: "default",
  initialCapacity: 20,
  performanceClass: "general-purpose-ssd",
  snapshots: { retentionDuration: "7d", schedule: "0 * * * *" },
  tags: { team: "storage" },
};

describe("VolumeSet lifecycle (auto-named)", () => {
  const stack = () => new ResourceStack(env, TYPE, "data");
  let vs: ResourceStack;
  let link = "";

  it("create: one POST with the nested API body, a generated name, outputs echoing every input", async () => {
    vs = stack();
    const step = await vs.up(await volumeSetInputs(base));
    const name = vs.outputs.name as string;
    expect(name).toMatch(/^data-[0-9a-f]{7}$/);
    link = `/org/${env.server.org}/gvc/default/volumeset/${name}`;
    expect(step.requests).toEqual([
      {
        method: "POST",
        path: `/org/${env.server.org}/gvc/default/volumeset`,
        status: 201,
        body: {
          name,
          description: name,
          tags: { team: "storage" },
          spec: {
            initialCapacity: 20,
            performanceClass: "general-purpose-ssd",
            fileSystemType: "ext4",
            snapshots: { retentionDuration: "7d", schedule: "0 * * * *" },
          },
        },
      },
    ]);
    expect(vs.id).toBe(link);
    expect(vs.outputs).toMatchObject({
      gvc: "default",
      initialCapacity: 20,
      performanceClass: "general-purpose-ssd",
      fileSystemType: "ext4",
      snapshots: { retentionDuration: "7d", schedule: "0 * * * *" },
      name,
      description: name,
      tags: { team: "storage" },
      org: env.server.org,
      selfLink: link,
      version: 1,
    });
    expect(vs.outputs.cplnId).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof vs.outputs.created).toBe("string");
    expect(vs.outputs.status).toEqual({ parentId: expect.any(String) });
    const record = await serverRecord(env, link);
    expect(record?.spec).toEqual({
      initialCapacity: 20,
      performanceClass: "general-purpose-ssd",
      fileSystemType: "ext4",
      snapshots: { retentionDuration: "7d", schedule: "0 * * * *" },
    });
  });

  it("the same program again: diff reports no changes, keeps the generated name, sends nothing", async () => {
    const step = await vs.up(await volumeSetInputs(base));
    expect(step.op).toBe("same");
    expect(step.diff).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    expect(step.requests).toEqual([]);
    expect(vs.inputs.name).toBe(vs.outputs.name);
  });

  const updates: { what: string; args: VolumeSetArgs; patch: Record<string, unknown>; changed: string[] }[] = [
    {
      what: "a spec scalar",
      args: { ...base, initialCapacity: 30 },
      patch: { spec: { initialCapacity: 30 } },
      changed: ["spec"],
    },
    {
      what: "a new nested block",
      args: {
        ...base,
        initialCapacity: 30,
        autoscaling: { maxCapacity: 100, minFreePercentage: 10, scalingFactor: 1.5 },
      },
      patch: { spec: { autoscaling: { maxCapacity: 100, minFreePercentage: 10, scalingFactor: 1.5 } } },
      changed: ["spec"],
    },
    {
      what: "one field deep inside a block (predictive scaling)",
      args: {
        ...base,
        initialCapacity: 30,
        autoscaling: {
          maxCapacity: 100,
          minFreePercentage: 10,
          scalingFactor: 1.5,
          predictive: { enabled: true, lookbackHours: 48 },
        },
      },
      patch: { spec: { autoscaling: { predictive: { enabled: true, lookbackHours: 48 } } } },
      changed: ["spec"],
    },
    {
      what: "a removed block",
      args: {
        ...base,
        snapshots: undefined,
        initialCapacity: 30,
        autoscaling: {
          maxCapacity: 100,
          minFreePercentage: 10,
          scalingFactor: 1.5,
          predictive: { enabled: true, lookbackHours: 48 },
        },
      },
      patch: { spec: { snapshots: null } },
      changed: ["spec"],
    },
    {
      what: "tags (one removed, one added) and the description",
      args: {
        ...base,
        snapshots: undefined,
        initialCapacity: 30,
        autoscaling: {
          maxCapacity: 100,
          minFreePercentage: 10,
          scalingFactor: 1.5,
          predictive: { enabled: true, lookbackHours: 48 },
        },
        tags: { owner: "ops" },
        description: "volumes for the database",
      },
      patch: { description: "volumes for the database", tags: { team: null, owner: "ops" } },
      changed: ["description", "tags"],
    },
  ];

  for (const update of updates) {
    it(`update of ${update.what}: exactly one PATCH with only that change; nothing else on the server moves`, async () => {
      const before = await serverRecord(env, link);
      const step = await vs.up(await volumeSetInputs(update.args));
      expect(step.op).toBe("update");
      expect(step.diff).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
      expect(step.requests).toEqual([{ method: "PATCH", path: link, status: 200, body: update.patch }]);
      const after = await serverRecord(env, link);
      expect(after?.version).toBe((before?.version as number) + 1);
      for (const field of Object.keys(stable(before))) {
        if (!update.changed.includes(field)) expect(after?.[field], field).toEqual(before?.[field]);
      }
      // Outputs are the PATCH response: they equal the server's record, and echo the new inputs.
      expect(vs.outputs.version).toBe(after?.version);
      expect(vs.outputs.description).toBe(after?.description);
      expect({ ...(vs.outputs.tags as object), ...(vs.outputs.serverTags as object) }).toEqual(after?.tags);
      expect(vs.outputs.autoscaling).toEqual((after?.spec as Record<string, unknown>).autoscaling);
      expect(vs.outputs.snapshots).toEqual((after?.spec as Record<string, unknown>).snapshots);
    });
  }

  const latest = updates[updates.length - 1]!.args;

  it("an out-of-band change is found by read and undone by the next update", async () => {
    await env.client.patchByLink(link, { description: "changed by hand", spec: { initialCapacity: 40 } });
    takeRequests(env.server);

    const refreshed = await vs.refresh();
    expect(refreshed).toEqual({ gone: false, requests: [{ method: "GET", path: link, status: 200, body: undefined }] });
    expect(vs.outputs).toMatchObject({ description: "changed by hand", initialCapacity: 40 });
    expect(vs.inputs).toMatchObject({ description: "changed by hand", initialCapacity: 40, __logicalName: "data" });
    expect(vs.inputs).not.toHaveProperty("cplnId");

    const preview = await vs.preview(await volumeSetInputs(latest));
    expect(preview).toEqual({ diff: { changes: true, replaces: [], deleteBeforeReplace: false }, requests: [] });

    const step = await vs.up(await volumeSetInputs(latest));
    expect(step.requests).toEqual([
      {
        method: "PATCH",
        path: link,
        status: 200,
        body: { description: "volumes for the database", spec: { initialCapacity: 30 } },
      },
    ]);
    const record = await serverRecord(env, link);
    expect(record).toMatchObject({ description: "volumes for the database", spec: { initialCapacity: 30 } });
  });

  it("replace on an immutable field (performanceClass) of an auto-named set: create the new one first, new name", async () => {
    const oldLink = link;
    const step = await vs.up(
      await volumeSetInputs({
        ...latest,
        performanceClass: "high-throughput-ssd",
        initialCapacity: 200,
        autoscaling: undefined,
      }),
    );
    expect(step.op).toBe("replace");
    expect(step.diff).toEqual({ changes: true, replaces: ["performanceClass"], deleteBeforeReplace: false });
    const newName = vs.outputs.name as string;
    expect(newName).toMatch(/^data-[0-9a-f]{7}$/);
    expect(newName).not.toBe(oldLink.split("/").pop());
    link = `/org/${env.server.org}/gvc/default/volumeset/${newName}`;
    expect(step.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `POST /org/${env.server.org}/gvc/default/volumeset 201`,
      `DELETE ${oldLink} 202`,
    ]);
    expect((step.requests[0]?.body as { spec: unknown }).spec).toMatchObject({
      performanceClass: "high-throughput-ssd",
      initialCapacity: 200,
    });
    expect(await serverRecord(env, oldLink)).toBeUndefined();
    expect((await serverRecord(env, link))?.spec).toMatchObject({ performanceClass: "high-throughput-ssd" });
  });

  it("delete: one DELETE, the set is gone, and a later read reports it gone", async () => {
    const outputs = vs.outputs;
    const requests = await vs.destroy();
    expect(requests).toEqual([{ method: "DELETE", path: link, status: 202, body: undefined }]);
    expect(await serverRecord(env, link)).toBeUndefined();

    const read = await env.host.read(link, vs.urn, outputs, {});
    expect(read.id).toBe("");
    expect(takeRequests(env.server)).toEqual([{ method: "GET", path: link, status: 404, body: undefined }]);
  });
});

describe("VolumeSet lifecycle (user-named)", () => {
  let vs: ResourceStack;
  const named: VolumeSetArgs = { ...base, name: "fixed", description: "pinned" };

  it("replace of a user-named set (performanceClass) deletes the old one first: the name is taken", async () => {
    vs = new ResourceStack(env, TYPE, "fixed");
    await vs.up(await volumeSetInputs(named, "fixed"));
    const link = `/org/${env.server.org}/gvc/default/volumeset/fixed`;
    expect(vs.id).toBe(link);

    const step = await vs.up(
      await volumeSetInputs({ ...named, performanceClass: "high-throughput-ssd", initialCapacity: 200 }, "fixed"),
    );
    expect(step.diff).toEqual({ changes: true, replaces: ["performanceClass"], deleteBeforeReplace: true });
    expect(step.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `DELETE ${link} 202`,
      `POST /org/${env.server.org}/gvc/default/volumeset 201`,
    ]);
    expect(vs.id).toBe(link);
    expect((await serverRecord(env, link))?.spec).toMatchObject({ performanceClass: "high-throughput-ssd" });
  });

  it("replace on a gvc change moves the set to the other gvc", async () => {
    const step = await vs.up(
      await volumeSetInputs(
        { ...named, gvc: "other", performanceClass: "high-throughput-ssd", initialCapacity: 200 },
        "fixed",
      ),
    );
    expect(step.diff).toEqual({ changes: true, replaces: ["gvc"], deleteBeforeReplace: true });
    expect(step.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `DELETE /org/${env.server.org}/gvc/default/volumeset/fixed 202`,
      `POST /org/${env.server.org}/gvc/other/volumeset 201`,
    ]);
    expect(vs.id).toBe(`/org/${env.server.org}/gvc/other/volumeset/fixed`);
    expect(await serverRecord(env, `/org/${env.server.org}/gvc/default/volumeset/fixed`)).toBeUndefined();
    expect(await serverRecord(env, vs.id)).toMatchObject({ name: "fixed", description: "pinned" });
  });

  it("a set deleted out of band: refresh drops it (one GET, 404), and delete of a gone set succeeds", async () => {
    const outputs = vs.outputs;
    const link = vs.id;
    await env.client.deleteByLink(link);
    takeRequests(env.server);
    const refreshed = await vs.refresh();
    expect(refreshed).toEqual({ gone: true, requests: [{ method: "GET", path: link, status: 404, body: undefined }] });

    await env.host.delete(link, vs.urn, outputs);
    expect(takeRequests(env.server)).toEqual([{ method: "DELETE", path: link, status: 404, body: undefined }]);
  });
});

describe("VolumeSet adopt and get", () => {
  it("without adopt, an existing name fails with a 409 that says how to take it over; nothing changes", async () => {
    await env.client.createVolumeSet("default", {
      name: "existing",
      description: "made by hand",
      tags: { keep: "no" },
      spec: { initialCapacity: 50, performanceClass: "general-purpose-ssd" },
    });
    takeRequests(env.server);
    const vs = new ResourceStack(env, TYPE, "existing");
    const args: VolumeSetArgs = {
      gvc: "default",
      name: "existing",
      initialCapacity: 60,
      performanceClass: "general-purpose-ssd",
    };
    await expect(vs.up(await volumeSetInputs(args, "existing"))).rejects.toThrow(/409 AlreadyExists.*adopt: true/);
    expect(takeRequests(env.server).map((r) => `${r.method} ${r.status}`)).toEqual(["POST 409"]);
  });

  it("with adopt: true: check's GET, then create takes the object over: POST (409), GET, one PATCH", async () => {
    const link = `/org/${env.server.org}/gvc/default/volumeset/existing`;
    const vs = new ResourceStack(env, TYPE, "existing");
    const args: VolumeSetArgs = {
      gvc: "default",
      name: "existing",
      initialCapacity: 60,
      performanceClass: "general-purpose-ssd",
      adopt: true,
    };
    const step = await vs.up(await volumeSetInputs(args, "existing"));
    expect(step.requests).toEqual([
      // Check reads the object to say what adopting will change, before anything changes.
      { method: "GET", path: link, status: 200, body: undefined },
      expect.objectContaining({ method: "POST", status: 409 }),
      { method: "GET", path: link, status: 200, body: undefined },
      {
        method: "PATCH",
        path: link,
        status: 200,
        body: { description: "existing", tags: { keep: null }, spec: { initialCapacity: 60 } },
      },
    ]);
    expect(vs.id).toBe(link);
    expect(vs.outputs).toMatchObject({ adopt: true, initialCapacity: 60, description: "existing", tags: {} });
    expect(await serverRecord(env, link)).toMatchObject({ description: "existing", spec: { initialCapacity: 60 } });
    await vs.destroy();
  });

  it("VolumeSet.get reads an existing set by its self link (props carry no org) with one GET", async () => {
    await env.client.createVolumeSet("default", {
      name: "shared-data",
      spec: { initialCapacity: 10, fileSystemType: "shared" },
    });
    const link = `/org/${env.server.org}/gvc/default/volumeset/shared-data`;
    const { inputs } = await programInputs(() => sdk.VolumeSet.get("shared", link));
    takeRequests(env.server);
    const read = await env.host.read(link, "urn:pulumi:stack::project::" + TYPE + "::shared", inputs, {});
    expect(takeRequests(env.server)).toEqual([{ method: "GET", path: link, status: 200, body: undefined }]);
    expect(read.id).toBe(link);
    expect(read.props).toMatchObject({
      name: "shared-data",
      gvc: "default",
      org: env.server.org,
      performanceClass: "shared",
      fileSystemType: "shared",
      initialCapacity: 10,
      selfLink: link,
    });
  });
});

/**
 * A volume set on the shared file system takes `snapshots` and `customEncryption`, as the real API does:
 * terraform-provider-cpln's acceptance test (`resource_volume_set_test.go`, `NewDefaultScenario("shared", "shared")`)
 * creates a shared volume set, then sends both in a `$replace/spec` update and reads them back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { ORG, admin, start } from "./helpers.js";

let server: RunningServer;
const collection = `/org/${ORG}/gvc/default/volumeset`;

beforeAll(async () => {
  server = await start();
});

afterAll(async () => {
  await server.close();
});

const encryption = {
  regions: {
    "aws-us-west-2": { keyId: "arn:aws:kms:us-west-2:123456789012:key/minimal" },
    "aws-us-east-1": { keyId: "arn:aws:kms:us-east-1:123456789012:key/extended" },
  },
};
const snapshots = { createFinalSnapshot: false, retentionDuration: "2d", schedule: "0 * * * *" };

describe("volume sets on the shared file system", () => {
  it("a create with snapshots and customEncryption is stored and read back as sent", async () => {
    const created = await admin(server).post(collection, {
      name: "shared-created",
      spec: { initialCapacity: 10, fileSystemType: "shared", snapshots, customEncryption: encryption },
    });
    expect(created.status).toBe(201);
    const spec = {
      initialCapacity: 10,
      fileSystemType: "shared",
      performanceClass: "shared",
      snapshots,
      customEncryption: encryption,
    };
    expect((created.body as { spec: unknown }).spec).toEqual(spec);
    expect(((await admin(server).get(`${collection}/shared-created`)).body as { spec: unknown }).spec).toEqual(spec);
  });

  it("terraform's update ($replace/spec with both) is accepted, and a merge patch of them too", async () => {
    const item = `${collection}/shared-updated`;
    const base = { initialCapacity: 10, performanceClass: "shared", fileSystemType: "shared" };
    expect((await admin(server).post(collection, { name: "shared-updated", spec: base })).status).toBe(201);
    const replaced = await admin(server).patch(item, {
      "$replace/spec": { ...base, storageClassSuffix: "demo-class", snapshots: {}, customEncryption: encryption },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      version: 2,
      spec: { ...base, storageClassSuffix: "demo-class", snapshots: {}, customEncryption: encryption },
    });
    const merged = await admin(server).patch(item, {
      spec: { snapshots, customEncryption: { regions: { "aws-us-east-1": null } } },
    });
    expect(merged.status).toBe(200);
    const spec = (merged.body as { spec: Record<string, unknown> }).spec;
    expect(spec["snapshots"]).toEqual(snapshots);
    expect(spec["customEncryption"]).toEqual({ regions: { "aws-us-west-2": encryption.regions["aws-us-west-2"] } });
    // The fields' own rules still hold on the shared file system: a 400 naming the field, nothing stored.
    const refused = await admin(server).patch(item, { spec: { snapshots: { retentionDuration: "forever" } } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("spec.snapshots.retentionDuration");
    expect(((await admin(server).get(item)).body as { version: number }).version).toBe(3);
  });
});

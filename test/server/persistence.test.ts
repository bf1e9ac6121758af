/** Data in a SQLite file survives a restart: write, close, start again on the same file, read back. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, ORG, admin, as, bearer, field, serviceAccountWithKey, start } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "cpln-local-persist-"));
const file = join(dir, "cpln.db");

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("persistence", () => {
  it("records, versions, quota usage and service-account keys survive a restart", async () => {
    const first = await start({ data: file });
    const spec = { initialCapacity: 10, performanceClass: "general-purpose-ssd" };
    const created = await admin(first).post(`/org/${ORG}/gvc/default/volumeset`, { name: "kept", spec });
    expect(created.status).toBe(201);
    const patched = await admin(first).patch(`/org/${ORG}/gvc/default/volumeset/kept`, { description: "still here" });
    expect(field(patched.body, "version")).toBe(2);
    const key = await serviceAccountWithKey(first, "survivor");
    const quotasBefore = (await admin(first).get(`/org/${ORG}/quota`)).body;
    const groupsBefore = (await admin(first).get(`/org/${ORG}/group`)).body;
    await first.close();

    const second = await start({ data: file });
    try {
      const read = await admin(second).get(`/org/${ORG}/gvc/default/volumeset/kept`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(patched.body);
      // Seeding ran once: the builtins are the same objects, with the same ids and versions.
      expect((await admin(second).get(`/org/${ORG}/group`)).body).toEqual(groupsBefore);
      expect((await admin(second).get(`/org/${ORG}/quota`)).body).toEqual(quotasBefore);
      // The key added before the restart still authenticates (it is stored hashed in the same file).
      expect((await as(second, bearer(key)).get(`/org/${ORG}/cloudaccount/-schema/permissions`)).status).toBe(200);
      // Seed records that already exist are left as they are.
      expect(field<unknown[]>((await admin(second).get(`/org/${ORG}/cloudaccount`)).body, "items")).toHaveLength(2);
    } finally {
      await second.close();
    }
  });

  it("a restart with another admin key revokes the previous admin key", async () => {
    const other = "otheradmin.another-admin-secret-0123456789";
    const third = await start({ data: file, adminKey: other });
    try {
      expect((await as(third, bearer(other)).get(`/org/${ORG}/policy/viewers-org`)).status).toBe(200);
      expect((await as(third, bearer(ADMIN_KEY)).get(`/org/${ORG}/policy/viewers-org`)).status).toBe(401);
      const keys = field<{ name: string; description: string }[]>(
        (await as(third, bearer(other)).get(`/org/${ORG}/serviceaccount/controlplane`)).body,
        "keys",
      );
      expect(keys.map((k) => k.name)).toEqual(["otheradmin"]);
    } finally {
      await third.close();
    }
  });
});

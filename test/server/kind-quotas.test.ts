/**
 * Issue 39 finding 3: kinds without a count quota (mk8s, user, auditctx) were unbounded, and their records are held in
 * memory when listed. Every kind a principal can create now has a count quota; a create past it is a 429 naming the
 * quota, also under a concurrent load from a principal that may only create that kind; an org stored before the
 * quotas existed gets them, counting what it holds.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kindNames, kinds } from "../../api/kinds/index.js";
import { kindRules } from "../../server/domain/index.js";
import { quotaDefinitions } from "../../server/domain/quota.js";
import type { RunningServer } from "../../server/index.js";
import { ORG, admin, as, bearer, field, serviceAccountWithKey, start } from "./helpers.js";

interface Quota {
  id: string;
  name: string;
  max: number;
  current: number;
  dimensions: Record<string, string>;
}

let server: RunningServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cpln-kind-quotas-"));
  server = await start({ data: join(dir, "data.db") });
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function quotas(on: RunningServer = server): Promise<Quota[]> {
  return field<Quota[]>((await admin(on).get(`/org/${ORG}/quota`)).body, "items");
}

async function orgQuota(name: string, on: RunningServer = server): Promise<Quota> {
  const quota = (await quotas(on)).find((q) => q.name === name && q.dimensions["gvcLink"] === undefined);
  if (!quota) throw new Error(`no quota ${name}`);
  return quota;
}

async function countOf(kind: string): Promise<number> {
  return (await server.store.list(ORG, kind)).length;
}

/** A valid create body of `kind` named `name`. */
function createBody(kind: string, name: string): Record<string, unknown> {
  switch (kind) {
    case "mk8s":
      return {
        name,
        spec: {
          version: "1.28.4",
          provider: { generic: { location: "aws-eu-central-1", nodePools: [{ name: "general" }] } },
        },
      };
    case "user":
      return { email: `${name}@example.com` };
    case "auditctx":
      return { name };
    case "location":
      return { name, provider: "byok" };
    default:
      throw new Error(`no body for ${kind}`);
  }
}

const creatable = kindNames.filter((kind) => kindRules[kind].createBody !== undefined);

describe("every kind a principal can create has a count quota", () => {
  it("each creatable kind consumes an org quota that counts that kind", () => {
    // Read from the declarations: every kind with a create body (its example included) is checked below.
    expect(creatable.sort()).toEqual(kindNames.filter((kind) => kinds[kind].examples.create !== undefined).sort());
    expect(creatable.length).toBeGreaterThan(9);
    for (const kind of creatable) {
      const use = kindRules[kind].quota;
      expect([kind, use]).toEqual([kind, expect.objectContaining({ name: expect.any(String) })]);
      const definition = quotaDefinitions.find((d) => d.name === use?.name);
      expect([kind, definition?.counts, definition?.perGvc]).toEqual([kind, kind, use?.perGvc]);
    }
  });

  it("the org lists them with current = the records it holds (builtins and seed included)", async () => {
    for (const [name, kind] of [
      ["mk8s-clusters", "mk8s"],
      ["users", "user"],
      ["audit-contexts", "auditctx"],
      ["locations", "location"],
    ] as const) {
      const quota = await orgQuota(name);
      expect([name, quota.current]).toEqual([name, await countOf(kind)]);
    }
    expect((await orgQuota("locations")).current).toBeGreaterThan(40);
  });
});

describe("a principal that may only create one kind stops at its quota", () => {
  for (const [kind, quotaName, permission] of [
    ["mk8s", "mk8s-clusters", "create"],
    ["user", "users", "invite"],
    ["auditctx", "audit-contexts", "create"],
    ["location", "locations", "create"],
  ] as const) {
    it(`${kind}: creates past ${quotaName} are 429s naming it, and nothing past it is stored`, async () => {
      const narrow = as(server, bearer(await serviceAccountWithKey(server, `only-${kind}`)));
      expect(
        (
          await admin(server).post(`/org/${ORG}/policy`, {
            name: `only-${kind}`,
            targetKind: kind,
            target: "all",
            bindings: [{ permissions: [permission], principalLinks: [`//serviceaccount/only-${kind}`] }],
          })
        ).status,
      ).toBe(201);
      const before = await orgQuota(quotaName);
      // Room for 3 more.
      const max = before.current + 3;
      expect((await admin(server).patch(`/org/${ORG}/quota/${before.id}`, { max })).status).toBe(200);
      // 12 creates at once: 3 are accepted, 9 refused, whatever the order they run in.
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) => narrow.post(`/org/${ORG}/${kind}`, createBody(kind, `load-${kind}-${i}`))),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([...Array(3).fill(201), ...Array(9).fill(429)]);
      for (const refused of answers.filter((a) => a.status === 429)) {
        expect(refused.body).toMatchObject({
          code: "QuotaExceeded",
          message: `Quota ${quotaName} exceeded: ${max} of ${max} used (quota id ${before.id})`,
          details: { quota: quotaName, quotaId: before.id, current: max, max },
        });
      }
      expect(await countOf(kind)).toBe(max);
      expect((await orgQuota(quotaName)).current).toBe(max);
      // A delete gives the room back (audit contexts cannot be deleted, as on the real API).
      if (kinds[kind].deletable === false) return;
      const created = answers.findIndex((a) => a.status === 201);
      const name = kind === "user" ? `load-${kind}-${created}@example.com` : `load-${kind}-${created}`;
      expect((await admin(server).delete(`/org/${ORG}/${kind}/${name}`)).status).toBe(202);
      expect((await orgQuota(quotaName)).current).toBe(max - 1);
    });
  }
});

/** What the org's records but quotas hold, as stored (the JSON text of each). */
async function storedBytes(on: RunningServer = server): Promise<number> {
  let bytes = 0;
  for (const kind of kindNames) {
    if (kind === "quota") continue;
    for (const record of await on.store.list(ORG, kind)) bytes += Buffer.byteLength(JSON.stringify(record.doc), "utf8");
  }
  return bytes;
}

describe("the org's stored bytes", () => {
  const mk8s = (name: string, padding: number) => ({
    name,
    spec: {
      version: "1.28.4",
      provider: { generic: { location: "aws-eu-central-1", nodePools: [{ name: "general" }] } },
      addOns: { padding: { data: "x".repeat(padding) } },
    },
  });

  it("stored-bytes counts every record but quotas, through creates, PATCHes, actions and deletes", async () => {
    expect((await orgQuota("stored-bytes")).current).toBe(await storedBytes());
    expect((await admin(server).post(`/org/${ORG}/mk8s`, mk8s("sized", 10_000))).status).toBe(201);
    expect(
      (await admin(server).post(`/org/${ORG}/serviceaccount/only-mk8s/-addKey`, { description: "k" })).status,
    ).toBe(200);
    const patched = await admin(server).patch(`/org/${ORG}/mk8s/sized`, {
      spec: { addOns: { padding: { data: "y" } } },
    });
    expect(patched.status).toBe(200);
    expect((await orgQuota("stored-bytes")).current).toBe(await storedBytes());
    expect((await admin(server).delete(`/org/${ORG}/mk8s/sized`)).status).toBe(202);
    expect((await orgQuota("stored-bytes")).current).toBe(await storedBytes());
  });

  it("a write that would grow the org past it is a 429 naming it, and nothing changes", async () => {
    const writer = as(server, bearer(await serviceAccountWithKey(server, "big-writer")));
    expect(
      (
        await admin(server).post(`/org/${ORG}/policy`, {
          name: "big-writer",
          targetKind: "mk8s",
          target: "all",
          bindings: [{ permissions: ["create", "edit"], principalLinks: ["//serviceaccount/big-writer"] }],
        })
      ).status,
    ).toBe(201);
    const clusters = await orgQuota("mk8s-clusters");
    expect((await admin(server).patch(`/org/${ORG}/quota/${clusters.id}`, { max: 100 })).status).toBe(200);
    const quota = await orgQuota("stored-bytes");
    const max = quota.current + 300 * 1024;
    expect((await admin(server).patch(`/org/${ORG}/quota/${quota.id}`, { max })).status).toBe(200);
    expect((await writer.post(`/org/${ORG}/mk8s`, mk8s("first", 200 * 1024))).status).toBe(201);
    const before = await storedBytes();
    const refused = await writer.post(`/org/${ORG}/mk8s`, mk8s("second", 200 * 1024));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      code: "QuotaExceeded",
      message: expect.stringMatching(/^Quota stored-bytes exceeded: \d+ of \d+ used \(quota id /),
      details: { quota: "stored-bytes", quotaId: quota.id, current: before, max },
    });
    const grown = await writer.patch(`/org/${ORG}/mk8s/first`, {
      spec: { addOns: { more: { data: "z".repeat(200 * 1024) } } },
    });
    expect(grown.status).toBe(429);
    expect(grown.body).toMatchObject({ details: { quota: "stored-bytes" } });
    expect((await admin(server).get(`/org/${ORG}/mk8s/second`)).status).toBe(404);
    expect(field((await admin(server).get(`/org/${ORG}/mk8s/first`)).body, "version")).toBe(1);
    expect(await storedBytes()).toBe(before);
    expect((await orgQuota("stored-bytes")).current).toBe(before);
    // Shrinking is always allowed.
    const shrunk = await writer.patch(`/org/${ORG}/mk8s/first`, { spec: { addOns: { padding: { data: "" } } } });
    expect(shrunk.status).toBe(200);
    expect((await orgQuota("stored-bytes")).current).toBe(await storedBytes());
    expect((await orgQuota("stored-bytes")).current).toBe(before - 200 * 1024);
  });
});

describe("an org stored before these quotas existed", () => {
  it("gets them on the next start, counting the records it holds, and they hold from then on", async () => {
    const path = join(dir, "old.db");
    const first = await start({ data: path });
    for (let i = 0; i < 4; i++) {
      expect((await admin(first).post(`/org/${ORG}/auditctx`, createBody("auditctx", `old-${i}`))).status).toBe(201);
    }
    // What an earlier version stored: the org without the quota.
    const quota = await orgQuota("audit-contexts", first);
    expect(await first.store.transaction((tx) => tx.delete(ORG, "quota", "", "audit-contexts"))).toBe(true);
    expect((await quotas(first)).some((q) => q.name === "audit-contexts")).toBe(false);
    await first.close();
    const again = await start({ data: path });
    try {
      const restored = await orgQuota("audit-contexts", again);
      // The builtin `cpln`, the seed's `app-events` and the four created.
      expect(restored).toMatchObject({ current: 6, max: quota.max });
      expect(restored.current).toBe(quota.current);
      const room = quota.max - restored.current;
      expect((await admin(again).patch(`/org/${ORG}/quota/${restored.id}`, { max: restored.current })).status).toBe(
        200,
      );
      expect(room).toBeGreaterThan(0);
      const refused = await admin(again).post(`/org/${ORG}/auditctx`, createBody("auditctx", "one-more"));
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ details: { quota: "audit-contexts" } });
    } finally {
      await again.close();
    }
  });
});

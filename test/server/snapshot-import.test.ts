// The whole-org state import (`PUT /_cpln-local/org/{org}/state`) and `--seed` files are untrusted input: checked in
// full before anything changes, applied in one transaction, the admin key always reinstalled, keys only for accounts
// that list them, links recomputed, the org's name checked, duplicates refused, and an export always imports back.
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startServer, type OrgSnapshot, type RunningServer } from "../../server/index.js";

const ADMIN_KEY = "snapadmin.secret-admin-key-for-the-snapshot-tests";
const STATE = "/_cpln-local/org/demo/state";

let server: RunningServer;
let robotKey = "";
/** The state every test starts from (restored before each test). */
let baseline: OrgSnapshot;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function call(
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  url: string,
  key: string | null = ADMIN_KEY,
  body?: unknown,
): Promise<Answer> {
  const response = await server.app.inject({
    method,
    url,
    headers: {
      ...(key === null ? {} : { authorization: `Bearer ${key}` }),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return {
    status: response.statusCode,
    body: response.body === "" ? {} : (response.json() as Record<string, unknown>),
  };
}

async function exported(): Promise<OrgSnapshot> {
  const answer = await call("GET", STATE);
  expect(answer.status).toBe(200);
  return answer.body as unknown as OrgSnapshot;
}

function issuesOf(answer: Answer): { path: string; message: string }[] {
  return (answer.body["details"] as { issues: { path: string; message: string }[] }).issues;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const recordIndex = (snapshot: OrgSnapshot, kind: string, name: string) =>
  snapshot.records.findIndex((r) => r["kind"] === kind && r["name"] === name);
const selfOf = (record: Record<string, unknown>) =>
  (record["links"] as { rel: string; href: string }[]).find((l) => l.rel === "self")?.href;

/** The import refused `snapshot` with a 400 whose one issue has `path`, and the org is exactly as before. */
async function expectRefused(snapshot: unknown, issuePath: string, message: RegExp): Promise<void> {
  const before = await exported();
  const answer = await call("PUT", STATE, ADMIN_KEY, snapshot);
  expect(answer.status).toBe(400);
  expect(issuesOf(answer)).toEqual([{ path: issuePath, message: expect.stringMatching(message) }]);
  expect(await exported()).toEqual(before);
  expect((await call("GET", "/org/demo/group")).status).toBe(200);
}

beforeAll(async () => {
  server = await startServer({ org: "demo", adminKey: ADMIN_KEY });
  expect((await call("POST", "/org/demo/serviceaccount", ADMIN_KEY, { name: "robot" })).status).toBe(201);
  robotKey = String(
    (await call("POST", "/org/demo/serviceaccount/robot/-addKey", ADMIN_KEY, { description: "robot" })).body["key"],
  );
  expect((await call("POST", "/org/demo/group", ADMIN_KEY, { name: "innocent" })).status).toBe(201);
  const volumeSet = { name: "vs", spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" } };
  expect((await call("POST", "/org/demo/gvc/default/volumeset", ADMIN_KEY, volumeSet)).status).toBe(201);
  baseline = await exported();
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  expect((await call("PUT", STATE, ADMIN_KEY, baseline)).status).toBe(200);
});

describe("atomic import", () => {
  it("a snapshot whose last entry is refused changes nothing, names that entry, and the admin key keeps working", async () => {
    const snapshot = structuredClone(baseline);
    // A create body (not a whole record) failing its schema, after every whole record.
    snapshot.records.push({ kind: "group", name: "Not_A_Name" });
    const last = snapshot.records.length - 1;
    await expectRefused(snapshot, `records.${last}.name`, new RegExp(`^records\\.${last}\\.name \\(group\\): `));
  });

  it("a create body refused by its kind's rules inside the transaction rolls the whole import back", async () => {
    const snapshot = structuredClone(baseline);
    snapshot.records.push({ kind: "volumeset", gvc: "default", name: "vs2", spec: { initialCapacity: 5 } });
    const last = snapshot.records.length - 1;
    const before = await exported();
    const answer = await call("PUT", STATE, ADMIN_KEY, snapshot);
    expect(answer.status).toBe(400);
    expect(issuesOf(answer)[0]?.path).toMatch(new RegExp(`^records\\.${last}`));
    expect(issuesOf(answer)[0]?.message).toContain(`records.${last} (volumeset vs2 in gvc default)`);
    expect(await exported()).toEqual(before);
  });

  it("a whole record failing its kind's cross-field rules is refused and nothing changes", async () => {
    const snapshot = structuredClone(baseline);
    const index = recordIndex(snapshot, "volumeset", "vs");
    // The record schema takes each field alone; the kind's rules tie the class to the file system.
    const record = snapshot.records[index] as { spec: Record<string, unknown> };
    record.spec["performanceClass"] = "shared";
    record.spec["fileSystemType"] = "ext4";
    await expectRefused(
      snapshot,
      `records.${index}`,
      /\(volumeset vs in gvc default\) is invalid: spec\.fileSystemType: must be 'shared' when performanceClass is 'shared'/,
    );
  });

  it("a snapshot without the admin's service account gets the builtin one back, with only the admin key", async () => {
    const snapshot = structuredClone(baseline);
    snapshot.records.splice(recordIndex(snapshot, "serviceaccount", "controlplane"), 1);
    snapshot.serviceAccountKeys = snapshot.serviceAccountKeys.filter((k) => k.serviceAccount !== "controlplane");
    expect((await call("PUT", STATE, ADMIN_KEY, snapshot)).status).toBe(200);
    const account = await call("GET", "/org/demo/serviceaccount/controlplane");
    expect(account.status).toBe(200);
    expect(account.body["origin"]).toBe("builtin");
    const adminKeyName = ADMIN_KEY.split(".")[0];
    expect((account.body["keys"] as { name: string }[]).map((k) => k.name)).toEqual([adminKeyName]);
    const state = await exported();
    expect(state.serviceAccountKeys.filter((k) => k.serviceAccount === "controlplane")).toEqual([
      { keyName: adminKeyName, serviceAccount: "controlplane", hash: sha256(ADMIN_KEY) },
    ]);
    expect((await call("GET", "/org/demo/policy")).status).toBe(200);
  });

  it("a snapshot without the org record keeps the org's own record; an empty one leaves it and the builtins", async () => {
    expect((await call("PATCH", "/org/demo", ADMIN_KEY, { description: "kept" })).status).toBe(200);
    const orgRecord = async () => (await exported()).records.find((r) => r["kind"] === "org");
    const before = await orgRecord();
    expect(before?.["description"]).toBe("kept");
    const snapshot = structuredClone(baseline);
    snapshot.records.splice(recordIndex(snapshot, "org", "demo"), 1);
    expect((await call("PUT", STATE, ADMIN_KEY, snapshot)).status).toBe(200);
    expect(await orgRecord()).toEqual(before);
    expect((await call("GET", "/org/demo/group/innocent")).status).toBe(200);

    // The builtins of the org (not those of its default gvc, which the empty snapshot removes).
    const ofGvc = (r: Record<string, unknown>) => JSON.stringify(r["dimensions"] ?? {}).includes("gvcLink");
    const builtins = baseline.records.filter((r) => (r["origin"] === "builtin" && !ofGvc(r)) || r["kind"] === "org");
    const emptied = await call("PUT", STATE, ADMIN_KEY, { records: [] });
    expect(emptied).toEqual({ status: 200, body: { org: "demo", records: builtins.length, serviceAccountKeys: 1 } });
    const left = (await exported()).records;
    const keyOf = (r: Record<string, unknown>) => `${String(r["kind"])}/${String(r["name"])}`;
    expect(left.map(keyOf).sort()).toEqual(builtins.map(keyOf).sort());
    expect(left.map(keyOf)).not.toContain("gvc/default");
    expect(await orgRecord()).toEqual(before);
    // The builtin policies came back with the account: the admin key still reads and writes the org.
    expect((await call("GET", "/org/demo/policy/superusers-group")).status).toBe(200);
    expect((await call("POST", "/org/demo/group", ADMIN_KEY, { name: "after" })).status).toBe(201);
  });

  it("an accepted import that replaces the admin's account still answers the admin key", async () => {
    const snapshot = structuredClone(baseline);
    const index = recordIndex(snapshot, "serviceaccount", "controlplane");
    (snapshot.records[index] as Record<string, unknown>)["keys"] = [];
    snapshot.serviceAccountKeys = snapshot.serviceAccountKeys.filter((k) => k.serviceAccount !== "controlplane");
    expect((await call("PUT", STATE, ADMIN_KEY, snapshot)).status).toBe(200);
    expect((await call("GET", "/org/demo/policy")).status).toBe(200);
  });
});

describe("server-owned fields are recomputed or refused", () => {
  it("a key for an account that does not list it is refused (a planted controlplane key never authenticates)", async () => {
    const planted = "planted.the-secret-of-a-planted-key";
    const snapshot = structuredClone(baseline);
    snapshot.serviceAccountKeys.push({ keyName: "planted", serviceAccount: "controlplane", hash: sha256(planted) });
    const at = snapshot.serviceAccountKeys.length - 1;
    await expectRefused(snapshot, `serviceAccountKeys.${at}`, /belongs to no service account of the snapshot/);
    expect((await call("GET", "/org/demo/group", planted)).status).toBe(401);
  });

  it("a key for an account that does not exist yet is refused, and creating that account later grants nothing", async () => {
    const ghost = "ghostkey.the-secret-of-a-ghost-key";
    const snapshot = structuredClone(baseline);
    snapshot.serviceAccountKeys.push({ keyName: "ghostkey", serviceAccount: "ghost", hash: sha256(ghost) });
    await expectRefused(snapshot, `serviceAccountKeys.${snapshot.serviceAccountKeys.length - 1}`, /ghost/);
    expect((await call("POST", "/org/demo/serviceaccount", ADMIN_KEY, { name: "ghost" })).status).toBe(201);
    expect((await call("GET", "/org/demo/group", ghost)).status).toBe(401);
  });

  it("a group named innocent whose self link says superusers is just innocent (its members gain nothing)", async () => {
    const snapshot = structuredClone(baseline);
    const index = recordIndex(snapshot, "group", "innocent");
    const group = snapshot.records[index] as Record<string, unknown>;
    group["links"] = [
      { rel: "self", href: "/org/demo/group/superusers" },
      { rel: "org", href: "/org/demo" },
    ];
    group["memberLinks"] = ["/org/demo/serviceaccount/robot"];
    expect((await call("PUT", STATE, ADMIN_KEY, snapshot)).status).toBe(200);
    const stored = (await call("GET", "/org/demo/group/innocent")).body;
    expect(selfOf(stored)).toBe("/org/demo/group/innocent");
    expect((await call("POST", "/org/demo/group", robotKey, { name: "escalated" })).status).toBe(403);
    expect((await call("GET", "/org/demo/group/superusers", robotKey)).status).toBe(404);
  });

  it("every restored record carries the links the server computes, whatever the snapshot said", async () => {
    const snapshot = structuredClone(baseline);
    for (const record of snapshot.records) record["links"] = [{ rel: "self", href: "/org/other/group/x" }];
    expect((await call("PUT", STATE, ADMIN_KEY, snapshot)).status).toBe(200);
    expect(await exported()).toEqual(baseline);
  });

  it("an org record with another name is refused and the org keeps serving", async () => {
    const snapshot = structuredClone(baseline);
    const index = recordIndex(snapshot, "org", "demo");
    (snapshot.records[index] as Record<string, unknown>)["name"] = "elsewhere";
    await expectRefused(snapshot, `records.${index}.name`, /the org record of org demo must be named demo/);
    expect((await call("GET", "/org/demo")).status).toBe(200);
  });

  it("a record name that breaks the name rule is refused (it would become a path segment)", async () => {
    const snapshot = structuredClone(baseline);
    const index = recordIndex(snapshot, "group", "innocent");
    (snapshot.records[index] as Record<string, unknown>)["name"] = "../superusers";
    await expectRefused(snapshot, `records.${index}.name`, /must start with a lowercase letter/);
  });

  it("duplicate names and duplicate ids are refused, naming both entries", async () => {
    const byName = structuredClone(baseline);
    const index = recordIndex(byName, "group", "innocent");
    const copy = { ...structuredClone(byName.records[index] as Record<string, unknown>), id: crypto.randomUUID() };
    byName.records.push(copy as never);
    await expectRefused(
      byName,
      `records.${byName.records.length - 1}`,
      new RegExp(`group innocent\\) is a duplicate of records\\.${index}$`),
    );

    const byId = structuredClone(baseline);
    const other = { ...structuredClone(byId.records[index] as Record<string, unknown>), name: "twin" };
    byId.records.push(other as never);
    await expectRefused(
      byId,
      `records.${byId.records.length - 1}.id`,
      new RegExp(`is also the id of records\\.${index}$`),
    );
  });

  it("duplicate key names are refused", async () => {
    const snapshot = structuredClone(baseline);
    const robot = snapshot.serviceAccountKeys.find((k) => k.serviceAccount === "robot");
    snapshot.serviceAccountKeys.push({ ...(robot as OrgSnapshot["serviceAccountKeys"][number]) });
    await expectRefused(
      snapshot,
      `serviceAccountKeys.${snapshot.serviceAccountKeys.length - 1}`,
      /is also serviceAccountKeys\.\d+$/,
    );
  });
});

describe("size", () => {
  it("an export over 1 MiB imports back unchanged; other endpoints keep the 1 MiB limit", async () => {
    const big = await startServer({ org: "demo", adminKey: ADMIN_KEY });
    try {
      const admin = { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" };
      const quotas = (await big.app.inject({ url: "/org/demo/quota", headers: admin })).json() as {
        items: { id: string; name: string }[];
      };
      const groups = quotas.items.find((q) => q.name === "groups");
      const raised = await big.app.inject({
        method: "PATCH",
        url: `/org/demo/quota/${groups?.id ?? ""}`,
        headers: admin,
        payload: JSON.stringify({ max: 5000 }),
      });
      expect(raised.statusCode).toBe(200);
      const start = (await big.app.inject({ url: STATE, headers: admin })).json() as OrgSnapshot;
      const tags = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`tag-${i}`, "v".repeat(40)]));
      for (let i = 0; i < 2000; i++) {
        start.records.push({ kind: "group", name: `bulk-${i}`, description: "d".repeat(200), tags });
      }
      const grown = await big.app.inject({ method: "PUT", url: STATE, headers: admin, payload: JSON.stringify(start) });
      expect(grown.statusCode).toBe(200);
      // What the server exports, it takes back.
      const get = await big.app.inject({ url: STATE, headers: admin });
      expect(get.statusCode).toBe(200);
      expect(get.body.length).toBeGreaterThan(1.4 * 1024 * 1024);
      const put = await big.app.inject({ method: "PUT", url: STATE, headers: admin, payload: get.body });
      expect(put.statusCode).toBe(200);
      const again = await big.app.inject({ url: STATE, headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      expect(again.json()).toEqual(get.json());
      const large = await big.app.inject({
        method: "POST",
        url: "/org/demo/group",
        headers: admin,
        payload: JSON.stringify({ name: "large", description: "x".repeat(1024 * 1024) }),
      });
      expect(large.statusCode).toBe(413);
      expect(large.json()["message"]).toBe(`The request body is larger than ${1024 * 1024} bytes`);
    } finally {
      await big.close();
    }
  });
});

describe("hostile snapshots (fuzz over mutated exports)", () => {
  type Mutation = (snapshot: OrgSnapshot, pick: number, value: unknown) => void;
  const fields = ["name", "kind", "id", "version", "links", "gvc", "keys", "memberLinks", "bindings", "spec", "tags"];
  const mutations: Record<string, Mutation> = {
    setField: (s, pick, value) => {
      const record = s.records[pick % s.records.length] as Record<string, unknown>;
      record[fields[pick % fields.length] as string] = value;
    },
    dropField: (s, pick) => {
      const record = s.records[pick % s.records.length] as Record<string, unknown>;
      delete record[fields[pick % fields.length] as string];
    },
    duplicate: (s, pick) => {
      s.records.push(structuredClone(s.records[pick % s.records.length]) as never);
    },
    stealId: (s, pick) => {
      const a = s.records[pick % s.records.length] as Record<string, unknown>;
      const b = s.records[(pick * 7 + 1) % s.records.length] as Record<string, unknown>;
      a["id"] = b["id"];
    },
    renameTo: (s, pick, value) => {
      (s.records[pick % s.records.length] as Record<string, unknown>)["name"] =
        typeof value === "string" ? value : "superusers";
    },
    plantKey: (s, pick, value) => {
      const account = ["controlplane", "robot", "ghost", String(value)][pick % 4] as string;
      s.serviceAccountKeys.push({ keyName: `k${pick}`, serviceAccount: account, hash: sha256(`k${pick}.x`) });
    },
    moveGvc: (s, pick, value) => {
      (s.records[pick % s.records.length] as Record<string, unknown>)["gvc"] = value;
    },
    remove: (s, pick) => {
      s.records.splice(pick % s.records.length, 1);
    },
  };
  const value = fc.oneof(
    fc.constant(null),
    fc.integer(),
    fc.string({ maxLength: 12 }),
    fc.constantFrom("superusers", "demo", "default", "/org/demo/group/superusers", "UPPER", ""),
    fc.jsonValue({ maxDepth: 2 }),
  );
  const step = fc.tuple(fc.constantFrom(...Object.keys(mutations)), fc.nat(10_000), value);

  it("every mutated export is either imported whole (invariants hold) or refused with a 400 that changes nothing", async () => {
    const before = await exported();
    let refused = 0;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 3 }), async (steps) => {
        const snapshot = structuredClone(baseline);
        for (const [name, pick, v] of steps) (mutations[name] as Mutation)(snapshot, pick, v);
        const answer = await call("PUT", STATE, ADMIN_KEY, snapshot);
        expect([200, 400]).toContain(answer.status);
        if (answer.status === 400) {
          refused++;
          expect(issuesOf(answer)).toHaveLength(1);
          expect(await exported()).toEqual(before);
        } else {
          accepted++;
          const now = await exported();
          for (const record of now.records) {
            const kind = String(record["kind"]);
            const gvc = record["gvc"];
            const address = kind === "quota" ? String(record["id"]) : String(record["name"]);
            const expected =
              kind === "org"
                ? "/org/demo"
                : typeof gvc === "string"
                  ? `/org/demo/gvc/${gvc}/${kind}/${address}`
                  : `/org/demo/${kind}/${address}`;
            expect(selfOf(record)).toBe(expected);
          }
          const listed = new Set(
            now.records
              .filter((r) => r["kind"] === "serviceaccount")
              .flatMap((r) => (r["keys"] as { name: string }[]).map((k) => `${String(r["name"])}/${k.name}`)),
          );
          for (const key of now.serviceAccountKeys) expect(listed).toContain(`${key.serviceAccount}/${key.keyName}`);
          expect((await call("PUT", STATE, ADMIN_KEY, baseline)).status).toBe(200);
        }
        // Whatever happened, the admin key still works.
        expect((await call("GET", "/org/demo/group")).status).toBe(200);
      }),
      { numRuns: 120, seed: 18_5 },
    );
    expect(refused).toBeGreaterThan(40);
    expect(accepted).toBeGreaterThan(0);
  });
});

describe("--seed files", () => {
  it("a seed with a refused entry leaves the data file as it was (nothing of the seed is written)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-seed-"));
    const data = path.join(dir, "data.db");
    try {
      const first = await startServer({ org: "demo", adminKey: ADMIN_KEY, data });
      await first.close();
      await expect(
        startServer({
          org: "demo",
          adminKey: ADMIN_KEY,
          data,
          seed: {
            records: [
              { kind: "group", name: "good" },
              { kind: "group", name: "Bad!" },
            ],
          },
        }),
      ).rejects.toThrow(/^seed: records\.1\.name \(group\): /);
      const again = await startServer({ org: "demo", adminKey: ADMIN_KEY, data });
      try {
        const good = await again.app.inject({
          url: "/org/demo/group/good",
          headers: { authorization: `Bearer ${ADMIN_KEY}` },
        });
        expect(good.statusCode).toBe(404);
      } finally {
        await again.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a seed's key for an account that does not list it is refused at start", async () => {
    const snapshot = structuredClone(baseline);
    snapshot.serviceAccountKeys.push({ keyName: "planted", serviceAccount: "controlplane", hash: sha256("planted.x") });
    await expect(startServer({ org: "demo", adminKey: ADMIN_KEY, seed: snapshot })).rejects.toThrow(
      /^seed: serviceAccountKeys\.\d+: key planted belongs to no service account/,
    );
  });
});

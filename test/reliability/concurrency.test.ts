/**
 * Concurrent writers on one object. N clients (each its own undici connection pool) patch one policy at the same
 * time with directive patches; every change must be present afterwards, the versions the responses carry must be
 * distinct and consecutive (each client's strictly increasing), and nothing may be lost. Version-guarded patches
 * racing for the same version: exactly one wins, every other one gets 409 VersionConflict with the error shape.
 *
 * Both against an in-memory store and a SQLite file (WAL).
 *
 * CI: 16 clients × 4 patches, 5 version races. CPLN_LONG_TESTS=1: 16 clients × 25 patches, 50 races.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Pool } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiError } from "../../api/errors.js";
import { startServer, type RunningServer } from "../../server/index.js";
import { parseJsonOrUndefined, report, sized } from "./support.js";

const ORG = "conc";
const ADMIN_KEY = "concadmin.c0ncurrency-admin-key-0123456789";
const CLIENTS = 16;
const PATCHES_PER_CLIENT = sized(4, 25);
const RACES = sized(5, 50);

interface Answer {
  status: number;
  json: unknown;
  text: string;
}

interface PolicyBody {
  version: number;
  description?: string;
  targetLinks?: string[];
  bindings?: { permissions: string[]; principalLinks: string[] }[];
}

let server: RunningServer;
let pools: Pool[];

async function send(pool: Pool, method: "GET" | "PATCH" | "POST", path: string, body?: unknown): Promise<Answer> {
  const response = await pool.request({
    method,
    path,
    headers: {
      authorization: `Bearer ${ADMIN_KEY}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, json: parseJsonOrUndefined(text), text };
}

const policyPath = (name: string): string => `/org/${ORG}/policy/${name}`;

async function createPolicy(name: string): Promise<PolicyBody> {
  const answer = await send(pools[0] as Pool, "POST", `/org/${ORG}/policy`, {
    name,
    targetKind: "group",
    targetLinks: ["//group/seed"],
    bindings: [{ permissions: ["view"], principalLinks: ["//group/viewers"] }],
  });
  expect(answer.status, answer.text).toBe(201);
  return answer.json as PolicyBody;
}

// The same races against both stores: SQLite in memory and a SQLite file in WAL mode.
describe.each(["memory", "file"] as const)("store: %s", (storage) => {
  let dataDir = "";

  beforeAll(async () => {
    if (storage === "file") dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-concurrency-"));
    server = await startServer({
      org: ORG,
      adminKey: ADMIN_KEY,
      data: storage === "file" ? path.join(dataDir, "data.db") : ":memory:",
    });
    pools = Array.from({ length: CLIENTS }, () => new Pool(server.url, { connections: 1, pipelining: 1 }));
  });

  afterAll(async () => {
    await Promise.all((pools ?? []).map((pool) => pool.close()));
    await server?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  describe("N clients patching one policy with directive patches", () => {
    it(`${CLIENTS} clients × ${PATCHES_PER_CLIENT} patches: every change present, versions consecutive, no lost update`, async () => {
      const name = "contended";
      const start = await createPolicy(name);
      const started = performance.now();
      // Client c sends its patches one after another; the clients run at the same time.
      const perClient = await Promise.all(
        pools.map(async (pool, c) => {
          const versions: number[] = [];
          for (let p = 0; p < PATCHES_PER_CLIENT; p++) {
            const marker = `c${c}-p${p}`;
            const body =
              p % 2 === 0
                ? { "$append/targetLinks": [`//group/${marker}`] }
                : {
                    "$patch/bindings": [
                      { permissions: ["view"], "$append/principalLinks": [`//user/${marker}@example.com`] },
                    ],
                  };
            const answer = await send(pool, "PATCH", policyPath(name), body);
            expect(answer.status, answer.text).toBe(200);
            const record = answer.json as PolicyBody;
            // The response already holds this client's change.
            if (p % 2 === 0) expect(record.targetLinks).toContain(`/org/${ORG}/group/${marker}`);
            else expect(record.bindings?.[0]?.principalLinks).toContain(`/org/${ORG}/user/${marker}@example.com`);
            versions.push(record.version);
          }
          return versions;
        }),
      );
      const ms = performance.now() - started;

      const total = CLIENTS * PATCHES_PER_CLIENT;
      for (const versions of perClient) {
        for (let i = 1; i < versions.length; i++) expect(versions[i]).toBeGreaterThan(versions[i - 1] as number);
      }
      const all = perClient.flat().sort((a, b) => a - b);
      expect(all).toEqual(Array.from({ length: total }, (_, i) => start.version + 1 + i));

      const final = (await send(pools[0] as Pool, "GET", policyPath(name))).json as PolicyBody;
      expect(final.version).toBe(start.version + total);
      const expectedTargets = [`/org/${ORG}/group/seed`];
      const expectedPrincipals = [`/org/${ORG}/group/viewers`];
      for (let c = 0; c < CLIENTS; c++) {
        for (let p = 0; p < PATCHES_PER_CLIENT; p++) {
          if (p % 2 === 0) expectedTargets.push(`/org/${ORG}/group/c${c}-p${p}`);
          else expectedPrincipals.push(`/org/${ORG}/user/c${c}-p${p}@example.com`);
        }
      }
      expect([...(final.targetLinks ?? [])].sort()).toEqual(expectedTargets.sort());
      expect(final.bindings).toHaveLength(1);
      expect([...(final.bindings?.[0]?.principalLinks ?? [])].sort()).toEqual(expectedPrincipals.sort());
      report(
        `concurrency: ${total} concurrent directive patches from ${CLIENTS} clients in ${ms.toFixed(0)} ms, 0 lost`,
      );
    });

    it("a tag merge and a link append from different clients both survive", async () => {
      const name = "mixed";
      const start = await createPolicy(name);
      const answers = await Promise.all(
        pools.map((pool, c) =>
          send(
            pool,
            "PATCH",
            policyPath(name),
            c % 2 === 0 ? { tags: { [`t${c}`]: String(c) } } : { "$append/targetLinks": [`//group/m${c}`] },
          ),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(pools.map(() => 200));
      const final = (await send(pools[0] as Pool, "GET", policyPath(name))).json as PolicyBody & {
        tags: Record<string, string>;
      };
      expect(final.version).toBe(start.version + CLIENTS);
      for (let c = 0; c < CLIENTS; c++) {
        if (c % 2 === 0) expect(final.tags[`t${c}`]).toBe(String(c));
        else expect(final.targetLinks).toContain(`/org/${ORG}/group/m${c}`);
      }
    });
  });

  describe("version-guarded patches racing", () => {
    it(`${RACES} races of ${CLIENTS} clients on the same version: exactly one wins, the rest get 409 VersionConflict`, async () => {
      const name = "guarded";
      await createPolicy(name);
      let conflicts = 0;
      for (let race = 0; race < RACES; race++) {
        const current = (await send(pools[0] as Pool, "GET", policyPath(name))).json as PolicyBody;
        const answers = await Promise.all(
          pools.map((pool, c) =>
            send(pool, "PATCH", policyPath(name), {
              version: current.version,
              description: `race ${race} client ${c}`,
            }),
          ),
        );
        const winners = answers.map((a, c) => ({ a, c })).filter(({ a }) => a.status === 200);
        expect(winners, answers.map((a) => `${a.status} ${a.text.slice(0, 120)}`).join("\n")).toHaveLength(1);
        const winner = winners[0] as { a: Answer; c: number };
        expect((winner.a.json as PolicyBody).version).toBe(current.version + 1);
        for (const answer of answers.filter((a) => a.status !== 200)) {
          expect(answer.status).toBe(409);
          const body = apiError().parse(answer.json);
          expect(body.code).toBe("VersionConflict");
          expect(body.status).toBe(409);
          conflicts++;
        }
        const after = (await send(pools[0] as Pool, "GET", policyPath(name))).json as PolicyBody;
        expect(after.version).toBe(current.version + 1);
        expect(after.description).toBe(`race ${race} client ${winner.c}`);
      }
      expect(conflicts).toBe(RACES * (CLIENTS - 1));
      report(`concurrency: ${RACES} version races, ${RACES} winners, ${conflicts} × 409 VersionConflict`);
    });

    it("a guarded patch with a stale version changes nothing", async () => {
      const name = "stale";
      const start = await createPolicy(name);
      await send(pools[0] as Pool, "PATCH", policyPath(name), { description: "moved on" });
      const stale = await send(pools[1] as Pool, "PATCH", policyPath(name), {
        version: start.version,
        "$append/targetLinks": ["//group/late"],
      });
      expect(stale.status).toBe(409);
      expect(apiError().parse(stale.json).code).toBe("VersionConflict");
      const after = (await send(pools[0] as Pool, "GET", policyPath(name))).json as PolicyBody;
      expect(after.version).toBe(start.version + 1);
      expect(after.targetLinks).not.toContain(`/org/${ORG}/group/late`);
    });
  });
});

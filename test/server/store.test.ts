/** The SQLite adapter of the Store interface: versioned replace, serialized transactions, rollback, counters, keys. */
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteStore, type WalPolicy } from "../../server/store/sqlite.js";
import type { StoredRecord } from "../../server/store/store.js";
import { freezeWithJson } from "../../server/json.js";

const stores: SqliteStore[] = [];
function open(file = ":memory:", wal: Partial<WalPolicy> = {}): SqliteStore {
  const store = new SqliteStore(file, wal);
  stores.push(store);
  return store;
}

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

/** Runs `fn` with a directory of its own for data files, removed afterwards whatever `fn` did. */
async function inTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "cpln-store-"));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function record(name: string, version = 1, extra: Record<string, string> = {}, scope = ""): StoredRecord {
  return {
    org: "o",
    kind: "group",
    scope,
    name,
    id: `00000000-0000-4000-8000-${name.padStart(12, "0")}`,
    version,
    doc: { kind: "group", name, version, ...extra },
  };
}

/** Counts the runs of one of the store's prepared statements (`stmts[name]`), each still run. */
function countRuns(store: SqliteStore, name: string): () => number {
  const stmts = (store as unknown as { stmts: Record<string, { run(...args: unknown[]): unknown }> }).stmts;
  const statement = stmts[name];
  if (statement === undefined) throw new Error(`no statement ${name}`);
  let runs = 0;
  stmts[name] = {
    run: (...args: unknown[]) => {
      runs += 1;
      return statement.run(...args);
    },
  };
  return () => runs;
}

/** Makes the store's next `COMMIT` fail (as an I/O error would), then restores it; answers whether it is restored. */
function failNextCommit(store: SqliteStore): () => boolean {
  const commit = (store as unknown as { stmts: { commit: { run: () => unknown } } }).stmts.commit;
  const run = commit.run;
  commit.run = () => {
    commit.run = run;
    throw new Error("disk I/O error (injected)");
  };
  return () => commit.run === run;
}

/** Closes `store`, opens `file` again and reads group `name` there: what the file holds. */
async function reopenedRecord(store: SqliteStore, file: string, name: string) {
  await store.close();
  const reopened = open(file);
  const stored = await reopened.get("o", "group", "", name);
  await reopened.close();
  return stored;
}

describe("SqliteStore", () => {
  it("creates once, reads, lists by scope in name order, replaces only at the expected version, deletes", async () => {
    const store = open();
    expect(await store.create(record("bb"))).toBe(true);
    expect(await store.create(record("aa"))).toBe(true);
    expect(await store.create(record("bb"))).toBe(false);
    expect(await store.create(record("cc", 1, {}, "g1"))).toBe(true);
    expect((await store.get("o", "group", "", "bb"))?.doc).toEqual({ kind: "group", name: "bb", version: 1 });
    expect((await store.list("o", "group", "")).map((r) => r.name)).toEqual(["aa", "bb"]);
    expect((await store.list("o", "group")).map((r) => r.name)).toEqual(["aa", "bb", "cc"]);
    expect(await store.count("o", "group", "g1")).toBe(1);
    expect(await store.replace(record("bb", 2, { d: "x" }), 1)).toBe(true);
    expect(await store.replace(record("bb", 3, { d: "y" }), 1)).toBe(false);
    expect((await store.get("o", "group", "", "bb"))?.doc).toEqual({ kind: "group", name: "bb", version: 2, d: "x" });
    expect((await store.getById("o", "group", record("bb").id))?.version).toBe(2);
    expect(await store.delete("o", "group", "", "bb")).toBe(true);
    expect(await store.delete("o", "group", "", "bb")).toBe(false);
    expect(await store.get("o", "group", "", "bb")).toBeUndefined();
  });

  it("hands out frozen documents, so a caller cannot alter what others read", async () => {
    const store = open();
    await store.create(record("aa"));
    const read = await store.get("o", "group", "", "aa");
    expect(Object.isFrozen(read?.doc)).toBe(true);
    expect(() => {
      (read?.doc as Record<string, unknown>)["name"] = "changed";
    }).toThrow(TypeError);
  });

  it("keeps a written document found plain with its text (freezeWithJson) as it is; any other is read back from its text", async () => {
    const store = open();
    const checked = record("aa", 1, { d: "x" });
    freezeWithJson(checked.doc, JSON.stringify(checked.doc));
    await store.create(checked);
    expect((await store.get("o", "group", "", "aa"))?.doc).toBe(checked.doc);
    // Not plain JSON (an undefined value JSON leaves out): what is kept is the parse of the text written.
    const odd = record("bb", 1, { d: undefined as unknown as string });
    await store.create(odd);
    const read = (await store.get("o", "group", "", "bb"))?.doc;
    expect(read).not.toBe(odd.doc);
    expect(read).toEqual({ kind: "group", name: "bb", version: 1 });
    expect(Object.hasOwn(read ?? {}, "d")).toBe(false);
  });

  it("changeCounters answers the counters of several kinds in the order asked, as changeCounter does one by one", async () => {
    const store = open();
    await store.create(record("aa"));
    await store.create(record("bb"));
    await store.create({ ...record("cc"), kind: "user", doc: { kind: "user", name: "cc" } });
    const counters = await store.changeCounters("o", ["user", "policy", "group"]);
    expect(counters).toEqual([1, 0, 2]);
    expect(counters).toEqual([
      await store.changeCounter("o", "user"),
      await store.changeCounter("o", "policy"),
      await store.changeCounter("o", "group"),
    ]);
  });

  it("a failing transaction leaves nothing behind: records, counters and caches roll back", async () => {
    const store = open();
    await store.create(record("aa"));
    const counter = await store.changeCounter("o", "group");
    await expect(
      store.transaction(async (tx) => {
        await tx.create(record("bb"));
        await tx.replace(record("aa", 2, { d: "x" }), 1);
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await store.get("o", "group", "", "bb")).toBeUndefined();
    expect((await store.get("o", "group", "", "aa"))?.version).toBe(1);
    expect(await store.changeCounter("o", "group")).toBe(counter);
    await store.create(record("cc"));
    expect(await store.changeCounter("o", "group")).toBe(counter + 1);
  });

  it("transactions run one at a time and readers never see a transaction's partial writes", async () => {
    const store = open();
    await store.create(record("aa"));
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = store.transaction(async (tx) => {
      order.push("first:start");
      await tx.replace(record("aa", 2, { d: "first" }), 1);
      await gate;
      order.push("first:end");
    });
    const second = store.transaction(async (tx) => {
      order.push("second:start");
      const current = await tx.get("o", "group", "", "aa");
      await tx.replace(record("aa", (current?.version ?? 0) + 1, { d: "second" }), current?.version ?? 0);
      order.push("second:end");
    });
    const reader = store.get("o", "group", "", "aa").then((r) => {
      order.push(`read:v${r?.version}`);
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual(["first:start"]);
    release();
    await Promise.all([first, second, reader]);
    expect(order.slice(0, 2)).toEqual(["first:start", "first:end"]);
    expect(order).toContain("second:end");
    expect(order.find((o) => o.startsWith("read:"))).not.toBe("read:v1");
    expect((await store.get("o", "group", "", "aa"))?.doc["d"]).toBe("second");
  });

  it("transactions started in one turn share one COMMIT; each stays atomic and settles only once committed", async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, "group.db");
      const store = open(file);
      const inner = store as unknown as { db: Database.Database };
      const commits = countRuns(store, "commit");
      // Whether the group had committed when each successful transaction resolved.
      const committedWhenResolved: boolean[] = [];
      const resolved = <T>(promise: Promise<T>) =>
        promise.then(() => committedWhenResolved.push(!inner.db.inTransaction && store.settled() === undefined));
      const outcomes = await Promise.allSettled([
        resolved(store.transaction(async (tx) => tx.create(record("aa")))),
        store.transaction(async (tx) => {
          await tx.create(record("bb"));
          throw new Error("boom");
        }),
        resolved(store.transaction(async (tx) => tx.create(record("cc")))),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect(commits()).toBe(1);
      expect(committedWhenResolved).toEqual([true, true]);
      // Two creates counted, the rolled-back one not, in memory and (written once, with the COMMIT) in the file.
      expect(await store.changeCounter("o", "group")).toBe(2);
      await store.close();
      const reopened = open(file);
      expect((await reopened.list("o", "group")).map((r) => r.name)).toEqual(["aa", "cc"]);
      expect(await reopened.changeCounter("o", "group")).toBe(2);
    });
  });

  it("a commit group stays open through the next turn: a transaction started then shares its COMMIT, a later one not", async () => {
    const store = open();
    const commits = countRuns(store, "commit");
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    const first = store.transaction(async (tx) => tx.create(record("aa")));
    // Scheduled after the group's own first check: the group is still open when this one starts.
    const second = nextTurn().then(() => store.transaction(async (tx) => tx.create(record("bb"))));
    await Promise.all([first, second]);
    expect(commits()).toBe(1);
    await store.transaction(async (tx) => tx.create(record("cc")));
    expect(commits()).toBe(2);
    expect((await store.list("o", "group")).map((r) => r.name)).toEqual(["aa", "bb", "cc"]);
  });

  it("a change counter moved by a group's earlier transaction survives a later one's rollback in the same group", async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, "counters.db");
      const store = open(file);
      const outcomes = await Promise.allSettled([
        store.transaction(async (tx) => tx.create(record("aa"))),
        store.transaction(async (tx) => {
          await tx.create(record("bb"));
          await tx.replace(record("aa", 2), 1);
          throw new Error("boom");
        }),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected"]);
      expect(await store.changeCounter("o", "group")).toBe(1);
      await store.create(record("cc"));
      expect(await store.changeCounter("o", "group")).toBe(2);
      await store.close();
      expect(await open(file).changeCounter("o", "group")).toBe(2);
    });
  });

  it("a replace that changes a record's id moves it in the by-id index; one that keeps the id finds it there", async () => {
    const store = open();
    await store.create(record("aa"));
    const moved = { ...record("aa", 2), id: "00000000-0000-4000-8000-0000000000ff" };
    expect(await store.replace(moved, 1)).toBe(true);
    expect(await store.getById("o", "group", record("aa").id)).toBeUndefined();
    expect((await store.getById("o", "group", moved.id))?.version).toBe(2);
    expect(await store.replace({ ...moved, version: 3 }, 2)).toBe(true);
    expect((await store.getById("o", "group", moved.id))?.version).toBe(3);
    expect(await store.replace({ ...moved, version: 4 }, 2)).toBe(false);
  });

  it("ids are unique per org and kind: a create or a replace taking another record's id is refused and changes nothing", async () => {
    const store = open();
    await store.create(record("aa"));
    const counter = await store.changeCounter("o", "group");
    const taken = { ...record("bb"), id: record("aa").id };
    expect(await store.create(taken)).toBe(false);
    expect(await store.get("o", "group", "", "bb")).toBeUndefined();
    await store.create(record("bb"));
    expect(await store.replace({ ...record("bb", 2), id: record("aa").id }, 1)).toBe(false);
    expect((await store.get("o", "group", "", "bb"))?.version).toBe(1);
    expect((await store.getById("o", "group", record("aa").id))?.name).toBe("aa");
    expect(await store.changeCounter("o", "group")).toBe(counter + 1);
    // The same id in another kind or another org is that kind's own.
    expect(await store.create({ ...record("aa"), kind: "policy", doc: { kind: "policy", name: "aa" } })).toBe(true);
    expect(await store.create({ ...record("aa"), org: "p" })).toBe(true);
    expect((await store.getById("o", "policy", record("aa").id))?.kind).toBe("policy");
    expect((await store.getById("p", "group", record("aa").id))?.org).toBe("p");
    // A deleted record's id is free again.
    expect(await store.delete("o", "group", "", "aa")).toBe(true);
    expect(await store.getById("o", "group", record("aa").id)).toBeUndefined();
    expect(await store.create({ ...record("cc"), id: record("aa").id })).toBe(true);
    expect((await store.getById("o", "group", record("aa").id))?.name).toBe("cc");
  });

  it("a transaction that rolls back takes back its id changes: a created id is gone, a deleted or moved one is back", async () => {
    const store = open();
    await store.create(record("aa"));
    await store.create(record("bb"));
    await expect(
      store.transaction(async (tx) => {
        await tx.create(record("cc"));
        await tx.delete("o", "group", "", "aa");
        await tx.replace({ ...record("bb", 2), id: "00000000-0000-4000-8000-0000000000ff" }, 1);
        expect((await tx.getById("o", "group", record("cc").id))?.name).toBe("cc");
        expect(await tx.getById("o", "group", record("aa").id)).toBeUndefined();
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await store.getById("o", "group", record("cc").id)).toBeUndefined();
    expect((await store.getById("o", "group", record("aa").id))?.name).toBe("aa");
    expect((await store.getById("o", "group", record("bb").id))?.name).toBe("bb");
    expect(await store.getById("o", "group", "00000000-0000-4000-8000-0000000000ff")).toBeUndefined();
    expect(await store.create({ ...record("dd"), id: record("aa").id })).toBe(false);
    expect(await store.create({ ...record("dd"), id: record("cc").id })).toBe(true);
  });

  it("ids first read inside a transaction that rolls back are read again afterwards, without its writes", async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, "ids.db");
      const first = open(file);
      await first.create(record("aa"));
      await first.close();
      // Reopened: no id of the kind is in memory until the transaction reads them, after its own delete.
      const store = open(file);
      await expect(
        store.transaction(async (tx) => {
          await tx.delete("o", "group", "", "aa");
          expect(await tx.getById("o", "group", record("aa").id)).toBeUndefined();
          throw new Error("boom");
        }),
      ).rejects.toThrow("boom");
      expect((await store.getById("o", "group", record("aa").id))?.name).toBe("aa");
      expect(await store.create({ ...record("bb"), id: record("aa").id })).toBe(false);
    });
  });

  it("after a COMMIT that fails, ids are read again from what the file holds", async () => {
    const store = open();
    await store.create(record("aa"));
    const restored = failNextCommit(store);
    await expect(store.create(record("bb"))).rejects.toThrow("disk I/O error (injected)");
    expect(restored()).toBe(true);
    expect(await store.getById("o", "group", record("bb").id)).toBeUndefined();
    expect((await store.getById("o", "group", record("aa").id))?.name).toBe("aa");
    expect(await store.create({ ...record("cc"), id: record("bb").id })).toBe(true);
  });

  it("a data file with the former SQL index on ids has it dropped on open; its records are found by id", async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, "indexed.db");
      const first = open(file);
      await first.create(record("aa"));
      await first.create(record("bb", 1, {}, "g1"));
      await first.close();
      const db = new Database(file);
      db.exec("CREATE UNIQUE INDEX records_by_id ON records (org, kind, id)");
      db.close();
      const store = open(file);
      expect((await store.getById("o", "group", record("bb").id))?.scope).toBe("g1");
      expect(await store.create({ ...record("cc"), id: record("aa").id })).toBe(false);
      await store.close();
      const check = new Database(file, { readonly: true });
      // Only the key's own index (of its UNIQUE constraint) is left.
      expect(
        check.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records'").all(),
      ).toEqual([{ name: "sqlite_autoindex_records_1" }]);
      check.close();
    });
  });

  it("a data file with the former WITHOUT ROWID records table has its records moved to a rowid table on open", async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, "clustered.db");
      const db = new Database(file);
      db.exec(
        "CREATE TABLE records (org TEXT NOT NULL, kind TEXT NOT NULL, scope TEXT NOT NULL, name TEXT NOT NULL, " +
          "id TEXT NOT NULL, version INTEGER NOT NULL, doc TEXT NOT NULL, PRIMARY KEY (org, kind, scope, name)) " +
          "WITHOUT ROWID",
      );
      const insert = db.prepare("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?)");
      for (const r of [record("bb", 3), record("aa"), record("cc", 1, {}, "g1")]) {
        insert.run(r.org, r.kind, r.scope, r.name, r.id, r.version, JSON.stringify(r.doc));
      }
      db.close();
      const store = open(file);
      expect((await store.list("o", "group")).map((r) => [r.scope, r.name, r.version])).toEqual([
        ["", "aa", 1],
        ["", "bb", 3],
        ["g1", "cc", 1],
      ]);
      expect(await store.get("o", "group", "", "bb")).toEqual(record("bb", 3));
      expect((await store.getById("o", "group", record("cc").id))?.scope).toBe("g1");
      // The key stays unique, and writes go on as before.
      expect(await store.create(record("aa"))).toBe(false);
      expect(await store.replace(record("bb", 4), 3)).toBe(true);
      await store.close();
      const check = new Database(file, { readonly: true });
      const tables = check.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name LIKE 'records%'");
      const rows = tables.all() as { name: string; sql: string }[];
      expect(rows.map((r) => r.name)).toEqual(["records"]);
      expect(rows[0]?.sql).not.toMatch(/without rowid/i);
      expect(check.prepare("SELECT count(*) AS n FROM records").get()).toEqual({ n: 3 });
      check.close();
    });
  });

  describe("touch (a document moved at its version, written once per commit group)", () => {
    const usage = (n: number) => ({ ...record("q", 2), doc: { kind: "group", name: "q", version: 2, current: n } });

    it("readers see it at once; the group writes the last one once, at its version, durable across reopen", async () => {
      await inTempDir(async (dir) => {
        const file = join(dir, "touch.db");
        const store = open(file);
        await store.create(usage(0));
        // The UPDATEs that keep the id: what a replace at the same id and a touch's write run.
        const updates = countRuns(store, "replaceSameId");
        const seen: unknown[] = [];
        await Promise.all(
          [1, 2, 3].map((n) =>
            store.transaction(async (tx) => {
              expect(await tx.touch(usage(n))).toBe(true);
              seen.push((await tx.get("o", "group", "", "q"))?.doc["current"]);
            }),
          ),
        );
        expect(seen).toEqual([1, 2, 3]);
        expect(updates()).toBe(1);
        expect(await store.get("o", "group", "", "q")).toEqual(usage(3));
        expect((await store.list("o", "group")).map((r) => r.doc["current"])).toEqual([3]);
        expect(await reopenedRecord(store, file, "q")).toEqual(usage(3));
      });
    });

    it("a transaction that rolls back takes its touch back; the group's earlier touch stays", async () => {
      await inTempDir(async (dir) => {
        const file = join(dir, "touch-undo.db");
        const store = open(file);
        await store.create(usage(0));
        const outcomes = await Promise.allSettled([
          store.transaction(async (tx) => tx.touch(usage(1))),
          store.transaction(async (tx) => {
            await tx.touch(usage(2));
            throw new Error("boom");
          }),
        ]);
        expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected"]);
        expect((await store.get("o", "group", "", "q"))?.doc["current"]).toBe(1);
        expect((await store.list("o", "group")).map((r) => r.doc["current"])).toEqual([1]);
        expect((await reopenedRecord(store, file, "q"))?.doc["current"]).toBe(1);
      });
    });

    it("is refused at another version or id; a replace or a delete after it in the same group wins", async () => {
      await inTempDir(async (dir) => {
        const file = join(dir, "touch-then.db");
        const store = open(file);
        await store.create(usage(0));
        await store.create(record("gone"));
        expect(await store.touch({ ...usage(1), version: 3 })).toBe(false);
        expect(await store.touch({ ...usage(1), id: record("other").id })).toBe(false);
        expect(await store.touch({ ...record("missing"), doc: { current: 1 } })).toBe(false);
        const replaced = { ...record("q", 3), doc: { kind: "group", name: "q", version: 3, current: 9 } };
        await Promise.all([
          store.transaction(async (tx) => tx.touch(usage(1))),
          store.transaction(async (tx) => tx.replace(replaced, 2)),
          store.transaction(async (tx) => tx.touch({ ...record("gone"), doc: { kind: "group", current: 1 } })),
          store.transaction(async (tx) => tx.delete("o", "group", "", "gone")),
        ]);
        expect(await store.get("o", "group", "", "q")).toEqual(replaced);
        expect(await store.get("o", "group", "", "gone")).toBeUndefined();
        await store.close();
        const reopened = open(file);
        expect(await reopened.get("o", "group", "", "q")).toEqual(replaced);
        expect(await reopened.get("o", "group", "", "gone")).toBeUndefined();
        await reopened.close();
      });
    });

    it("a COMMIT that fails drops the group's touches: readers see the stored document again", async () => {
      const store = open();
      await store.create(usage(0));
      failNextCommit(store);
      await expect(store.touch(usage(5))).rejects.toThrow("disk I/O error (injected)");
      expect(await store.get("o", "group", "", "q")).toEqual(usage(0));
      expect(await store.touch(usage(6))).toBe(true);
      expect(await store.get("o", "group", "", "q")).toEqual(usage(6));
    });
  });

  describe("a replace keeping the id (held in memory, written once per commit group)", () => {
    const edited = (version: number) => record("aa", version, { description: `edit ${version}` });

    it("replaces by a group's transactions run one UPDATE and no savepoint; reads and lists see each at once", async () => {
      await inTempDir(async (dir) => {
        const file = join(dir, "held.db");
        const store = open(file);
        await store.create(record("aa"));
        await store.create(record("bb"));
        const updates = countRuns(store, "replaceSameId");
        const savepoints = countRuns(store, "savepoint");
        const seen: unknown[] = [];
        await Promise.all(
          [2, 3, 4].map((version) =>
            store.transaction(async (tx) => {
              expect(await tx.replace(edited(version), version - 1)).toBe(true);
              seen.push((await tx.get("o", "group", "", "aa"))?.version);
              seen.push((await tx.list("o", "group")).map((r) => r.version).join(","));
            }),
          ),
        );
        expect(seen).toEqual([2, "2,1", 3, "3,1", 4, "4,1"]);
        expect(updates()).toBe(1);
        expect(savepoints()).toBe(0);
        expect(await store.get("o", "group", "", "aa")).toEqual(edited(4));
        expect(await reopenedRecord(store, file, "aa")).toEqual(edited(4));
      });
    });

    it("a replace at a version the record has left is refused, held or written", async () => {
      const store = open();
      await store.create(record("aa"));
      await Promise.all([
        store.transaction(async (tx) => expect(await tx.replace(edited(2), 1)).toBe(true)),
        store.transaction(async (tx) => expect(await tx.replace(edited(3), 1)).toBe(false)),
      ]);
      expect(await store.replace(edited(3), 1)).toBe(false);
      expect((await store.get("o", "group", "", "aa"))?.version).toBe(2);
    });

    it("a transaction that rolls back takes its replace back; the group's earlier replace stays", async () => {
      await inTempDir(async (dir) => {
        const file = join(dir, "held-undo.db");
        const store = open(file);
        await store.create(record("aa"));
        const outcomes = await Promise.allSettled([
          store.transaction(async (tx) => tx.replace(edited(2), 1)),
          store.transaction(async (tx) => {
            await tx.replace(edited(3), 2);
            throw new Error("boom");
          }),
        ]);
        expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected"]);
        expect(await store.get("o", "group", "", "aa")).toEqual(edited(2));
        expect((await store.list("o", "group")).map((r) => r.version)).toEqual([2]);
        expect(await reopenedRecord(store, file, "aa")).toEqual(edited(2));
      });
    });

    it("a replace changing the id after a held one writes the held one first; a delete after it drops it", async () => {
      await inTempDir(async (dir) => {
        const file = join(dir, "held-then.db");
        const store = open(file);
        await store.create(record("aa"));
        await store.create(record("gone"));
        const moved = { ...edited(3), id: "00000000-0000-4000-8000-0000000000ff" };
        await Promise.all([
          store.transaction(async (tx) => expect(await tx.replace(edited(2), 1)).toBe(true)),
          store.transaction(async (tx) => expect(await tx.replace(moved, 2)).toBe(true)),
          store.transaction(async (tx) => expect(await tx.replace(record("gone", 2), 1)).toBe(true)),
          store.transaction(async (tx) => expect(await tx.delete("o", "group", "", "gone")).toBe(true)),
        ]);
        expect(await store.getById("o", "group", moved.id)).toEqual(moved);
        expect(await store.get("o", "group", "", "gone")).toBeUndefined();
        expect(await reopenedRecord(store, file, "aa")).toEqual(moved);
      });
    });

    it("a record not held in memory is replaced in the database at once, in the transaction's savepoint", async () => {
      await inTempDir(async (dir) => {
        const file = join(dir, "cold.db");
        const first = open(file);
        await first.create(record("aa"));
        await first.close();
        const store = open(file);
        const updates = countRuns(store, "replaceSameId");
        const savepoints = countRuns(store, "savepoint");
        await store.transaction(async (tx) => {
          expect(await tx.replace(edited(2), 1)).toBe(true);
          expect(updates()).toBe(1);
        });
        expect(savepoints()).toBe(1);
        expect(await reopenedRecord(store, file, "aa")).toEqual(edited(2));
      });
    });

    it("a COMMIT that fails drops the group's held replaces: readers see the stored document again", async () => {
      const store = open();
      await store.create(record("aa"));
      failNextCommit(store);
      await expect(store.replace(edited(2), 1)).rejects.toThrow("disk I/O error (injected)");
      expect(await store.get("o", "group", "", "aa")).toEqual(record("aa"));
      expect(await store.replace(edited(2), 1)).toBe(true);
      expect(await store.get("o", "group", "", "aa")).toEqual(edited(2));
    });
  });

  it("credentials: put, find, delete (which counts as a change of the owner's kind), delete all of an owner", async () => {
    const store = open();
    const k1 = { id: "k1", org: "o", ownerKind: "serviceaccount", owner: "sa", hash: "ab" };
    await store.putCredential(k1);
    await store.putCredential({ ...k1, id: "k2", hash: "cd" });
    await store.putCredential({ ...k1, id: "k3", ownerKind: "widget", hash: "ef" });
    expect(await store.findCredential("k1")).toEqual(k1);
    const before = await store.changeCounter("o", "serviceaccount");
    expect(await store.deleteCredential("k1")).toBe(true);
    expect(await store.changeCounter("o", "serviceaccount")).toBe(before + 1);
    expect(await store.findCredential("k1")).toBeUndefined();
    expect(await store.deleteCredentialsOf("o", "serviceaccount", "sa")).toBe(1);
    expect(await store.findCredential("k2")).toBeUndefined();
    // Another kind's owner of the same name keeps its credential.
    expect(await store.findCredential("k3")).toEqual({ ...k1, id: "k3", ownerKind: "widget", hash: "ef" });
  });

  it("a data file with the former sa_keys table has its keys moved to credentials on open", async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, "legacy.db");
      const db = new Database(file);
      db.exec(
        "CREATE TABLE sa_keys (key_name TEXT PRIMARY KEY, org TEXT NOT NULL, service_account TEXT NOT NULL, " +
          "hash TEXT NOT NULL) WITHOUT ROWID; INSERT INTO sa_keys VALUES ('k1', 'o', 'sa', 'ab');",
      );
      db.close();
      const store = open(file);
      expect(await store.findCredential("k1")).toEqual({
        id: "k1",
        org: "o",
        ownerKind: "serviceaccount",
        owner: "sa",
        hash: "ab",
      });
      await store.close();
      const check = new Database(file, { readonly: true });
      expect(check.prepare("SELECT name FROM sqlite_master WHERE name = 'sa_keys'").get()).toBeUndefined();
      check.close();
    });
  });

  it("a file store keeps everything across reopen", async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, "s.db");
      const first = new SqliteStore(file);
      await first.create(record("aa"));
      await first.putCredential({ id: "k1", org: "o", ownerKind: "serviceaccount", owner: "sa", hash: "ab" });
      const counter = await first.changeCounter("o", "group");
      await first.close();
      const second = open(file);
      expect((await second.get("o", "group", "", "aa"))?.doc).toEqual(record("aa").doc);
      expect(await second.findCredential("k1")).toBeDefined();
      expect(await second.changeCounter("o", "group")).toBe(counter);
      expect(await second.orgs()).toEqual(["o"]);
      await second.close();
    });
  });

  it("a file store's WAL is checkpointed at 64 MiB by default (not SQLite's 1,000 pages), with the file truncated back to it", async () => {
    await inTempDir(async (dir) => {
      const store = open(join(dir, "d.db"));
      const db = (store as unknown as { db: Database.Database }).db;
      const pageSize = db.pragma("page_size", { simple: true }) as number;
      expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(Math.floor((64 * 1024 * 1024) / (pageSize + 24)));
      expect(db.pragma("journal_size_limit", { simple: true })).toBe(64 * 1024 * 1024);
    });
  });

  it("under sustained writes the WAL stays within the bound; once writes stop it is emptied, and the files then hold every write", async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, "w.db");
      const policy = { checkpointBytes: 64 * 1024, idleMs: 100 };
      const store = open(file, policy);
      const db = (store as unknown as { db: Database.Database }).db;
      const frame = (db.pragma("page_size", { simple: true }) as number) + 24;
      let largest = 0;
      // 300 commits of one create each: several pages per commit, ≈ 3 MB of frames in all, far past the bound.
      for (let i = 0; i < 300; i++) {
        await store.create(record(`r${String(i).padStart(3, "0")}`, 1, { description: "x".repeat(500) }));
        largest = Math.max(largest, statSync(`${file}-wal`).size);
      }
      // The bound plus one commit's frames (a create touches a handful of pages: row, indexes, counter).
      expect(largest).toBeGreaterThan(0);
      expect(largest).toBeLessThanOrEqual(policy.checkpointBytes + 16 * frame);
      // Writes have stopped: within a few idle periods the WAL is checkpointed and truncated to nothing (waited for up
      // to 10 s, so a stalled test machine does not fail it; here it takes 100–200 ms).
      const deadline = Date.now() + 10_000;
      while (statSync(`${file}-wal`).size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(statSync(`${file}-wal`).size).toBe(0);
      // The database file alone (copied while the store stays open, as a crash would leave it) holds all 300.
      const copy = join(dir, "copy.db");
      copyFileSync(file, copy);
      expect(existsSync(`${copy}-wal`)).toBe(false);
      const reopened = open(copy);
      expect((await reopened.list("o", "group")).length).toBe(300);
      expect(await reopened.changeCounter("o", "group")).toBe(await store.changeCounter("o", "group"));
    });
  });
});

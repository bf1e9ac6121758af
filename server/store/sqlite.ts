import type Database from "better-sqlite3";
import { freezePlain, jsonOf } from "../json.js";
import { cacheKey, StoreMemory, writtenRecord } from "./memory.js";
import { SqliteFile, type Statements, type WalPolicy } from "./sqliteFile.js";
import type { Credential, Store, StoreOps, StoredRecord } from "./store.js";

export { DataFileInUseError, type WalPolicy } from "./sqliteFile.js";

/** Transactions sharing one SQLite transaction: `done` settles when its `COMMIT` has run (or failed). */
interface CommitGroup {
  done: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * The `Store` over SQLite: transactions and their commit groups, above the plain SQLite store (`SqliteFile`: one table
 * of JSON documents keyed by (org, kind, scope, name), whose unique index doubles as the index for lists by (org, kind,
 * scope)) and what this process holds in memory (`StoreMemory`: cached reads, held writes). Writes run one at a time,
 * in a group committed together (see `transaction`); a replace that keeps the id reaches its row at the group's commit
 * (see `StoreMemory.unwritten`).
 */
export class SqliteStore implements Store {
  private readonly file: SqliteFile;
  /** The file's connection and statements (`file.db`, `file.stmts`), at hand for the commit groups. */
  private readonly db: Database.Database;
  private readonly stmts: Statements;
  private readonly memory: StoreMemory;
  /** Held while a transaction runs; everyone else waits for it so no one reads uncommitted writes. */
  private lock: Promise<void> | undefined;
  private readonly ops: StoreOps;
  /**
   * Whether the running transaction has opened its savepoint, which it does at its first SQL write: one that writes
   * only in memory (`unwritten`, counters) has nothing in SQLite to roll back, and skips the two statements.
   */
  private savepointOpen = false;
  /** The commit group transactions join until its `COMMIT` (see `transaction`). */
  private group: CommitGroup | undefined;
  /** The group's commit came while a transaction was running: it commits when that one ends. */
  private commitDue = false;
  /** Commits so far (the idle checkpoint checks whether any came while it waited). */
  private commits = 0;
  /** Pending idle checkpoint (file-backed stores only), re-armed while commits keep coming. */
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(file: string, wal: Partial<WalPolicy> = {}) {
    this.file = new SqliteFile(file, wal);
    this.db = this.file.db;
    this.stmts = this.file.stmts;
    this.memory = new StoreMemory(this.stmts, () => this.lock !== undefined);
    this.ops = this.makeOps();
  }

  /** Opens the running transaction's savepoint before its first SQL write (see `savepointOpen`). */
  private beforeSqlWrite(): void {
    if (this.savepointOpen) return;
    this.stmts.savepoint.run();
    this.savepointOpen = true;
  }

  /** The raw operations; callers must hold the lock (or be inside the transaction) when they run. */
  private makeOps(): StoreOps {
    const s = this.stmts;
    return {
      get: async (org, kind, scope, name) => this.memory.get(org, kind, scope, name),
      getById: async (org, kind, id) => {
        const place = this.memory.idsOf(org, kind).get(id);
        return place === undefined ? undefined : this.ops.get(org, kind, place.scope, place.name);
      },
      list: async (org, kind, scope) => this.memory.list(org, kind, scope, await this.ops.changeCounter(org, kind)),
      count: async (org, kind, scope) =>
        scope === undefined ? (s.countAll.get(org, kind) ?? 0) : (s.countScope.get(org, kind, scope) ?? 0),
      create: async (r) => {
        // A document the server checked comes frozen with its JSON text (see `checkRecord`): not serialized again.
        const json = jsonOf(r.doc);
        if (this.memory.idsOf(r.org, r.kind).has(r.id)) return false;
        this.beforeSqlWrite();
        const info = s.insert.run(r.org, r.kind, r.scope, r.name, r.id, r.version, json);
        if (info.changes === 0) return false;
        this.memory.placeId(r.org, r.kind, r.id, { scope: r.scope, name: r.name });
        this.memory.bump(r.org, r.kind);
        this.memory.remember(writtenRecord(r, json));
        return true;
      },
      replace: async (r, expectedVersion) => {
        // A document the server checked comes frozen with its JSON text (see `checkRecord`): not serialized again.
        const json = jsonOf(r.doc);
        const key = cacheKey(r.org, r.kind, r.scope, r.name);
        const pending = this.memory.unwritten.size > 0 ? this.memory.unwritten.get(key) : undefined;
        const current = pending?.record ?? this.memory.docs.get(key);
        if (current !== undefined && current.id === r.id) {
          // The record as this process holds it (the file's only writer): the version check needs no query, and the
          // row is written with the group's other writes of it (`writeUnwritten`).
          if (current.version !== expectedVersion) return false;
          const rowVersion = pending?.rowVersion ?? current.version;
          this.memory.setUnwritten(key, { record: writtenRecord(r, json), rowVersion });
          this.memory.bump(r.org, r.kind);
          return true;
        }
        this.beforeSqlWrite();
        // The row first takes what this process wrote of it in memory: the statements below check its version.
        if (pending !== undefined) {
          this.memory.writeRow(pending);
          this.memory.setUnwritten(key, undefined);
        }
        let info = s.replaceSameId.run(r.version, json, r.org, r.kind, r.scope, r.name, expectedVersion, r.id);
        if (info.changes === 0) {
          // The id changes (or the version moved): the new id must not be another record's.
          const holder = this.memory.idsOf(r.org, r.kind).get(r.id);
          if (holder !== undefined && (holder.scope !== r.scope || holder.name !== r.name)) return false;
          const previousId = s.idOf.get(r.org, r.kind, r.scope, r.name);
          info = s.replace.run(r.id, r.version, json, r.org, r.kind, r.scope, r.name, expectedVersion);
          if (info.changes === 0) return false;
          if (previousId !== undefined) this.memory.placeId(r.org, r.kind, previousId, undefined);
          this.memory.placeId(r.org, r.kind, r.id, { scope: r.scope, name: r.name });
        }
        this.memory.bump(r.org, r.kind);
        this.memory.remember(writtenRecord(r, json));
        return true;
      },
      touch: async (r) => {
        const current = await this.ops.get(r.org, r.kind, r.scope, r.name);
        if (current === undefined || current.version !== r.version || current.id !== r.id) return false;
        // Frozen now, serialized once when the group commits (`writeUnwritten`).
        if (!freezePlain(r.doc, current.doc)) throw new Error(`${r.kind} ${r.name}: a touch takes plain JSON`);
        // Readers find it in `unwritten` until the group's write, which puts it in `docs`.
        const key = cacheKey(r.org, r.kind, r.scope, r.name);
        const rowVersion = this.memory.unwritten.get(key)?.rowVersion ?? current.version;
        this.memory.setUnwritten(key, { record: Object.freeze({ ...r }), rowVersion });
        this.memory.bump(r.org, r.kind);
        return true;
      },
      delete: async (org, kind, scope, name) => {
        this.beforeSqlWrite();
        const id = s.delete.get(org, kind, scope, name);
        const key = cacheKey(org, kind, scope, name);
        if (this.memory.unwritten.has(key)) this.memory.setUnwritten(key, undefined);
        this.memory.docs.delete(key);
        if (id === undefined) return false;
        this.memory.placeId(org, kind, id, undefined);
        this.memory.bump(org, kind);
        return true;
      },
      putCredential: async (c: Credential) => {
        this.beforeSqlWrite();
        s.putCredential.run(c.id, c.org, c.ownerKind, c.owner, c.hash);
      },
      findCredential: async (id) => {
        const row = s.findCredential.get(id);
        return row
          ? { id: row.id, org: row.org, ownerKind: row.owner_kind, owner: row.owner, hash: row.hash }
          : undefined;
      },
      // Removing a credential counts as a change of its owner's kind, so caches of verified keys see the revocation.
      deleteCredential: async (id) => {
        const row = s.findCredential.get(id);
        if (!row) return false;
        this.beforeSqlWrite();
        s.deleteCredential.run(id);
        this.memory.bump(row.org, row.owner_kind);
        return true;
      },
      deleteCredentialsOf: async (org, ownerKind, owner) => {
        this.beforeSqlWrite();
        const removed = s.deleteCredentialsOf.run(org, ownerKind, owner).changes;
        if (removed > 0) this.memory.bump(org, ownerKind);
        return removed;
      },
      changeCounter: async (org, kind) => this.memory.counterOf(org, kind),
      changeCounters: async (org, kinds) => kinds.map((kind) => this.memory.counterOf(org, kind)),
      orgs: async () => s.orgs.all(),
    };
  }

  private async unlocked(): Promise<void> {
    while (this.lock) await this.lock;
  }

  /** A single write outside an explicit transaction is its own transaction. */
  private async write<T>(fn: (ops: StoreOps) => Promise<T>): Promise<T> {
    return this.transaction(fn);
  }

  /** The open commit group, or a new one (`BEGIN IMMEDIATE`, its `COMMIT` scheduled after the next turn's I/O). */
  private joinGroup(): CommitGroup {
    if (this.group) return this.group;
    this.stmts.begin.run();
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Nobody may be waiting when a group fails (a reader answered before it, a writer's own rollback): no warning.
    done.catch(() => undefined);
    const group: CommitGroup = { done, resolve, reject };
    this.group = group;
    // Open for two turns' I/O, not one: under load the requests read in the next turn join it, so one COMMIT serves
    // more writes (10 connections: 5.2–5.3 → 6.3–8.2 transactions per COMMIT). When idle, the second turn is an empty
    // one (microseconds).
    setImmediate(() => setImmediate(() => this.commitGroup(group)));
    return group;
  }

  /**
   * Commits `group` if it is still the open one. A transaction in progress (its callback awaiting) defers the commit
   * to the moment it ends, so a commit never splits one transaction's writes.
   */
  private commitGroup(group: CommitGroup): void {
    if (this.group !== group) return;
    if (this.lock) {
      this.commitDue = true;
      return;
    }
    this.commitDue = false;
    this.group = undefined;
    try {
      this.memory.writeUnwritten();
      this.memory.writeCounters();
      this.stmts.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.stmts.rollback.run();
      this.memory.unwritten.clear();
      this.memory.forgetCaches();
      this.memory.forgetIds();
      group.reject(error);
      return;
    }
    this.commits++;
    if (this.file.idleMs !== undefined && !this.idleTimer) this.armIdleCheckpoint(this.file.idleMs);
    group.resolve();
  }

  /**
   * Empties the WAL once `idleMs` pass without a commit: one timer at a time (not one per commit), which looks when
   * it fires whether commits came meanwhile and then waits another period. A checkpoint moves committed pages only,
   * so what a client was told is durable stays durable; a failed one leaves the WAL as it was (the next one retries).
   */
  private armIdleCheckpoint(idleMs: number): void {
    const seen = this.commits;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (!this.db.open) return;
      if (this.commits !== seen || this.lock || this.group || this.db.inTransaction) {
        this.armIdleCheckpoint(idleMs);
        return;
      }
      try {
        this.file.checkpoint();
      } catch {
        // Not an answer to anyone: the WAL keeps every committed write, and the next idle period tries again.
      }
    }, idleMs);
    this.idleTimer.unref();
  }

  /**
   * Runs `fn` as one transaction. Transactions run one at a time in a **commit group**: the transactions that start in
   * the same two turns of the event loop share one SQLite transaction (one `BEGIN IMMEDIATE` and one `COMMIT`, hence
   * one write of the pages they share to the WAL), committed once the second turn's I/O callbacks have run. Each
   * stays atomic on its own: a failing `fn` rolls back to its savepoint (opened at its first SQL write) and takes back
   * its writes held in memory, undoing none of the others'. Each is durable when it resolves: the promise settles only
   * after the group's `COMMIT`, and rejects when that `COMMIT` fails (then no transaction of the group happened). See
   * `settled()` for readers.
   */
  async transaction<T>(fn: (tx: StoreOps) => Promise<T>): Promise<T> {
    // The loop and the assignment below must stay in one synchronous stretch so two waiters cannot both proceed.
    while (this.lock) await this.lock;
    let release!: () => void;
    this.lock = new Promise<void>((resolve) => (release = resolve));
    let group: CommitGroup;
    let result: T;
    try {
      group = this.joinGroup();
      // Guarded: clearing a Map allocates a new table even when it is empty, and most transactions leave these so.
      if (this.memory.counterBefore.size > 0) this.memory.counterBefore.clear();
      if (this.memory.unwrittenBefore.size > 0) this.memory.unwrittenBefore.clear();
      this.memory.idUndo.length = 0;
      if (this.memory.idsLoadedInTransaction.size > 0) this.memory.idsLoadedInTransaction.clear();
      try {
        result = await fn(this.ops);
        if (this.savepointOpen) this.stmts.releaseSavepoint.run();
      } catch (error) {
        this.undo(group);
        throw error;
      }
    } finally {
      this.savepointOpen = false;
      this.lock = undefined;
      release();
      if (this.commitDue && this.group) this.commitGroup(this.group);
    }
    await group.done;
    return result;
  }

  /**
   * Undoes the failed transaction of `group`: back to its savepoint when SQLite still holds the group's transaction;
   * when SQLite rolled the whole transaction back itself (an I/O or disk-full error does), the group failed and
   * every transaction in it rejects.
   */
  private undo(group: CommitGroup): void {
    // The counters as they stood before this transaction: the group's earlier transactions' moves, not its own.
    const kept = new Map(this.memory.counters);
    for (const [key, before] of this.memory.counterBefore) kept.set(key, before);
    const unwrittenKeys = [...this.memory.unwrittenCounters];
    this.memory.forgetCaches();
    // The unwritten records as the group's earlier transactions left them.
    for (const [key, before] of this.memory.unwrittenBefore) this.memory.putUnwritten(key, before);
    this.memory.unwrittenBefore.clear();
    if (this.group === group && this.db.inTransaction) {
      try {
        if (this.savepointOpen) this.stmts.rollbackToSavepoint.run();
        this.memory.undoIds();
        for (const key of unwrittenKeys) this.memory.unwrittenCounters.add(key);
        this.memory.writeCounters(kept);
        if (this.savepointOpen) this.stmts.releaseSavepoint.run();
        return;
      } catch {
        if (this.db.inTransaction) this.stmts.rollback.run();
        this.memory.unwrittenCounters.clear();
      }
    }
    this.memory.unwritten.clear();
    this.memory.forgetIds();
    if (this.group === group) this.group = undefined;
    group.reject(new Error("the write transaction was rolled back by SQLite (I/O error?); retry the request"));
  }

  /**
   * Undefined when every write is committed; else a promise that settles when the open commit group has committed
   * (rejecting when its `COMMIT` failed). A reader may see a write whose group has not committed yet: the server
   * awaits this before sending any answer, so no client hears of a write before it is durable.
   */
  settled(): Promise<void> | undefined {
    return this.group?.done;
  }

  async get(org: string, kind: string, scope: string, name: string) {
    if (this.lock) await this.unlocked();
    return this.ops.get(org, kind, scope, name);
  }
  async getById(org: string, kind: string, id: string) {
    if (this.lock) await this.unlocked();
    return this.ops.getById(org, kind, id);
  }
  async list(org: string, kind: string, scope?: string) {
    if (this.lock) await this.unlocked();
    return this.ops.list(org, kind, scope);
  }
  async count(org: string, kind: string, scope?: string) {
    if (this.lock) await this.unlocked();
    return this.ops.count(org, kind, scope);
  }
  async findCredential(id: string) {
    if (this.lock) await this.unlocked();
    return this.ops.findCredential(id);
  }
  async changeCounter(org: string, kind: string) {
    if (this.lock) await this.unlocked();
    return this.ops.changeCounter(org, kind);
  }
  async changeCounters(org: string, kinds: readonly string[]) {
    if (this.lock) await this.unlocked();
    return this.ops.changeCounters(org, kinds);
  }
  async orgs() {
    if (this.lock) await this.unlocked();
    return this.ops.orgs();
  }
  create(record: StoredRecord) {
    return this.write((ops) => ops.create(record));
  }
  replace(record: StoredRecord, expectedVersion: number) {
    return this.write((ops) => ops.replace(record, expectedVersion));
  }
  touch(record: StoredRecord) {
    return this.write((ops) => ops.touch(record));
  }
  delete(org: string, kind: string, scope: string, name: string) {
    return this.write((ops) => ops.delete(org, kind, scope, name));
  }
  putCredential(credential: Credential) {
    return this.write((ops) => ops.putCredential(credential));
  }
  deleteCredential(id: string) {
    return this.write((ops) => ops.deleteCredential(id));
  }
  deleteCredentialsOf(org: string, ownerKind: string, owner: string) {
    return this.write((ops) => ops.deleteCredentialsOf(org, ownerKind, owner));
  }

  async close(): Promise<void> {
    if (this.lock) await this.unlocked();
    if (this.group) this.commitGroup(this.group);
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.file.close();
  }
}

import Database from "better-sqlite3";
import { deepFreeze, freezePlain, isPlainJson, jsonOf, plainJsonOf, rememberJson } from "../json.js";
import type { Credential, JsonObject, Store, StoreOps, StoredRecord } from "./store.js";

interface RecordRow {
  org: string;
  kind: string;
  scope: string;
  name: string;
  id: string;
  version: number;
  doc: string;
}

/** Where a record is within its (org, kind): what the id index maps an id to. */
interface RecordPlace {
  scope: string;
  name: string;
}

/** A record written in memory and not yet to its row, which is still at `rowVersion` (see `SqliteStore.unwritten`). */
interface UnwrittenRecord {
  record: StoredRecord;
  rowVersion: number;
}

/** What a list needs to know of a row to reuse a cached record. */
interface RowVersion {
  org: string;
  kind: string;
  scope: string;
  name: string;
  id: string;
  version: number;
}

interface CredentialRow {
  id: string;
  org: string;
  owner_kind: string;
  owner: string;
  hash: string;
}

/**
 * The records: a rowid table, its key (org, kind, scope, name) a unique index. Not a WITHOUT ROWID table keyed by it:
 * there the b-tree's interior pages hold whole rows, and documents are large (≈ 0.5–2 KB, past the "about 1/20th of
 * a page" rows that table form suits, https://www.sqlite.org/withoutrowid.html §4), so the tree grows deep and each
 * insert rewrites interior pages; here they hold rowids and keys. Measured (bench/README.md, eleventh round): 17–19
 * µs per create against 25–28 in a loop of a create's statements, and fewer WAL frames per create in the server.
 */
const RECORDS_TABLE = `CREATE TABLE IF NOT EXISTS records (
  org TEXT NOT NULL,
  kind TEXT NOT NULL,
  scope TEXT NOT NULL,
  name TEXT NOT NULL,
  id TEXT NOT NULL,
  version INTEGER NOT NULL,
  doc TEXT NOT NULL,
  UNIQUE (org, kind, scope, name)
)`;

const SCHEMA = `
${RECORDS_TABLE};
DROP INDEX IF EXISTS records_by_id;
CREATE TABLE IF NOT EXISTS credentials (
  id TEXT PRIMARY KEY,
  org TEXT NOT NULL,
  owner_kind TEXT NOT NULL,
  owner TEXT NOT NULL,
  hash TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS credentials_by_owner ON credentials (org, owner_kind, owner);
CREATE TABLE IF NOT EXISTS changes (
  org TEXT NOT NULL,
  kind TEXT NOT NULL,
  counter INTEGER NOT NULL,
  PRIMARY KEY (org, kind)
) WITHOUT ROWID;
`;

/**
 * Data files written before credentials were kind-free kept service-account keys in `sa_keys`: their rows move to
 * `credentials` (owned by the service account they named) and the old table goes, in one transaction.
 */
function migrateLegacyKeys(db: Database.Database): void {
  const legacy = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'sa_keys'").get();
  if (legacy === undefined) return;
  db.transaction(() => {
    db.exec(
      "INSERT OR IGNORE INTO credentials (id, org, owner_kind, owner, hash) " +
        "SELECT key_name, org, 'serviceaccount', service_account, hash FROM sa_keys; DROP TABLE sa_keys;",
    );
  })();
}

/**
 * Data files written before records moved to a rowid table (see `RECORDS_TABLE`) keep them in a WITHOUT ROWID table:
 * its rows are copied into the new form and the old table goes, in one transaction (all or nothing).
 */
function migrateRecordsTable(db: Database.Database): void {
  const table = db.prepare<[], { sql: string }>(
    "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'records'",
  );
  if (!/without\s+rowid/i.test(table.get()?.sql ?? "")) return;
  db.transaction(() => {
    db.exec(
      `ALTER TABLE records RENAME TO records_without_rowid; ${RECORDS_TABLE}; ` +
        "INSERT INTO records (org, kind, scope, name, id, version, doc) " +
        "SELECT org, kind, scope, name, id, version, doc FROM records_without_rowid ORDER BY org, kind, scope, name; " +
        "DROP TABLE records_without_rowid;",
    );
  })();
}

/** A data file already locked by another process (one server per data file). */
export class DataFileInUseError extends Error {
  constructor(readonly file: string) {
    super(
      `data file ${file} is in use by another process (another cpln-local?); one server per data file ` +
        "(several servers need a shared database, not a shared SQLite file)",
    );
  }
}

/**
 * Takes SQLite's own exclusive lock on the file for as long as it is open: `locking_mode = EXCLUSIVE` keeps every
 * lock it takes until the connection closes, and an empty `BEGIN EXCLUSIVE` takes the write lock at once, so a
 * second server fails here instead of diverging from the first (each caching what it believes is the file's only
 * writer). With WAL under EXCLUSIVE locking SQLite uses no shared-memory index, so the lock covers the WAL too
 * (https://www.sqlite.org/pragma.html#pragma_locking_mode, https://www.sqlite.org/wal.html#noshm). No wait: a busy
 * file fails at once. The OS drops the lock when the process ends, even on a crash.
 */
function lockExclusively(db: Database.Database, file: string): void {
  try {
    db.pragma("busy_timeout = 0");
    db.pragma("locking_mode = EXCLUSIVE");
    db.pragma("journal_mode = WAL");
    db.exec("BEGIN EXCLUSIVE; COMMIT;");
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "SQLITE_BUSY" || code === "SQLITE_LOCKED") throw new DataFileInUseError(file);
    throw error;
  }
}

function frozenRecord(
  row: Pick<RecordRow, "org" | "kind" | "scope" | "name" | "id" | "version">,
  json: string,
): StoredRecord {
  const doc = deepFreeze(JSON.parse(json) as JsonObject);
  // The text is exactly this frozen document's JSON: list answers splice it instead of serializing again.
  rememberJson(doc, json);
  return Object.freeze({
    org: row.org,
    kind: row.kind,
    scope: row.scope,
    name: row.name,
    id: row.id,
    version: row.version,
    doc,
  });
}

/**
 * The record just written, frozen: the written document itself when it is plain JSON (no parse of the text just
 * serialized), else the parse of `json`. Either way its remembered text is exactly its JSON.
 */
function writtenRecord(record: StoredRecord, json: string): StoredRecord {
  const doc = record.doc;
  // A record the server checked was frozen and found plain with this very text (`freezeWithJson`): no second walk.
  if (plainJsonOf(doc) !== json) {
    if (!isPlainJson(doc)) return frozenRecord(record, json);
    rememberJson(deepFreeze(doc), json);
  }
  return Object.freeze({
    org: record.org,
    kind: record.kind,
    scope: record.scope,
    name: record.name,
    id: record.id,
    version: record.version,
    doc,
  });
}

/** Transactions sharing one SQLite transaction: `done` settles when its `COMMIT` has run (or failed). */
interface CommitGroup {
  done: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

const cacheKey = (org: string, kind: string, scope: string, name: string) => `${org}\n${kind}\n${scope}\n${name}`;

/**
 * How the write-ahead log is checkpointed (copied back into the database file). SQLite checkpoints inside the
 * `COMMIT` that takes the WAL past `wal_autocheckpoint` pages, on the event loop, and with `synchronous = NORMAL` a
 * checkpoint fsyncs the WAL and then the database (https://www.sqlite.org/wal.html#ckpt,
 * https://www.sqlite.org/pragma.html#pragma_synchronous): time the server spends blocked, not computing. SQLite's
 * default bound (1,000 pages, ≈ 4 MiB) makes a busy writer pay those fsyncs every few hundred commits; a larger
 * bound pays them less often, and a checkpoint once writes stop returns the WAL to zero bytes.
 */
export interface WalPolicy {
  /**
   * Under sustained writes the WAL is checkpointed once it holds this many bytes of frames, and a WAL file larger
   * than this is truncated back to it when the log restarts (`journal_size_limit`): the file stays under this bound
   * plus the frames of one commit group. Default 64 MiB.
   */
  checkpointBytes: number;
  /** After this many milliseconds without a commit, a `TRUNCATE` checkpoint empties the WAL file. Default 1,000. */
  idleMs: number;
}

const DEFAULT_WAL_POLICY: WalPolicy = { checkpointBytes: 64 * 1024 * 1024, idleMs: 1000 };

/**
 * Parsed documents kept in memory (≈ 2 KB each with their JSON text); past this many the cache starts over. Lists
 * hold the same records, so this also bounds what they keep.
 */
const DOC_CACHE_MAX = 250_000;

/**
 * Ids held in memory by the id index (≈ 200 bytes each, measured with 200,000 ids of 20-character names); loading a
 * kind past this many drops the other kinds' ids (loaded again when next needed). A kind with more records than this
 * is still held whole: its creates need it.
 */
const ID_INDEX_MAX = 1_000_000;

/**
 * SQLite adapter: one table of JSON documents keyed by (org, kind, scope, name). The key's unique index doubles as
 * the index for lists by (org, kind, scope). Writes run one at a time, in a group committed together (see
 * `transaction`); a replace that keeps the id reaches its row at the group's commit (see `unwritten`).
 */
export class SqliteStore implements Store {
  private readonly db: Database.Database;
  private readonly stmts;
  /** Held while a transaction runs; everyone else waits for it so no one reads uncommitted writes. */
  private lock: Promise<void> | undefined;
  private readonly ops: StoreOps;
  /**
   * Change counters as last read from or written to the database. This process is the file's only writer, so the
   * cache stays exact; a rolled-back transaction clears it (its bumps never happened).
   */
  private readonly counters = new Map<string, number>();
  /**
   * Parsed, frozen records by key, written through on every write (this process is the file's only writer), so a
   * read needs neither a query nor a parse. Cleared with the counters when a transaction rolls back.
   */
  private readonly docs = new Map<string, StoredRecord>();
  /**
   * Lists by (org, kind, scope), valid while the kind's change counter stands still: a list of an unchanged kind
   * costs neither a query nor a parse. After a write, the next list reads only (name, id, version) of each row and
   * takes the records from `docs`. Cleared with the counters when a transaction rolls back.
   */
  private readonly lists = new Map<string, { counter: number; records: readonly StoredRecord[] }>();
  /** Counters moved in memory (`bump`) and not yet written to the database (`writeCounters`). */
  private readonly unwrittenCounters = new Set<string>();
  /** The counters the running transaction moved, as they stood before it (restored if it rolls back). */
  private readonly counterBefore = new Map<string, number>();
  /**
   * Records written (`touch`, a `replace` keeping the id) but not yet in the database, by key: each is written once
   * per commit group, just before its `COMMIT` (like the counters), however many transactions of the group moved it —
   * a record PATCHed by several requests of a group costs one UPDATE. Readers take them from here first; they outlive
   * `forgetCaches` (they are writes, not cached reads).
   */
  private readonly unwritten = new Map<string, UnwrittenRecord>();
  /** The `unwritten` entries the running transaction changed, as they stood before it (restored if it rolls back). */
  private readonly unwrittenBefore = new Map<string, UnwrittenRecord | undefined>();
  /**
   * Whether the running transaction has opened its savepoint, which it does at its first SQL write: one that writes
   * only in memory (`unwritten`, counters) has nothing in SQLite to roll back, and skips the two statements.
   */
  private savepointOpen = false;
  /** Records held by `lists`, kept under `DOC_CACHE_MAX`. */
  private listed = 0;
  /**
   * The id index: where each record id of an (org, kind) is, loaded from the records when the kind is first needed
   * and kept through this process's writes (it is the file's only writer). It replaces an SQL index on
   * (org, kind, id): ids are random UUIDs, so each insert landed on a random page of that index, a page more for
   * its commit to write to the WAL (groups of five creates wrote 15.3 pages with it, 8.5 without; bench/README.md).
   * Ids stay unique per (org, kind): a create or a replace taking an id the kind holds is refused (`false`).
   */
  private readonly ids = new Map<string, Map<string, RecordPlace>>();
  /** Ids held by `ids`, kept near `ID_INDEX_MAX`. */
  private indexedIds = 0;
  /** How to take back the running transaction's changes to `ids` (replayed backwards if it rolls back). */
  private readonly idUndo: (() => void)[] = [];
  /** Kinds whose ids were loaded during the running transaction: they may hold its writes, dropped if it rolls back. */
  private readonly idsLoadedInTransaction = new Set<string>();
  /** The commit group transactions join until its `COMMIT` (see `transaction`). */
  private group: CommitGroup | undefined;
  /** The group's commit came while a transaction was running: it commits when that one ends. */
  private commitDue = false;
  /** Commits so far (the idle checkpoint checks whether any came while it waited). */
  private commits = 0;
  /** Pending idle checkpoint (file-backed stores only), re-armed while commits keep coming. */
  private idleTimer: NodeJS.Timeout | undefined;
  /** Milliseconds without a commit before the WAL is emptied; undefined for an in-memory database (no WAL). */
  private readonly idleMs: number | undefined;

  constructor(file: string, wal: Partial<WalPolicy> = {}) {
    this.db = new Database(file);
    if (file !== ":memory:") {
      try {
        lockExclusively(this.db, file);
      } catch (error) {
        this.db.close();
        throw error;
      }
    }
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma("busy_timeout = 5000");
    if (file !== ":memory:") {
      const policy = { ...DEFAULT_WAL_POLICY, ...wal };
      const pageSize = this.db.pragma("page_size", { simple: true }) as number;
      // A WAL frame is a page plus its 24-byte header (https://www.sqlite.org/fileformat2.html#walformat).
      const pages = Math.max(1, Math.floor(policy.checkpointBytes / (pageSize + 24)));
      this.db.pragma(`wal_autocheckpoint = ${pages}`);
      this.db.pragma(`journal_size_limit = ${Math.max(0, Math.floor(policy.checkpointBytes))}`);
      this.idleMs = policy.idleMs;
    }
    this.db.exec(SCHEMA);
    migrateRecordsTable(this.db);
    migrateLegacyKeys(this.db);
    const db = this.db;
    this.stmts = {
      get: db.prepare<[string, string, string, string], RecordRow>(
        "SELECT * FROM records WHERE org = ? AND kind = ? AND scope = ? AND name = ?",
      ),
      idsOfKind: db
        .prepare<[string, string], [string, string, string]>(
          "SELECT id, scope, name FROM records WHERE org = ? AND kind = ?",
        )
        .raw(),
      idOf: db
        .prepare<[string, string, string, string], string>(
          "SELECT id FROM records WHERE org = ? AND kind = ? AND scope = ? AND name = ?",
        )
        .pluck(),
      listAll: db.prepare<[string, string], RecordRow>(
        "SELECT * FROM records WHERE org = ? AND kind = ? ORDER BY scope, name",
      ),
      listScope: db.prepare<[string, string, string], RecordRow>(
        "SELECT * FROM records WHERE org = ? AND kind = ? AND scope = ? ORDER BY name",
      ),
      versionsAll: db.prepare<[string, string], RowVersion>(
        "SELECT org, kind, scope, name, id, version FROM records WHERE org = ? AND kind = ? ORDER BY scope, name",
      ),
      versionsScope: db.prepare<[string, string, string], RowVersion>(
        "SELECT org, kind, scope, name, id, version FROM records WHERE org = ? AND kind = ? AND scope = ? ORDER BY name",
      ),
      countAll: db.prepare<[string, string], number>("SELECT count(*) FROM records WHERE org = ? AND kind = ?").pluck(),
      countScope: db
        .prepare<[string, string, string], number>(
          "SELECT count(*) FROM records WHERE org = ? AND kind = ? AND scope = ?",
        )
        .pluck(),
      insert: db.prepare(
        "INSERT INTO records (org, kind, scope, name, id, version, doc) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
      ),
      // The usual replace keeps the id: the `id = ?` condition tells it from one that changes it (checked below).
      replaceSameId: db.prepare(
        "UPDATE records SET version = ?, doc = ? WHERE org = ? AND kind = ? AND scope = ? AND name = ? AND version = ? AND id = ?",
      ),
      replace: db.prepare(
        "UPDATE records SET id = ?, version = ?, doc = ? WHERE org = ? AND kind = ? AND scope = ? AND name = ? AND version = ?",
      ),
      delete: db
        .prepare<[string, string, string, string], string>(
          "DELETE FROM records WHERE org = ? AND kind = ? AND scope = ? AND name = ? RETURNING id",
        )
        .pluck(),
      putCredential: db.prepare(
        "INSERT INTO credentials (id, org, owner_kind, owner, hash) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE " +
          "SET org = excluded.org, owner_kind = excluded.owner_kind, owner = excluded.owner, hash = excluded.hash",
      ),
      findCredential: db.prepare<[string], CredentialRow>("SELECT * FROM credentials WHERE id = ?"),
      deleteCredential: db.prepare("DELETE FROM credentials WHERE id = ?"),
      deleteCredentialsOf: db.prepare("DELETE FROM credentials WHERE org = ? AND owner_kind = ? AND owner = ?"),
      setCounter: db.prepare<[string, string, number]>(
        "INSERT INTO changes (org, kind, counter) VALUES (?, ?, ?) ON CONFLICT (org, kind) DO UPDATE SET counter = excluded.counter",
      ),
      counter: db.prepare<[string, string], number>("SELECT counter FROM changes WHERE org = ? AND kind = ?").pluck(),
      orgs: db.prepare<[], string>("SELECT DISTINCT org FROM records ORDER BY org").pluck(),
      begin: db.prepare("BEGIN IMMEDIATE"),
      commit: db.prepare("COMMIT"),
      rollback: db.prepare("ROLLBACK"),
      savepoint: db.prepare("SAVEPOINT request"),
      releaseSavepoint: db.prepare("RELEASE request"),
      rollbackToSavepoint: db.prepare("ROLLBACK TO request"),
    };
    this.ops = this.makeOps();
  }

  private remember(record: StoredRecord): StoredRecord {
    if (this.docs.size >= DOC_CACHE_MAX) this.docs.clear();
    this.docs.set(cacheKey(record.org, record.kind, record.scope, record.name), record);
    return record;
  }

  /** The record under `key` as this process last wrote or read it: an unwritten one first (its row is older). */
  private cached(key: string): StoredRecord | undefined {
    return (this.unwritten.size > 0 ? this.unwritten.get(key)?.record : undefined) ?? this.docs.get(key);
  }

  /** The record standing for `row`: the unwritten one over it, or the cached one at its version. */
  private cachedFor(row: RowVersion): StoredRecord | undefined {
    const key = cacheKey(row.org, row.kind, row.scope, row.name);
    const pending = this.unwritten.size > 0 ? this.unwritten.get(key) : undefined;
    if (pending && pending.rowVersion === row.version && pending.record.id === row.id) return pending.record;
    const hit = this.docs.get(key);
    return hit && hit.version === row.version && hit.id === row.id ? hit : undefined;
  }

  /** Sets (or with `undefined`, drops) the unwritten record under `key`, keeping how to take that back. */
  private setUnwritten(key: string, entry: UnwrittenRecord | undefined): void {
    if (!this.unwrittenBefore.has(key)) this.unwrittenBefore.set(key, this.unwritten.get(key));
    this.putUnwritten(key, entry);
  }

  private putUnwritten(key: string, entry: UnwrittenRecord | undefined): void {
    if (entry === undefined) this.unwritten.delete(key);
    else this.unwritten.set(key, entry);
  }

  /** Writes the unwritten records (inside the group's SQLite transaction, before `COMMIT`). */
  private writeUnwritten(): void {
    for (const entry of this.unwritten.values()) this.writeRow(entry);
    this.unwritten.clear();
  }

  /**
   * Writes one unwritten record to its row. The row must still be at the version it was read at (every write of it
   * since went through `unwritten`, and a delete drops its entry), so a row that is not fails the write.
   */
  private writeRow({ record: r, rowVersion }: UnwrittenRecord): void {
    const json = jsonOf(r.doc);
    const info = this.stmts.replaceSameId.run(r.version, json, r.org, r.kind, r.scope, r.name, rowVersion, r.id);
    if (info.changes === 0) throw new Error(`${r.kind} ${r.name} changed under a pending write`);
    rememberJson(r.doc, json);
    this.remember(r);
  }

  /** Opens the running transaction's savepoint before its first SQL write (see `savepointOpen`). */
  private beforeSqlWrite(): void {
    if (this.savepointOpen) return;
    this.stmts.savepoint.run();
    this.savepointOpen = true;
  }

  /** A row as a record, reusing the cached parse when the row's version is the cached one. */
  private fromRow(row: RecordRow): StoredRecord {
    return this.cachedFor(row) ?? this.remember(frozenRecord(row, row.doc));
  }

  /**
   * A list from the database: row identities first, records from `docs` where cached at the same version; when
   * most are not cached (a cold start, or a cache that started over), one query reads and parses every row.
   */
  private readList(org: string, kind: string, scope: string | undefined): StoredRecord[] {
    const s = this.stmts;
    const rows = scope === undefined ? s.versionsAll.all(org, kind) : s.versionsScope.all(org, kind, scope);
    const records: StoredRecord[] = [];
    let misses = 0;
    for (const row of rows) {
      const hit = this.cachedFor(row);
      if (hit) records.push(hit);
      else if (++misses > 64 && misses * 10 > rows.length) {
        return (scope === undefined ? s.listAll.all(org, kind) : s.listScope.all(org, kind, scope)).map((r) =>
          this.fromRow(r),
        );
      } else {
        const full = s.get.get(row.org, row.kind, row.scope, row.name);
        if (full) records.push(this.fromRow(full));
      }
    }
    return records;
  }

  /**
   * Counts one change of (org, kind). The counter moves in memory at once (readers and caches see it) and reaches the
   * database once per commit group (`writeCounters`, just before `COMMIT`), not once per write.
   */
  private bump(org: string, kind: string): void {
    const key = `${org}\n${kind}`;
    const counter = this.counterOf(org, kind);
    if (!this.counterBefore.has(key)) this.counterBefore.set(key, counter);
    this.counters.set(key, counter + 1);
    this.unwrittenCounters.add(key);
  }

  /** Writes the counters that moved since the last write of them (inside the group's SQLite transaction). */
  private writeCounters(values: ReadonlyMap<string, number> = this.counters): void {
    for (const key of this.unwrittenCounters) {
      const counter = values.get(key);
      if (counter === undefined) continue;
      const cut = key.indexOf("\n");
      this.stmts.setCounter.run(key.slice(0, cut), key.slice(cut + 1), counter);
    }
    this.unwrittenCounters.clear();
  }

  /** The ids of (org, kind) and where each is (see `ids`), read from the database when first needed. */
  private idsOf(org: string, kind: string): Map<string, RecordPlace> {
    const key = `${org}\n${kind}`;
    let ids = this.ids.get(key);
    if (ids === undefined) {
      ids = new Map();
      for (const [id, scope, name] of this.stmts.idsOfKind.iterate(org, kind)) ids.set(id, { scope, name });
      if (this.indexedIds + ids.size > ID_INDEX_MAX) this.forgetIds();
      this.ids.set(key, ids);
      this.indexedIds += ids.size;
      if (this.lock) this.idsLoadedInTransaction.add(key);
    }
    return ids;
  }

  /** Records that `id` of (org, kind) is now at `place` (or nowhere), and how to take that back. */
  private placeId(org: string, kind: string, id: string, place: RecordPlace | undefined): void {
    const key = `${org}\n${kind}`;
    const ids = this.ids.get(key);
    // Not loaded: it will be read from the database, this write included, when first needed.
    if (ids === undefined) return;
    const before = ids.get(id);
    const set = (to: RecordPlace | undefined) => {
      const held = this.ids.get(key) === ids;
      if (held && ids.has(id)) this.indexedIds--;
      if (to === undefined) ids.delete(id);
      else {
        ids.set(id, to);
        if (held) this.indexedIds++;
      }
    };
    set(place);
    this.idUndo.push(() => set(before));
  }

  private forgetIds(): void {
    this.ids.clear();
    this.indexedIds = 0;
  }

  /** Takes back the rolled-back transaction's changes to `ids`, and drops the kinds it loaded (they may hold its writes). */
  private undoIds(): void {
    for (const undo of this.idUndo.splice(0).reverse()) undo();
    for (const key of this.idsLoadedInTransaction) {
      this.indexedIds -= this.ids.get(key)?.size ?? 0;
      this.ids.delete(key);
    }
    this.idsLoadedInTransaction.clear();
  }

  /** The change counter of (org, kind), read from the database once and then kept (see `counters`). */
  private counterOf(org: string, kind: string): number {
    const key = `${org}\n${kind}`;
    let counter = this.counters.get(key);
    if (counter === undefined) {
      counter = this.stmts.counter.get(org, kind) ?? 0;
      this.counters.set(key, counter);
    }
    return counter;
  }

  /** The raw operations; callers must hold the lock (or be inside the transaction) when they run. */
  private makeOps(): StoreOps {
    const s = this.stmts;
    return {
      get: async (org, kind, scope, name) => {
        const cached = this.cached(cacheKey(org, kind, scope, name));
        if (cached) return cached;
        const row = s.get.get(org, kind, scope, name);
        return row ? this.remember(frozenRecord(row, row.doc)) : undefined;
      },
      getById: async (org, kind, id) => {
        const place = this.idsOf(org, kind).get(id);
        return place === undefined ? undefined : this.ops.get(org, kind, place.scope, place.name);
      },
      list: async (org, kind, scope) => {
        const counter = await this.ops.changeCounter(org, kind);
        const key = `${org}\n${kind}\n${scope ?? "\u0000every scope"}`;
        const cached = this.lists.get(key);
        if (cached && cached.counter === counter) return [...cached.records];
        const records = this.readList(org, kind, scope);
        this.listed += records.length - (cached?.records.length ?? 0);
        if (this.listed > DOC_CACHE_MAX) {
          this.lists.clear();
          this.listed = records.length;
        }
        this.lists.set(key, { counter, records });
        return [...records];
      },
      count: async (org, kind, scope) =>
        scope === undefined ? (s.countAll.get(org, kind) ?? 0) : (s.countScope.get(org, kind, scope) ?? 0),
      create: async (r) => {
        // A document the server checked comes frozen with its JSON text (see `RecordService.check`): not serialized again.
        const json = jsonOf(r.doc);
        if (this.idsOf(r.org, r.kind).has(r.id)) return false;
        this.beforeSqlWrite();
        const info = s.insert.run(r.org, r.kind, r.scope, r.name, r.id, r.version, json);
        if (info.changes === 0) return false;
        this.placeId(r.org, r.kind, r.id, { scope: r.scope, name: r.name });
        this.bump(r.org, r.kind);
        this.remember(writtenRecord(r, json));
        return true;
      },
      replace: async (r, expectedVersion) => {
        // A document the server checked comes frozen with its JSON text (see `RecordService.check`): not serialized again.
        const json = jsonOf(r.doc);
        const key = cacheKey(r.org, r.kind, r.scope, r.name);
        const pending = this.unwritten.size > 0 ? this.unwritten.get(key) : undefined;
        const current = pending?.record ?? this.docs.get(key);
        if (current !== undefined && current.id === r.id) {
          // The record as this process holds it (the file's only writer): the version check needs no query, and the
          // row is written with the group's other writes of it (`writeUnwritten`).
          if (current.version !== expectedVersion) return false;
          const rowVersion = pending?.rowVersion ?? current.version;
          this.setUnwritten(key, { record: writtenRecord(r, json), rowVersion });
          this.bump(r.org, r.kind);
          return true;
        }
        this.beforeSqlWrite();
        // The row first takes what this process wrote of it in memory: the statements below check its version.
        if (pending !== undefined) {
          this.writeRow(pending);
          this.setUnwritten(key, undefined);
        }
        let info = s.replaceSameId.run(r.version, json, r.org, r.kind, r.scope, r.name, expectedVersion, r.id);
        if (info.changes === 0) {
          // The id changes (or the version moved): the new id must not be another record's.
          const holder = this.idsOf(r.org, r.kind).get(r.id);
          if (holder !== undefined && (holder.scope !== r.scope || holder.name !== r.name)) return false;
          const previousId = s.idOf.get(r.org, r.kind, r.scope, r.name);
          info = s.replace.run(r.id, r.version, json, r.org, r.kind, r.scope, r.name, expectedVersion);
          if (info.changes === 0) return false;
          if (previousId !== undefined) this.placeId(r.org, r.kind, previousId, undefined);
          this.placeId(r.org, r.kind, r.id, { scope: r.scope, name: r.name });
        }
        this.bump(r.org, r.kind);
        this.remember(writtenRecord(r, json));
        return true;
      },
      touch: async (r) => {
        const current = await this.ops.get(r.org, r.kind, r.scope, r.name);
        if (current === undefined || current.version !== r.version || current.id !== r.id) return false;
        // Frozen now, serialized once when the group commits (`writeUnwritten`).
        if (!freezePlain(r.doc, current.doc)) throw new Error(`${r.kind} ${r.name}: a touch takes plain JSON`);
        // Readers find it in `unwritten` until the group's write, which puts it in `docs`.
        const key = cacheKey(r.org, r.kind, r.scope, r.name);
        const rowVersion = this.unwritten.get(key)?.rowVersion ?? current.version;
        this.setUnwritten(key, { record: Object.freeze({ ...r }), rowVersion });
        this.bump(r.org, r.kind);
        return true;
      },
      delete: async (org, kind, scope, name) => {
        this.beforeSqlWrite();
        const id = s.delete.get(org, kind, scope, name);
        const key = cacheKey(org, kind, scope, name);
        if (this.unwritten.has(key)) this.setUnwritten(key, undefined);
        this.docs.delete(key);
        if (id === undefined) return false;
        this.placeId(org, kind, id, undefined);
        this.bump(org, kind);
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
        this.bump(row.org, row.owner_kind);
        return true;
      },
      deleteCredentialsOf: async (org, ownerKind, owner) => {
        this.beforeSqlWrite();
        const removed = s.deleteCredentialsOf.run(org, ownerKind, owner).changes;
        if (removed > 0) this.bump(org, ownerKind);
        return removed;
      },
      changeCounter: async (org, kind) => this.counterOf(org, kind),
      changeCounters: async (org, kinds) => kinds.map((kind) => this.counterOf(org, kind)),
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

  /** Forgets every cached read: after a rollback, what the caches hold may never have been committed. */
  private forgetCaches(): void {
    this.counters.clear();
    this.unwrittenCounters.clear();
    this.lists.clear();
    this.listed = 0;
    this.docs.clear();
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
      this.writeUnwritten();
      this.writeCounters();
      this.stmts.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.stmts.rollback.run();
      this.unwritten.clear();
      this.forgetCaches();
      this.forgetIds();
      group.reject(error);
      return;
    }
    this.commits++;
    if (this.idleMs !== undefined && !this.idleTimer) this.armIdleCheckpoint(this.idleMs);
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
        this.db.pragma("wal_checkpoint(TRUNCATE)");
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
      if (this.counterBefore.size > 0) this.counterBefore.clear();
      if (this.unwrittenBefore.size > 0) this.unwrittenBefore.clear();
      this.idUndo.length = 0;
      if (this.idsLoadedInTransaction.size > 0) this.idsLoadedInTransaction.clear();
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
    const kept = new Map(this.counters);
    for (const [key, before] of this.counterBefore) kept.set(key, before);
    const unwrittenKeys = [...this.unwrittenCounters];
    this.forgetCaches();
    // The unwritten records as the group's earlier transactions left them.
    for (const [key, before] of this.unwrittenBefore) this.putUnwritten(key, before);
    this.unwrittenBefore.clear();
    if (this.group === group && this.db.inTransaction) {
      try {
        if (this.savepointOpen) this.stmts.rollbackToSavepoint.run();
        this.undoIds();
        for (const key of unwrittenKeys) this.unwrittenCounters.add(key);
        this.writeCounters(kept);
        if (this.savepointOpen) this.stmts.releaseSavepoint.run();
        return;
      } catch {
        if (this.db.inTransaction) this.stmts.rollback.run();
        this.unwrittenCounters.clear();
      }
    }
    this.unwritten.clear();
    this.forgetIds();
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
    if (this.db.open) this.db.close();
  }
}

/**
 * The plain SQLite store: the data file (opened, locked for this process alone, its WAL bounded), its tables and their
 * migrations, and the prepared statements that read and write rows. No cache, no held write, no commit group: those
 * are the layer above it (store/memory.ts, store/sqlite.ts).
 */
import Database from "better-sqlite3";

export interface RecordRow {
  org: string;
  kind: string;
  scope: string;
  name: string;
  id: string;
  version: number;
  doc: string;
}

/** What a list needs to know of a row to reuse a cached record. */
export interface RowVersion {
  org: string;
  kind: string;
  scope: string;
  name: string;
  id: string;
  version: number;
}

export interface CredentialRow {
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

type Statement<P extends unknown[] = unknown[], R = unknown> = Database.Statement<P, R>;
type Key = [org: string, kind: string, scope: string, name: string];
type OfKind = [org: string, kind: string];
type InScope = [org: string, kind: string, scope: string];

/** The statements the layer above runs: one object, so tests can count or fail single statements through it. */
export interface Statements {
  get: Statement<Key, RecordRow>;
  /** `id, scope, name` of every record of a kind (raw rows). */
  idsOfKind: Statement<OfKind, [string, string, string]>;
  idOf: Statement<Key, string>;
  listAll: Statement<OfKind, RecordRow>;
  listScope: Statement<InScope, RecordRow>;
  versionsAll: Statement<OfKind, RowVersion>;
  versionsScope: Statement<InScope, RowVersion>;
  countAll: Statement<OfKind, number>;
  countScope: Statement<InScope, number>;
  insert: Statement;
  replaceSameId: Statement;
  replace: Statement;
  delete: Statement<Key, string>;
  putCredential: Statement;
  findCredential: Statement<[string], CredentialRow>;
  deleteCredential: Statement;
  deleteCredentialsOf: Statement;
  setCounter: Statement<[string, string, number]>;
  counter: Statement<OfKind, number>;
  orgs: Statement<[], string>;
  begin: Statement;
  commit: Statement;
  rollback: Statement;
  savepoint: Statement;
  releaseSavepoint: Statement;
  rollbackToSavepoint: Statement;
}

function prepareStatements(db: Database.Database): Statements {
  return {
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
}

/** One SQLite data file, opened for this process (see `lockExclusively`), with its schema and statements. */
export class SqliteFile {
  readonly db: Database.Database;
  readonly stmts: Statements;
  /** Milliseconds without a commit before the WAL is emptied; undefined for an in-memory database (no WAL). */
  readonly idleMs: number | undefined;

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
    this.stmts = prepareStatements(this.db);
  }

  /** Empties the WAL into the database file (`TRUNCATE`): only committed pages move. */
  checkpoint(): void {
    this.db.pragma("wal_checkpoint(TRUNCATE)");
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

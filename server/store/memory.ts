/**
 * What this process holds of the data file in memory, above the plain SQLite store (sqliteFile.ts): the records it
 * read or wrote (parsed and frozen), lists by kind, change counters and the id index — exact because this process is
 * the file's only writer — and the writes it holds until its commit group's `COMMIT` (records and counters written
 * once per group). Each keeps what the running transaction changed, so a rollback can take it back (sqlite.ts).
 */
import { deepFreeze, isPlainJson, jsonOf, plainJsonOf, rememberJson } from "../json.js";
import type { RecordRow, RowVersion, Statements } from "./sqliteFile.js";
import type { JsonObject, StoredRecord } from "./store.js";

/** Where a record is within its (org, kind): what the id index maps an id to. */
export interface RecordPlace {
  scope: string;
  name: string;
}

/** A record written in memory and not yet to its row, which is still at `rowVersion` (see `SqliteStore.unwritten`). */
export interface UnwrittenRecord {
  record: StoredRecord;
  rowVersion: number;
}

export function frozenRecord(
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
export function writtenRecord(record: StoredRecord, json: string): StoredRecord {
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

export const cacheKey = (org: string, kind: string, scope: string, name: string) =>
  `${org}\n${kind}\n${scope}\n${name}`;

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

/** The caches and held writes of one `SqliteStore`. */
export class StoreMemory {
  /**
   * Change counters as last read from or written to the database. This process is the file's only writer, so the
   * cache stays exact; a rolled-back transaction clears it (its bumps never happened).
   */
  readonly counters = new Map<string, number>();
  /**
   * Parsed, frozen records by key, written through on every write (this process is the file's only writer), so a
   * read needs neither a query nor a parse. Cleared with the counters when a transaction rolls back.
   */
  readonly docs = new Map<string, StoredRecord>();
  /**
   * Lists by (org, kind, scope), valid while the kind's change counter stands still: a list of an unchanged kind
   * costs neither a query nor a parse. After a write, the next list reads only (name, id, version) of each row and
   * takes the records from `docs`. Cleared with the counters when a transaction rolls back.
   */
  readonly lists = new Map<string, { counter: number; records: readonly StoredRecord[] }>();
  /** Counters moved in memory (`bump`) and not yet written to the database (`writeCounters`). */
  readonly unwrittenCounters = new Set<string>();
  /** The counters the running transaction moved, as they stood before it (restored if it rolls back). */
  readonly counterBefore = new Map<string, number>();
  /**
   * Records written (`touch`, a `replace` keeping the id) but not yet in the database, by key: each is written once
   * per commit group, just before its `COMMIT` (like the counters), however many transactions of the group moved it —
   * a record PATCHed by several requests of a group costs one UPDATE. Readers take them from here first; they outlive
   * `forgetCaches` (they are writes, not cached reads).
   */
  readonly unwritten = new Map<string, UnwrittenRecord>();
  /** The `unwritten` entries the running transaction changed, as they stood before it (restored if it rolls back). */
  readonly unwrittenBefore = new Map<string, UnwrittenRecord | undefined>();
  /** Records held by `lists`, kept under `DOC_CACHE_MAX`. */
  listed = 0;
  /**
   * The id index: where each record id of an (org, kind) is, loaded from the records when the kind is first needed
   * and kept through this process's writes (it is the file's only writer). It replaces an SQL index on
   * (org, kind, id): ids are random UUIDs, so each insert landed on a random page of that index, a page more for
   * its commit to write to the WAL (groups of five creates wrote 15.3 pages with it, 8.5 without; bench/README.md).
   * Ids stay unique per (org, kind): a create or a replace taking an id the kind holds is refused (`false`).
   */
  readonly ids = new Map<string, Map<string, RecordPlace>>();
  /** Ids held by `ids`, kept near `ID_INDEX_MAX`. */
  indexedIds = 0;
  /** How to take back the running transaction's changes to `ids` (replayed backwards if it rolls back). */
  readonly idUndo: (() => void)[] = [];
  /** Kinds whose ids were loaded during the running transaction: they may hold its writes, dropped if it rolls back. */
  readonly idsLoadedInTransaction = new Set<string>();

  constructor(
    private readonly stmts: Statements,
    /** Whether a transaction is running (ids loaded during one may hold its writes). */
    private readonly running: () => boolean,
  ) {}

  /** A record from memory (held or cached), else read from its row and kept. */
  get(org: string, kind: string, scope: string, name: string): StoredRecord | undefined {
    const cached = this.cached(cacheKey(org, kind, scope, name));
    if (cached) return cached;
    const row = this.stmts.get.get(org, kind, scope, name);
    return row ? this.remember(frozenRecord(row, row.doc)) : undefined;
  }

  /**
   * The records of (org, kind) in `scope` (undefined: every scope): the list kept while the kind's change counter
   * stands at `counter`, else read again (see `readList`) and kept.
   */
  list(org: string, kind: string, scope: string | undefined, counter: number): StoredRecord[] {
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
  }

  remember(record: StoredRecord): StoredRecord {
    if (this.docs.size >= DOC_CACHE_MAX) this.docs.clear();
    this.docs.set(cacheKey(record.org, record.kind, record.scope, record.name), record);
    return record;
  }

  /** The record under `key` as this process last wrote or read it: an unwritten one first (its row is older). */
  cached(key: string): StoredRecord | undefined {
    return (this.unwritten.size > 0 ? this.unwritten.get(key)?.record : undefined) ?? this.docs.get(key);
  }

  /** The record standing for `row`: the unwritten one over it, or the cached one at its version. */
  cachedFor(row: RowVersion): StoredRecord | undefined {
    const key = cacheKey(row.org, row.kind, row.scope, row.name);
    const pending = this.unwritten.size > 0 ? this.unwritten.get(key) : undefined;
    if (pending && pending.rowVersion === row.version && pending.record.id === row.id) return pending.record;
    const hit = this.docs.get(key);
    return hit && hit.version === row.version && hit.id === row.id ? hit : undefined;
  }

  /** Sets (or with `undefined`, drops) the unwritten record under `key`, keeping how to take that back. */
  setUnwritten(key: string, entry: UnwrittenRecord | undefined): void {
    if (!this.unwrittenBefore.has(key)) this.unwrittenBefore.set(key, this.unwritten.get(key));
    this.putUnwritten(key, entry);
  }

  putUnwritten(key: string, entry: UnwrittenRecord | undefined): void {
    if (entry === undefined) this.unwritten.delete(key);
    else this.unwritten.set(key, entry);
  }

  /** Writes the unwritten records (inside the group's SQLite transaction, before `COMMIT`). */
  writeUnwritten(): void {
    for (const entry of this.unwritten.values()) this.writeRow(entry);
    this.unwritten.clear();
  }

  /**
   * Writes one unwritten record to its row. The row must still be at the version it was read at (every write of it
   * since went through `unwritten`, and a delete drops its entry), so a row that is not fails the write.
   */
  writeRow({ record: r, rowVersion }: UnwrittenRecord): void {
    const json = jsonOf(r.doc);
    const info = this.stmts.replaceSameId.run(r.version, json, r.org, r.kind, r.scope, r.name, rowVersion, r.id);
    if (info.changes === 0) throw new Error(`${r.kind} ${r.name} changed under a pending write`);
    rememberJson(r.doc, json);
    this.remember(r);
  }

  /** A row as a record, reusing the cached parse when the row's version is the cached one. */
  fromRow(row: RecordRow): StoredRecord {
    return this.cachedFor(row) ?? this.remember(frozenRecord(row, row.doc));
  }

  /**
   * A list from the database: row identities first, records from `docs` where cached at the same version; when
   * most are not cached (a cold start, or a cache that started over), one query reads and parses every row.
   */
  readList(org: string, kind: string, scope: string | undefined): StoredRecord[] {
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
  bump(org: string, kind: string): void {
    const key = `${org}\n${kind}`;
    const counter = this.counterOf(org, kind);
    if (!this.counterBefore.has(key)) this.counterBefore.set(key, counter);
    this.counters.set(key, counter + 1);
    this.unwrittenCounters.add(key);
  }

  /** Writes the counters that moved since the last write of them (inside the group's SQLite transaction). */
  writeCounters(values: ReadonlyMap<string, number> = this.counters): void {
    for (const key of this.unwrittenCounters) {
      const counter = values.get(key);
      if (counter === undefined) continue;
      const cut = key.indexOf("\n");
      this.stmts.setCounter.run(key.slice(0, cut), key.slice(cut + 1), counter);
    }
    this.unwrittenCounters.clear();
  }

  /** The ids of (org, kind) and where each is (see `ids`), read from the database when first needed. */
  idsOf(org: string, kind: string): Map<string, RecordPlace> {
    const key = `${org}\n${kind}`;
    let ids = this.ids.get(key);
    if (ids === undefined) {
      ids = new Map();
      for (const [id, scope, name] of this.stmts.idsOfKind.iterate(org, kind)) ids.set(id, { scope, name });
      if (this.indexedIds + ids.size > ID_INDEX_MAX) this.forgetIds();
      this.ids.set(key, ids);
      this.indexedIds += ids.size;
      if (this.running()) this.idsLoadedInTransaction.add(key);
    }
    return ids;
  }

  /** Records that `id` of (org, kind) is now at `place` (or nowhere), and how to take that back. */
  placeId(org: string, kind: string, id: string, place: RecordPlace | undefined): void {
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

  forgetIds(): void {
    this.ids.clear();
    this.indexedIds = 0;
  }

  /** Takes back the rolled-back transaction's changes to `ids`, and drops the kinds it loaded (they may hold its writes). */
  undoIds(): void {
    for (const undo of this.idUndo.splice(0).reverse()) undo();
    for (const key of this.idsLoadedInTransaction) {
      this.indexedIds -= this.ids.get(key)?.size ?? 0;
      this.ids.delete(key);
    }
    this.idsLoadedInTransaction.clear();
  }

  /** The change counter of (org, kind), read from the database once and then kept (see `counters`). */
  counterOf(org: string, kind: string): number {
    const key = `${org}\n${kind}`;
    let counter = this.counters.get(key);
    if (counter === undefined) {
      counter = this.stmts.counter.get(org, kind) ?? 0;
      this.counters.set(key, counter);
    }
    return counter;
  }

  /** Forgets every cached read: after a rollback, what the caches hold may never have been committed. */
  forgetCaches(): void {
    this.counters.clear();
    this.unwrittenCounters.clear();
    this.lists.clear();
    this.listed = 0;
    this.docs.clear();
  }
}

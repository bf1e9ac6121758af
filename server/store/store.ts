/**
 * The storage boundary of cpln-local. Routes and kind rules only ever talk to this interface, so another adapter
 * (PostgreSQL, for several server instances) can replace SQLite without touching them. Every method is async for
 * that reason, even though the SQLite adapter answers synchronously.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Identity of one stored record. `scope` is the gvc name for gvc-scoped kinds and "" for org-scoped ones. */
export interface RecordKey {
  org: string;
  kind: string;
  scope: string;
  name: string;
}

/** A stored record: its key, its UUID, its version, and the JSON document the API returns. */
export interface StoredRecord extends RecordKey {
  id: string;
  version: number;
  doc: JsonObject;
}

/**
 * A hashed secret (an API key) that authenticates as the record owning it; the secret itself is never stored. The
 * store does not interpret owners: `ownerKind`/`owner` name the record (today service accounts own keys).
 */
export interface Credential {
  /** The key's name: the text before the first `.` of the key. */
  id: string;
  org: string;
  ownerKind: string;
  /** Name of the owning record. */
  owner: string;
  /** SHA-256 of the full key text, hex. */
  hash: string;
}

/** The operations available both inside and outside a transaction. */
export interface StoreOps {
  get(org: string, kind: string, scope: string, name: string): Promise<StoredRecord | undefined>;
  getById(org: string, kind: string, id: string): Promise<StoredRecord | undefined>;
  /** Records of one kind, ordered by scope then name; `scope` undefined means every scope. */
  list(org: string, kind: string, scope?: string): Promise<StoredRecord[]>;
  count(org: string, kind: string, scope?: string): Promise<number>;
  /** Inserts a record; false when a record with the same key already exists. */
  create(record: StoredRecord): Promise<boolean>;
  /**
   * Replaces a record if its stored version is still `expectedVersion`; false if the version moved or it is gone.
   * Readers see it at once; like `touch`, an adapter may write it to storage once per batch of transactions.
   */
  replace(record: StoredRecord, expectedVersion: number): Promise<boolean>;
  /**
   * Replaces a record's document keeping its version, for what the server maintains as other writes happen (a
   * quota's `current`: neither configuration nor a change of the object); false if the record is gone or is no longer
   * at this version and id. Readers see it at once; an adapter may write it to storage once per batch of
   * transactions that moved it (still atomically with the transaction's other writes).
   */
  touch(record: StoredRecord): Promise<boolean>;
  /** Deletes a record; false when it did not exist. */
  delete(org: string, kind: string, scope: string, name: string): Promise<boolean>;
  putCredential(credential: Credential): Promise<void>;
  findCredential(id: string): Promise<Credential | undefined>;
  /** Deletes a credential; counts as a change of its owner's kind (caches of verified keys see the revocation). */
  deleteCredential(id: string): Promise<boolean>;
  /** Deletes every credential of one record (when it is deleted). */
  deleteCredentialsOf(org: string, ownerKind: string, owner: string): Promise<number>;
  /** Counter bumped by every write to (org, kind); caches derived from that kind compare it to stay fresh. */
  changeCounter(org: string, kind: string): Promise<number>;
  /** The change counters of several kinds of one org, in the order asked (one read for a cache derived from them all). */
  changeCounters(org: string, kinds: readonly string[]): Promise<number[]>;
  /** Orgs that have at least one record. */
  orgs(): Promise<string[]>;
}

export interface Store extends StoreOps {
  /**
   * Runs `fn` as one serialized transaction: either everything it wrote commits or nothing does. `fn` must use the
   * `tx` handle it is given; other callers wait until the transaction ends, so they never see its partial writes.
   */
  transaction<T>(fn: (tx: StoreOps) => Promise<T>): Promise<T>;
  /**
   * Undefined when every write a reader may have seen is durable; else a promise that settles once it is (and rejects
   * when those writes failed to commit). An adapter that commits writes in groups (SQLite) lets readers see a
   * finished transaction before its group commits: the server awaits this before it sends any answer.
   */
  settled?(): Promise<void> | undefined;
  close(): Promise<void>;
}

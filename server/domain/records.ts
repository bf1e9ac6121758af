import type { Kind } from "../../api/kinds/index.js";
import type { Principal } from "../auth/authn.js";
import type { JsonObject, StoreOps } from "../store/store.js";
import { RecordContext, type Call } from "./recordContext.js";
import { runAction, runEndpoint } from "./recordEndpoints.js";
import { patchRecord, putRecord } from "./recordPatch.js";
import {
  getRecord,
  listOrgs,
  listRecords,
  permissionCatalog,
  queryRecords,
  recordAccessReport,
} from "./recordReads.js";
import { createRecord, deleteRecord, insertRecord, upsertRecord } from "./recordWrites.js";

export { DEFAULT_PAGE_SIZE, type Call } from "./recordContext.js";

/**
 * The generic record service: create, get, list, patch, delete, query, permission schema, access report and kind
 * actions, for every kind, driven by the kind's rules table. Authorization is checked here, so every route gets it.
 * Each operation lives in the file of its group (reads, writes, patch, endpoints); this class is their one entry.
 */
export class RecordService extends RecordContext {
  /**
   * One page of a kind's list: `pageSize` items after `cursor` (the last item of the previous page), in storage
   * order, with a `next` link while more remain.
   */
  list(call: Call, kind: Kind, cursorText?: string): Promise<JsonObject> {
    return listRecords(this, call, kind, cursorText);
  }

  /** Every org the principal may view (`GET /org`). */
  listOrgs(principal: Principal): Promise<JsonObject> {
    return listOrgs(this, principal);
  }

  get(call: Call, kind: Kind, key: string): Promise<JsonObject> {
    return getRecord(this, call, kind, key);
  }

  /** `POST .../-query` (or its `next` page: `cursorText`). */
  query(call: Call, kind: Kind, rawBody: unknown, cursorText?: string): Promise<JsonObject> {
    return queryRecords(this, call, kind, rawBody, cursorText);
  }

  /** The permission catalog of a kind; any authenticated caller may read it (it describes no object). */
  permissions(call: Call, kind: Kind): Promise<JsonObject> {
    return permissionCatalog(this, call, kind);
  }

  /** Who may act on the object (needs `view` on it; 404 otherwise). */
  accessReport(call: Call, kind: Kind, key: string): Promise<JsonObject> {
    return recordAccessReport(this, call, kind, key);
  }

  create(call: Call, kind: Kind, rawBody: unknown): Promise<{ record: JsonObject; location: string }> {
    return createRecord(this, call, kind, rawBody);
  }

  /** Stores a new record from a validated create body inside `tx` (seeding's entry; see `insertRecord`). */
  insert(
    tx: StoreOps,
    org: string,
    kind: Kind,
    scope: string,
    gvc: string | undefined,
    body: JsonObject,
    now: string,
    fields?: JsonObject,
  ): Promise<JsonObject> {
    return insertRecord(this, tx, org, kind, scope, gvc, body, now, fields);
  }

  /** `PUT` to a collection (what `cpln apply` sends): creates the object the body names, or replaces it. */
  upsert(
    call: Call,
    kind: Kind,
    rawBody: unknown,
  ): Promise<{ created: boolean; record: JsonObject; location: string }> {
    return upsertRecord(this, call, kind, rawBody);
  }

  /** PUT to an object: the body is the whole desired object (runs as the equivalent PATCH). */
  put(call: Call, kind: Kind, key: string, rawBody: unknown): Promise<JsonObject> {
    return putRecord(this, call, kind, key, rawBody);
  }

  patch(
    call: Call,
    kind: Kind,
    key: string,
    rawBody: unknown,
    bodyPath?: (path: string) => string,
  ): Promise<JsonObject> {
    return patchRecord(this, call, kind, key, rawBody, bodyPath);
  }

  delete(call: Call, kind: Kind, key: string): Promise<void> {
    return deleteRecord(this, call, kind, key);
  }

  /** A kind action (`POST .../{name}/-<action>`). */
  action(
    call: Call,
    kind: Kind,
    key: string,
    name: string,
    rawBody: unknown,
  ): Promise<{ status: number; body: JsonObject }> {
    return runAction(this, call, kind, key, name, rawBody);
  }

  /** A kind endpoint (`KindDescriptor.endpoints`), on an object (`key`) or on the collection; it changes nothing. */
  endpoint(
    call: Call,
    kind: Kind,
    key: string | undefined,
    name: string,
    request: { param?: string; body?: unknown },
  ): Promise<JsonObject> {
    return runEndpoint(this, call, kind, key, name, request);
  }
}

import type { z } from "zod";
import type { Issue } from "../../api/errors.js";
import type { Kind } from "../../api/kinds/index.js";
import type { Principal } from "../auth/authn.js";
import type { JsonObject, StoreOps, StoredRecord } from "../store/store.js";

/** What a kind hook may use: the org, the transaction, the clock. */
export interface RuleContext {
  org: string;
  /** The gvc of a gvc-scoped record. */
  gvc: string | undefined;
  tx: StoreOps;
  /** ISO timestamp of this request (every record written by it gets the same one). */
  now: string;
}

/** The result of a kind action (`POST .../{name}/-<action>`). */
export interface ActionResult {
  status: number;
  body: JsonObject;
  /** Stored record to write back (e.g. a service account with a new key name), replacing the current version. */
  update?: JsonObject;
}

export interface ActionContext extends RuleContext {
  record: JsonObject;
  body: JsonObject;
  principal: Principal;
}

export interface KindAction {
  /** Permission needed on the object (after `view`, which decides 404). */
  permission: string;
  /** Runs inside the write transaction. */
  run(ctx: ActionContext): Promise<ActionResult>;
  /** Whether the response body must stay out of logs and the request log (join scripts, keys). */
  secretResponse?: boolean;
}

/** What an endpoint (`-eventlog`, `-cacerts`, `-instructions/{provider}`, ...) is run with. */
export interface EndpointContext extends RuleContext {
  principal: Principal;
  /** The object of an item endpoint (absent for a collection endpoint). */
  record?: JsonObject;
  /** The path of the endpoint itself (`/org/o/mk8s/k/-cacerts`): a list answer's self link. */
  self: string;
  /** The value of the endpoint's path parameter (`aws` of `-instructions/aws`). */
  param?: string;
  /** A POST's body (an object; `{}` for a GET). */
  body: JsonObject;
}

/** An endpoint of the kind's contract (`KindDescriptor.endpoints`); it answers without changing any object. */
export interface KindEndpoint {
  /**
   * Permission needed on the object (item endpoints, after `view`) or on the kind (collection endpoints); a function
   * of the checked body when the body decides it (a volume set's `exec.<command>`).
   */
  permission: string | ((body: JsonObject) => string);
  run(ctx: EndpointContext): Promise<JsonObject> | JsonObject;
}

/** A quota a create consumes: `perGvc` quotas exist once per gvc (dimension gvcLink). */
export interface QuotaUse {
  name: string;
  perGvc: boolean;
}

/**
 * What a kind's fields are to a write: which the server owns, which never change, what PATCH and PUT keep or fill in,
 * and where links and stored queries are.
 */
export interface FieldRules {
  /** Top-level or dotted fields the server owns besides the common ones: a change through PATCH is a 400. */
  readOnly: readonly string[];
  /** Dotted fields fixed at create: a change through PATCH or PUT is a 409 (a conflict with the stored object). */
  immutable: readonly string[];
  /** Top-level fields a PATCH body may carry (clients echo what they read) that are ignored as plain fields. */
  ignoredInPatch?: readonly string[];
  /** Server-owned fields that PATCH silently keeps (clients echo them back); `status` on most kinds. */
  preserved: readonly string[];
  /**
   * Create defaults of top-level writable fields a create body may leave out (a `spec` made from nothing): a PUT that
   * leaves such a field out replaces it with this value, as a create without it would have it.
   */
  omittedDefaults?: Readonly<JsonObject>;
  /** Tag keys the server sets on records of this kind: they do not count against the 50-tag limit. */
  serverTags?: readonly string[];
  /** Top-level fields holding a stored query document (checked like a query body: terms, patterns). */
  queryFields?: readonly string[];
  /**
   * Array fields (at any depth) whose items are links stored in full form: the items a patch directive names
   * (`$drop/`, `$retain/`, `$append/` of these fields) are read in full form too, so `//group/x` names
   * `/org/o/group/x`.
   */
  linkArrays?: readonly string[];
  /** Links of a record beyond self, org and gvc, from its self link (a workload's `deployment` collection). */
  links?(self: string): JsonObject[];
  /** Storage scope of a record of an org-scoped kind that still needs several records per name (per-gvc quotas). */
  storageScope?(record: JsonObject): string;
}

/** A record's life: how it is made, what it must satisfy, and what runs with each write (inside its transaction). */
export interface LifecycleRules {
  /** The kind-specific fields of a new record from a validated create body (defaults filled, server fields set). */
  initialize(body: JsonObject, ctx: RuleContext): JsonObject | Promise<JsonObject>;
  /**
   * Rules beyond the schema (cross-field checks); run on create and on every patch result. On an update `previous` is
   * the stored record it started from, which passed them: a rule that reads only fields the update left as they were
   * (the very same values) holds still.
   */
  validate?(record: JsonObject, ctx: RuleContext, previous?: JsonObject): Issue[] | Promise<Issue[]>;
  /**
   * The issues of `validate` an update can only cause together with the stored object's immutable fields: a value
   * valid in itself (the document admits it) that those fields rule out. Checked on every patch result before
   * `validate`: a 409 naming them, since the same body is valid for another object.
   */
  conflicts?(record: JsonObject): Issue[];
  /** Adjusts a patch result before validation (e.g. keeps server tags, derives a status from the store). */
  afterPatch?(previous: JsonObject, next: JsonObject, ctx: RuleContext): JsonObject | Promise<JsonObject>;
  /** Runs after a create, in the same transaction. */
  created?(record: StoredRecord, ctx: RuleContext): Promise<void>;
  /** Runs after a patch that changed the record, in the same transaction. */
  patched?(previous: JsonObject, next: JsonObject, ctx: RuleContext): Promise<void>;
  /** Runs before a delete, in the same transaction; throw 409 InUse to refuse. */
  deleting?(record: StoredRecord, ctx: RuleContext): Promise<void>;
  /** Runs after a delete, in the same transaction. */
  deleted?(record: StoredRecord, ctx: RuleContext): Promise<void>;
}

/** Refusals beyond the permission an operation needs. */
export interface AccessRules {
  /** Why this record may not be edited (builtin objects): 403 with this message. */
  editForbidden?(record: JsonObject): string | undefined;
  /** Why this record may not be deleted: 403 with this message. */
  deleteForbidden?(record: JsonObject): string | undefined;
  /**
   * The fields a create body may set with `createPermission` alone; setting any other field needs `permission` on the
   * new object as well (a 403 naming the fields). Users: `invite` adds an email; a group's `memberQuery` may select
   * any other field (tags, idp, description), so choosing them is editing the user.
   */
  createAlone?: { fields: readonly string[]; permission: string };
}

/**
 * Everything the generic record service needs to know about one kind: the contract's facts (schemas, addressing,
 * read from the kind's descriptor in `api/kinds/`) merged with the server's rules (`server/domain/<kind>.ts`), these
 * grouped as `fields`, `lifecycle` and `access`. Beside the groups: what a create consumes and the permissions a
 * create and a delete need (as an action or endpoint names its own). Generic code reads these tables and never names
 * a kind or a field itself.
 */
export interface KindRules {
  kind: Kind;
  /** Strict schema of a POST body; undefined: the kind cannot be created through the API (405). */
  createBody?: () => z.ZodType;
  /** Strict schema of a PATCH body; undefined: the kind cannot be patched (405). */
  patchBody?: () => z.ZodType;
  /** Schema every stored record must satisfy (checked after create and after every patch). */
  record: () => z.ZodType;
  /** Body field that names a new object (default `name`; users are named by their `email`). */
  nameField?: string;
  /** `id`: objects are addressed by their UUID in paths (quotas, whose names repeat). */
  addressBy?: "name" | "id";
  /** Quota consumed by each record of this kind. */
  quota?: QuotaUse;
  /** Permission a create (POST, or a PUT that creates) needs (default `create`). */
  createPermission?: string;
  /** Permission a DELETE needs (default `delete`). */
  deletePermission?: string;
  fields: FieldRules;
  lifecycle: LifecycleRules;
  access?: AccessRules;
  actions?: Readonly<Record<string, KindAction>>;
  endpoints?: Readonly<Record<string, KindEndpoint>>;
}

/** Fields of `KindRules` that come from the kind's contract descriptor (`api/kinds/<kind>.ts`). */
type ContractFields = "createBody" | "patchBody" | "record" | "nameField" | "addressBy";

/** What `server/domain/<kind>.ts` states: only the server's rules; the contract comes from the descriptor. */
export type KindServerRules = Omit<KindRules, ContractFields>;

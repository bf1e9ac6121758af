import { isProtected, protectedMessage } from "../../api/protection.js";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { ErrorCode, issuesFromZod, type Issue } from "../../api/errors.js";
import { impliedMap, kinds, patchRules, type Kind } from "../../api/kinds.js";
import { collectionPath, selfLink } from "../../api/links.js";
import { readPath } from "../../api/query.js";
import { selfLinkOf } from "../auth/authz.js";
import { applyPatch, equalUnder, PatchError, type PatchRules } from "../../api/patch/index.js";
import type { Principal } from "../auth/authn.js";
import type { Authorizer, OrgAuthz } from "../auth/authz.js";
import { ApiFailure, badRequest, conflict, forbidden, notFound, resultConflict, stateConflict } from "../errors.js";
import type { JsonObject, JsonValue, Store, StoreOps, StoredRecord } from "../store/store.js";
import { freezeWithJson, jsonEqual, jsonOf, reusedReply } from "../json.js";
import { parseCoerced } from "./coerce.js";
import { fullLinksInDirectives, nowIso } from "./common.js";
import { foreignOrgLinks } from "./orgLinks.js";
import { CursorCodec, MAX_PAGE_BYTES, PageMemo, pageAfter, type Cursor } from "./paging.js";
import { accessReportFor } from "./accessReport.js";
import { storedLimitIssues } from "./limits.js";
import { STORED_BYTES_QUOTA, storedBytesOf } from "./quota.js";
import { presentRecord } from "./present.js";
import { runQueryDocument } from "./querying.js";
import type { KindRules, RuleContext } from "./rules.js";

/** Who calls, in which org (and gvc, for gvc-scoped kinds). */
export interface Call {
  org: string;
  gvc?: string;
  principal: Principal;
  /** Told the stored object a successful patch started from (request inspection keeps it beside the answer). */
  onPatched?: (previous: JsonObject) => void;
}

/** Fields every record carries that only the server sets. */
const SERVER_FIELDS = ["kind", "id", "name", "version", "created", "lastModified", "links"] as const;
/** Read-only fields a PATCH body may echo back; checked (version, id, name, kind) and then removed. */
const ECHOED_FIELDS = ["version", "id", "kind", "name", "created", "lastModified", "links", "status"] as const;

/**
 * Read-only fields of a record that any write body may carry (manifests, records as `GET` returned them): a create
 * ignores them, a PATCH or PUT checks `version` (and `id`/`name` on an item) and ignores the rest. gvc-scoped kinds
 * also accept `gvc` (the path names the gvc).
 */
const READ_ONLY_INPUT = ["kind", "id", "version", "created", "lastModified", "links", "status"] as const;

const isEchoedField = (field: string): boolean => (ECHOED_FIELDS as readonly string[]).includes(field);
const isReadOnlyInput = (field: string): boolean => (READ_ONLY_INPUT as readonly string[]).includes(field);

const PATCH_ATTEMPTS = 5;

/**
 * Items per list or query page. The CLI shows 50 items by default, so one page answers a default `cpln X get`; a
 * typical record is 0.5-2 KB, so a page stays around 100-200 KB and a 50,000-item kind is 500 bounded answers
 * instead of one 27 MB answer.
 */
export const DEFAULT_PAGE_SIZE = 100;
const REPLACE = "$replace/";

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function requireObject(body: unknown, what: string): JsonObject {
  if (!isObject(body)) throw badRequest([{ path: "", message: `${what} must be a JSON object` }]);
  return body;
}

/** A `kind` contradicting the path is a 400 on every write: every body's schema in the document says `const`. */
function checkKindField(kind: Kind, body: JsonObject): void {
  const value = body["kind"];
  if (value !== undefined && value !== kind) {
    throw badRequest([{ path: "kind", message: `is ${JSON.stringify(value)} but this path is for ${kind} objects` }]);
  }
}

/** A body's `version`, when present, is a non-negative integer (a create ignores it, other writes compare it). */
function checkVersionField(body: JsonObject): void {
  const value = body["version"];
  if (value !== undefined && !(typeof value === "number" && Number.isInteger(value) && value >= 0)) {
    throw badRequest([{ path: "version", message: "must be a non-negative integer (the version read)" }]);
  }
}

/** The body without the fields a write ignores: every read-only field, and `gvc` on gvc-scoped kinds. */
function withoutReadOnly(kind: Kind, body: JsonObject, keep: readonly string[] = []): JsonObject {
  const gvcScoped = kinds[kind].scope === "gvc";
  const ignored = (field: string) =>
    (isReadOnlyInput(field) || (gvcScoped && field === "gvc")) && !keep.includes(field);
  const result: JsonObject = {};
  for (const [field, value] of Object.entries(body)) if (!ignored(field)) result[field] = value;
  return result;
}

/**
 * Whether a create body's `field` sets something the create would not set anyway: empty tags and a description equal
 * to the name are the defaults every new record gets (a manifest echoing them chooses nothing).
 */
function setsField(body: JsonObject, field: string, name: string): boolean {
  const value = body[field];
  if (value === undefined || value === null) return false;
  if (field === "tags") return !(isObject(value) && Object.keys(value).length === 0);
  if (field === "description") return value !== name;
  return true;
}

/** A dotted field path (`spec.performanceClass`) split once into its segments. */
interface FieldPath {
  path: string;
  segments: readonly string[];
}

function fieldPaths(paths: readonly string[]): FieldPath[] {
  return paths.map((path) => ({ path, segments: path.split(".") }));
}

function getPath(doc: JsonObject, path: FieldPath): JsonValue | undefined {
  let current: JsonValue | undefined = doc;
  for (const segment of path.segments) {
    if (!isObject(current)) return undefined;
    current = Object.hasOwn(current, segment) ? current[segment] : undefined;
  }
  return current;
}

function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return equalUnder(a, b, { arrays: {} });
}

/** Whether `a` and `b` hold the same value at `path`: at once when they share the top-level field it lies in. */
function sameAt(a: JsonObject, b: JsonObject, path: FieldPath): boolean {
  const top = path.segments[0] ?? "";
  if (Object.hasOwn(a, top) === Object.hasOwn(b, top) && a[top] === b[top]) return true;
  return sameJson(getPath(a, path), getPath(b, path));
}

/**
 * The record schema's issues with `doc`, checking only the top-level fields that differ from `previous` (a record
 * that satisfied the same schema): an unchanged field (the same value, as a patch keeps what it does not touch) was
 * valid and still is. Undefined when that does not hold for the schema — not a plain object schema, or one with
 * checks across fields — and the whole record must be parsed.
 */
function changedFieldIssues(schema: z.ZodType, doc: JsonObject, previous: JsonObject): Issue[] | undefined {
  if (!(schema instanceof z.ZodObject)) return undefined;
  const def = schema._zod.def;
  if ((def.checks?.length ?? 0) > 0) return undefined;
  const shape = schema.shape as Record<string, z.ZodType>;
  const issues: Issue[] = [];
  const checkField = (key: string, field: z.ZodType) => {
    const parsed = field.safeParse(doc[key]);
    if (!parsed.success) issues.push(...issuesFromZod(parsed.error, [key]));
  };
  for (const key of Object.keys(shape)) {
    // Unchanged: the same value (a patch shares what it does not touch) or an equal one (a kind rebuilding a field).
    if (Object.hasOwn(doc, key) === Object.hasOwn(previous, key) && jsonEqual(doc[key], previous[key])) continue;
    checkField(key, shape[key] as z.ZodType);
  }
  // Fields outside the shape: a loose object (catchall unknown) or a stripping one (none) takes any; other catchalls
  // (a strict object's refusal of unknown keys) are left to the whole parse, which words its issues.
  const catchall = def.catchall as z.ZodType | undefined;
  if (catchall !== undefined && !(catchall instanceof z.ZodUnknown) && !(catchall instanceof z.ZodAny))
    return undefined;
  return issues;
}

/** `record` at `version` holding `doc`: a literal, not a spread of the (frozen) stored record. */
function withDoc(record: StoredRecord, version: number, doc: JsonObject): StoredRecord {
  return { org: record.org, kind: record.kind, scope: record.scope, name: record.name, id: record.id, version, doc };
}

function storedRecord(org: string, kind: Kind, scope: string, doc: JsonObject): StoredRecord {
  return {
    org,
    kind,
    scope,
    name: String(doc["name"]),
    id: String(doc["id"]),
    version: Number(doc["version"]),
    doc,
  };
}

/**
 * The generic record service: create, get, list, patch, delete, query, permission schema, access report and kind
 * actions, for every kind, driven by the kind's rules table. Authorization is checked here, so every route gets it.
 */
export class RecordService {
  private readonly knownOrgs = new Set<string>();
  /** List pages as last answered, with the change counter and authorization decisions they hold for (see `list`). */
  private readonly pages = new PageMemo<{ counter: number; decisions: object; page: JsonObject }>();

  constructor(
    readonly store: Store,
    readonly authorizer: Authorizer,
    readonly rules: Readonly<Record<Kind, KindRules>>,
    /** Items per page of a list or query answer (see `DEFAULT_PAGE_SIZE`). */
    readonly pageSize: number = DEFAULT_PAGE_SIZE,
    /** Issues and reads the cursors of `next` links. */
    private readonly cursors: CursorCodec = new CursorCodec(),
  ) {}

  private patchRulesOf(kind: Kind): PatchRules {
    return patchRules[kind] ?? { arrays: {} };
  }

  private readonly keptFields = new Map<Kind, readonly string[]>();

  /**
   * The fields a PATCH can replace that every object of `kind` has (the record schema requires them): a body may not
   * remove them (null, `$drop`), and a PUT must carry them. The document's PATCH and PUT bodies say so from this list
   * (server/routes/table.ts). description and tags are not among them: removed, they get their create defaults.
   */
  alwaysPresent(kind: Kind): readonly string[] {
    let fields = this.keptFields.get(kind);
    if (fields === undefined) {
      const record = this.rules[kind].record();
      const patch = this.rules[kind].patchBody?.();
      fields =
        record instanceof z.ZodObject && patch instanceof z.ZodObject
          ? Object.entries(record.shape as Record<string, z.ZodType>)
              .filter(([field, schema]) => `${REPLACE}${field}` in patch.shape && !schema.safeParse(undefined).success)
              .map(([field]) => field)
              .filter((field) => field !== "description" && field !== "tags")
          : [];
      this.keptFields.set(kind, fields);
    }
    return fields;
  }

  private readonly guarded = new Map<Kind, { readOnly: FieldPath[]; immutable: FieldPath[] }>();

  /** The fields a write may not change: read-only (the server's and the kind's) and immutable, split once per kind. */
  private guardedFields(kind: Kind): { readOnly: FieldPath[]; immutable: FieldPath[] } {
    let fields = this.guarded.get(kind);
    if (fields === undefined) {
      const rules = this.rules[kind];
      fields = { readOnly: fieldPaths([...SERVER_FIELDS, ...rules.readOnly]), immutable: fieldPaths(rules.immutable) };
      this.guarded.set(kind, fields);
    }
    return fields;
  }

  /** The org must exist (404 otherwise); returns its authorization view. */
  private async orgAuthz(call: Call): Promise<OrgAuthz> {
    if (!this.knownOrgs.has(call.org)) {
      const org = await this.store.get(call.org, "org", "", call.org);
      if (!org) throw notFound(`org ${call.org}`);
      this.knownOrgs.add(call.org);
    }
    return this.authorizer.forOrg(call.org);
  }

  /** The storage scope of a kind's records in this call (the gvc, which must exist, for gvc-scoped kinds). */
  private async scopeOf(call: Call, kind: Kind): Promise<string> {
    if (kinds[kind].scope !== "gvc") return "";
    const gvc = call.gvc ?? "";
    if (gvc === "" || !(await this.store.get(call.org, "gvc", "", gvc))) throw notFound(`gvc ${gvc}`);
    return gvc;
  }

  private async find(ops: StoreOps, call: Call, kind: Kind, scope: string, key: string) {
    return this.rules[kind].addressBy === "id" ? ops.getById(call.org, kind, key) : ops.get(call.org, kind, scope, key);
  }

  /** A record the caller may view, or 404 exactly as if it did not exist. */
  private async loadVisible(call: Call, kind: Kind, key: string): Promise<{ record: StoredRecord; authz: OrgAuthz }> {
    const authz = await this.orgAuthz(call);
    const scope = await this.scopeOf(call, kind);
    const record = await this.find(this.store, call, kind, scope, key);
    if (!record || !authz.can(call.principal, kind, "view", record.doc)) throw notFound(`${kind} ${key}`);
    return { record, authz };
  }

  private linksFor(org: string, kind: Kind, name: string, gvc: string | undefined): JsonObject[] {
    const links: JsonObject[] = [{ rel: "self", href: selfLink(org, kind, name, gvc) }];
    if (kind !== "org") links.push({ rel: "org", href: selfLink(org, "org", org) });
    if (gvc !== undefined) links.push({ rel: "gvc", href: selfLink(org, "gvc", gvc) });
    const extra = this.rules[kind].links;
    if (extra) links.push(...extra(links[0]?.["href"] as string));
    return links;
  }

  /**
   * Records of a kind the caller may view, in storage order (scope, then name). A gvc-scoped kind called without a
   * gvc (the org-level routes) covers every gvc.
   */
  private async visibleRecords(call: Call, kind: Kind): Promise<StoredRecord[]> {
    const { authz, scope } = await this.listing(call, kind);
    return this.visibleIn(call, kind, authz, scope);
  }

  /** What a list or query reads: the org's authorization view and the storage scope (undefined: every gvc). */
  private async listing(call: Call, kind: Kind): Promise<{ authz: OrgAuthz; scope: string | undefined }> {
    const authz = await this.orgAuthz(call);
    const scoped = kinds[kind].scope === "gvc";
    const scope = scoped && call.gvc === undefined ? undefined : await this.scopeOf(call, kind);
    return { authz, scope: scoped ? scope : undefined };
  }

  private async visibleIn(call: Call, kind: Kind, authz: OrgAuthz, scope: string | undefined): Promise<StoredRecord[]> {
    const records = await this.store.list(call.org, kind, scope);
    const visible = new Set(
      authz.visible(
        call.principal,
        kind,
        records.map((r) => r.doc),
      ),
    );
    return records.filter((r) => visible.has(r.doc));
  }

  /** The path of a kind's collection in this call (org level for a gvc-scoped kind called without a gvc). */
  private collectionOf(call: Call, kind: Kind): string {
    return kinds[kind].scope === "gvc" && call.gvc === undefined
      ? `/org/${call.org}/${kind}`
      : collectionPath(call.org, kind, call.gvc);
  }

  /**
   * One page of a kind's list: `pageSize` items after `cursor` (the last item of the previous page), in storage
   * order, with a `next` link while more remain. The cursor names a position on the sort key, not an offset, so
   * records created or deleted between two pages neither repeat nor skip the others.
   */
  async list(call: Call, kind: Kind, cursorText?: string): Promise<JsonObject> {
    const cursor = cursorText === undefined ? undefined : this.cursors.readList(cursorText);
    const { authz, scope } = await this.listing(call, kind);
    // Read before the records: a write landing in between leaves a newer page under an older counter, never asked for
    // again, and never the reverse. Only committed reads are kept (no commit group open at either read): a group whose
    // COMMIT fails gives its counters back, and a page holding its writes must not answer for them later.
    const counter = await this.store.changeCounter(call.org, kind);
    const counterCommitted = this.store.settled?.() === undefined;
    const key = `${call.org}\n${kind}\n${scope ?? "\u0000every gvc"}\n${call.principal.link}\n${cursorText ?? ""}`;
    const remembered = this.pages.get(key);
    if (remembered?.counter === counter && remembered.decisions === authz.decisions) return remembered.page;
    const records = await this.visibleIn(call, kind, authz, scope);
    const self = this.collectionOf(call, kind);
    const page = pageAfter(
      records,
      cursor,
      { items: this.pageSize, bytes: MAX_PAGE_BYTES, sizeOf: (r) => storedBytesOf(r.doc) },
      (r) => ({ scope: r.scope, name: r.name }),
    );
    const links: JsonObject[] = [{ rel: "self", href: self }];
    if (page.next) links.push({ rel: "next", href: `${self}?cursor=${this.cursors.list(page.next)}` });
    const answer = reusedReply({
      kind: "list",
      itemKind: kind,
      items: page.items.map((r) => presentRecord(kind, r.doc)),
      links,
    });
    if (counterCommitted && this.store.settled?.() === undefined) {
      const bytes = page.items.reduce((sum, r) => sum + jsonOf(r.doc).length, 0);
      this.pages.remember(key, { counter, decisions: authz.decisions, page: answer }, bytes);
    }
    return answer;
  }

  /** Every org the principal may view (`GET /org`). */
  async listOrgs(principal: Principal): Promise<JsonObject> {
    const items: JsonObject[] = [];
    for (const org of await this.store.orgs()) {
      const record = await this.store.get(org, "org", "", org);
      if (record && (await this.authorizer.forOrg(org)).can(principal, "org", "view", record.doc)) {
        items.push(record.doc);
      }
    }
    return { kind: "list", itemKind: "org", items, links: [{ rel: "self", href: "/org" }] };
  }

  async get(call: Call, kind: Kind, key: string): Promise<JsonObject> {
    return presentRecord(kind, (await this.loadVisible(call, kind, key)).record.doc);
  }

  async create(call: Call, kind: Kind, rawBody: unknown): Promise<{ record: JsonObject; location: string }> {
    const rules = this.rules[kind];
    const raw = requireObject(rawBody, "The request body");
    const body = withoutReadOnly(kind, raw);
    // Server-owned fields of the kind that a create cannot set (a record as GET returned it carries them) are ignored.
    const createShape = rules.createBody?.();
    if (createShape instanceof z.ZodObject) {
      for (const field of rules.readOnly) if (!(field in createShape.shape)) delete body[field];
    }
    const authz = await this.orgAuthz(call);
    const createBody = rules.createBody;
    if (!createBody) {
      throw new ApiFailure(ErrorCode.MethodNotAllowed, `Objects of kind ${kind} cannot be created through the API`);
    }
    // Authorization comes before validation, so a caller without `create` learns nothing about the rules.
    const gvc = kinds[kind].scope === "gvc" ? call.gvc : undefined;
    const nameValue = body[rules.nameField ?? "name"];
    const name = typeof nameValue === "string" ? nameValue : "";
    // Keys added by assignment to a copy, not after a spread: V8 (Node 20) adds them to a spread copy slowly (2.2 µs
    // against 0.05 here for these two).
    const prospective: JsonObject = Object.assign({}, body);
    prospective["kind"] = kind;
    prospective["links"] = name === "" ? [] : this.linksFor(call.org, kind, name, gvc);
    const createPermission = rules.createPermission ?? "create";
    if (!authz.can(call.principal, kind, createPermission, prospective)) {
      throw forbidden(`Not allowed to create ${kind} objects in org ${call.org}`);
    }
    const alone = rules.createAlone;
    if (alone !== undefined && !authz.can(call.principal, kind, alone.permission, prospective)) {
      const beyond = Object.keys(body).filter((field) => !alone.fields.includes(field) && setsField(body, field, name));
      if (beyond.length > 0) {
        throw forbidden(
          `Not allowed to set ${beyond.join(", ")} on a new ${kind} (needs ${alone.permission} on ${kind} objects; ` +
            `${createPermission} alone sets only ${alone.fields.join(", ")})`,
        );
      }
    }
    checkKindField(kind, raw);
    checkVersionField(raw);
    const scope = await this.scopeOf(call, kind);
    // One parse: the one that decided the coercion (a valid body is parsed once).
    const { value: input, parsed } = parseCoerced(createBody(), body);
    if (!parsed.success) throw badRequest(issuesFromZod(parsed.error));
    const foreign = foreignOrgLinks(call.org, input);
    if (foreign.length > 0) throw badRequest(foreign);
    const now = nowIso();
    const created = await this.store.transaction((tx) => this.insert(tx, call.org, kind, scope, gvc, input, now));
    return { record: presentRecord(kind, created), location: selfLink(call.org, kind, name, gvc) };
  }

  /**
   * Builds, checks and stores a new record from a validated create body, consuming its quota and running the kind's
   * `created` hook, all inside `tx`. Also used by seeding. `fields` overrides the kind's `initialize` (builtins).
   */
  async insert(
    tx: StoreOps,
    org: string,
    kind: Kind,
    scope: string,
    gvc: string | undefined,
    body: JsonObject,
    now: string,
    fields?: JsonObject,
  ): Promise<JsonObject> {
    const rules = this.rules[kind];
    const ctx: RuleContext = { org, gvc, tx, now };
    const nameValue = body[rules.nameField ?? "name"];
    const name = typeof nameValue === "string" ? nameValue : "";
    const kindFields = fields ?? (await rules.initialize(body, ctx));
    const doc: JsonObject = {
      kind,
      id: randomUUID(),
      name,
      description: typeof body["description"] === "string" ? body["description"] : name,
      version: 1,
      tags: isObject(body["tags"]) ? body["tags"] : {},
      created: now,
      lastModified: now,
      ...kindFields,
      links: this.linksFor(org, kind, name, gvc),
    };
    await this.check(kind, doc, ctx);
    const storageScope = rules.storageScope ? rules.storageScope(doc) : scope;
    const record = storedRecord(org, kind, storageScope, doc);
    // The insert is the existence check (no read first); a 409 still comes before the quota's 429, and a create the
    // quota refuses is undone with the rest of the transaction.
    if (!(await tx.create(record))) throw conflict("AlreadyExists", `${kind} ${name} already exists`);
    if (rules.quota) await this.consumeQuota(tx, org, rules.quota.name, rules.quota.perGvc ? scope : "", 1);
    await this.consumeBytes(tx, org, kind, storedBytesOf(doc));
    if (rules.created) await rules.created(record, ctx);
    return doc;
  }

  /**
   * Checks a whole record: the record schema, the kind's extra rules and the stored limits (400 with every issue).
   * `previous` is the stored record a patch started from: it passed this check when it was written, so only the
   * fields the patch changed are checked against the schema again (see `changedFieldIssues`).
   */
  private async check(kind: Kind, doc: JsonObject, ctx: RuleContext, previous?: JsonObject): Promise<void> {
    const rules = this.rules[kind];
    const schema = rules.record();
    const issues: Issue[] = [];
    const changed = previous === undefined ? undefined : changedFieldIssues(schema, doc, previous);
    if (changed !== undefined) issues.push(...changed);
    else {
      const parsed = schema.safeParse(doc);
      if (!parsed.success) issues.push(...issuesFromZod(parsed.error));
    }
    // The kind's own rules read a well-formed record (a patch may have removed a field the record needs). On an
    // update, values its immutable fields rule out come first: a 409, as the same body suits another object.
    if (issues.length === 0 && previous !== undefined && rules.conflicts) {
      const conflicts = rules.conflicts(doc);
      if (conflicts.length > 0) throw stateConflict(conflicts);
    }
    const ruleIssues = issues.length === 0 && rules.validate ? await rules.validate(doc, ctx, previous) : [];
    issues.push(...ruleIssues);
    // The body limits hold for the record as stored, whatever sequence of PATCHes and PUTs built it.
    const text = JSON.stringify(doc);
    issues.push(...storedLimitIssues(doc, rules, previous, text));
    // A write to an existing object whose body passed its own schema and whose result breaks only the record's schema
    // or the stored limits (a merge creating an object without the fields it requires, tags added past the limit):
    // the outcome depends on the stored object, a conflict with its state (RFC 5789 §2.2), as the same body suits
    // another object. The kind's own rules judge the body's values: a 400.
    if (issues.length > 0 && previous !== undefined && ruleIssues.length === 0) throw resultConflict(kind, issues);
    if (issues.length > 0) throw badRequest(issues);
    // The record as it will be stored: frozen with its JSON text, which the store writes and the answer sends.
    freezeWithJson(doc, text, previous);
  }

  /**
   * Moves the org's `stored-bytes` quota by `delta` bytes of stored JSON (quotas themselves are not counted: their
   * usage moves with every write); a write that grows the org past it is a 429 naming it.
   */
  private async consumeBytes(tx: StoreOps, org: string, kind: Kind, delta: number): Promise<void> {
    if (delta !== 0 && kind !== "quota") await this.consumeQuota(tx, org, STORED_BYTES_QUOTA, "", delta);
  }

  /** Adds `delta` to a quota's `current`; a create that would pass `max` is a 429 naming the quota. */
  async consumeQuota(tx: StoreOps, org: string, name: string, scope: string, delta: number): Promise<void> {
    const quota = await tx.get(org, "quota", scope, name);
    if (!quota) return;
    const current = Number(quota.doc["current"] ?? 0);
    const max = Number(quota.doc["max"] ?? Infinity);
    const next = Math.max(0, current + delta);
    if (delta > 0 && next > max) {
      const where = scope === "" ? "" : ` in gvc ${scope}`;
      throw new ApiFailure(
        ErrorCode.QuotaExceeded,
        `Quota ${name} exceeded${where}: ${current} of ${max} used (quota id ${quota.id})`,
        { quota: name, quotaId: quota.id, current, max },
      );
    }
    // `current` is live usage, not configuration: it changes neither version nor lastModified, and the store may
    // write it once for several creates (`touch`).
    if (!(await tx.touch(withDoc(quota, quota.version, { ...quota.doc, current: next })))) {
      throw new Error(`quota ${name} changed while its usage moved`);
    }
  }

  /**
   * PUT to an object: the body is the whole desired object. Every field a PATCH can replace is set to the body's
   * value, or removed when the body leaves it out; read-only fields may be echoed as in a PATCH. Runs as the
   * equivalent PATCH, so the same checks (version, immutable and read-only fields, validation) apply.
   */
  async put(call: Call, kind: Kind, key: string, rawBody: unknown): Promise<JsonObject> {
    // Only the shape is read here; the patch checks `kind` and every field after authorization.
    const raw = requireObject(rawBody, "The request body");
    const body = withoutReadOnly(kind, raw, ["version", "id", "name", "kind"]);
    const schema = this.rules[kind].patchBody?.();
    const replaceable =
      schema instanceof z.ZodObject
        ? Object.keys(schema.shape)
            .filter((k) => k.startsWith(REPLACE))
            .map((k) => k.slice(REPLACE.length))
        : [];
    const patch: JsonObject = {};
    for (const [field, value] of Object.entries(body)) if (!replaceable.includes(field)) patch[field] = value;
    // Fields left out get their create defaults: description = name, no tags, and the kind's own (`omittedDefaults`).
    // A reveal-only field left out is kept: GET never returns it, so a record as read, sent back, changes nothing.
    const defaults: JsonObject = { description: key, tags: {}, ...this.rules[kind].omittedDefaults };
    const kept = kinds[kind].revealOnly ?? [];
    for (const field of replaceable) {
      if (body[field] === undefined && kept.includes(field)) continue;
      patch[`${REPLACE}${field}`] = body[field] ?? defaults[field] ?? null;
    }
    return this.patch(call, kind, key, patch, (path) => (path.startsWith(REPLACE) ? path.slice(REPLACE.length) : path));
  }

  async patch(
    call: Call,
    kind: Kind,
    key: string,
    rawBody: unknown,
    bodyPath: (path: string) => string = (path) => path,
  ): Promise<JsonObject> {
    const rules = this.rules[kind];
    // Authorization before validation: a caller who may not edit the object learns nothing from its body's flaws.
    const { record: visible, authz } = await this.loadVisible(call, kind, key);
    if (!authz.can(call.principal, kind, "edit", visible.doc)) {
      throw forbidden(`Not allowed to edit ${kind} ${key}`);
    }
    // Objects that cannot be edited (builtins) still accept a write that changes nothing (an unchanged apply).
    const editForbidden = rules.editForbidden?.(visible.doc);
    if (!rules.patchBody) throw new ApiFailure(ErrorCode.MethodNotAllowed, `Objects of kind ${kind} cannot be patched`);
    const raw = requireObject(rawBody, "The patch body");
    checkKindField(kind, raw);
    // `version` is checked (optimistic concurrency), `id`/`name`/`kind` must match; the other read-only fields go.
    const stripped = withoutReadOnly(kind, raw, ["version", "id", "name", "kind"]);
    const { value: body, parsed } = parseCoerced(rules.patchBody(), stripped);
    if (!parsed.success) {
      throw badRequest(issuesFromZod(parsed.error).map((i) => ({ path: bodyPath(i.path), message: i.message })));
    }
    const drops = Array.isArray(body["$drop"]) ? body["$drop"] : [];
    const removals: Issue[] = [];
    for (const field of this.alwaysPresent(kind)) {
      for (const key of [field, `${REPLACE}${field}`]) {
        if (body[key] === null)
          removals.push({ path: bodyPath(key), message: "is required: it cannot be removed (null is refused)" });
      }
      if (drops.includes(field)) removals.push({ path: "$drop", message: `names ${field}, which cannot be removed` });
    }
    if (removals.length > 0) throw badRequest(removals);
    const foreign = foreignOrgLinks(call.org, body);
    if (foreign.length > 0) throw badRequest(foreign.map((i) => ({ ...i, path: bodyPath(i.path) })));
    const expectedVersion = body["version"];
    const ignored = rules.ignoredInPatch ?? [];
    let patch: JsonObject = {};
    for (const field of Object.keys(body)) {
      if (!isEchoedField(field) && !ignored.includes(field)) patch[field] = body[field] as JsonValue;
    }
    if (rules.linkArrays) patch = fullLinksInDirectives(call.org, patch, rules.linkArrays) as JsonObject;
    const gvc = kinds[kind].scope === "gvc" ? call.gvc : undefined;
    for (let attempt = 1; ; attempt++) {
      const now = nowIso();
      const outcome = await this.store.transaction(async (tx) => {
        const current = await this.find(tx, call, kind, visible.scope, key);
        if (!current) throw notFound(`${kind} ${key}`);
        const previous = current.doc;
        this.checkEcho(body, previous, expectedVersion);
        const ctx: RuleContext = { org: call.org, gvc, tx, now };
        let next: JsonObject;
        try {
          // The stored record is frozen: the result may share the fields the patch does not name.
          next = applyPatch(previous, patch, this.patchRulesOf(kind), { shareUntouched: true }) as JsonObject;
        } catch (error) {
          if (error instanceof PatchError) {
            const issue = { path: bodyPath(error.path), message: error.reason };
            throw error.conflict ? resultConflict(kind, [issue]) : badRequest([issue]);
          }
          throw error;
        }
        for (const field of rules.preserved) {
          if (previous[field] === undefined) {
            if (Object.hasOwn(next, field)) delete next[field];
          } else next[field] = previous[field];
        }
        if (rules.afterPatch) next = await rules.afterPatch(previous, next, ctx);
        if (editForbidden !== undefined && !equalUnder(previous, next, this.patchRulesOf(kind))) {
          throw forbidden(editForbidden);
        }
        // Valid in itself, ruled out by the stored object: a conflict with its state (409), not a bad request. A
        // read-only field may be echoed, and must then equal the stored value (as `version` must be current).
        const conflicts: Issue[] = [];
        const guarded = this.guardedFields(kind);
        for (const field of guarded.readOnly) {
          if (!sameAt(previous, next, field)) {
            conflicts.push({
              path: field.path,
              message: "is read-only: it is set by the server and cannot be changed",
            });
          }
        }
        for (const field of guarded.immutable) {
          if (!sameAt(previous, next, field)) {
            conflicts.push({ path: field.path, message: "is immutable: it cannot change after the object is created" });
          }
        }
        if (conflicts.length > 0) throw stateConflict(conflicts);
        if (equalUnder(previous, next, this.patchRulesOf(kind))) {
          call.onPatched?.(presentRecord(kind, previous));
          return { done: true as const, doc: previous };
        }
        next["version"] = current.version + 1;
        next["lastModified"] = now;
        await this.check(kind, next, ctx, previous);
        const replaced = await tx.replace(withDoc(current, current.version + 1, next), current.version);
        if (!replaced) return { done: false as const };
        await this.consumeBytes(tx, call.org, kind, storedBytesOf(next) - storedBytesOf(previous));
        if (rules.patched) await rules.patched(previous, next, ctx);
        call.onPatched?.(presentRecord(kind, previous));
        return { done: true as const, doc: next };
      });
      if (outcome.done) return presentRecord(kind, outcome.doc);
      if (attempt >= PATCH_ATTEMPTS) {
        throw conflict("VersionConflict", `${kind} ${key} kept changing; retry the request`);
      }
    }
  }

  /** A PATCH body may echo read-only fields: `version` must be current, `id`/`name` must match (`kind` was checked
   * against the path before: `checkKindField`). */
  private checkEcho(body: JsonObject, previous: JsonObject, expectedVersion: JsonValue | undefined): void {
    if (expectedVersion !== undefined && expectedVersion !== previous["version"]) {
      throw conflict(
        "VersionConflict",
        `version ${String(expectedVersion)} is not current (the object is at version ${String(previous["version"])})`,
      );
    }
    // Echoed, they must match the object addressed: like a stale version, a conflict with the object (409).
    const issues: Issue[] = [];
    for (const field of ["id", "name"] as const) {
      if (body[field] !== undefined && body[field] !== previous[field]) {
        issues.push({
          path: field,
          message: `does not match the object (${String(previous[field])}); it cannot change`,
        });
      }
    }
    if (issues.length > 0) throw stateConflict(issues);
  }

  async delete(call: Call, kind: Kind, key: string): Promise<void> {
    const rules = this.rules[kind];
    const { record, authz } = await this.loadVisible(call, kind, key);
    const permission = rules.deletePermission ?? "delete";
    if (!authz.can(call.principal, kind, permission, record.doc)) {
      throw forbidden(`Not allowed to delete ${kind} ${key} (needs ${permission})`);
    }
    const deleteForbidden = rules.deleteForbidden?.(record.doc);
    if (deleteForbidden) throw forbidden(deleteForbidden);
    const refuseProtected = (doc: JsonObject) => {
      if (isProtected(doc["tags"])) throw forbidden(protectedMessage(kind, key));
    };
    refuseProtected(record.doc);
    const now = nowIso();
    const gvc = kinds[kind].scope === "gvc" ? call.gvc : undefined;
    await this.store.transaction(async (tx) => {
      const current = await this.find(tx, call, kind, record.scope, key);
      if (!current) throw notFound(`${kind} ${key}`);
      refuseProtected(current.doc);
      const ctx: RuleContext = { org: call.org, gvc, tx, now };
      if (rules.deleting) await rules.deleting(current, ctx);
      await tx.delete(current.org, kind, current.scope, current.name);
      if (rules.quota) {
        await this.consumeQuota(tx, call.org, rules.quota.name, rules.quota.perGvc ? current.scope : "", -1);
      }
      await this.consumeBytes(tx, call.org, kind, -storedBytesOf(current.doc));
      if (rules.deleted) await rules.deleted(current, ctx);
    });
  }

  /**
   * `POST .../-query`: the first page of the matches, sorted by the query's `sort` (then scope and name). The `next`
   * link is a GET of `.../-query?cursor=…`, the cursor holding the query and the sort key of the page's last item.
   */
  async query(call: Call, kind: Kind, rawBody: unknown, cursorText?: string): Promise<JsonObject> {
    let body: JsonObject;
    let after: Cursor | undefined;
    if (cursorText !== undefined) {
      const decoded = this.cursors.readQuery(cursorText);
      body = decoded.query;
      after = decoded.after;
    } else {
      body = rawBody === undefined ? {} : requireObject(rawBody, "The query");
    }
    const records = await this.visibleRecords(call, kind);
    // Queries read records as callers see them: a term or sort on a reveal-only field finds nothing to compare.
    const docs = records.map((r) => presentRecord(kind, r.doc));
    const byDoc = new Map(records.map((r, i) => [docs[i] as JsonObject, r]));
    const { items: found, query, sortBy, direction } = runQueryDocument(kind, body, docs);
    const fetchLinks = query["fetch"] === "links";
    const page = pageAfter(
      found,
      after,
      {
        items: this.pageSize,
        bytes: MAX_PAGE_BYTES,
        sizeOf: (doc) => (fetchLinks ? Buffer.byteLength(selfLinkOf(doc)) : storedBytesOf(doc)),
      },
      (doc) => {
        const record = byDoc.get(doc);
        return {
          scope: record?.scope ?? "",
          name: record?.name ?? "",
          ...(sortBy === undefined ? {} : { key: (readPath(doc, sortBy) ?? null) as JsonValue }),
        };
      },
      direction,
    );
    const self = `${this.collectionOf(call, kind)}/-query`;
    const links: JsonObject[] = [{ rel: "self", href: self }];
    if (page.next) {
      links.push({ rel: "next", href: `${self}?cursor=${encodeURIComponent(this.cursors.query(body, page.next))}` });
    }
    return {
      kind: "queryresult",
      itemKind: kind,
      items: fetchLinks ? page.items.map(selfLinkOf) : page.items,
      links,
      query,
    };
  }

  /**
   * `PUT` to a collection (what `cpln apply` sends): the body is a whole manifest naming the object. Creates it
   * (`created: true`, exactly as a POST) or replaces its writable fields (exactly as a PUT to the item); validation,
   * authorization (`create` or `edit`), quotas and the `version` check are theirs. `id` names no object here (a
   * manifest taken from another org applies by name), except for kinds addressed by id.
   */
  async upsert(
    call: Call,
    kind: Kind,
    rawBody: unknown,
  ): Promise<{ created: boolean; record: JsonObject; location: string }> {
    const rules = this.rules[kind];
    const authz = await this.orgAuthz(call);
    const body = requireObject(rawBody, "The request body");
    const byId = rules.addressBy === "id";
    const keyField = byId ? "id" : (rules.nameField ?? "name");
    const key = body[keyField];
    if (typeof key !== "string" || key === "") {
      throw badRequest([
        { path: keyField, message: "is required: a PUT to a collection names the object it creates or replaces" },
      ]);
    }
    const gvc = kinds[kind].scope === "gvc" ? call.gvc : undefined;
    const replacement: JsonObject = { ...body };
    if (!byId) delete replacement["id"];
    for (let attempt = 1; ; attempt++) {
      // Authorization before validation: an object the caller may not view (or one in a gvc that does not exist)
      // takes the create path, whose permission check comes first, exactly like a missing one; an object the caller
      // may view but not edit is a 403 whatever the manifest holds. Only then is the manifest checked.
      const gvcExists = gvc === undefined || (await this.store.get(call.org, "gvc", "", gvc)) !== undefined;
      const existing = gvcExists ? await this.find(this.store, call, kind, gvc ?? "", key) : undefined;
      if (existing && authz.can(call.principal, kind, "view", existing.doc)) {
        if (!authz.can(call.principal, kind, "edit", existing.doc))
          throw forbidden(`Not allowed to edit ${kind} ${key}`);
        // A builtin is refused by `put` only when the manifest would change it (an unchanged apply is accepted).
        checkKindField(kind, body);
        // The body is a manifest (what a create takes): it is checked as one before it replaces the object.
        const createBody = rules.createBody?.();
        if (createBody) {
          const manifest = withoutReadOnly(kind, body);
          // Server-owned fields echoed as the object has them (what GET returned) are not part of the manifest.
          // A create's rule on such a field (a new location is byok) does not apply to the object that exists.
          const echoed = new Set<string>();
          for (const field of [...rules.readOnly, ...rules.preserved, ...(rules.ignoredInPatch ?? [])]) {
            if (field in manifest && sameJson(manifest[field], existing.doc[field])) {
              delete manifest[field];
              echoed.add(field);
            }
          }
          if (createBody instanceof z.ZodObject) {
            for (const field of rules.readOnly) if (!(field in createBody.shape)) delete manifest[field];
          }
          // A reveal-only field left out is kept by the replace (see `put`): the manifest is checked with it.
          for (const field of kinds[kind].revealOnly ?? []) {
            if (manifest[field] === undefined && existing.doc[field] !== undefined)
              manifest[field] = existing.doc[field];
          }
          const { parsed } = parseCoerced(createBody, manifest);
          if (!parsed.success) {
            const issues = issuesFromZod(parsed.error).filter((issue) => !echoed.has(issue.path.split(".")[0] ?? ""));
            if (issues.length > 0) throw badRequest(issues);
          }
        }
        const record = await this.put(call, kind, key, replacement);
        return { created: false, record, location: selfLink(call.org, kind, key, gvc) };
      }
      // Kinds not created through the API (quotas, the org) are only replaced.
      if (byId || !rules.createBody) throw notFound(`${kind} ${key}`);
      try {
        return { created: true, ...(await this.create(call, kind, body)) };
      } catch (error) {
        // Created by someone else in between: replace it instead.
        if (attempt === 1 && error instanceof ApiFailure && error.code === ErrorCode.AlreadyExists) continue;
        throw error;
      }
    }
  }

  /** The permission catalog of a kind; any authenticated caller may read it (it describes no object). */
  async permissions(call: Call, kind: Kind): Promise<JsonObject> {
    await this.orgAuthz(call);
    // Under a gvc (`/org/{org}/gvc/{gvc}/<kind>/-schema/permissions`) the gvc must exist (404 otherwise).
    if (call.gvc !== undefined) await this.scopeOf(call, kind);
    return {
      kind: "permissions",
      targetKind: kind,
      items: kinds[kind].permissions.map((p) => ({ name: p.name, description: p.description })),
      implied: impliedMap(kind),
      links: [{ rel: "self", href: `${this.collectionOf(call, kind)}/-schema/permissions` }],
    };
  }

  /**
   * Who may act on the object: needs `view` on it (404 otherwise); entries naming what the caller may not view are
   * left out unless it holds `viewAccessReport` on the org (see `accessReportFor`).
   */
  async accessReport(call: Call, kind: Kind, key: string): Promise<JsonObject> {
    const { record, authz } = await this.loadVisible(call, kind, key);
    const self = selfLink(call.org, kind, record.name, kinds[kind].scope === "gvc" ? call.gvc : undefined);
    return {
      kind: "accessreport",
      permissions: (await accessReportFor(
        this.store,
        authz,
        call.principal,
        call.org,
        authz.accessReport(kind, record.doc),
      )) as unknown as JsonValue,
      created: nowIso(),
      links: [
        { rel: "self", href: `${self}/-accessreport` },
        { rel: "target", href: self },
      ],
    };
  }

  async action(
    call: Call,
    kind: Kind,
    key: string,
    name: string,
    rawBody: unknown,
  ): Promise<{ status: number; body: JsonObject }> {
    const action = this.rules[kind].actions?.[name];
    if (!action) throw notFound(`action -${name} of ${kind}`);
    const { record, authz } = await this.loadVisible(call, kind, key);
    if (!authz.can(call.principal, kind, action.permission, record.doc)) {
      throw forbidden(`Not allowed to ${name} ${kind} ${key} (needs ${action.permission})`);
    }
    const body = rawBody === undefined ? {} : requireObject(rawBody, "The request body");
    const foreign = foreignOrgLinks(call.org, body);
    if (foreign.length > 0) throw badRequest(foreign);
    const now = nowIso();
    const gvc = kinds[kind].scope === "gvc" ? call.gvc : undefined;
    return this.store.transaction(async (tx) => {
      const current = await this.find(tx, call, kind, record.scope, key);
      if (!current) throw notFound(`${kind} ${key}`);
      const result = await action.run({
        org: call.org,
        gvc,
        tx,
        now,
        record: current.doc,
        body,
        principal: call.principal,
      });
      if (result.update) {
        const doc = { ...result.update, version: current.version + 1, lastModified: now };
        await tx.replace(withDoc(current, current.version + 1, doc), current.version);
        await this.consumeBytes(tx, call.org, kind, storedBytesOf(doc) - storedBytesOf(current.doc));
      }
      return { status: result.status, body: result.body };
    });
  }

  /**
   * An endpoint of the kind (`KindDescriptor.endpoints`): on an object the caller may view (`key`; 404 otherwise) or
   * on the collection (`key` undefined), with the endpoint's permission (403 without it). It changes nothing.
   */
  async endpoint(
    call: Call,
    kind: Kind,
    key: string | undefined,
    name: string,
    request: { param?: string; body?: unknown },
  ): Promise<JsonObject> {
    const endpoint = this.rules[kind].endpoints?.[name];
    const contract = kinds[kind].endpoints?.[name];
    if (!endpoint || !contract) throw notFound(`endpoint -${name} of ${kind}`);
    const gvc = kinds[kind].scope === "gvc" ? call.gvc : undefined;
    let record: JsonObject | undefined;
    let authz: OrgAuthz;
    if (key === undefined) {
      authz = await this.orgAuthz(call);
      await this.scopeOf(call, kind);
    } else {
      const visible = await this.loadVisible(call, kind, key);
      authz = visible.authz;
      record = visible.record.doc;
    }
    // The path parameter and the body are checked before the permission, which may depend on the body.
    const param = contract.param;
    if (param?.values && !param.values.includes(request.param ?? "")) {
      throw badRequest([{ path: param.name, message: `must be one of ${param.values.join(", ")}` }]);
    }
    let body: JsonObject = {};
    if (contract.request) {
      const raw = requireObject(request.body, "The request body");
      const parsed = contract.request.schema().safeParse(raw);
      if (!parsed.success) throw badRequest(issuesFromZod(parsed.error));
      body = parsed.data as JsonObject;
      const foreign = foreignOrgLinks(call.org, body);
      if (foreign.length > 0) throw badRequest(foreign);
    }
    const permission = typeof endpoint.permission === "string" ? endpoint.permission : endpoint.permission(body);
    if (!authz.can(call.principal, kind, permission, record ?? { kind, links: [] })) {
      const what = key === undefined ? `${kind} in org ${call.org}` : `${kind} ${key}`;
      throw forbidden(`Not allowed to use -${name} of ${what} (needs ${permission})`);
    }
    const now = nowIso();
    const at = key === undefined ? this.collectionOf(call, kind) : selfLink(call.org, kind, key, gvc);
    const self = `${at}/-${name}${param ? `/${request.param ?? ""}` : ""}`;
    return this.store.transaction(async (tx) =>
      endpoint.run({
        org: call.org,
        gvc,
        tx,
        now,
        principal: call.principal,
        ...(record !== undefined ? { record } : {}),
        self,
        ...(request.param !== undefined ? { param: request.param } : {}),
        body,
      }),
    );
  }
}

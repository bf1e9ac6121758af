import { z } from "zod";
import { kinds, patchRules, type Kind } from "../../api/kinds/index.js";
import { collectionPath, selfLink } from "../../api/links.js";
import type { PatchRules } from "../../api/patch/index.js";
import type { Principal } from "../auth/authn.js";
import type { Authorizer, OrgAuthz } from "../auth/authz.js";
import { notFound } from "../errors.js";
import type { JsonObject, Store, StoreOps, StoredRecord } from "../store/store.js";
import { CursorCodec, PageMemo } from "./paging.js";
import { fieldPaths, REPLACE, SERVER_FIELDS, type FieldPath } from "./recordFields.js";
import type { KindRules } from "./rules.js";

/** Who calls, in which org (and gvc, for gvc-scoped kinds). */
export interface Call {
  org: string;
  gvc?: string;
  principal: Principal;
  /** Told the stored object a successful patch started from (request inspection keeps it beside the answer). */
  onPatched?: (previous: JsonObject) => void;
}

/**
 * Items per list or query page. The CLI shows 50 items by default, so one page answers a default `cpln X get`; a
 * typical record is 0.5-2 KB, so a page stays around 100-200 KB and a 50,000-item kind is 500 bounded answers
 * instead of one 27 MB answer.
 */
export const DEFAULT_PAGE_SIZE = 100;

/**
 * What every operation of the record service works with: the store, the authorizer and the rules table, and the
 * lookups they share (the org's authorization view, the scope, a visible record, a kind's guarded fields). The
 * operations themselves are functions of it, one file per group: `recordReads.ts`, `recordWrites.ts`,
 * `recordPatch.ts`, `recordEndpoints.ts`; `RecordService` (records.ts) gathers them.
 */
export class RecordContext {
  readonly knownOrgs = new Set<string>();
  /** List pages as last answered, with the change counter and authorization decisions they hold for (see `listRecords`). */
  readonly pages = new PageMemo<{ counter: number; decisions: object; page: JsonObject }>();

  constructor(
    readonly store: Store,
    readonly authorizer: Authorizer,
    readonly rules: Readonly<Record<Kind, KindRules>>,
    /** Items per page of a list or query answer (see `DEFAULT_PAGE_SIZE`). */
    readonly pageSize: number = DEFAULT_PAGE_SIZE,
    /** Issues and reads the cursors of `next` links. */
    readonly cursors: CursorCodec = new CursorCodec(),
  ) {}

  patchRulesOf(kind: Kind): PatchRules {
    return patchRules[kind] ?? { arrays: {} };
  }

  readonly keptFields = new Map<Kind, readonly string[]>();

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

  readonly guarded = new Map<Kind, { readOnly: FieldPath[]; immutable: FieldPath[] }>();

  /** The fields a write may not change: read-only (the server's and the kind's) and immutable, split once per kind. */
  guardedFields(kind: Kind): { readOnly: FieldPath[]; immutable: FieldPath[] } {
    let fields = this.guarded.get(kind);
    if (fields === undefined) {
      const rules = this.rules[kind];
      fields = {
        readOnly: fieldPaths([...SERVER_FIELDS, ...rules.fields.readOnly]),
        immutable: fieldPaths(rules.fields.immutable),
      };
      this.guarded.set(kind, fields);
    }
    return fields;
  }

  /** The org must exist (404 otherwise); returns its authorization view. */
  async orgAuthz(call: Call): Promise<OrgAuthz> {
    if (!this.knownOrgs.has(call.org)) {
      const org = await this.store.get(call.org, "org", "", call.org);
      if (!org) throw notFound(`org ${call.org}`);
      this.knownOrgs.add(call.org);
    }
    return this.authorizer.forOrg(call.org);
  }

  /** The storage scope of a kind's records in this call (the gvc, which must exist, for gvc-scoped kinds). */
  async scopeOf(call: Call, kind: Kind): Promise<string> {
    if (kinds[kind].scope !== "gvc") return "";
    const gvc = call.gvc ?? "";
    if (gvc === "" || !(await this.store.get(call.org, "gvc", "", gvc))) throw notFound(`gvc ${gvc}`);
    return gvc;
  }

  async find(ops: StoreOps, call: Call, kind: Kind, scope: string, key: string) {
    return this.rules[kind].addressBy === "id" ? ops.getById(call.org, kind, key) : ops.get(call.org, kind, scope, key);
  }

  /** A record the caller may view, or 404 exactly as if it did not exist. */
  async loadVisible(call: Call, kind: Kind, key: string): Promise<{ record: StoredRecord; authz: OrgAuthz }> {
    const authz = await this.orgAuthz(call);
    const scope = await this.scopeOf(call, kind);
    const record = await this.find(this.store, call, kind, scope, key);
    if (!record || !authz.can(call.principal, kind, "view", record.doc)) throw notFound(`${kind} ${key}`);
    return { record, authz };
  }

  linksFor(org: string, kind: Kind, name: string, gvc: string | undefined): JsonObject[] {
    const links: JsonObject[] = [{ rel: "self", href: selfLink(org, kind, name, gvc) }];
    if (kind !== "org") links.push({ rel: "org", href: selfLink(org, "org", org) });
    if (gvc !== undefined) links.push({ rel: "gvc", href: selfLink(org, "gvc", gvc) });
    const extra = this.rules[kind].fields.links;
    if (extra) links.push(...extra(links[0]?.["href"] as string));
    return links;
  }

  /**
   * Records of a kind the caller may view, in storage order (scope, then name). A gvc-scoped kind called without a
   * gvc (the org-level routes) covers every gvc.
   */
  async visibleRecords(call: Call, kind: Kind): Promise<StoredRecord[]> {
    const { authz, scope } = await this.listing(call, kind);
    return this.visibleIn(call, kind, authz, scope);
  }

  /** What a list or query reads: the org's authorization view and the storage scope (undefined: every gvc). */
  async listing(call: Call, kind: Kind): Promise<{ authz: OrgAuthz; scope: string | undefined }> {
    const authz = await this.orgAuthz(call);
    const scoped = kinds[kind].scope === "gvc";
    const scope = scoped && call.gvc === undefined ? undefined : await this.scopeOf(call, kind);
    return { authz, scope: scoped ? scope : undefined };
  }

  async visibleIn(call: Call, kind: Kind, authz: OrgAuthz, scope: string | undefined): Promise<StoredRecord[]> {
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
  collectionOf(call: Call, kind: Kind): string {
    return kinds[kind].scope === "gvc" && call.gvc === undefined
      ? `/org/${call.org}/${kind}`
      : collectionPath(call.org, kind, call.gvc);
  }
}

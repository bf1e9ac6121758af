/**
 * The record service's reads: list (pages remembered while nothing in them changes), get, query, the org list, a
 * kind's permission catalog and an object's access report. None of them writes.
 */
import { impliedMap, kinds, type Kind } from "../../api/kinds/index.js";
import { selfLink } from "../../api/links.js";
import { readPath } from "../../api/query.js";
import type { Principal } from "../auth/authn.js";
import { selfLinkOf } from "../auth/authz.js";
import { jsonOf, reusedReply } from "../json.js";
import type { JsonObject, JsonValue } from "../store/store.js";
import { accessReportFor } from "./accessReport.js";
import { nowIso } from "./common.js";
import { MAX_PAGE_BYTES, pageAfter, type Cursor } from "./paging.js";
import { presentRecord } from "./present.js";
import { storedBytesOf } from "./quota.js";
import { runQueryDocument } from "./querying.js";
import type { Call, RecordContext } from "./recordContext.js";
import { requireObject } from "./recordFields.js";

/**
 * One page of a kind's list: `pageSize` items after `cursor` (the last item of the previous page), in storage
 * order, with a `next` link while more remain. The cursor names a position on the sort key, not an offset, so
 * records created or deleted between two pages neither repeat nor skip the others.
 */
export async function listRecords(
  service: RecordContext,
  call: Call,
  kind: Kind,
  cursorText?: string,
): Promise<JsonObject> {
  const cursor = cursorText === undefined ? undefined : service.cursors.readList(cursorText);
  const { authz, scope } = await service.listing(call, kind);
  // Read before the records: a write landing in between leaves a newer page under an older counter, never asked for
  // again, and never the reverse. Only committed reads are kept (no commit group open at either read): a group whose
  // COMMIT fails gives its counters back, and a page holding its writes must not answer for them later.
  const counter = await service.store.changeCounter(call.org, kind);
  const counterCommitted = service.store.settled?.() === undefined;
  const key = `${call.org}\n${kind}\n${scope ?? "\u0000every gvc"}\n${call.principal.link}\n${cursorText ?? ""}`;
  const remembered = service.pages.get(key);
  if (remembered?.counter === counter && remembered.decisions === authz.decisions) return remembered.page;
  const records = await service.visibleIn(call, kind, authz, scope);
  const self = service.collectionOf(call, kind);
  const page = pageAfter(
    records,
    cursor,
    { items: service.pageSize, bytes: MAX_PAGE_BYTES, sizeOf: (r) => storedBytesOf(r.doc) },
    (r) => ({ scope: r.scope, name: r.name }),
  );
  const links: JsonObject[] = [{ rel: "self", href: self }];
  if (page.next) links.push({ rel: "next", href: `${self}?cursor=${service.cursors.list(page.next)}` });
  const answer = reusedReply({
    kind: "list",
    itemKind: kind,
    items: page.items.map((r) => presentRecord(kind, r.doc)),
    links,
  });
  if (counterCommitted && service.store.settled?.() === undefined) {
    const bytes = page.items.reduce((sum, r) => sum + jsonOf(r.doc).length, 0);
    service.pages.remember(key, { counter, decisions: authz.decisions, page: answer }, bytes);
  }
  return answer;
}

/** Every org the principal may view (`GET /org`). */
export async function listOrgs(service: RecordContext, principal: Principal): Promise<JsonObject> {
  const items: JsonObject[] = [];
  for (const org of await service.store.orgs()) {
    const record = await service.store.get(org, "org", "", org);
    if (record && (await service.authorizer.forOrg(org)).can(principal, "org", "view", record.doc)) {
      items.push(record.doc);
    }
  }
  return { kind: "list", itemKind: "org", items, links: [{ rel: "self", href: "/org" }] };
}

export async function getRecord(service: RecordContext, call: Call, kind: Kind, key: string): Promise<JsonObject> {
  return presentRecord(kind, (await service.loadVisible(call, kind, key)).record.doc);
}

/**
 * `POST .../-query`: the first page of the matches, sorted by the query's `sort` (then scope and name). The `next`
 * link is a GET of `.../-query?cursor=…`, the cursor holding the query and the sort key of the page's last item.
 */
export async function queryRecords(
  service: RecordContext,
  call: Call,
  kind: Kind,
  rawBody: unknown,
  cursorText?: string,
): Promise<JsonObject> {
  let body: JsonObject;
  let after: Cursor | undefined;
  if (cursorText !== undefined) {
    const decoded = service.cursors.readQuery(cursorText);
    body = decoded.query;
    after = decoded.after;
  } else {
    body = rawBody === undefined ? {} : requireObject(rawBody, "The query");
  }
  const records = await service.visibleRecords(call, kind);
  // Queries read records as callers see them: a term or sort on a reveal-only field finds nothing to compare.
  const docs = records.map((r) => presentRecord(kind, r.doc));
  const byDoc = new Map(records.map((r, i) => [docs[i] as JsonObject, r]));
  const { items: found, query, sortBy, direction } = runQueryDocument(kind, body, docs);
  const fetchLinks = query["fetch"] === "links";
  const page = pageAfter(
    found,
    after,
    {
      items: service.pageSize,
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
  const self = `${service.collectionOf(call, kind)}/-query`;
  const links: JsonObject[] = [{ rel: "self", href: self }];
  if (page.next) {
    links.push({ rel: "next", href: `${self}?cursor=${encodeURIComponent(service.cursors.query(body, page.next))}` });
  }
  return {
    kind: "queryresult",
    itemKind: kind,
    items: fetchLinks ? page.items.map(selfLinkOf) : page.items,
    links,
    query,
  };
}

/** The permission catalog of a kind; any authenticated caller may read it (it describes no object). */
export async function permissionCatalog(service: RecordContext, call: Call, kind: Kind): Promise<JsonObject> {
  await service.orgAuthz(call);
  // Under a gvc (`/org/{org}/gvc/{gvc}/<kind>/-schema/permissions`) the gvc must exist (404 otherwise).
  if (call.gvc !== undefined) await service.scopeOf(call, kind);
  return {
    kind: "permissions",
    targetKind: kind,
    items: kinds[kind].permissions.map((p) => ({ name: p.name, description: p.description })),
    implied: impliedMap(kind),
    links: [{ rel: "self", href: `${service.collectionOf(call, kind)}/-schema/permissions` }],
  };
}

/**
 * Who may act on the object: needs `view` on it (404 otherwise); entries naming what the caller may not view are
 * left out unless it holds `viewAccessReport` on the org (see `accessReportFor`).
 */
export async function recordAccessReport(
  service: RecordContext,
  call: Call,
  kind: Kind,
  key: string,
): Promise<JsonObject> {
  const { record, authz } = await service.loadVisible(call, kind, key);
  const self = selfLink(call.org, kind, record.name, kinds[kind].scope === "gvc" ? call.gvc : undefined);
  return {
    kind: "accessreport",
    permissions: (await accessReportFor(
      service.store,
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

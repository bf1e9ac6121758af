/**
 * The record service's extra endpoints of a kind: actions (`POST .../{name}/-<action>`, which may rewrite the object)
 * and endpoints (`KindDescriptor.endpoints`, which answer without changing any object).
 */
import { issuesFromZod } from "../../api/errors.js";
import { kinds, type Kind } from "../../api/kinds/index.js";
import { selfLink } from "../../api/links.js";
import type { OrgAuthz } from "../auth/authz.js";
import { badRequest, forbidden, notFound } from "../errors.js";
import type { JsonObject } from "../store/store.js";
import { nowIso } from "./common.js";
import { foreignOrgLinks } from "./orgLinks.js";
import { storedBytesOf } from "./quota.js";
import { consumeBytes } from "./recordChecks.js";
import type { Call, RecordContext } from "./recordContext.js";
import { requireObject, withDoc } from "./recordFields.js";

export async function runAction(
  service: RecordContext,
  call: Call,
  kind: Kind,
  key: string,
  name: string,
  rawBody: unknown,
): Promise<{ status: number; body: JsonObject }> {
  const action = service.rules[kind].actions?.[name];
  if (!action) throw notFound(`action -${name} of ${kind}`);
  const { record, authz } = await service.loadVisible(call, kind, key);
  if (!authz.can(call.principal, kind, action.permission, record.doc)) {
    throw forbidden(`Not allowed to ${name} ${kind} ${key} (needs ${action.permission})`);
  }
  const body = rawBody === undefined ? {} : requireObject(rawBody, "The request body");
  const foreign = foreignOrgLinks(call.org, body);
  if (foreign.length > 0) throw badRequest(foreign);
  const now = nowIso();
  const gvc = kinds[kind].scope === "gvc" ? call.gvc : undefined;
  return service.store.transaction(async (tx) => {
    const current = await service.find(tx, call, kind, record.scope, key);
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
      await consumeBytes(tx, call.org, kind, storedBytesOf(doc) - storedBytesOf(current.doc));
    }
    return { status: result.status, body: result.body };
  });
}

/**
 * An endpoint of the kind (`KindDescriptor.endpoints`): on an object the caller may view (`key`; 404 otherwise) or
 * on the collection (`key` undefined), with the endpoint's permission (403 without it). It changes nothing.
 */
export async function runEndpoint(
  service: RecordContext,
  call: Call,
  kind: Kind,
  key: string | undefined,
  name: string,
  request: { param?: string; body?: unknown },
): Promise<JsonObject> {
  const endpoint = service.rules[kind].endpoints?.[name];
  const contract = kinds[kind].endpoints?.[name];
  if (!endpoint || !contract) throw notFound(`endpoint -${name} of ${kind}`);
  const gvc = kinds[kind].scope === "gvc" ? call.gvc : undefined;
  let record: JsonObject | undefined;
  let authz: OrgAuthz;
  if (key === undefined) {
    authz = await service.orgAuthz(call);
    await service.scopeOf(call, kind);
  } else {
    const visible = await service.loadVisible(call, kind, key);
    authz = visible.authz;
    record = visible.record.doc;
  }
  // The path parameter and the body are checked before the permission, which may depend on the body.
  const param = contract.param;
  if (param?.values && !param.values.includes(request.param ?? "")) {
    throw badRequest([{ path: param.name, message: `must be one of ${param.values.join(", ")}` }]);
  }
  const paramRule = param?.schema?.().safeParse(request.param ?? "");
  if (param && paramRule?.success === false) throw badRequest(issuesFromZod(paramRule.error, [param.name]));
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
  const at = key === undefined ? service.collectionOf(call, kind) : selfLink(call.org, kind, key, gvc);
  const self = `${at}/-${name}${param ? `/${request.param ?? ""}` : ""}`;
  return service.store.transaction(async (tx) =>
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

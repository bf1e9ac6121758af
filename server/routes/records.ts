import type { FastifyInstance, FastifyRequest } from "fastify";
import { ErrorCode } from "../../api/errors.js";
import { kindNames, kinds, type Kind } from "../../api/kinds.js";
import type { Call, RecordService } from "../domain/records.js";
import { ApiFailure } from "../errors.js";

interface Params {
  org: string;
  gvc?: string;
  name?: string;
}

function callOf(request: FastifyRequest): Call {
  const params = request.params as Params;
  return { org: params.org, gvc: params.gvc, principal: request.principal };
}

function cursorOf(request: FastifyRequest): string | undefined {
  const cursor = (request.query as { cursor?: unknown } | undefined)?.cursor;
  return typeof cursor === "string" ? cursor : undefined;
}

function nameOf(request: FastifyRequest): string {
  return (request.params as Params).name ?? "";
}

/**
 * Thin handlers for every kind: list, get, create, patch, delete, query, permission schema, access report and the
 * kind's actions. gvc-scoped kinds live under `/org/:org/gvc/:gvc/`. The org itself is `/org/:org`.
 */
export function registerRecordRoutes(app: FastifyInstance, records: RecordService): void {
  for (const kind of kindNames) {
    if (kind === "org") continue;
    const base = kinds[kind].scope === "gvc" ? `/org/:org/gvc/:gvc/${kind}` : `/org/:org/${kind}`;
    // Quotas are addressed by id; the parameter keeps one name so handlers stay generic.
    registerKind(app, records, kind, base, `${base}/:name`);
    if (kinds[kind].scope === "gvc") registerOrgLevel(app, records, kind, `/org/:org/${kind}`);
  }
  registerOrg(app, records);
}

function registerKind(app: FastifyInstance, records: RecordService, kind: Kind, base: string, item: string): void {
  // Creating a volume set may be attempted without credentials: anonymous has no grants, so it gets 403.
  const createAuth = kind === "volumeset" ? "optional" : "required";
  app.get(base, async (request) => records.list(callOf(request), kind, cursorOf(request)));
  app.post(base, { config: { auth: createAuth } }, async (request, reply) => {
    const { record, location } = await records.create(callOf(request), kind, request.body);
    return reply.code(201).header("location", location).send(record);
  });
  // Create-or-update (`cpln apply`): 201 + Location when it created the object, 200 when it replaced one.
  app.put(base, { config: { auth: createAuth } }, async (request, reply) => {
    const { created, record, location } = await records.upsert(callOf(request), kind, request.body);
    if (created) return reply.code(201).header("location", location).send(record);
    return reply.code(200).send(record);
  });
  app.post(`${base}/-query`, async (request) => records.query(callOf(request), kind, request.body));
  // The `next` link of a query page.
  app.get(`${base}/-query`, async (request) =>
    records.query(callOf(request), kind, undefined, requiredCursor(request)),
  );
  app.get(`${base}/-schema/permissions`, async (request) => records.permissions(callOf(request), kind));
  app.get(item, async (request) => records.get(callOf(request), kind, nameOf(request)));
  app.patch(item, async (request) => records.patch(callOf(request), kind, nameOf(request), request.body));
  app.put(item, async (request) => records.put(callOf(request), kind, nameOf(request), request.body));
  app.delete(item, async (request, reply) => {
    await records.delete(callOf(request), kind, nameOf(request));
    return reply.code(204).send();
  });
  app.get(`${item}/-accessreport`, async (request) => records.accessReport(callOf(request), kind, nameOf(request)));
  for (const action of Object.keys(records.rules[kind].actions ?? {})) {
    app.post(`${item}/-${action}`, async (request, reply) => {
      const result = await records.action(callOf(request), kind, nameOf(request), action, request.body);
      return reply.code(result.status).send(result.body);
    });
  }
}

function requiredCursor(request: FastifyRequest): string {
  const cursor = cursorOf(request);
  if (cursor === undefined) {
    throw new ApiFailure(ErrorCode.BadRequest, "GET of -query continues a query: the cursor parameter is required", {
      issues: [{ path: "cursor", message: "is required (take the URL from a next link, or POST the query)" }],
    });
  }
  return cursor;
}

/** Org-level routes of a gvc-scoped kind: its query across every gvc and its permission schema. */
function registerOrgLevel(app: FastifyInstance, records: RecordService, kind: Kind, base: string): void {
  app.post(`${base}/-query`, async (request) => records.query(callOf(request), kind, request.body));
  app.get(`${base}/-query`, async (request) =>
    records.query(callOf(request), kind, undefined, requiredCursor(request)),
  );
  app.get(`${base}/-schema/permissions`, async (request) => records.permissions(callOf(request), kind));
}

function registerOrg(app: FastifyInstance, records: RecordService): void {
  app.get("/org", async (request) => records.listOrgs(request.principal));
  app.get("/org/:org", async (request) => records.get(callOf(request), "org", (request.params as Params).org));
  app.patch("/org/:org", async (request) =>
    records.patch(callOf(request), "org", (request.params as Params).org, request.body),
  );
  app.delete("/org/:org", async () => {
    throw new ApiFailure(ErrorCode.MethodNotAllowed, "An org cannot be deleted");
  });
  app.get("/org/:org/-accessreport", async (request) =>
    records.accessReport(callOf(request), "org", (request.params as Params).org),
  );
  app.get("/org/:org/org/-schema/permissions", async (request) => records.permissions(callOf(request), "org"));
}

/**
 * The operation templates: each is one served operation (method, path, summary, body, answers, errors, handler)
 * written once, with a kind's place in the API (`KindPlace`) left open. table.ts applies them to every kind's
 * declaration; a kind has the operations whose `applies` holds for it.
 */
import type { FastifyRequest } from "fastify";
import type { Kind, KindDescriptor } from "../../api/kinds/index.js";
import { accessReport } from "../../api/schemas/accessReport.js";
import { permissionSchema } from "../../api/schemas/permissions.js";
import { queryDocument, queryResult } from "../../api/schemas/query.js";
import type { RecordService } from "../domain/records.js";
import { badRequest } from "../errors.js";
import { writeRules } from "./bodies.js";
import { callOf, cursorOf, listCursorQuery, patchCallOf, queryCursorQuery, requiredCursor } from "./params.js";
import {
  named,
  type CreatedObject,
  type NamedSchema,
  type Route,
  type RouteParam,
  type RouteResponse,
} from "./route.js";

/**
 * What a DELETE answers once the object is gone: 202 Accepted, no body. The real API's DELETE is asynchronous (its
 * clients poll GET until 404), and terraform-provider-cpln, under `@pulumiverse/cpln`, counts only 200, 201 and 202 as
 * success (`internal/provider/client/client.go` `doRequest`, v1.2.31 @851308c, unchanged since its first commit): a
 * 204 failed every destroy it ran here. cpln-local deletes at once, so a GET right after is already 404.
 */
const DELETED = 202;

/** What an access report shows its caller (server/domain/accessReport.ts). */
const ACCESS_REPORT_RULE =
  "Needs `view` on the object (404 otherwise). With `viewAccessReport` on the org (implied by org `manage`) every " +
  "grant is listed; otherwise only those whose principal and granting policy the caller may view.";

const PATCH_DESCRIPTION =
  "Patch directives at every object level: `$drop`, `$replace/<field>`, `$append/<array>`, `$drop/<array>`, " +
  "`$retain/<array>`, `$patch/<array>`; plain fields merge (null removes).";

/** The schemas a kind's operations share (named: each is one component of the document). */
export interface KindBodies {
  readonly record: NamedSchema;
  readonly list: NamedSchema;
  readonly patch: NamedSchema;
  readonly put: NamedSchema;
  /** A PUT naming the object it replaces (a collection PUT of a kind the API does not create). */
  readonly keyedPut: NamedSchema;
  /** The create body as a manifest (read-only fields accepted); absent for kinds not created through the API. */
  readonly create?: NamedSchema;
}

/** A collection of a kind's objects: its path and parameters, and the operationId suffix of its reads. */
export interface Collection {
  readonly path: string;
  readonly params: readonly RouteParam[];
  /** `InOrg` for a gvc-scoped kind's reads across every gvc. */
  readonly suffix: string;
}

/** One kind as its operations see it: where it is served, how a request names its object, what they share. */
export interface KindPlace {
  readonly kind: Kind;
  /** The kind in PascalCase, for operationIds and component names. */
  readonly Name: string;
  readonly info: KindDescriptor;
  readonly records: RecordService;
  readonly tags: readonly string[];
  /** How summaries name the object: "a" volume set, "the" org. */
  readonly article: "a" | "the";
  /** The description of an answer holding the object. */
  readonly answer: string;
  /** The kind's collection (absent for the org itself, a singleton). */
  readonly collection?: Collection;
  readonly item: string;
  readonly itemParams: readonly RouteParam[];
  readonly key: (request: FastifyRequest) => string;
  readonly created: CreatedObject;
  readonly bodies: KindBodies;
}

/** One operation, applied to each kind it `applies` to. */
export interface OperationTemplate {
  readonly applies?: (place: KindPlace) => boolean;
  readonly route: (place: KindPlace) => Route;
}

const WRITE_ERRORS = [400, 401, 403, 404, 409, 413, 415, 429];

const createdAnswer = (body: NamedSchema, creates: CreatedObject): RouteResponse => ({
  status: 201,
  description: "Created",
  body,
  headers: { Location: { description: "Path of the new object", schema: { type: "string" } } },
  creates,
});

const immutableOf = (k: KindPlace) => k.records.rules[k.kind].fields.immutable;

/** The reads of one collection: the query (POST), its next pages (GET with a `next` link's cursor), the catalog. */
export function collectionReads(at: Collection): OperationTemplate[] {
  const where = at.suffix === "" ? "" : " of every gvc";
  const result = (k: KindPlace) => named(`${k.Name}QueryResult`, "output", () => queryResult(k.info.schemas.record()));
  return [
    {
      route: (k) => ({
        method: "POST",
        path: `${at.path}/-query`,
        operationId: `query${k.Name}${at.suffix}`,
        summary: `Query ${k.kind} objects${where} (paged: follow links[rel=next])`,
        tags: k.tags,
        params: at.params,
        body: named("QueryDocument", "input", queryDocument),
        // No body (or `{}`) is the query of every object the caller may view.
        bodyOptional: true,
        responses: [{ status: 200, description: "Matches", body: result(k) }],
        errors: [400, 401, 404, 413, 415],
        auth: "required",
        handler: async (request) => k.records.query(callOf(request), k.kind, request.body),
      }),
    },
    {
      route: (k) => ({
        method: "GET",
        path: `${at.path}/-query`,
        operationId: `continueQuery${k.Name}${at.suffix}`,
        summary: `The next page of a ${k.kind} query${where} (the URL of a next link)`,
        tags: k.tags,
        params: at.params,
        query: [queryCursorQuery],
        responses: [{ status: 200, description: "Matches", body: result(k) }],
        errors: [400, 401, 404, 431],
        auth: "required",
        handler: async (request) => k.records.query(callOf(request), k.kind, undefined, requiredCursor(request)),
      }),
    },
    permissionsAt(at),
  ];
}

/** The kind's permission catalog, read at a collection's path. */
export function permissionsAt(at: Collection): OperationTemplate {
  return {
    route: (k) => ({
      method: "GET",
      path: `${at.path}/-schema/permissions`,
      operationId: `get${k.Name}Permissions${at.suffix}`,
      summary: `Permissions of ${k.kind}`,
      tags: k.tags,
      params: at.params,
      responses: [{ status: 200, description: "Catalog", body: named("PermissionSchema", "output", permissionSchema) }],
      errors: [400, 401, 404],
      auth: "required",
      handler: async (request) => k.records.permissions(callOf(request), k.kind),
    }),
  };
}

/** The collection a template reads or writes (every template using it applies only to kinds that have one). */
function collectionOf(k: KindPlace): Collection {
  if (k.collection === undefined) throw new Error(`${k.kind} has no collection`);
  return k.collection;
}

/** The list of one collection: the kind's own, or (`at`) a gvc-scoped kind's across every gvc of the org. */
export function listAt(at?: Collection): OperationTemplate {
  return {
    route: (k) => {
      const where = at ?? collectionOf(k);
      return {
        method: "GET",
        path: where.path,
        operationId: `list${k.Name}${where.suffix}`,
        summary: `List ${k.kind} objects${where.suffix === "" ? "" : " of every gvc"} the caller may view (paged: follow links[rel=next])`,
        tags: k.tags,
        params: where.params,
        query: [listCursorQuery],
        responses: [{ status: 200, description: "List", body: k.bodies.list }],
        errors: [400, 401, 404],
        auth: "required",
        handler: async (request) => k.records.list(callOf(request), k.kind, cursorOf(request)),
      };
    },
  };
}

export const list: OperationTemplate = listAt();

export const create: OperationTemplate = {
  applies: (k) => k.bodies.create !== undefined,
  route: (k) => ({
    method: "POST",
    path: collectionOf(k).path,
    operationId: `create${k.Name}`,
    summary: `Create a ${k.kind}`,
    ...(k.info.anonymousCreate
      ? { description: "Credentials are optional: an anonymous caller has no grants and gets 403." }
      : {}),
    tags: k.tags,
    params: collectionOf(k).params,
    body: k.bodies.create as NamedSchema,
    responses: [createdAnswer(k.bodies.record, k.created)],
    errors: WRITE_ERRORS,
    auth: k.info.anonymousCreate ? "optional" : "required",
    handler: async (request, reply) => {
      const { record: doc, location } = await k.records.create(callOf(request), k.kind, request.body);
      return reply.code(201).header("location", location).send(doc);
    },
  }),
};

/**
 * PUT to the collection (what `cpln apply` sends) for every kind: it replaces the object the body names, and creates
 * it where the kind has a create.
 */
export const apply: OperationTemplate = {
  route: (k) => {
    const creates = k.bodies.create;
    return {
      method: "PUT",
      path: collectionOf(k).path,
      operationId: `apply${k.Name}`,
      summary: creates
        ? `Create or replace the ${k.kind} the body names (what \`cpln apply\` sends)`
        : `Replace the ${k.kind} the body names (what \`cpln apply\` sends; ${k.kind} objects are not created through the API)`,
      description:
        "Creates the object (201 + Location) or replaces its writable fields (200), with the checks of a create or " +
        "of a PUT to the object. Read-only fields are accepted and ignored; `version`, when given, must be current.",
      tags: k.tags,
      params: collectionOf(k).params,
      body: creates ?? k.bodies.keyedPut,
      rules: writeRules(immutableOf(k), "PUT"),
      responses: creates
        ? [{ status: 200, description: "Replaced", body: k.bodies.record }, createdAnswer(k.bodies.record, k.created)]
        : [{ status: 200, description: "Replaced", body: k.bodies.record }],
      errors: [400, 401, 403, 404, 409, 413, 415, ...(creates ? [429] : [])],
      auth: k.info.anonymousCreate ? "optional" : "required",
      handler: async (request, reply) => {
        const result = await k.records.upsert(callOf(request), k.kind, request.body);
        if (result.created) return reply.code(201).header("location", result.location).send(result.record);
        return reply.code(200).send(result.record);
      },
    };
  },
};

export const get: OperationTemplate = {
  route: (k) => ({
    method: "GET",
    path: k.item,
    operationId: `get${k.Name}`,
    summary: `Get ${k.article} ${k.kind}`,
    tags: k.tags,
    params: k.itemParams,
    responses: [{ status: 200, description: k.answer, body: k.bodies.record }],
    errors: [400, 401, 404],
    auth: "required",
    handler: async (request) => k.records.get(callOf(request), k.kind, k.key(request)),
  }),
};

export const patch: OperationTemplate = {
  route: (k) => ({
    method: "PATCH",
    path: k.item,
    operationId: `patch${k.Name}`,
    summary: `Patch ${k.article} ${k.kind}`,
    description: PATCH_DESCRIPTION,
    tags: k.tags,
    params: k.itemParams,
    body: k.bodies.patch,
    rules: writeRules(immutableOf(k), "PATCH"),
    responses: [{ status: 200, description: k.answer, body: k.bodies.record }],
    errors: WRITE_ERRORS,
    auth: "required",
    handler: async (request) => k.records.patch(patchCallOf(request), k.kind, k.key(request), request.body),
  }),
};

export const replace: OperationTemplate = {
  route: (k) => ({
    method: "PUT",
    path: k.item,
    operationId: `replace${k.Name}`,
    summary: `Replace a ${k.kind} (fields left out are removed)`,
    tags: k.tags,
    params: k.itemParams,
    body: k.bodies.put,
    rules: writeRules(immutableOf(k), "PUT"),
    responses: [{ status: 200, description: k.answer, body: k.bodies.record }],
    errors: WRITE_ERRORS,
    auth: "required",
    handler: async (request) => k.records.put(callOf(request), k.kind, k.key(request), request.body),
  }),
};

export const remove: OperationTemplate = {
  route: (k) => {
    const deletable = k.info.deletable !== false;
    return {
      method: "DELETE",
      path: k.item,
      operationId: `delete${k.Name}`,
      summary: deletable ? `Delete a ${k.kind}` : `Refuses to delete a ${k.kind} (they cannot be deleted)`,
      ...(deletable
        ? {}
        : {
            description: `No ${k.kind} can be deleted: the answer is 403 for an object the caller can view, else 404.`,
          }),
      tags: k.tags,
      params: k.itemParams,
      responses: deletable ? [{ status: DELETED, description: "Deleted (no body)" }] : [],
      errors: deletable ? [400, 401, 403, 404, 409] : [400, 401, 403, 404],
      auth: "required",
      handler: async (request, reply) => {
        await k.records.delete(callOf(request), k.kind, k.key(request));
        return reply.code(DELETED).send();
      },
    };
  },
};

export const accessReportOf: OperationTemplate = {
  route: (k) => ({
    method: "GET",
    path: `${k.item}/-accessreport`,
    operationId: `get${k.Name}AccessReport`,
    summary: `Who may act on ${k.article} ${k.kind}`,
    description: ACCESS_REPORT_RULE,
    tags: k.tags,
    params: k.itemParams,
    responses: [{ status: 200, description: "Access report", body: named("AccessReport", "output", accessReport) }],
    errors: [400, 401, 404],
    auth: "required",
    handler: async (request) => k.records.accessReport(callOf(request), k.kind, k.key(request)),
  }),
};

/** `GET /org`: the orgs the caller may view. */
export const listOrgs: OperationTemplate = {
  route: (k) => ({
    method: "GET",
    path: "/org",
    operationId: `list${k.Name}s`,
    summary: `List the ${k.kind}s the caller may view`,
    tags: k.tags,
    params: [],
    responses: [{ status: 200, description: "List", body: k.bodies.list }],
    errors: [401],
    auth: "required",
    handler: async (request) => k.records.listOrgs(request.principal),
  }),
};

/** `PUT /org` (what `cpln apply` sends for an org): replaces the org the body names; orgs are not created. */
export const applyOrg: OperationTemplate = {
  route: (k) => ({
    method: "PUT",
    path: "/org",
    operationId: `apply${k.Name}`,
    summary: `Replace the ${k.kind} the body names (what \`cpln apply\` sends; ${k.kind}s are not created through the API)`,
    description: "Read-only fields are accepted and ignored; `version`, when given, must be current.",
    tags: k.tags,
    params: [],
    body: k.bodies.keyedPut,
    rules: writeRules(immutableOf(k), "PUT"),
    responses: [{ status: 200, description: k.answer, body: k.bodies.record }],
    errors: WRITE_ERRORS,
    auth: "required",
    handler: async (request) => {
      const body = request.body as Record<string, unknown> | null;
      const org = typeof body?.["name"] === "string" ? body["name"] : "";
      if (org === "") throw badRequest([{ path: "name", message: `is required: it names the ${k.kind} replaced` }]);
      return k.records.put({ org, gvc: undefined, principal: request.principal }, k.kind, org, request.body);
    },
  }),
};

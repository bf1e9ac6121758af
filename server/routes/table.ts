import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { apiError } from "../../api/errors.js";
import { addCrossFieldRules, type DocumentedRule } from "../../api/schemas/jsonRules.js";
import { kindNames, kinds, type Kind } from "../../api/kinds.js";
import { accessReport } from "../../api/schemas/accessReport.js";
import { name as nameSchema } from "../../api/schemas/common.js";
import { listResponse } from "../../api/schemas/common.js";
import { permissionSchema } from "../../api/schemas/permissions.js";
import { queryDocument, queryResult } from "../../api/schemas/query.js";
import type { AuthMode } from "../app.js";
import type { Call, RecordService } from "../domain/records.js";
import { LIST_CURSOR_PATTERN, MAX_LIST_CURSOR, MAX_POSITION_TEXT, MAX_QUERY_CURSOR } from "../domain/paging.js";
import { badRequest } from "../errors.js";
import { orgLinkRule } from "../domain/orgLinks.js";
import { revealOnlyBodyFields } from "../domain/present.js";

/** HTTP methods the API serves (HEAD is fastify's automatic twin of GET). */
export const httpMethods = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type HttpMethod = (typeof httpMethods)[number];

/** A JSON Schema object (as `z.toJSONSchema` produces it). */
export type JsonSchema = Record<string, unknown>;

/** A named schema: becomes `#/components/schemas/<name>` in the OpenAPI document. */
export interface NamedSchema {
  readonly name: string;
  /** `input` for request bodies (defaults applied by the server are optional), `output` for responses. */
  readonly io: "input" | "output";
  /** The JSON Schema; built on demand (the zod schemas are lazy). */
  readonly build: () => JsonSchema;
  /**
   * The keys free-form objects of this request body may hold: `any` but the reserved `__proto__` (every body), or
   * `patch`: neither keys starting with `$` (directives, refused in free-form maps of PATCH and PUT bodies).
   */
  readonly keys?: "patch";
}

export interface RouteParam {
  readonly name: string;
  readonly description: string;
  readonly schema: () => JsonSchema;
}

/** A query parameter (`?cursor=`, `?limit=`). */
export interface QueryParam extends RouteParam {
  readonly required: boolean;
  /** A parameter whose value is JSON text (`content: application/json` in the document; `schema` is then unused). */
  readonly json?: NamedSchema;
}

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

export interface RouteResponse {
  readonly status: number;
  readonly description: string;
  /** Absent: no body (a DELETE's 202). */
  readonly body?: NamedSchema;
  readonly headers?: Readonly<Record<string, { description: string; schema: JsonSchema }>>;
  /** The object this answer creates: the operations on it and under it are its OpenAPI links (server/openapi.ts). */
  readonly creates?: CreatedObject;
}

/** Where a created object lives: its collection's path and the answer's field that names it in a path. */
export interface CreatedObject {
  readonly collection: string;
  readonly field: string;
}

/**
 * One served operation. The fastify registration and `GET /openapi.json` are both generated from a list of these, so
 * the document cannot list what is not served or miss what is.
 */
export interface Route {
  readonly method: HttpMethod;
  /** OpenAPI path template (`/org/{org}/policy/{name}`); fastify gets the same path with `:param`. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  readonly params: readonly RouteParam[];
  readonly query?: readonly QueryParam[];
  readonly body?: NamedSchema;
  /** Whether the body may be left out (actions whose fields are all optional). */
  readonly bodyOptional?: boolean;
  readonly responses: readonly RouteResponse[];
  /** Error statuses this operation can answer (each with the error shape). */
  readonly errors: readonly number[];
  readonly auth: AuthMode;
  /** Refusals JSON Schema cannot state (`x-cpln-rules` of the operation; the body's schemas carry their own). */
  readonly rules?: readonly DocumentedRule[];
  /** Fault injection never applies to this route. */
  readonly noFaults?: boolean;
  /** An emulator route (`/_cpln-local/...`): admin only, never kept by request inspection. */
  readonly emulator?: boolean;
  /** A check run right after authentication, before the body is read (the emulator's admin-key check). */
  readonly gate?: (request: FastifyRequest) => Promise<void>;
  /** Largest body this route accepts, when not the server's `BODY_LIMIT` (the state import). */
  readonly bodyLimit?: number;
  /** Top-level body fields whose values request logs keep as `[redacted]` (a kind's reveal-only fields). */
  readonly redactBody?: readonly string[];
  readonly handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}

/** `z.toJSONSchema` for the document: draft 2020-12 (OpenAPI 3.1), without `$schema`. */
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
    target: "draft-2020-12",
    override: addCrossFieldRules,
  }) as JsonSchema;
  delete json["$schema"];
  return json;
}

/** A named schema built from a (lazy) zod schema. */
export function named(name: string, io: "input" | "output", schema: () => z.ZodType): NamedSchema {
  return { name, io, build: () => jsonSchemaOf(schema(), io) };
}

export const errorSchema = (): NamedSchema => named("ApiError", "output", apiError);

const pascal = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

function paramsOf(request: FastifyRequest): Record<string, string> {
  return request.params as Record<string, string>;
}

function callOf(request: FastifyRequest): Call {
  const params = paramsOf(request);
  return { org: params["org"] ?? "", gvc: params["gvc"], principal: request.principal };
}

/** A PATCH's call: request inspection keeps the object as the patch found it, read inside its transaction. */
function patchCallOf(request: FastifyRequest): Call {
  const call = callOf(request);
  call.onPatched = (previous) => (request.recordBefore = previous);
  return call;
}

function cursorOf(request: FastifyRequest): string | undefined {
  const cursor = (request.query as { cursor?: unknown } | undefined)?.cursor;
  return typeof cursor === "string" ? cursor : undefined;
}

/** A list's cursor: a position, so every value of the documented pattern is accepted. */
const listCursorQuery: QueryParam = {
  name: "cursor",
  required: false,
  description:
    "Continues a list: take the whole URL from the previous page's `next` link. The value names a position in " +
    "storage order (the page starts after it); every value of the pattern is one.",
  schema: () => ({ type: "string", maxLength: MAX_LIST_CURSOR, pattern: LIST_CURSOR_PATTERN.source }),
};

/** A query's cursor: the query and the position the page starts after, as JSON the document describes. */
const queryCursorQuery: QueryParam = {
  name: "cursor",
  required: true,
  description:
    "Continues a query: take the whole URL from the previous page's `next` link. The value is JSON: `query`, the " +
    "query as POST takes it (held to the same rules), and `after`, the position the page starts after (the last " +
    "item's scope, name and, for a sorted query, sort key). Every such value is a query and a position.",
  schema: () => ({ type: "string" }),
  json: named("QueryContinuation", "input", () =>
    z
      .strictObject({
        query: queryDocument().optional().describe("The query (the body of a POST to -query); absent: every object."),
        after: z
          .strictObject({
            scope: z.string().max(MAX_POSITION_TEXT).describe("The gvc of the last item ('' for org-scoped kinds)."),
            name: z.string().max(MAX_POSITION_TEXT).describe("The name (or id) of the last item."),
            key: z
              .union([z.string(), z.number(), z.boolean(), z.null()])
              .optional()
              .describe("The last item's sort key, for a sorted query (null: it had none)."),
          })
          .describe("The page starts after this position, whether or not an item is there."),
      })
      .describe(`A query continuation (at most ${MAX_QUERY_CURSOR} characters of JSON).`),
  ),
};

/** `GET .../-query` continues a query from a `next` link: the cursor is required there. */
function requiredCursor(request: FastifyRequest): string {
  const cursor = cursorOf(request);
  if (cursor === undefined) {
    throw badRequest([{ path: "cursor", message: "is required (take the URL from a next link, or POST the query)" }]);
  }
  return cursor;
}

const orgParam: RouteParam = {
  name: "org",
  description: "Name of the org.",
  schema: () => jsonSchemaOf(nameSchema(), "input"),
};

const gvcParam: RouteParam = {
  name: "gvc",
  description: "Name of the gvc holding the object.",
  schema: () => jsonSchemaOf(nameSchema(), "input"),
};

/** The path parameter naming one object of `kind`: its name (or name field, e.g. a user's email) or its id. */
function itemParam(kind: Kind): RouteParam {
  const { addressing, schemas } = kinds[kind];
  if (addressing.by === "id") {
    return {
      name: "id",
      description: `Id of the ${kind} (UUID).`,
      schema: () => ({ type: "string", format: "uuid" }),
    };
  }
  const field = addressing.field;
  const createBody = schemas.create;
  return {
    name: field,
    description: `The ${kind}'s ${field}.`,
    schema: () => {
      const properties = createBody ? jsonSchemaOf(createBody(), "input")["properties"] : undefined;
      const fromBody = (properties as Record<string, JsonSchema> | undefined)?.[field];
      const stated = addressing.schema ? jsonSchemaOf(addressing.schema(), "input") : undefined;
      const schema = { ...(fromBody ?? stated ?? jsonSchemaOf(nameSchema(), "input")) };
      delete schema["description"];
      return schema;
    },
  };
}

/** A value's schema without its `null` alternative (`anyOf: [X, {type: null}]` → X). */
function notNull(schema: JsonSchema, description: string): JsonSchema {
  const anyOf = schema["anyOf"] as JsonSchema[] | undefined;
  if (!anyOf) return { ...schema, description };
  const rest = anyOf.filter((s) => s["type"] !== "null");
  return rest.length === 1 ? { ...rest[0], description } : { ...schema, anyOf: rest, description };
}

/** A PATCH or PUT body whose echoed `kind` must be the path's (`const`), as a create's must: a 400 otherwise. */
function kindPinned(body: JsonSchema, kind: Kind): JsonSchema {
  const properties = (body["properties"] ?? {}) as Record<string, JsonSchema>;
  if (properties["kind"] === undefined) return body;
  const pinned = { const: kind, readOnly: true, description: "The kind (read-only; must match the path)." };
  return { ...body, properties: { ...properties, kind: pinned } };
}

/** The PATCH body of a kind: a field the object always has cannot be removed (no null, not in `$drop`). */
function patchBodyOf(patch: JsonSchema, required: readonly string[]): JsonSchema {
  if (required.length === 0) return patch;
  const properties = { ...((patch["properties"] ?? {}) as Record<string, JsonSchema>) };
  for (const field of required) {
    const note = "Required: it cannot be removed (null is refused).";
    for (const key of [field, `$replace/${field}`]) {
      const schema = properties[key];
      if (schema) properties[key] = notNull(schema, `${String(schema["description"] ?? key)} ${note}`);
    }
  }
  const drop = properties["$drop"];
  const items = drop?.["items"] as JsonSchema | undefined;
  if (drop && Array.isArray(items?.["enum"])) {
    const allowed = (items["enum"] as string[]).filter((f) => !required.includes(f));
    if (allowed.length === 0) delete properties["$drop"];
    else properties["$drop"] = { ...drop, items: { ...items, enum: allowed } };
  }
  return { ...patch, properties };
}

/**
 * The PUT body of a kind, derived from its PATCH schema the way the server applies a PUT: each `$replace/<f>` field
 * becomes `<f>` (the whole value), the read-only fields a client may echo stay, the other directives go.
 */
function putBodyOf(patch: JsonSchema, required: readonly string[], defaulted: readonly string[] = []): JsonSchema {
  const properties = (patch["properties"] ?? {}) as Record<string, JsonSchema>;
  const out: Record<string, JsonSchema> = {};
  for (const [key, schema] of Object.entries(properties)) {
    if (!key.startsWith("$")) out[key] = schema;
  }
  // A `$replace/` value replaces the merge form of the same plain field.
  for (const key of Object.keys(properties)) {
    if (key.startsWith("$replace/")) {
      const field = key.slice("$replace/".length);
      out[field] = { ...(properties[key] as JsonSchema) };
      (out[field] as JsonSchema)["description"] =
        `${String((properties[field] as JsonSchema | undefined)?.["description"] ?? field).split(" Objects merge")[0]} ` +
        (defaulted.includes(field)
          ? "Left out: the value a create without it gets."
          : "Left out: removed (description and tags get their create defaults).");
    }
  }
  // A replaceable field the record always has must be in the body (left out would remove it).
  for (const field of required) {
    const schema = out[field] as JsonSchema;
    out[field] = notNull(schema, `${String(schema["description"] ?? field).split(" Left out:")[0]} Required.`);
  }
  const { $defs } = patch as { $defs?: unknown };
  const rules = patch["x-cpln-rules"];
  return {
    ...(rules !== undefined ? { "x-cpln-rules": rules } : {}),
    type: "object",
    properties: out,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
    ...($defs !== undefined ? { $defs } : {}),
    description:
      "The whole writable object: fields left out are removed; read-only fields (version, id, kind, links, ...) may " +
      "be echoed and are ignored when they match (one that does not, or a stale version, is a 409).",
  };
}

/**
 * A create body as the server accepts it: the kind's create schema plus the record's read-only fields, which a
 * manifest or a record as GET returned it carries and every write ignores (a `kind` that contradicts the path is a 400).
 */
function manifestOf(create: JsonSchema, kind: Kind, scoped: boolean): JsonSchema {
  const properties = { ...((create["properties"] ?? {}) as Record<string, JsonSchema>) };
  // `readOnly: true`: the server sets these; tools that build requests from the document leave them out.
  const ignored = (what: string): JsonSchema => ({ readOnly: true, description: `Read-only: ${what}` });
  const readOnly: Record<string, JsonSchema> = {
    kind: { const: kind, readOnly: true, description: "The kind (read-only; must match the path)." },
    id: ignored("ignored (any value)."),
    version: {
      type: "integer",
      minimum: 0,
      readOnly: true,
      description: "Read-only: ignored by a create; when the object exists it must be current (409 otherwise).",
    },
    created: ignored("ignored (any value)."),
    lastModified: ignored("ignored (any value)."),
    links: ignored("ignored (any value)."),
    status: ignored("ignored (any value)."),
    ...(scoped ? { gvc: ignored("the path names the gvc; ignored (any value).") } : {}),
  };
  for (const [field, schema] of Object.entries(readOnly)) if (!(field in properties)) properties[field] = schema;
  return { ...create, properties };
}

/**
 * The body of a PUT to a collection that creates nothing (`cpln apply` of a kind the API does not create): the
 * object's PUT body plus the field that names the object it replaces, which the server requires.
 */
function keyedPutBodyOf(put: JsonSchema, keyField: string, description: string): JsonSchema {
  const properties = { ...((put["properties"] ?? {}) as Record<string, JsonSchema>) };
  // `x-cpln-names-object`: the value names an existing object (a 404 answers one that does not exist).
  properties[keyField] = { type: "string", minLength: 1, description, "x-cpln-names-object": true };
  const required = [...new Set([...((put["required"] ?? []) as string[]), keyField])];
  return { ...put, properties, required };
}

const created = (body: NamedSchema, creates: CreatedObject): RouteResponse => ({
  status: 201,
  description: "Created",
  body,
  headers: { Location: { description: "Path of the new object", schema: { type: "string" } } },
  creates,
});

/**
 * The reads of one collection of `kind` at `base`: the query (POST), its next pages (GET with the cursor of a `next`
 * link) and the kind's permission catalog.
 */
function collectionReads(
  records: RecordService,
  kind: Kind,
  base: string,
  params: readonly RouteParam[],
  suffix: string,
): Route[] {
  const Name = pascal(kind);
  const tags = [kind];
  const result = named(`${Name}QueryResult`, "output", () => queryResult(kinds[kind].schemas.record()));
  const permissions = named("PermissionSchema", "output", permissionSchema);
  const where = suffix === "" ? "" : " of every gvc";
  return [
    {
      method: "POST",
      path: `${base}/-query`,
      operationId: `query${Name}${suffix}`,
      summary: `Query ${kind} objects${where} (paged: follow links[rel=next])`,
      tags,
      params,
      body: named("QueryDocument", "input", queryDocument),
      // No body (or `{}`) is the query of every object the caller may view.
      bodyOptional: true,
      responses: [{ status: 200, description: "Matches", body: result }],
      errors: [400, 401, 404, 413, 415],
      auth: "required",
      handler: async (request) => records.query(callOf(request), kind, request.body),
    },
    {
      method: "GET",
      path: `${base}/-query`,
      operationId: `continueQuery${Name}${suffix}`,
      summary: `The next page of a ${kind} query${where} (the URL of a next link)`,
      tags,
      params,
      query: [queryCursorQuery],
      responses: [{ status: 200, description: "Matches", body: result }],
      errors: [400, 401, 404, 431],
      auth: "required",
      handler: async (request) => records.query(callOf(request), kind, undefined, requiredCursor(request)),
    },
    {
      method: "GET",
      path: `${base}/-schema/permissions`,
      operationId: `get${Name}Permissions${suffix}`,
      summary: `Permissions of ${kind}`,
      tags,
      params,
      responses: [{ status: 200, description: "Catalog", body: permissions }],
      errors: [400, 401, 404],
      auth: "required",
      handler: async (request) => records.permissions(callOf(request), kind),
    },
  ];
}

/** A key starting with `$` is a patch directive in PATCH and PUT bodies (a PUT runs as the equivalent PATCH). */
const directiveKeys: DocumentedRule = {
  rule:
    "Keys starting with '$' are patch directives: free-form maps (tags, data, add-ons, ...) in PATCH and PUT bodies " +
    "cannot hold such keys.",
  issue:
    /^(directives apply only in objects that merge \(plain object fields, \$patch\/ items\), not inside a value that replaces or is appended|unknown directive ".*": use .*)$/,
};

/** After a PATCH the object must still be whole: nested objects keep (or, created by the merge, get) what they need. */
const mergeCreates: DocumentedRule = {
  rule:
    "After the merge the object must still be whole (the schemas of the `$replace/` forms and array items): a merge " +
    "into an object field the object lacks creates it, and a `$patch/<array>` item that matches none is appended, so " +
    "they must set every field that object requires; and a nested field such an object requires cannot be removed. " +
    "The stored object decides whether a body breaks this, so it is a 409 (a conflict with the stored object, RFC " +
    "5789 §2.2), as is a result past the stored limits (at most 50 tags).",
  issue: /^is required$/,
};

/** Keyed-array directives compare with the stored items. */
const keyedItems: DocumentedRule = {
  rule:
    "`$append/<array>` items must have keys the array does not hold yet, and a `$patch/<array>` item must not change " +
    "its key to one another item has (409: a conflict with the array as stored).",
  issue: /^(an item with key ".*" already exists in ".*"|the patched item's key ".*" duplicates another item of ".*")$/,
};

/**
 * Rules of the writes to existing objects of a kind: directive keys, the fields that never change, and (PATCH)
 * merges that create an object field and keyed-array directives.
 */
function writeRules(records: RecordService, kind: Kind, method: "PATCH" | "PUT"): DocumentedRule[] {
  const immutable = records.rules[kind].fields.immutable;
  return [
    directiveKeys,
    ...(method === "PATCH" ? [mergeCreates, keyedItems] : []),
    ...(immutable.length > 0
      ? [
          {
            rule: `${immutable.join(", ")} cannot change after the object is created: send the current value or leave it as it is (409 otherwise: a conflict with the stored object).`,
            issue: /^is immutable: it cannot change after the object is created$/,
          },
        ]
      : []),
  ];
}

/** Where a kind's endpoints are served: its item path and collection path, with their parameters. */
interface EndpointPlaces {
  readonly item: string;
  readonly itemParams: readonly RouteParam[];
  readonly key: (request: FastifyRequest) => string;
  /** Absent for a singleton (the org has no collection endpoints). */
  readonly base?: string;
  readonly scopeParams?: readonly RouteParam[];
}

/**
 * The routes of a kind's endpoints (`KindDescriptor.endpoints`): GET or POST, on an object or on the collection. An
 * endpoint with a path parameter is served as one path per value (`-instructions/aws`, `-instructions/gcp`, ...): a
 * `{param}` there would make the path ambiguous with the object's own `{name}/-<endpoint>` paths.
 */
function endpointRoutes(records: RecordService, kind: Kind, places: EndpointPlaces): Route[] {
  const Name = pascal(kind);
  const routes: Route[] = [];
  for (const [name, spec] of Object.entries(kinds[kind].endpoints ?? {})) {
    const onItem = spec.on === "item";
    if (!onItem && places.base === undefined) throw new Error(`${kind} has no collection for -${name}`);
    const request = spec.request;
    // A parameter without fixed values is one `{param}` path parameter (its value read from the request).
    const free = spec.param !== undefined && spec.param.values === undefined ? spec.param : undefined;
    const values: readonly (string | undefined)[] = spec.param?.values ?? [free ? `{${free.name}}` : undefined];
    const segment = spec.segment ?? `-${name}`;
    const params = [
      ...(onItem ? places.itemParams : (places.scopeParams ?? [])),
      ...(free ? [{ name: free.name, description: free.description, schema: () => ({ type: "string" }) }] : []),
    ];
    for (const value of values) {
      const path = `${onItem ? places.item : String(places.base)}/${segment}${value === undefined ? "" : `/${value}`}`;
      routes.push({
        method: spec.method,
        path,
        operationId: `${spec.method === "GET" ? "get" : "post"}${Name}${pascal(name)}${value === undefined || free ? "" : pascal(value)}`,
        summary: value === undefined || free ? spec.summary : `${spec.summary}: ${value}`,
        ...(spec.description !== undefined ? { description: spec.description } : {}),
        tags: [kind],
        params,
        ...(request ? { body: named(request.name, "input", request.schema) } : {}),
        ...(spec.rules ? { rules: spec.rules } : {}),
        responses: [
          {
            status: spec.response.status,
            description: spec.response.description,
            body: named(spec.response.name, "output", spec.response.schema),
          },
        ],
        errors: [
          ...new Set([...(request ? [400, 401, 403, 404, 413, 415] : [400, 401, 403, 404]), ...(spec.errors ?? [])]),
        ].sort((a, b) => a - b),
        auth: "required",
        handler: async (req, reply) => {
          const answer = await records.endpoint(callOf(req), kind, onItem ? places.key(req) : undefined, name, {
            ...(free
              ? { param: (req.params as Record<string, string>)[free.name] }
              : value !== undefined
                ? { param: value }
                : {}),
            ...(request ? { body: req.body } : {}),
          });
          return reply.code(spec.response.status).send(answer);
        },
      });
    }
  }
  return routes;
}

/** Every operation served for the kinds of the contract, from the kind descriptors (`api/kinds/`). */
export function recordRoutes(records: RecordService): Route[] {
  const routes: Route[] = [];
  for (const kind of kindNames) {
    const info = kinds[kind];
    const Name = pascal(kind);
    const recordSchema = info.schemas.record;
    const record = named(Name, "output", recordSchema);
    const tags = [kind];
    const patch = info.schemas.patch;
    const patchBody: NamedSchema = {
      name: `${Name}Patch`,
      io: "input",
      keys: "patch",
      build: () => patchBodyOf(kindPinned(jsonSchemaOf(patch(), "input"), kind), records.alwaysPresent(kind)),
    };
    const putBody: NamedSchema = {
      name: `${Name}Put`,
      io: "input",
      keys: "patch",
      // A field a PUT may leave out for its create default (`omittedDefaults`, a location's spec) is not required.
      build: () => {
        const defaulted = Object.keys(records.rules[kind].fields.omittedDefaults ?? {});
        const required = records.alwaysPresent(kind).filter((field) => !defaulted.includes(field));
        return putBodyOf(kindPinned(jsonSchemaOf(patch(), "input"), kind), required, defaulted);
      },
    };
    // The field a collection PUT names its object by: `name` (`email` for users), or `id` for kinds addressed by id.
    const keyField = info.addressing.by === "id" ? "id" : info.addressing.field;
    const keyedPutBody: NamedSchema = {
      name: `${Name}Apply`,
      io: "input",
      keys: "patch",
      build: () =>
        keyedPutBodyOf(putBody.build(), keyField, `Names the ${kind} replaced (required: nothing else names it).`),
    };
    const patchDescription =
      "Patch directives at every object level: `$drop`, `$replace/<field>`, `$append/<array>`, `$drop/<array>`, " +
      "`$retain/<array>`, `$patch/<array>`; plain fields merge (null removes).";

    if (info.singleton) {
      // The org itself: `/org/{org}` and its permission catalog.
      const key = (request: FastifyRequest) => paramsOf(request)["org"] ?? "";
      routes.push({
        method: "GET",
        path: "/org",
        operationId: `list${Name}s`,
        summary: `List the ${kind}s the caller may view`,
        tags,
        params: [],
        responses: [
          {
            status: 200,
            description: "List",
            body: named(`${Name}List`, "output", () => listResponse(recordSchema())),
          },
        ],
        errors: [401],
        auth: "required",
        handler: async (request) => records.listOrgs(request.principal),
      });
      routes.push({
        method: "GET",
        path: "/org/{org}",
        operationId: `get${Name}`,
        summary: `Get the ${kind}`,
        tags,
        params: [orgParam],
        responses: [{ status: 200, description: `The ${kind}`, body: record }],
        errors: [400, 401, 404],
        auth: "required",
        handler: async (request) => records.get(callOf(request), kind, key(request)),
      });
      routes.push({
        method: "PATCH",
        path: "/org/{org}",
        operationId: `patch${Name}`,
        summary: `Patch the ${kind}`,
        description: patchDescription,
        tags,
        params: [orgParam],
        body: patchBody,
        rules: writeRules(records, kind, "PATCH"),
        responses: [{ status: 200, description: `The ${kind}`, body: record }],
        errors: [400, 401, 403, 404, 409, 413, 415, 429],
        auth: "required",
        handler: async (request) => records.patch(patchCallOf(request), kind, key(request), request.body),
      });
      routes.push({
        method: "PUT",
        path: "/org",
        operationId: `apply${Name}`,
        summary: `Replace the ${kind} the body names (what \`cpln apply\` sends; ${kind}s are not created through the API)`,
        description: "Read-only fields are accepted and ignored; `version`, when given, must be current.",
        tags,
        params: [],
        body: keyedPutBody,
        rules: writeRules(records, kind, "PUT"),
        responses: [{ status: 200, description: `The ${kind}`, body: record }],
        errors: [400, 401, 403, 404, 409, 413, 415, 429],
        auth: "required",
        handler: async (request) => {
          const body = request.body as Record<string, unknown> | null;
          const org = typeof body?.["name"] === "string" ? body["name"] : "";
          if (org === "") throw badRequest([{ path: "name", message: `is required: it names the ${kind} replaced` }]);
          return records.put({ org, gvc: undefined, principal: request.principal }, kind, org, request.body);
        },
      });
      routes.push({
        method: "GET",
        path: "/org/{org}/-accessreport",
        operationId: `get${Name}AccessReport`,
        summary: `Who may act on the ${kind}`,
        description: ACCESS_REPORT_RULE,
        tags,
        params: [orgParam],
        responses: [{ status: 200, description: "Access report", body: named("AccessReport", "output", accessReport) }],
        errors: [400, 401, 404],
        auth: "required",
        handler: async (request) => records.accessReport(callOf(request), kind, key(request)),
      });
      routes.push({
        method: "GET",
        path: `/org/{org}/${kind}/-schema/permissions`,
        operationId: `get${Name}Permissions`,
        summary: `Permissions of ${kind}`,
        tags,
        params: [orgParam],
        responses: [
          { status: 200, description: "Catalog", body: named("PermissionSchema", "output", permissionSchema) },
        ],
        errors: [400, 401, 404],
        auth: "required",
        handler: async (request) => records.permissions(callOf(request), kind),
      });
      routes.push(...endpointRoutes(records, kind, { item: "/org/{org}", itemParams: [orgParam], key }));
      continue;
    }

    const scopeParams = info.scope === "gvc" ? [orgParam, gvcParam] : [orgParam];
    const base = info.scope === "gvc" ? `/org/{org}/gvc/{gvc}/${kind}` : `/org/{org}/${kind}`;
    const itemP = itemParam(kind);
    const item = `${base}/{${itemP.name}}`;
    const createdHere: CreatedObject = { collection: base, field: info.addressing.field };
    const itemParams = [...scopeParams, itemP];
    const key = (request: FastifyRequest) => paramsOf(request)[itemP.name] ?? "";

    routes.push({
      method: "GET",
      path: base,
      operationId: `list${Name}`,
      summary: `List ${kind} objects the caller may view (paged: follow links[rel=next])`,
      tags,
      params: scopeParams,
      query: [listCursorQuery],
      responses: [
        { status: 200, description: "List", body: named(`${Name}List`, "output", () => listResponse(recordSchema())) },
      ],
      errors: [400, 401, 404],
      auth: "required",
      handler: async (request) => records.list(callOf(request), kind, cursorOf(request)),
    });
    const createBody = info.schemas.create;
    if (createBody) {
      const manifest: NamedSchema = {
        name: `${Name}Create`,
        io: "input",
        build: () => manifestOf(jsonSchemaOf(createBody(), "input"), kind, info.scope === "gvc"),
      };
      routes.push({
        method: "POST",
        path: base,
        operationId: `create${Name}`,
        summary: `Create a ${kind}`,
        ...(info.anonymousCreate
          ? { description: "Credentials are optional: an anonymous caller has no grants and gets 403." }
          : {}),
        tags,
        params: scopeParams,
        body: manifest,
        responses: [created(record, createdHere)],
        errors: [400, 401, 403, 404, 409, 413, 415, 429],
        auth: info.anonymousCreate ? "optional" : "required",
        handler: async (request, reply) => {
          const { record: doc, location } = await records.create(callOf(request), kind, request.body);
          return reply.code(201).header("location", location).send(doc);
        },
      });
    }
    // PUT to the collection (what `cpln apply` sends) for every kind: it replaces the object the body names, and
    // creates it where the kind has a create.
    const applyBody: NamedSchema = createBody
      ? {
          name: `${Name}Create`,
          io: "input",
          build: () => manifestOf(jsonSchemaOf(createBody(), "input"), kind, info.scope === "gvc"),
        }
      : keyedPutBody;
    routes.push({
      method: "PUT",
      path: base,
      operationId: `apply${Name}`,
      summary: createBody
        ? `Create or replace the ${kind} the body names (what \`cpln apply\` sends)`
        : `Replace the ${kind} the body names (what \`cpln apply\` sends; ${kind} objects are not created through the API)`,
      description:
        "Creates the object (201 + Location) or replaces its writable fields (200), with the checks of a create or " +
        "of a PUT to the object. Read-only fields are accepted and ignored; `version`, when given, must be current.",
      tags,
      params: scopeParams,
      body: applyBody,
      rules: writeRules(records, kind, "PUT"),
      responses: createBody
        ? [{ status: 200, description: "Replaced", body: record }, created(record, createdHere)]
        : [{ status: 200, description: "Replaced", body: record }],
      errors: [400, 401, 403, 404, 409, 413, 415, ...(createBody ? [429] : [])],
      auth: info.anonymousCreate ? "optional" : "required",
      handler: async (request, reply) => {
        const result = await records.upsert(callOf(request), kind, request.body);
        if (result.created) return reply.code(201).header("location", result.location).send(result.record);
        return reply.code(200).send(result.record);
      },
    });
    routes.push(...collectionReads(records, kind, base, scopeParams, ""));
    // gvc-scoped kinds are also queried across every gvc, and their catalog read, at the org level (the CLI does).
    if (info.scope === "gvc") routes.push(...collectionReads(records, kind, `/org/{org}/${kind}`, [orgParam], "InOrg"));
    routes.push({
      method: "GET",
      path: item,
      operationId: `get${Name}`,
      summary: `Get a ${kind}`,
      tags,
      params: itemParams,
      responses: [{ status: 200, description: "The object", body: record }],
      errors: [400, 401, 404],
      auth: "required",
      handler: async (request) => records.get(callOf(request), kind, key(request)),
    });
    routes.push({
      method: "PATCH",
      path: item,
      operationId: `patch${Name}`,
      summary: `Patch a ${kind}`,
      description: patchDescription,
      tags,
      params: itemParams,
      body: patchBody,
      rules: writeRules(records, kind, "PATCH"),
      responses: [{ status: 200, description: "The object", body: record }],
      errors: [400, 401, 403, 404, 409, 413, 415, 429],
      auth: "required",
      handler: async (request) => records.patch(patchCallOf(request), kind, key(request), request.body),
    });
    routes.push({
      method: "PUT",
      path: item,
      operationId: `replace${Name}`,
      summary: `Replace a ${kind} (fields left out are removed)`,
      tags,
      params: itemParams,
      body: putBody,
      rules: writeRules(records, kind, "PUT"),
      responses: [{ status: 200, description: "The object", body: record }],
      errors: [400, 401, 403, 404, 409, 413, 415, 429],
      auth: "required",
      handler: async (request) => records.put(callOf(request), kind, key(request), request.body),
    });
    routes.push({
      method: "DELETE",
      path: item,
      operationId: `delete${Name}`,
      summary: info.deletable === false ? `Refuses to delete a ${kind} (they cannot be deleted)` : `Delete a ${kind}`,
      ...(info.deletable === false
        ? { description: `No ${kind} can be deleted: the answer is 403 for an object the caller can view, else 404.` }
        : {}),
      tags,
      params: itemParams,
      responses: info.deletable === false ? [] : [{ status: DELETED, description: "Deleted (no body)" }],
      errors: info.deletable === false ? [400, 401, 403, 404] : [400, 401, 403, 404, 409],
      auth: "required",
      handler: async (request, reply) => {
        await records.delete(callOf(request), kind, key(request));
        return reply.code(DELETED).send();
      },
    });
    routes.push({
      method: "GET",
      path: `${item}/-accessreport`,
      operationId: `get${Name}AccessReport`,
      summary: `Who may act on a ${kind}`,
      description: ACCESS_REPORT_RULE,
      tags,
      params: itemParams,
      responses: [{ status: 200, description: "Access report", body: named("AccessReport", "output", accessReport) }],
      errors: [400, 401, 404],
      auth: "required",
      handler: async (request) => records.accessReport(callOf(request), kind, key(request)),
    });
    routes.push(...endpointRoutes(records, kind, { item, itemParams, key, base, scopeParams }));
    // The server implements each action of the contract (checked when its rules are assembled).
    for (const [action, spec] of Object.entries(info.actions ?? {})) {
      routes.push({
        method: "POST",
        path: `${item}/-${action}`,
        operationId: `${action}${Name}`,
        summary: spec.summary,
        ...(spec.description !== undefined ? { description: spec.description } : {}),
        tags,
        params: itemParams,
        body: named(spec.request.name, "input", spec.request.schema),
        // No body is the empty body: optional exactly when the action's schema accepts `{}`.
        bodyOptional: spec.request.schema().safeParse({}).success,
        ...(spec.rules ? { rules: spec.rules } : {}),
        responses: [
          {
            status: 200,
            description: spec.response.description,
            body: named(spec.response.name, "output", spec.response.schema),
          },
        ],
        errors: [...new Set([400, 401, 403, 404, 413, 415, 429, ...(spec.errors ?? [])])].sort((a, b) => a - b),
        auth: "required",
        handler: async (request, reply) => {
          const result = await records.action(callOf(request), kind, key(request), action, request.body);
          return reply.code(result.status).send(result.body);
        },
      });
    }
  }
  // Every body but a query's is checked for links into another org (RecordService: create, write, action, endpoint);
  // the reveal-only fields of the kind's write bodies stay out of request logs.
  return routes.map((route) => {
    if (!route.body || /^(query|continueQuery)/.test(route.operationId)) return route;
    const redact = revealOnlyBodyFields(route.tags[0] as Kind);
    return {
      ...route,
      rules: [...(route.rules ?? []), orgLinkRule],
      ...(redact.length > 0 ? { redactBody: redact } : {}),
    };
  });
}

/**
 * The parameters of the kinds' routes (org, gvc, the object's name or id, list and query cursors) and how a handler
 * reads them from a request (`callOf`, `keyOf`-style readers).
 */
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { kinds, type Kind } from "../../api/kinds/index.js";
import { name as nameSchema } from "../../api/schemas/common.js";
import { queryDocument } from "../../api/schemas/query.js";
import type { Call } from "../domain/records.js";
import { LIST_CURSOR_PATTERN, MAX_LIST_CURSOR, MAX_POSITION_TEXT, MAX_QUERY_CURSOR } from "../domain/paging.js";
import { badRequest } from "../errors.js";
import { jsonSchemaOf, named, type JsonSchema, type QueryParam, type RouteParam } from "./route.js";

export function paramsOf(request: FastifyRequest): Record<string, string> {
  return request.params as Record<string, string>;
}

export function callOf(request: FastifyRequest): Call {
  const params = paramsOf(request);
  return { org: params["org"] ?? "", gvc: params["gvc"], principal: request.principal };
}

/** A PATCH's call: request inspection keeps the object as the patch found it, read inside its transaction. */
export function patchCallOf(request: FastifyRequest): Call {
  const call = callOf(request);
  call.onPatched = (previous) => (request.recordBefore = previous);
  return call;
}

export function cursorOf(request: FastifyRequest): string | undefined {
  const cursor = (request.query as { cursor?: unknown } | undefined)?.cursor;
  return typeof cursor === "string" ? cursor : undefined;
}

/** A list's cursor: a position, so every value of the documented pattern is accepted. */
export const listCursorQuery: QueryParam = {
  name: "cursor",
  required: false,
  description:
    "Continues a list: take the whole URL from the previous page's `next` link. The value names a position in " +
    "storage order (the page starts after it); every value of the pattern is one.",
  schema: () => ({ type: "string", maxLength: MAX_LIST_CURSOR, pattern: LIST_CURSOR_PATTERN.source }),
};

/** A query's cursor: the query and the position the page starts after, as JSON the document describes. */
export const queryCursorQuery: QueryParam = {
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
export function requiredCursor(request: FastifyRequest): string {
  const cursor = cursorOf(request);
  if (cursor === undefined) {
    throw badRequest([{ path: "cursor", message: "is required (take the URL from a next link, or POST the query)" }]);
  }
  return cursor;
}

export const orgParam: RouteParam = {
  name: "org",
  description: "Name of the org.",
  schema: () => jsonSchemaOf(nameSchema(), "input"),
};

export const gvcParam: RouteParam = {
  name: "gvc",
  description: "Name of the gvc holding the object.",
  schema: () => jsonSchemaOf(nameSchema(), "input"),
};

/** The path parameter naming one object of `kind`: its name (or name field, e.g. a user's email) or its id. */
export function itemParam(kind: Kind): RouteParam {
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

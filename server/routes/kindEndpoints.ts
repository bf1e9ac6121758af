/**
 * The operations a kind declares beyond the generic ones: its endpoints (`KindDescriptor.endpoints`, which change no
 * object) and its actions (`POST .../{name}/-<action>`), one route per declaration.
 */
import type { z } from "zod";
import type { JsonSchema, Route } from "./route.js";
import { jsonSchemaOf, named } from "./route.js";
import { callOf } from "./params.js";
import type { KindPlace } from "./operations.js";

const pascal = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** The JSON Schema of a free path parameter: its declared rule, or any text. */
function freeSchema(rule: (() => z.ZodType) | undefined): JsonSchema {
  if (rule === undefined) return { type: "string" };
  const schema = { ...jsonSchemaOf(rule(), "input") };
  delete schema["description"];
  return schema;
}

/**
 * The routes of a kind's endpoints (`KindDescriptor.endpoints`): GET or POST, on an object or on the collection. An
 * endpoint with a path parameter is served as one path per value (`-instructions/aws`, `-instructions/gcp`, ...): a
 * `{param}` there would make the path ambiguous with the object's own `{name}/-<endpoint>` paths.
 */
export function endpointRoutes(k: KindPlace): Route[] {
  const { kind, Name, records } = k;
  const routes: Route[] = [];
  for (const [name, spec] of Object.entries(k.info.endpoints ?? {})) {
    const onItem = spec.on === "item";
    if (!onItem && k.collection === undefined) throw new Error(`${kind} has no collection for -${name}`);
    const request = spec.request;
    // A parameter without fixed values is one `{param}` path parameter (its value read from the request).
    const free = spec.param !== undefined && spec.param.values === undefined ? spec.param : undefined;
    const values: readonly (string | undefined)[] = spec.param?.values ?? [free ? `{${free.name}}` : undefined];
    const segment = spec.segment ?? `-${name}`;
    const params = [
      ...(onItem ? k.itemParams : (k.collection?.params ?? [])),
      ...(free ? [{ name: free.name, description: free.description, schema: () => freeSchema(free.schema) }] : []),
    ];
    for (const value of values) {
      const path = `${onItem ? k.item : String(k.collection?.path)}/${segment}${value === undefined ? "" : `/${value}`}`;
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
          const answer = await records.endpoint(callOf(req), kind, onItem ? k.key(req) : undefined, name, {
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

/** The routes of a kind's actions; the server implements each action of the contract (checked by `rulesOf`). */
export function actionRoutes(k: KindPlace): Route[] {
  return Object.entries(k.info.actions ?? {}).map(([action, spec]) => ({
    method: "POST",
    path: `${k.item}/-${action}`,
    operationId: `${action}${k.Name}`,
    summary: spec.summary,
    ...(spec.description !== undefined ? { description: spec.description } : {}),
    tags: k.tags,
    params: k.itemParams,
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
      const result = await k.records.action(callOf(request), k.kind, k.key(request), action, request.body);
      return reply.code(result.status).send(result.body);
    },
  }));
}

import { z } from "zod";
import { apiError } from "../api/errors.js";
import { kindNames, kinds, type Kind } from "../api/kinds.js";
import { accessReport } from "../api/schemas/accessReport.js";
import { kindSchemas } from "../api/schemas/byKind.js";
import { listResponse } from "../api/schemas/common.js";
import { mk8sJoinRequest, mk8sJoinResponse } from "../api/schemas/mk8s.js";
import { permissionSchema } from "../api/schemas/permissions.js";
import { queryDocument, queryResult } from "../api/schemas/query.js";
import { serviceAccountKey, serviceAccountKeyCreate } from "../api/schemas/serviceAccount.js";
import { addLocalPaths } from "./openapi-local.js";

type JsonSchema = Record<string, unknown>;

function toSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;
  delete json["$schema"];
  return json;
}

function ref(name: string) {
  return { $ref: `#/components/schemas/${name}` };
}

function jsonBody(name: string) {
  return { required: true, content: { "application/json": { schema: ref(name) } } };
}

function response(description: string, name?: string, headers?: Record<string, unknown>) {
  const out: Record<string, unknown> = { description };
  if (name !== undefined) out["content"] = { "application/json": { schema: ref(name) } };
  if (headers) out["headers"] = headers;
  return out;
}

const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), response(`Error (${s})`, "ApiError")]));

const pascal = (kind: Kind) => kind.charAt(0).toUpperCase() + kind.slice(1);

/** The OpenAPI 3.1 document of the service, generated from the contract's zod schemas. */
export function buildOpenApi(version: string): JsonSchema {
  const schemas: Record<string, JsonSchema> = {
    ApiError: toSchema(apiError(), "output"),
    QueryDocument: toSchema(queryDocument(), "input"),
    PermissionSchema: toSchema(permissionSchema(), "output"),
    AccessReport: toSchema(accessReport(), "output"),
    JoinRequest: toSchema(mk8sJoinRequest(), "input"),
    JoinResponse: toSchema(mk8sJoinResponse(), "output"),
    ServiceAccountKeyCreate: toSchema(serviceAccountKeyCreate(), "input"),
    ServiceAccountKey: toSchema(serviceAccountKey(), "output"),
  };
  const paths: Record<string, Record<string, unknown>> = {};
  const add = (path: string, method: string, operation: Record<string, unknown>) => {
    paths[path] = { ...(paths[path] ?? {}), [method]: { ...operation, security: [{ apiKey: [] }, { bearer: [] }] } };
  };
  for (const kind of kindNames) {
    const name = pascal(kind);
    const s = kindSchemas[kind];
    schemas[name] = toSchema(s.record(), "output");
    schemas[`${name}List`] = toSchema(listResponse(s.record()), "output");
    schemas[`${name}QueryResult`] = toSchema(queryResult(s.record()), "output");
    schemas[`${name}Patch`] = toSchema(s.patch(), "input");
    if (s.create) schemas[`${name}Create`] = toSchema(s.create(), "input");
    const tags = [kind];
    if (kind === "org") {
      add("/org", "get", {
        tags,
        summary: "List orgs",
        responses: { "200": response("Orgs", `${name}List`), ...errorResponses(401) },
      });
      add("/org/{org}", "get", {
        tags,
        summary: "Get the org",
        responses: { "200": response("The org", name), ...errorResponses(401, 404) },
      });
      add("/org/{org}", "patch", {
        tags,
        summary: "Patch the org",
        requestBody: jsonBody(`${name}Patch`),
        responses: { "200": response("The org", name), ...errorResponses(400, 401, 403, 404, 409) },
      });
      continue;
    }
    const base = kinds[kind].scope === "gvc" ? `/org/{org}/gvc/{gvc}/${kind}` : `/org/{org}/${kind}`;
    const item = `${base}/{${kind === "quota" ? "id" : "name"}}`;
    add(base, "get", {
      tags,
      summary: `List ${kind} objects`,
      responses: { "200": response("List", `${name}List`), ...errorResponses(401, 404) },
    });
    if (s.create) {
      add(base, "post", {
        tags,
        summary: `Create a ${kind}`,
        requestBody: jsonBody(`${name}Create`),
        responses: {
          "201": response("Created", name, {
            Location: { description: "Path of the new object", schema: { type: "string" } },
          }),
          ...errorResponses(400, 401, 403, 404, 409, 429),
        },
      });
    }
    add(`${base}/-query`, "post", {
      tags,
      summary: `Query ${kind} objects`,
      requestBody: jsonBody("QueryDocument"),
      responses: { "200": response("Matches", `${name}QueryResult`), ...errorResponses(400, 401, 404) },
    });
    add(`${base}/-schema/permissions`, "get", {
      tags,
      summary: `Permissions of ${kind}`,
      responses: { "200": response("Catalog", "PermissionSchema"), ...errorResponses(401, 404) },
    });
    add(item, "get", {
      tags,
      summary: `Get a ${kind}`,
      responses: { "200": response("The object", name), ...errorResponses(401, 404) },
    });
    add(item, "patch", {
      tags,
      summary: `Patch a ${kind}`,
      requestBody: jsonBody(`${name}Patch`),
      responses: { "200": response("The object", name), ...errorResponses(400, 401, 403, 404, 409) },
    });
    add(item, "put", {
      tags,
      summary: `Replace a ${kind} (fields left out are removed; read-only fields may be echoed)`,
      requestBody: jsonBody(name),
      responses: { "200": response("The object", name), ...errorResponses(400, 401, 403, 404, 409) },
    });
    add(item, "delete", {
      tags,
      summary: `Delete a ${kind}`,
      responses: { "204": response("Deleted"), ...errorResponses(401, 403, 404, 409) },
    });
    add(`${item}/-accessreport`, "get", {
      tags,
      summary: `Who may act on a ${kind}`,
      responses: { "200": response("Access report", "AccessReport"), ...errorResponses(401, 404) },
    });
  }
  add("/org/{org}/mk8s/{name}/-join", "post", {
    tags: ["mk8s"],
    summary: "Get a node join script (generic and hetzner clusters)",
    requestBody: jsonBody("JoinRequest"),
    responses: { "200": response("Join script (secret)", "JoinResponse"), ...errorResponses(400, 401, 403, 404) },
  });
  add("/org/{org}/serviceaccount/{name}/-addKey", "post", {
    tags: ["serviceaccount"],
    summary: "Add a key (returned once)",
    requestBody: jsonBody("ServiceAccountKeyCreate"),
    responses: { "200": response("The new key", "ServiceAccountKey"), ...errorResponses(400, 401, 403, 404) },
  });
  addLocalPaths(paths, add, schemas);
  paths["/about"] = {
    get: { summary: "About this server", security: [], responses: { "200": { description: "Name and version" } } },
  };
  return {
    openapi: "3.1.0",
    info: { title: "cpln-local: Control Plane organization API", version },
    paths,
    components: {
      schemas,
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "Authorization", description: "A service-account key" },
        bearer: { type: "http", scheme: "bearer", description: "A service-account key or a JWT" },
      },
    },
  };
}

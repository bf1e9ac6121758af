import { kindNames } from "../api/kinds/index.js";
import { documentedRules } from "../api/schemas/jsonRules.js";
import { errorSchema, type CreatedObject, type JsonSchema, type NamedSchema, type Route } from "./routes/route.js";

/** Every body is parsed with this rule (server/json.ts): said once per operation that takes a body. */
const reservedKeys = {
  rule: "The keys __proto__ (anywhere) and prototype inside a constructor object are reserved.",
  issue: /^the key "(__proto__|constructor\.prototype)" is reserved \(it could alter object prototypes\)$/,
};

function ref(name: string) {
  return { $ref: `#/components/schemas/${name}` };
}

const errorDescriptions: Readonly<Record<number, string>> = {
  400: "Bad request: invalid body, path segment or query (details.issues names each field and rule)",
  401: "Missing or invalid credentials",
  403: "Not allowed",
  404: "Not found (also: exists, but the caller may not view it)",
  409: "Conflict: already exists, stale version, or in use",
  413: "The request body is larger than 1 MiB",
  415: "Unsupported content type: send application/json",
  429: "A quota would be exceeded",
  431: "The request line and headers are larger than 16 KiB (a query cursor carries its query: POST a long query)",
};

/** Tags that are not kinds. */
const tagDescriptions: Readonly<Record<string, string>> = {
  meta: "About this server and its API document",
  "cpln-local":
    "The emulator's own endpoints (health, reset, state export/import, request inspection): admin key only. " +
    "They change or replace a whole org: the `x-cpln-local-admin` extension marks them for tools that drive the API.",
};

const apiKeyOrBearer = [{ apiKey: [] }, { bearer: [] }];

/** The `security` of an operation: omitted when it is the document's default (credentials required). */
function securityOf(route: Route): Record<string, unknown> {
  switch (route.auth) {
    case "required":
      return {};
    case "optional":
      // The API document's "empty" alternative: anonymous callers may try (and have no grants).
      return { security: [{}, ...apiKeyOrBearer] };
    case "none":
      return { security: [] };
  }
}

/** The component a free-form value of a request body refers to, by the keys its objects may hold. */
const jsonValueName = { any: "JsonValue", patch: "JsonPatchValue" } as const;

/** The names an object key may not take: the reserved `__proto__` (server/json.ts), and in PATCH/PUT bodies `$...`. */
function forbiddenKeys(keys: "any" | "patch"): JsonSchema {
  return keys === "patch" ? { anyOf: [{ const: "__proto__" }, { pattern: "^\\$" }] } : { const: "__proto__" };
}

/** Any JSON value whose objects (at every depth) hold no forbidden key. */
function jsonValueSchema(keys: "any" | "patch"): JsonSchema {
  const self = ref(jsonValueName[keys]);
  return {
    description:
      keys === "patch"
        ? "Any JSON value; no object in it may hold the key __proto__ or a key starting with '$' (directives)."
        : "Any JSON value; no object in it may hold the key __proto__ (reserved).",
    anyOf: [
      { type: ["null", "boolean", "number", "string"] },
      { type: "array", items: self },
      { type: "object", propertyNames: { not: forbiddenKeys(keys) }, additionalProperties: self },
    ],
  };
}

/** Keywords that only annotate: a schema of nothing else accepts any value. */
const annotations = new Set(["description", "title", "examples", "default", "deprecated"]);

/**
 * A request body's schema as the server parses bodies: every object that admits keys it does not name (free-form
 * maps, loose objects) refuses the forbidden keys, and every value that may be anything (`{}`) is a JSON value
 * without them at any depth. Stated in JSON Schema so that tools generating requests from the document (Schemathesis)
 * send no body the server refuses for its keys, and know such a body for invalid.
 */
function restrictKeys(schema: JsonSchema, keys: "any" | "patch"): JsonSchema {
  const walk = (node: unknown, inValue: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, inValue));
    if (typeof node !== "object" || node === null) return node;
    const object = node as JsonSchema;
    if (inValue && Object.keys(object).every((k) => annotations.has(k))) {
      return { ...object, ...ref(jsonValueName[keys]) };
    }
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(object)) {
      switch (key) {
        // Keywords whose value is one schema.
        case "items":
        case "additionalProperties":
        case "not":
        case "if":
        case "then":
        case "else":
        case "contains":
          out[key] = typeof value === "object" && value !== null && !Array.isArray(value) ? walk(value, true) : value;
          break;
        // Keywords whose value is a list of schemas.
        case "anyOf":
        case "oneOf":
        case "allOf":
        case "prefixItems":
          out[key] = Array.isArray(value) ? value.map((v) => walk(v, true)) : value;
          break;
        // Keywords whose value maps names to schemas.
        case "properties":
        case "patternProperties":
        case "$defs":
        case "dependentSchemas": {
          const map: Record<string, unknown> = {};
          for (const [name, sub] of Object.entries(value as Record<string, unknown>)) map[name] = walk(sub, true);
          out[key] = map;
          break;
        }
        default:
          out[key] = value;
      }
    }
    const open = out["type"] === "object" && out["additionalProperties"] !== false;
    if (open) {
      const names = out["propertyNames"] as JsonSchema | undefined;
      out["propertyNames"] =
        names === undefined
          ? { not: forbiddenKeys(keys) }
          : names["not"] === undefined
            ? { ...names, not: forbiddenKeys(keys) }
            : { allOf: [names, { not: forbiddenKeys(keys) }] };
      // An object with no word on other keys admits any value under them.
      if (out["additionalProperties"] === undefined && out["unevaluatedProperties"] === undefined) {
        out["additionalProperties"] = ref(jsonValueName[keys]);
      }
    }
    return out;
  };
  return walk(schema, false) as JsonSchema;
}

/**
 * The OpenAPI links of an answer that creates an object: every operation on the object (`<collection>/{p}`) and under
 * it (`<collection>/{p}/...`, a gvc's objects) whose other path parameters the creating request names. The created
 * object is named by the answer's field (its name, not its id), the rest by the request's own parameters.
 */
function linksOf(creator: Route, created: CreatedObject, routes: readonly Route[]): Record<string, unknown> {
  const prefix = `${created.collection}/{`;
  const given = new Set(creator.params.map((p) => p.name));
  const links: Record<string, unknown> = {};
  for (const target of routes) {
    if (!target.path.startsWith(prefix)) continue;
    const param = target.path.slice(prefix.length).split("}", 1)[0] ?? "";
    const parameters: Record<string, string> = {};
    for (const { name } of target.params) {
      if (name === param) parameters[name] = `$response.body#/${created.field}`;
      else if (given.has(name)) parameters[name] = `$request.path.${name}`;
      else break;
    }
    if (Object.keys(parameters).length !== target.params.length) continue;
    links[target.operationId] = { operationId: target.operationId, parameters };
  }
  return links;
}

/**
 * The org segment of a full link as the contract's link patterns write it: `(//|/org/[^/]+/)group/[^/]+`, or with
 * escaped slashes (`\/org\/[^/]+`) where the pattern came from a regular-expression literal.
 */
const ANY_ORG = /\\?\/org\\?\/\[\^\/\]\+/g;

/**
 * A request schema whose link patterns name `org` where the contract's name any org: a body's full links must name
 * the request's org (server/domain/orgLinks.ts), and this server serves one org, so the document can say which.
 * One pattern per link, no intersection for a generator to filter.
 */
function linksInOrg(schema: JsonSchema, org: string): JsonSchema {
  const literal = `/org/${org.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`;
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      out[key] = key === "pattern" && typeof child === "string" ? child.replace(ANY_ORG, () => literal) : walk(child);
    }
    return out;
  };
  return walk(schema) as JsonSchema;
}

/**
 * The OpenAPI 3.1 document of the served routes: one operation per route, with its path parameters, request body,
 * responses and security, and the schemas the routes name (generated from the contract's zod schemas).
 */
export function buildOpenApi(routes: readonly Route[], version: string, serverUrl: string, org?: string): JsonSchema {
  const named = new Map<string, NamedSchema>();
  const use = (schema: NamedSchema) => {
    const known = named.get(schema.name);
    if (known !== undefined && known.io !== schema.io) {
      throw new Error(`Schema ${schema.name} is used both as input and as output`);
    }
    named.set(schema.name, schema);
    return ref(schema.name);
  };
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  for (const route of routes) {
    for (const tag of route.tags) tags.add(tag);
    const responses: Record<string, unknown> = {};
    for (const response of route.responses) {
      responses[String(response.status)] = {
        description: response.description,
        ...(response.headers ? { headers: response.headers } : {}),
        ...(response.body ? { content: { "application/json": { schema: use(response.body) } } } : {}),
        ...(response.creates ? { links: linksOf(route, response.creates, routes) } : {}),
      };
    }
    for (const status of route.errors) {
      responses[String(status)] = {
        description: errorDescriptions[status] ?? `Error ${status}`,
        content: { "application/json": { schema: use(errorSchema()) } },
      };
    }
    const operation: Record<string, unknown> = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description !== undefined ? { description: route.description } : {}),
      tags: [...route.tags],
      ...(route.params.length + (route.query ?? []).length > 0
        ? {
            parameters: [
              ...route.params.map((p) => ({
                name: p.name,
                in: "path",
                required: true,
                description: p.description,
                schema: p.schema(),
              })),
              ...(route.query ?? []).map((p) => ({
                name: p.name,
                in: "query",
                required: p.required,
                description: p.description,
                ...(p.json ? { content: { "application/json": { schema: use(p.json) } } } : { schema: p.schema() }),
              })),
            ],
          }
        : {}),
      ...(route.body
        ? {
            requestBody: {
              required: route.bodyOptional !== true,
              content: { "application/json": { schema: use(route.body) } },
            },
          }
        : {}),
      responses,
      ...securityOf(route),
      ...(route.body || (route.rules ?? []).length > 0
        ? documentedRules([...(route.body ? [reservedKeys] : []), ...(route.rules ?? [])])
        : {}),
      ...(route.emulator ? { "x-cpln-local-admin": true } : {}),
    };
    paths[route.path] = { ...(paths[route.path] ?? {}), [route.method.toLowerCase()]: operation };
  }
  const schemas: Record<string, JsonSchema> = {};
  const keyRules = new Set<"any" | "patch">();
  for (const [name, schema] of [...named].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const built = schema.build();
    if (schema.io === "input") {
      const keys = schema.keys ?? "any";
      keyRules.add(keys);
      const restricted = restrictKeys(built, keys);
      schemas[name] = org === undefined ? restricted : linksInOrg(restricted, org);
    } else schemas[name] = built;
  }
  for (const keys of keyRules) schemas[jsonValueName[keys]] = jsonValueSchema(keys);
  const kindTags = new Set<string>(kindNames);
  return {
    openapi: "3.1.0",
    info: {
      title: "cpln-local: Control Plane organization API",
      version,
      description:
        "The organization API of Control Plane as served by cpln-local. Errors always have the shape " +
        "`{status, message, code, details?, id}`. A request to a known path with a method the path does not serve " +
        "answers 405 MethodNotAllowed with an `Allow` header; an unknown path answers 404. Bodies are JSON " +
        "(415 otherwise), at most 1 MiB (413 otherwise).",
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    },
    servers: [{ url: serverUrl, description: "This server" }],
    security: apiKeyOrBearer,
    tags: [...tags].map((tag) => ({
      name: tag,
      description: kindTags.has(tag) ? `Objects of kind ${tag}` : (tagDescriptions[tag] ?? tag),
    })),
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

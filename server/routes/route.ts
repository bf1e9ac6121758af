/**
 * What a served operation is: a `Route` (method, path template, parameters, body, answers, errors, handler). The
 * fastify registration (register.ts) and `GET /openapi.json` (server/openapi.ts) are both generated from a list of
 * these; the kinds' routes come from operation templates (operations.ts) applied to each kind (table.ts).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { apiError } from "../../api/errors.js";
import { addCrossFieldRules, type DocumentedRule } from "../../api/schemas/jsonRules.js";
import type { AuthMode } from "../app.js";

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

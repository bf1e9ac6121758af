import { METHODS } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { announcesBody } from "../requestHooks.js";
import { ErrorCode } from "../../api/errors.js";
import { ApiFailure } from "../errors.js";
import { httpMethods, type HttpMethod, type Route } from "./route.js";

/** `/org/{org}/policy/{name}` → `/org/:org/policy/:name`. */
export function fastifyPath(template: string): string {
  return template.replace(/\{([^}]+)\}/g, ":$1");
}

/** A route's gate as an onRequest hook: a refusal closes the connection instead of draining an announced body. */
function gateHook(gate: (request: FastifyRequest) => Promise<void>) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      await gate(request);
    } catch (error) {
      if (announcesBody(request)) void reply.header("connection", "close");
      throw error;
    }
  };
}

/**
 * Registers every route of the table, then answers the methods a known path does not serve with 405 and an `Allow`
 * header (those handlers carry `config.methodNotAllowed`). Paths no route knows stay 404.
 */
export function registerRoutes(app: FastifyInstance, routes: readonly Route[]): void {
  const served = new Map<string, { template: string; methods: Set<HttpMethod> }>();
  for (const route of routes) {
    const url = fastifyPath(route.path);
    app.route({
      method: route.method,
      url,
      config: {
        auth: route.auth,
        ...(route.noFaults ? { noFaults: true } : {}),
        ...(route.emulator ? { emulator: true } : {}),
        ...(route.redactBody ? { redactBody: route.redactBody } : {}),
      },
      ...(route.gate ? { onRequest: gateHook(route.gate) } : {}),
      ...(route.bodyLimit === undefined ? {} : { bodyLimit: route.bodyLimit }),
      handler: route.handler,
    });
    const entry = served.get(url) ?? { template: route.path, methods: new Set<HttpMethod>() };
    entry.methods.add(route.method);
    served.set(url, entry);
  }
  // Every method Node parses (but CONNECT, which never reaches a route) gets its 405 on a known path: QUERY,
  // TRACE, PROPFIND, OPTIONS (there is no CORS)... Methods fastify does not know are registered bodyless, so a 405
  // never waits for a body.
  const everyMethod = METHODS.filter((m) => m !== "CONNECT");
  for (const method of everyMethod) {
    if ((httpMethods as readonly string[]).includes(method) || method === "HEAD") continue;
    // Bodyless even where fastify would read a body (QUERY): these methods only ever get their 405.
    app.addHttpMethod(method, { hasBody: false, overrideExisting: app.supportedMethods.includes(method) });
  }
  for (const [url, { template, methods }] of served) {
    const implicit = methods.has("GET") ? ["HEAD"] : [];
    const missing = everyMethod.filter((m) => !methods.has(m as HttpMethod) && !implicit.includes(m));
    if (missing.length === 0) continue;
    const allowed = httpMethods.filter((m) => methods.has(m));
    const allow = [...allowed, ...implicit].join(", ");
    app.route({
      method: missing,
      url,
      config: { auth: "none", noFaults: true, methodNotAllowed: true },
      handler: async (request) => {
        throw new ApiFailure(
          ErrorCode.MethodNotAllowed,
          `${request.method} is not allowed on ${template} (allowed: ${allow})`,
          undefined,
          { allow },
        );
      },
    });
  }
}

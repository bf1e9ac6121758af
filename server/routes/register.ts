import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { announcesBody } from "../app.js";
import { ErrorCode } from "../../api/errors.js";
import { ApiFailure } from "../errors.js";
import { httpMethods, type HttpMethod, type Route } from "./table.js";

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
      },
      ...(route.gate ? { onRequest: gateHook(route.gate) } : {}),
      ...(route.bodyLimit === undefined ? {} : { bodyLimit: route.bodyLimit }),
      handler: route.handler,
    });
    const entry = served.get(url) ?? { template: route.path, methods: new Set<HttpMethod>() };
    entry.methods.add(route.method);
    served.set(url, entry);
  }
  for (const [url, { template, methods }] of served) {
    const missing = httpMethods.filter((m) => !methods.has(m));
    if (missing.length === 0) continue;
    const allowed = httpMethods.filter((m) => methods.has(m));
    const allow = [...allowed, ...(methods.has("GET") ? ["HEAD"] : [])].join(", ");
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

// Every method on every known path: the methods a path serves answer as routes; any other method Node parses
// (QUERY, TRACE, PROPFIND, OPTIONS without CORS, ...) is a 405 with an Allow header listing what the path serves.
import { METHODS } from "node:http";
import type { RouteOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { start } from "./helpers.js";
import { rawRequest } from "./rawhttp.js";

let server: RunningServer;
/** Served methods by URL (fastify's `:param` form), from the route table as registered (405 routes left out). */
const served = new Map<string, Set<string>>();

beforeAll(async () => {
  server = await start({
    onRoute: (route: RouteOptions) => {
      // The 405 answers themselves, and the console's web page (not part of the API), are not API routes.
      if (route.config?.methodNotAllowed || route.config?.page) return;
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const set = served.get(route.url) ?? new Set<string>();
      for (const method of methods) set.add(String(method));
      served.set(route.url, set);
    },
  });
});
afterAll(async () => {
  await server.close();
});

const concrete = (url: string) => url.replace(/:([a-z]+)/gi, "x-$1").replace("x-org", "acme");

describe("405 with Allow on every route of the route table", () => {
  it("answers every unserved method on every known path with 405 and the path's methods in Allow", async () => {
    expect(served.size).toBeGreaterThan(50);
    let checked = 0;
    for (const [url, methods] of served) {
      const own = [...methods].filter((m) => m !== "HEAD");
      for (const method of METHODS) {
        if (method === "CONNECT" || methods.has(method)) continue;
        // light-my-request types only the common methods; it sends any method Node knows.
        const response = await server.app.inject({ method: method as "GET", url: concrete(url) });
        expect(response.statusCode, `${method} ${url}`).toBe(405);
        const allow = String(response.headers["allow"]).split(", ");
        expect(new Set(allow.filter((m) => m !== "HEAD")), `${method} ${url}`).toEqual(new Set(own));
        if (methods.has("GET")) expect(allow).toContain("HEAD");
        if (method !== "HEAD") expect(response.json()).toMatchObject({ status: 405, code: "MethodNotAllowed" });
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(served.size * 25);
  });

  it("QUERY, TRACE, PROPFIND and OPTIONS on a collection over real HTTP are 405 with Allow", async () => {
    for (const method of ["QUERY", "TRACE", "PROPFIND", "OPTIONS"]) {
      const outcome = await rawRequest(server.url, { method, path: "/org/acme/group" });
      expect(outcome.status, method).toBe(405);
      expect(outcome.headers?.["allow"]).toBe("GET, POST, PUT, HEAD");
    }
  });
});

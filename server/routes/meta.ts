import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { FastifyInstance } from "fastify";
import { buildOpenApi } from "../openapi.js";

/** The package version, from the nearest package.json named cpln-pulumi (works from sources and from dist/). */
export function packageVersion(): string {
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "cpln-pulumi") return pkg.version ?? "0.0.0";
    }
    dir = dirname(dir);
  }
  return "0.0.0";
}

/** `GET /about` and `GET /openapi.json`: public, never subject to fault injection. */
export function registerMetaRoutes(app: FastifyInstance, org: string): void {
  const version = packageVersion();
  let openapi: string | undefined;
  app.get("/about", { config: { auth: "none", noFaults: true } }, async () => ({
    name: "cpln-local",
    version,
    org,
    api: "Control Plane organization API",
  }));
  app.get("/openapi.json", { config: { auth: "none" } }, async (_request, reply) => {
    openapi ??= JSON.stringify(buildOpenApi(version));
    return reply.type("application/json").send(openapi);
  });
}

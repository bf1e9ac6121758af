import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import { buildOpenApi } from "../openapi.js";
import { named, type Route } from "./route.js";

/**
 * The package version, from the nearest package.json named cpln-pulumi (a checkout, from sources and from dist/) or
 * cpln-local (the published package, assembled by scripts/release-packages.mjs); both carry the one release version.
 */
export function packageVersion(): string {
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "cpln-pulumi" || pkg.name === "cpln-local") return pkg.version ?? "0.0.0";
    }
    dir = dirname(dir);
  }
  return "0.0.0";
}

const aboutSchema = () =>
  z
    .strictObject({
      name: z.literal("cpln-local").describe("Always 'cpln-local'."),
      version: z.string().describe("Version of the package serving the API."),
      org: z.string().describe("The org seeded at start."),
      api: z.string().describe("Which API this server implements."),
    })
    .describe("What this server is.");

const rootSchema = () =>
  z
    .strictObject({
      name: z.literal("cpln-local").describe("Always 'cpln-local'."),
      about: z.literal("/about").describe("What this server is: name, version, org."),
      openapi: z.literal("/openapi.json").describe("The OpenAPI 3.1 document of every served route."),
      api: z.string().describe("Where the API starts, with the seeded org."),
      auth: z.string().describe("How to authenticate."),
      docs: z.string().describe("Where the server is documented."),
    })
    .describe("Pointers for someone who opened the server's address.");

/**
 * `GET /discovery` as the real API serves it (types-ts `src/interfaces/discovery.ts`): where the other services of
 * the platform are. The official CLI reads it without credentials before its image commands (`endpoints.registry`,
 * `@controlplane/cli` dist/src/session/session.js and commands/image.js). cpln-local runs none of those services: it
 * names only the registry, as a host under `.invalid` (RFC 6761), so nothing resolves it.
 */
const discoverySchema = () =>
  z
    .looseObject({
      endpoints: z
        .looseObject({ registry: z.string().describe("The org's registry ('{org}' stands for the org's name).") })
        .describe("Where the platform's services are."),
    })
    .describe("Where the platform's services are (the CLI reads it before its image commands).");

/** An OpenAPI document is any JSON object; its own schema is the OpenAPI 3.1 specification's. */
const openApiSchema = () =>
  z.looseObject({ openapi: z.string().describe("OpenAPI version (3.1.x).") }).describe("The OpenAPI 3.1 document.");

/**
 * `GET /` (pointers to the rest, so a browser or `curl` on the bare address is not met by a 401), `GET /about`,
 * `GET /discovery` and `GET /openapi.json`: public, never subject to fault injection. `routes` is every served route,
 * this pair included: the document is generated from it.
 */
export function metaRoutes(org: string, routes: () => readonly Route[]): Route[] {
  const version = packageVersion();
  const documents = new Map<string, string>();
  return [
    {
      method: "GET",
      path: "/",
      operationId: "getRoot",
      summary: "Pointers to /about, /openapi.json and the docs",
      tags: ["meta"],
      params: [],
      responses: [{ status: 200, description: "Pointers", body: named("Root", "output", rootSchema) }],
      errors: [],
      auth: "none",
      noFaults: true,
      handler: async () => ({
        name: "cpln-local",
        about: "/about",
        openapi: "/openapi.json",
        api: `/org/${org}`,
        auth: "Authorization: Bearer <key> (the admin key is printed at start, or CPLN_TOKEN)",
        docs: "docs/cpln-local.md in the cpln-pulumi package",
      }),
    },
    {
      method: "GET",
      path: "/about",
      operationId: "getAbout",
      summary: "About this server",
      tags: ["meta"],
      params: [],
      responses: [{ status: 200, description: "Name and version", body: named("About", "output", aboutSchema) }],
      errors: [],
      auth: "none",
      noFaults: true,
      handler: async () => ({ name: "cpln-local", version, org, api: "Control Plane organization API" }),
    },
    {
      method: "GET",
      path: "/discovery",
      operationId: "getDiscovery",
      summary: "Where the platform's services are (only the registry: cpln-local runs no other)",
      tags: ["meta"],
      params: [],
      responses: [{ status: 200, description: "Endpoints", body: named("Discovery", "output", discoverySchema) }],
      errors: [],
      auth: "none",
      noFaults: true,
      handler: async () => ({ endpoints: { registry: "https://{org}.registry.cpln-local.invalid" } }),
    },
    {
      method: "GET",
      path: "/openapi.json",
      operationId: "getOpenApi",
      summary: "This OpenAPI document",
      tags: ["meta"],
      params: [],
      responses: [
        { status: 200, description: "The document", body: named("OpenApiDocument", "output", openApiSchema) },
      ],
      errors: [],
      auth: "none",
      handler: async (request, reply) => {
        // `servers` names the address the caller used, so a tool that fetched the document can drive it as is.
        const origin = `${request.protocol}://${request.host}`;
        let text = documents.get(origin);
        if (text === undefined) {
          text = JSON.stringify(buildOpenApi(routes(), version, origin, org));
          if (documents.size < 16) documents.set(origin, text);
        }
        return reply.type("application/json").send(text);
      },
    },
  ];
}

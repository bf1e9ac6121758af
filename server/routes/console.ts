/**
 * The console: a web page served by cpln-local itself at `/console/`. Its assets are static files built by
 * `npm run build` (scripts/build-console.mjs bundles console/ into dist/console/); they hold no data. The page reads
 * only the API and the emulator endpoints, with the credentials the user signs in with, so it sees exactly what that
 * principal may see.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { FastifyInstance } from "fastify";

export const CONSOLE_PATH = "/console";

/** The built assets, by file name; the only files this route serves (no path from a request reaches the disk). */
const CONTENT_TYPES: Record<string, string> = {
  "index.html": "text/html; charset=utf-8",
  "app.js": "text/javascript; charset=utf-8",
  "app.css": "text/css; charset=utf-8",
  "icon.svg": "image/svg+xml",
};

/** Scripts, styles and requests from this origin only; no frames, no inline code. */
const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

/** dist/console beside dist/server (this file is dist/server/routes/console.js once built). */
export function consoleAssetsDir(): string {
  return path.resolve(__dirname, "..", "..", "console");
}

function loadAssets(dir: string): Map<string, Buffer> | undefined {
  const assets = new Map<string, Buffer>();
  for (const file of Object.keys(CONTENT_TYPES)) {
    try {
      assets.set(file, fs.readFileSync(path.join(dir, file)));
    } catch {
      return undefined;
    }
  }
  return assets;
}

/**
 * `GET /favicon.ico`: 204, no credentials asked and not kept by request inspection. Browsers ask for it unbidden (the
 * console names its own icon, but a browser opening `/about` or `/openapi.json` still asks); without this route it
 * was a red 401 in the console's request log. Served with or without the console.
 */
export function registerFavicon(app: FastifyInstance): void {
  const config = { auth: "none" as const, emulator: true, page: true, noFaults: true };
  app.get("/favicon.ico", { config }, async (_request, reply) =>
    reply.code(204).header("cache-control", "public, max-age=86400").send(),
  );
}

/** Registers `GET /console/` (the page) and its assets; without built assets, `/console/` says how to build them (503). */
export function registerConsole(app: FastifyInstance, dir: string = consoleAssetsDir()): void {
  const assets = loadAssets(dir);
  // `page`: a web page, not an API operation (not in the OpenAPI document); `emulator`: not in the request log.
  const config = { auth: "none" as const, emulator: true, page: true };
  // The router ignores a trailing slash: `/console` and `/console/` are one route. The page's asset URLs are relative
  // (`app.js`), so `/console` (no slash) redirects to `/console/` for them to resolve under it.
  app.get(CONSOLE_PATH, { config }, async (request, reply) =>
    request.url.split("?")[0]!.endsWith("/") ? serve(reply, "index.html") : reply.redirect(`${CONSOLE_PATH}/`, 302),
  );
  app.get(`${CONSOLE_PATH}/:file`, { config }, async (request, reply) => {
    const file = (request.params as { file: string }).file;
    if (!Object.hasOwn(CONTENT_TYPES, file)) {
      return reply
        .code(404)
        .send({ status: 404, code: "NotFound", message: `No console asset ${file}`, id: request.id });
    }
    return serve(reply, file);
  });

  function serve(reply: import("fastify").FastifyReply, file: string) {
    if (!assets) {
      return reply.code(503).send({
        status: 503,
        code: "ServiceUnavailable",
        message: "The console's assets are not built: run `npm run build`",
        id: reply.request.id,
      });
    }
    return reply.headers({ ...SECURITY_HEADERS, "content-type": CONTENT_TYPES[file] }).send(assets.get(file));
  }
}

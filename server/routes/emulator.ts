import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import type { Authenticator } from "../auth/authn.js";
import type { RecordService } from "../domain/records.js";
import { badRequest, forbidden, notFound, unauthorized } from "../errors.js";
import type { RequestLog } from "../inspect.js";
import { checkSeed } from "../seed/file.js";
import { exportOrg, SnapshotError, snapshotKey } from "../seed/snapshot.js";
import { named, type QueryParam, type Route, type RouteParam } from "./route.js";
import { kindNames } from "../../api/kinds/index.js";
import { name as nameSchema } from "../../api/schemas/common.js";
import { jsonSchemaOf } from "./route.js";
import { issuesFromZod } from "../../api/errors.js";
import { selfLink } from "../../api/links.js";
import { image, imagePush } from "../../api/schemas/image.js";
import { nowIso } from "../domain/common.js";
import type { JsonObject } from "../store/store.js";

/**
 * The reserved prefix of the emulator's own endpoints. API paths start with `/org`, `/about` or `/openapi.json`;
 * a path starting with `/_` is never an API path.
 */
export const EMULATOR_PREFIX = "/_cpln-local";

/**
 * Largest snapshot the import accepts (64 MiB): imports must take back what exports produce, and an org of 20,000
 * records of ~2 KB exports about 40 MiB. Bounded, so one admin request cannot make the server parse gigabytes.
 */
export const IMPORT_BODY_LIMIT = 64 * 1024 * 1024;

export interface EmulatorHooks {
  authenticator: Authenticator;
  records: RecordService;
  recent: RequestLog;
  adminKey: string;
  version: string;
  /** Deletes every record of the org and seeds it again as at start (builtins, admin key, the start seed). */
  reset(org: string): Promise<void>;
  /** Replaces every record of the org by the snapshot (then installs the admin key again). */
  importState(org: string, snapshot: ReturnType<typeof checkSeed>): Promise<void>;
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

function tokenOf(header: string | undefined): string {
  return (header ?? "").trim().replace(/^bearer\s+/i, "");
}

/**
 * Admin key only: 401 without credentials or with credentials the server does not accept, 403 for any other
 * principal (another service account's key, a user's JWT).
 */
async function requireAdmin(hooks: EmulatorHooks, request: FastifyRequest, org: string): Promise<void> {
  const header = request.headers.authorization;
  if (header === undefined || header.trim() === "") throw unauthorized("Missing Authorization header");
  await hooks.authenticator.authenticate(header, org);
  if (!timingSafeEqual(sha256(tokenOf(header)), sha256(hooks.adminKey))) {
    throw forbidden("The emulator endpoints need the admin key");
  }
}

async function orgMustExist(hooks: EmulatorHooks, org: string): Promise<void> {
  if (!(await hooks.records.store.get(org, "org", "", org))) throw notFound(`org ${org}`);
}

const orgParam: RouteParam = {
  name: "org",
  description: "Name of the org.",
  schema: () => jsonSchemaOf(nameSchema(), "input"),
};

const limitQuery: QueryParam = {
  name: "limit",
  required: false,
  description: "How many of the most recent requests (default: all kept).",
  schema: () => ({ type: "integer", minimum: 1 }),
};

const health = () =>
  z.strictObject({
    status: z.literal("ok"),
    name: z.literal("cpln-local"),
    version: z.string(),
    org: z.string().describe("The org seeded at start."),
  });

const resetResult = () => z.strictObject({ org: z.string(), reset: z.literal(true) });

const snapshot = () =>
  z
    .looseObject({
      records: z
        .array(
          z.looseObject({
            kind: z.enum(kindNames).describe("The record's kind; the rest is the record as GET answers it."),
          }),
        )
        .describe("Every record of the org (each with its kind)."),
      serviceAccountKeys: z
        .array(snapshotKey())
        .optional()
        .describe("SHA-256 hashes of the org's service-account keys (never the keys)."),
    })
    .describe("A whole org, in the format `--seed` accepts.");

const importResult = () =>
  z.strictObject({
    org: z.string(),
    records: z.number().int().describe("Records now in the org."),
    serviceAccountKeys: z.number().int().describe("Key hashes now in the org."),
  });

const requestList = () =>
  z.strictObject({
    kind: z.literal("list"),
    itemKind: z.literal("request"),
    items: z.array(
      z.strictObject({
        seq: z.number().int(),
        time: z.string(),
        method: z.string(),
        path: z.string().describe("Path and query string as received."),
        status: z.number().int(),
        durationMs: z.number(),
        principal: z.string().optional().describe("Who called: a principal's link, or `anonymous`."),
        client: z
          .literal("console")
          .optional()
          .describe(
            "`console`: a request of the console (header `x-cpln-local-client: console`), kept apart from the others.",
          ),
        change: z
          .strictObject({ before: z.unknown(), after: z.unknown() })
          .optional()
          .describe(
            "A successful PATCH of one object: the object before and after (what the console shows as a diff).",
          ),
        body: z.unknown().optional().describe("The JSON body of the request (never headers or response bodies)."),
      }),
    ),
    capacity: z.number().int().describe("How many requests are kept (the console's own aside)."),
    bytes: z.number().int().describe("Bytes the kept requests account for (bodies and paths at 2 bytes a character)."),
    budget: z.number().int().describe("The most bytes the kept requests may account for; the oldest go first."),
    console: z
      .strictObject({ capacity: z.number().int(), bytes: z.number().int(), budget: z.number().int() })
      .describe("The same for the console's own requests, kept in a ring of their own."),
  });

/**
 * `/_cpln-local/…`: health, org reset, state export/import and request inspection (see the README's cpln-local
 * section). Admin key only, never subject to fault injection, never recorded by request inspection.
 */
export function emulatorRoutes(hooks: EmulatorHooks, defaultOrg: string): Route[] {
  const orgOf = (request: FastifyRequest) => (request.params as { org?: string }).org ?? defaultOrg;
  const admin = (
    handler: Route["handler"],
  ): Pick<Route, "auth" | "noFaults" | "emulator" | "tags" | "handler" | "description" | "gate"> => ({
    auth: "none",
    noFaults: true,
    emulator: true,
    tags: ["cpln-local"],
    description: "Admin key only: 401 without valid credentials, 403 for any other principal.",
    // Before the body is read: a state import from anyone but the admin is refused without buffering it.
    gate: (request) => requireAdmin(hooks, request, orgOf(request)),
    handler,
  });
  return [
    {
      method: "GET",
      path: `${EMULATOR_PREFIX}/health`,
      operationId: "getLocalHealth",
      summary: "Health: 200 while the server serves (a CI job waits on it)",
      params: [],
      responses: [{ status: 200, description: "Serving", body: named("LocalHealth", "output", health) }],
      errors: [401, 403],
      ...admin(async () => ({ status: "ok", name: "cpln-local", version: hooks.version, org: defaultOrg })),
    },
    {
      method: "POST",
      path: `${EMULATOR_PREFIX}/org/{org}/reset`,
      operationId: "resetLocalOrg",
      summary: "Reset the org to its freshly seeded state",
      params: [orgParam],
      responses: [{ status: 200, description: "Reset", body: named("LocalReset", "output", resetResult) }],
      errors: [401, 403, 404],
      ...admin(async (request) => {
        const org = orgOf(request);
        await orgMustExist(hooks, org);
        await hooks.reset(org);
        return { org, reset: true };
      }),
    },
    {
      method: "GET",
      path: `${EMULATOR_PREFIX}/org/{org}/state`,
      operationId: "exportLocalOrg",
      summary: "Export the whole org as one JSON snapshot (the format --seed accepts)",
      params: [orgParam],
      responses: [{ status: 200, description: "The snapshot", body: named("LocalSnapshot", "output", snapshot) }],
      errors: [401, 403, 404],
      ...admin(async (request) => {
        const org = orgOf(request);
        await orgMustExist(hooks, org);
        return exportOrg(hooks.records, org);
      }),
    },
    {
      method: "PUT",
      path: `${EMULATOR_PREFIX}/org/{org}/state`,
      operationId: "importLocalOrg",
      summary: "Replace the whole org by a snapshot (an export); an invalid snapshot changes nothing",
      params: [orgParam],
      body: named("LocalSnapshotImport", "input", snapshot),
      responses: [{ status: 200, description: "Imported", body: named("LocalImport", "output", importResult) }],
      errors: [400, 401, 403, 404, 413, 415],
      ...admin(async (request) => {
        const org = orgOf(request);
        await orgMustExist(hooks, org);
        try {
          await hooks.importState(org, checkSeed(request.body, "state"));
        } catch (error) {
          // The snapshot is untrusted input: any refusal is a 400 naming the entry, and nothing has changed.
          if (error instanceof SnapshotError) throw badRequest([{ path: error.path, message: error.message }]);
          throw error;
        }
        const state = await exportOrg(hooks.records, org);
        return { org, records: state.records.length, serviceAccountKeys: state.serviceAccountKeys.length };
      }),
      description:
        "Admin key only: 401 without valid credentials, 403 for any other principal. The snapshot is checked in " +
        "full before one transaction replaces the org: links are recomputed, keys are installed only for service " +
        "accounts that list them, the org record must carry the org's name, duplicate keys and ids are refused. " +
        "Without an org record the org keeps its own; without the controlplane service account the builtin one is " +
        "created again, holding the admin key. " +
        `Bodies up to ${IMPORT_BODY_LIMIT} bytes (other endpoints: 1 MiB).`,
      bodyLimit: IMPORT_BODY_LIMIT,
    },
    {
      method: "GET",
      path: `${EMULATOR_PREFIX}/requests`,
      operationId: "listLocalRequests",
      summary: "The last requests (method, path, status, durationMs, body; never credentials or response bodies)",
      params: [],
      query: [limitQuery],
      responses: [{ status: 200, description: "Requests", body: named("LocalRequests", "output", requestList) }],
      errors: [400, 401, 403],
      ...admin(async (request) => {
        const raw = (request.query as { limit?: string } | undefined)?.limit;
        let limit: number | undefined;
        if (raw !== undefined) {
          limit = Number(raw);
          if (!Number.isInteger(limit) || limit < 1) {
            throw badRequest([{ path: "limit", message: "must be a positive integer" }]);
          }
        }
        const { recent } = hooks;
        return {
          kind: "list",
          itemKind: "request",
          items: recent.list(limit),
          capacity: recent.main.capacity,
          bytes: recent.main.bytes,
          budget: recent.main.budget,
          console: { capacity: recent.console.capacity, bytes: recent.console.bytes, budget: recent.console.budget },
        };
      }),
    },
    {
      method: "POST",
      path: `${EMULATOR_PREFIX}/org/{org}/image`,
      operationId: "pushLocalImage",
      summary: "Push an image: what a docker push to the org's registry does (the API itself creates no image)",
      params: [orgParam],
      body: named("LocalImagePush", "input", imagePush),
      responses: [{ status: 201, description: "The image", body: named("LocalImage", "output", image) }],
      errors: [400, 401, 403, 404, 409, 413, 415],
      ...admin(async (request, reply) => {
        const org = orgOf(request);
        await orgMustExist(hooks, org);
        const parsed = imagePush().safeParse(request.body);
        if (!parsed.success) throw badRequest(issuesFromZod(parsed.error));
        // The body as sent (checked above): the digest is of the manifest's bytes, in the order they came.
        const body = request.body as JsonObject;
        const { records } = hooks;
        const created = await records.store.transaction((tx) =>
          records.insert(tx, org, "image", "", undefined, body, nowIso()),
        );
        return reply
          .code(201)
          .header("location", selfLink(org, "image", String(body["name"])))
          .send(created);
      }),
      description:
        "Admin key only: 401 without valid credentials, 403 for any other principal. Creates the image " +
        "`<repository>:<tag>` with the manifest sent (or one derived from the name); its digest is the manifest's " +
        "sha256. A name the org holds already is a 409 (delete the image first to push it again).",
    },
    {
      method: "DELETE",
      path: `${EMULATOR_PREFIX}/requests`,
      operationId: "clearLocalRequests",
      summary: "Forget the recorded requests",
      params: [],
      responses: [{ status: 204, description: "Cleared" }],
      errors: [401, 403],
      ...admin(async (_request, reply) => {
        hooks.recent.clear();
        return reply.code(204).send();
      }),
    },
  ];
}

import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { ErrorCode } from "../../api/errors.js";
import type { Authenticator } from "../auth/authn.js";
import type { RecordService } from "../domain/records.js";
import { ApiFailure, badRequest, forbidden, notFound, unauthorized } from "../errors.js";
import type { RequestRing } from "../inspect.js";
import { checkSeed } from "../seed/file.js";
import { exportOrg, isWholeRecord } from "../seed/snapshot.js";

/**
 * The reserved prefix of the emulator's own endpoints. API paths start with `/org`, `/about` or `/openapi.json`;
 * a path starting with `/_` is never an API path.
 */
export const EMULATOR_PREFIX = "/_cpln-local";

export interface EmulatorHooks {
  authenticator: Authenticator;
  records: RecordService;
  recent: RequestRing;
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
  const presented = sha256(tokenOf(header));
  if (!timingSafeEqual(presented, sha256(hooks.adminKey))) {
    throw forbidden("The emulator endpoints need the admin key");
  }
}

async function orgMustExist(hooks: EmulatorHooks, org: string): Promise<void> {
  if (!(await hooks.records.store.get(org, "org", "", org))) throw notFound(`org ${org}`);
}

/**
 * `/_cpln-local/…`: health, org reset, state export/import and request inspection (see the README's cpln-local
 * section). Never subject to fault injection, never recorded by request inspection.
 */
export function registerEmulatorRoutes(app: FastifyInstance, hooks: EmulatorHooks, defaultOrg: string): void {
  const config = { auth: "none" as const, noFaults: true, emulator: true };
  const orgOf = (request: FastifyRequest) => (request.params as { org?: string }).org ?? defaultOrg;
  const options = {
    config,
    preHandler: async (request: FastifyRequest) => requireAdmin(hooks, request, orgOf(request)),
  };

  app.get(`${EMULATOR_PREFIX}/health`, options, async () => ({
    status: "ok",
    name: "cpln-local",
    version: hooks.version,
    org: defaultOrg,
  }));

  app.post(`${EMULATOR_PREFIX}/org/:org/reset`, options, async (request) => {
    const org = orgOf(request);
    await orgMustExist(hooks, org);
    await hooks.reset(org);
    return { org, reset: true };
  });

  app.get(`${EMULATOR_PREFIX}/org/:org/state`, options, async (request) => {
    const org = orgOf(request);
    await orgMustExist(hooks, org);
    return exportOrg(hooks.records, org);
  });

  app.put(`${EMULATOR_PREFIX}/org/:org/state`, options, async (request) => {
    const org = orgOf(request);
    await orgMustExist(hooks, org);
    let snapshot: ReturnType<typeof checkSeed>;
    try {
      snapshot = checkSeed(request.body, "state");
    } catch (error) {
      throw badRequest([{ path: "", message: (error as Error).message }]);
    }
    const entries = snapshot.records as Record<string, unknown>[];
    const orgRecord = entries.findIndex((r) => isWholeRecord(r as never) && r["kind"] === "org");
    if (orgRecord < 0) {
      throw badRequest([{ path: "records", message: "must hold the org record (import a whole exported state)" }]);
    }
    try {
      await hooks.importState(org, snapshot);
    } catch (error) {
      if (error instanceof ApiFailure) throw error;
      throw badRequest([{ path: "records", message: (error as Error).message }]);
    }
    const state = await exportOrg(hooks.records, org);
    return { org, records: state.records.length, serviceAccountKeys: state.serviceAccountKeys.length };
  });

  app.get(`${EMULATOR_PREFIX}/requests`, options, async (request) => {
    const raw = (request.query as { limit?: string } | undefined)?.limit;
    let limit: number | undefined;
    if (raw !== undefined) {
      limit = Number(raw);
      if (!Number.isInteger(limit) || limit < 1) {
        throw new ApiFailure(ErrorCode.BadRequest, "limit must be a positive integer", {
          issues: [{ path: "limit", message: "must be a positive integer" }],
        });
      }
    }
    return { kind: "list", itemKind: "request", items: hooks.recent.list(limit), capacity: hooks.recent.capacity };
  });

  app.delete(`${EMULATOR_PREFIX}/requests`, options, async (_request, reply) => {
    hooks.recent.clear();
    return reply.code(204).send();
  });
}

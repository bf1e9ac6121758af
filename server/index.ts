import type { FastifyInstance, RouteOptions } from "fastify";
import { name } from "../api/schemas/common.js";
import { buildApp, type ConnectionLimits, type RecordedRequest } from "./app.js";
import { Authenticator, type JwtOptions } from "./auth/authn.js";
import { Authorizer } from "./auth/authz.js";
import { kindRules } from "./domain/index.js";
import { RecordService } from "./domain/records.js";
import { newServiceAccountKey } from "./domain/serviceAccount.js";
import { FaultInjector, type FaultOptions } from "./faults.js";
import { DEFAULT_INSPECTED_BYTES, DEFAULT_INSPECTED_REQUESTS, RequestLog } from "./inspect.js";
import type { EmulatorHooks } from "./routes/emulator.js";
import { registerConsole, registerFavicon } from "./routes/console.js";
import { serverRoutes } from "./routes/index.js";
import { packageVersion } from "./routes/meta.js";
import { registerRoutes } from "./routes/register.js";
import { ensureBuiltins, installAdminKey, installAdminKeyIn, seedOrg } from "./seed/builtins.js";
import { checkSeed, loadSeed, readSeedFile, type SeedDocument } from "./seed/file.js";
import { restoreSnapshot, wipeOrg } from "./seed/snapshot.js";
import { SqliteStore } from "./store/sqlite.js";
import type { JsonObject, Store, StoreOps } from "./store/store.js";

export type { ConnectionLimits, RecordedRequest } from "./app.js";
export { DEFAULT_CONNECTION_LIMITS } from "./app.js";
export type { FaultMode, FaultOptions } from "./faults.js";
export type { SeedDocument } from "./seed/file.js";
export type { InspectedRequest } from "./inspect.js";
export type { OrgSnapshot } from "./seed/snapshot.js";
export { EMULATOR_PREFIX } from "./routes/emulator.js";
export type { Store } from "./store/store.js";

export interface ServerOptions {
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Port (default 0: any free port). */
  port?: number;
  /** SQLite file, or `:memory:` (default). Data in a file persists across restarts. */
  data?: string;
  /** The org served and seeded on first start (default `demo`). */
  org?: string;
  /** Admin key (a key of service account `controlplane`); generated when absent. */
  adminKey?: string;
  /** Extra records to create at start (see `SeedDocument`). */
  seed?: SeedDocument;
  /** Path of a JSON file holding a `SeedDocument`. */
  seedFile?: string;
  jwt?: JwtOptions;
  /** Log one line per request (method, path, status, ms, body of writes). Default false. */
  logger?: boolean;
  /** `text` (default): readable lines; `json`: pino's JSON lines (Authorization redacted). */
  logFormat?: "text" | "json";
  /** Items per list and query page (default 100, see `DEFAULT_PAGE_SIZE`). */
  pageSize?: number;
  /** Requests kept for `GET /_cpln-local/requests` (default 500; the console's own are kept apart, see `RequestLog`). */
  inspectedRequests?: number;
  /** Bytes those requests may account for (default 8 MiB, see `DEFAULT_INSPECTED_BYTES`). */
  inspectedBytes?: number;
  /** Destination of the log when `logger` is on (default stdout); for embedding and tests. */
  logStream?: NodeJS.WritableStream;
  /** Keep `{method, path, body, status}` of every request (see `RunningServer.requests`). */
  recordRequests?: boolean;
  /** Fault injection at start (off by default); see `RunningServer.setFaults`. */
  faults?: FaultOptions;
  /** Request/header/idle timeouts and the connection cap (see `DEFAULT_CONNECTION_LIMITS`). */
  connections?: Partial<ConnectionLimits>;
  /** Serve the console (a web page under `/console`); default true. */
  console?: boolean;
  /** Called for every route fastify registers (tools that list what is served, such as the routes/OpenAPI test). */
  onRoute?: (route: RouteOptions) => void;
}

export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  org: string;
  adminKey: string;
  app: FastifyInstance;
  store: Store;
  /** Requests received so far (only with `recordRequests: true`). */
  requests(): RecordedRequest[];
  clearRequests(): void;
  /** Changes fault injection at run time; undefined turns it off. */
  setFaults(faults: FaultOptions | undefined): void;
  close(): Promise<void>;
}

/** Starts cpln-local: opens the store, seeds the org, installs the admin key, and listens. */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  const org = options.org ?? "demo";
  // The org name is the first path segment of every URL: the name rule keeps it valid and addressable.
  const orgName = name().safeParse(org);
  if (!orgName.success) throw new Error(`org name '${org}' ${orgName.error.issues.map((i) => i.message).join("; ")}`);
  const store = new SqliteStore(options.data ?? ":memory:");
  try {
    const authenticator = new Authenticator(store, options.jwt);
    if (options.pageSize !== undefined && (!Number.isInteger(options.pageSize) || options.pageSize < 1)) {
      throw new Error(`pageSize must be a positive integer (got ${options.pageSize})`);
    }
    const records = new RecordService(store, new Authorizer(store), kindRules, options.pageSize);
    const adminKey = options.adminKey ?? newServiceAccountKey().key;
    const startSeed = options.seed ? checkSeed(options.seed) : undefined;
    const fileSeed = options.seedFile ? readSeedFile(options.seedFile) : undefined;
    /** Seeds an org as at start: builtins, the admin key (served org), the start seeds (served org). */
    const seedAsAtStart = async (target: string) => {
      await seedOrg(records, target);
      if (target !== org) return;
      await installAdminKey(records, org, adminKey);
      // A seed may replace the controlplane account (a snapshot): the admin key is installed again in its transaction.
      const reinstall = (tx: StoreOps) => installAdminKeyIn(tx, org, adminKey);
      if (startSeed) await loadSeed(records, org, startSeed, "seed", reinstall);
      if (fileSeed) await loadSeed(records, org, fileSeed, options.seedFile, reinstall);
    };
    await seedAsAtStart(org);

    const faults = new FaultInjector(options.faults);
    const requestLog: RecordedRequest[] | undefined = options.recordRequests ? [] : undefined;
    const recent = new RequestLog(
      options.inspectedRequests ?? DEFAULT_INSPECTED_REQUESTS,
      options.inspectedBytes ?? DEFAULT_INSPECTED_BYTES,
    );
    const app = buildApp({
      authenticator,
      faults,
      defaultOrg: org,
      logger: options.logger ?? false,
      logFormat: options.logFormat,
      logStream: options.logStream,
      requestLog,
      recent,
      connections: options.connections,
      store,
    });
    const emulator: EmulatorHooks = {
      authenticator,
      records,
      recent,
      adminKey,
      version: packageVersion(),
      reset: async (target) => {
        await store.transaction((tx) => wipeOrg(tx, target));
        await seedAsAtStart(target);
      },
      importState: async (target, snapshot) => {
        // Checked in full, then one transaction that ends by installing the admin key (served org): a refused
        // snapshot changes nothing, an accepted one never locks the admin out.
        // The builtins a snapshot leaves out (the API can delete none of them) come back, the admin key's account and
        // the policies that make it a superuser among them.
        await restoreSnapshot(records, target, snapshot as { records: JsonObject[] }, {
          mode: "replace",
          finish: async (tx) => {
            await ensureBuiltins(records, tx, target);
            if (target === org) await installAdminKeyIn(tx, org, adminKey);
          },
        });
      },
    };
    const { onRoute } = options;
    if (onRoute) app.addHook("onRoute", (route) => onRoute(route));
    registerRoutes(app, serverRoutes(records, org, emulator));
    registerFavicon(app);
    if (options.console ?? true) registerConsole(app);
    await app.listen({ host, port: options.port ?? 0 });
    const address = app.server.address();
    const port = typeof address === "object" && address ? address.port : (options.port ?? 0);
    const urlHost = host.includes(":") ? `[${host}]` : host;
    let closed = false;
    return {
      url: `http://${urlHost}:${port}`,
      org,
      adminKey,
      app,
      store,
      requests: () => (requestLog ? [...requestLog] : []),
      clearRequests: () => {
        if (requestLog) requestLog.length = 0;
      },
      setFaults: (f) => faults.set(f),
      close: async () => {
        if (closed) return;
        closed = true;
        await app.close();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

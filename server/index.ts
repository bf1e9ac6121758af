import type { FastifyInstance, RouteOptions } from "fastify";
import { buildApp, type RecordedRequest } from "./app.js";
import { Authenticator, type JwtOptions } from "./auth/authn.js";
import { Authorizer } from "./auth/authz.js";
import { kindRules } from "./domain/index.js";
import { RecordService } from "./domain/records.js";
import { newServiceAccountKey } from "./domain/serviceAccount.js";
import { FaultInjector, type FaultOptions } from "./faults.js";
import { serverRoutes } from "./routes/index.js";
import { registerRoutes } from "./routes/register.js";
import { installAdminKey, seedOrg } from "./seed/builtins.js";
import { checkSeed, loadSeed, readSeedFile, type SeedDocument } from "./seed/file.js";
import { SqliteStore } from "./store/sqlite.js";
import type { Store } from "./store/store.js";

export type { RecordedRequest } from "./app.js";
export type { FaultMode, FaultOptions } from "./faults.js";
export type { SeedDocument } from "./seed/file.js";
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
  /** Log requests with pino (Authorization is redacted). Default false. */
  logger?: boolean;
  /** Destination of the log when `logger` is on (default stdout); for embedding and tests. */
  logStream?: NodeJS.WritableStream;
  /** Keep `{method, path, body, status}` of every request (see `RunningServer.requests`). */
  recordRequests?: boolean;
  /** Fault injection at start (off by default); see `RunningServer.setFaults`. */
  faults?: FaultOptions;
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
  const store = new SqliteStore(options.data ?? ":memory:");
  try {
    const authenticator = new Authenticator(store, options.jwt);
    const records = new RecordService(store, new Authorizer(store), kindRules);
    const adminKey = options.adminKey ?? newServiceAccountKey().key;
    await seedOrg(records, org);
    await installAdminKey(records, org, adminKey);
    if (options.seed) await loadSeed(records, org, checkSeed(options.seed));
    if (options.seedFile) await loadSeed(records, org, readSeedFile(options.seedFile), options.seedFile);

    const faults = new FaultInjector(options.faults);
    const requestLog: RecordedRequest[] | undefined = options.recordRequests ? [] : undefined;
    const app = buildApp({
      authenticator,
      faults,
      defaultOrg: org,
      logger: options.logger ?? false,
      logStream: options.logStream,
      requestLog,
    });
    const { onRoute } = options;
    if (onRoute) app.addHook("onRoute", (route) => onRoute(route));
    registerRoutes(app, serverRoutes(records, org));
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

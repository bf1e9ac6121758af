/**
 * cpln-local's store, record service and authenticator as `startServer()` builds them, with `org` seeded and
 * `adminKey` installed, and no HTTP: for benchmark children that call them directly or put their own routes in front.
 */
import { Authenticator } from "../../server/auth/authn.js";
import { Authorizer } from "../../server/auth/authz.js";
import { kindRules } from "../../server/domain/index.js";
import { RecordService } from "../../server/domain/records.js";
import { installAdminKey, seedOrg } from "../../server/seed/builtins.js";
import { SqliteStore } from "../../server/store/sqlite.js";

export interface SeededService {
  store: SqliteStore;
  records: RecordService;
  authenticator: Authenticator;
}

/** Opens `data` (a file, or `:memory:`) and seeds `org` as cpln-local does at start. */
export async function seededService(data: string, org: string, adminKey: string): Promise<SeededService> {
  const store = new SqliteStore(data);
  const records = new RecordService(store, new Authorizer(store), kindRules);
  await seedOrg(records, org);
  await installAdminKey(records, org, adminKey);
  return { store, records, authenticator: new Authenticator(store) };
}

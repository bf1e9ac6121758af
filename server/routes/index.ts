import type { RecordService } from "../domain/records.js";
import { emulatorRoutes, type EmulatorHooks } from "./emulator.js";
import { metaRoutes } from "./meta.js";
import type { Route } from "./route.js";
import { recordRoutes } from "./table.js";

/** Every route cpln-local serves: the meta routes, the routes of every kind and the emulator's own routes. */
export function serverRoutes(records: RecordService, org: string, emulator: EmulatorHooks): Route[] {
  const routes: Route[] = [];
  routes.push(...metaRoutes(org, () => routes), ...recordRoutes(records), ...emulatorRoutes(emulator, org));
  return routes;
}

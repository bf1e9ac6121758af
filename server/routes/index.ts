import type { RecordService } from "../domain/records.js";
import { metaRoutes } from "./meta.js";
import { recordRoutes, type Route } from "./table.js";

/** Every route cpln-local serves: the meta routes and the routes of every kind. */
export function serverRoutes(records: RecordService, org: string): Route[] {
  const routes: Route[] = [];
  routes.push(...metaRoutes(org, () => routes), ...recordRoutes(records));
  return routes;
}

import { eventlogEndpoint } from "./eventlog.js";
import type { KindServerRules } from "./rules.js";

/** The org record (`/org/{org}`): seeded, never created or deleted through the API; description and tags change. */
export const orgRules: KindServerRules = {
  kind: "org",
  endpoints: {
    eventlog: eventlogEndpoint,
  },
  readOnly: [],
  immutable: [],
  preserved: ["spec", "status"],
  initialize: () => ({ spec: {}, status: {} }),
};

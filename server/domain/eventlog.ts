import type { KindEndpoint } from "./rules.js";

/** `-eventlog` of any kind: cpln-local records no events, so the answer is an empty list of kind `event`. */
export const eventlogEndpoint: KindEndpoint = {
  permission: "view",
  run: (ctx) => ({ kind: "list", itemKind: "event", items: [], links: [{ rel: "self", href: ctx.self }] }),
};

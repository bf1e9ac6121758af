import { z } from "zod";
import { lazy } from "../lazy.js";
import { listResponse } from "./common.js";

/**
 * One event of an object's event log: `Event` of controlplane-com/types-ts `src/interfaces/event.ts` (recorded in
 * `fidelity/facts/endpoints.json`).
 */
export const event = lazy(() =>
  z
    .looseObject({
      id: z.string().optional().describe("Id of the event."),
      created: z.string().optional().describe("When the event first happened."),
      kind: z.string().optional().describe("What happened."),
      lastEventTime: z.string().optional().describe("When it last happened."),
      eventCount: z.number().int().optional().describe("How many times it happened."),
      status: z.string().describe("Status of the event."),
      pinned: z.boolean().optional().describe("Whether the event is pinned."),
      context: z.record(z.string(), z.unknown()).optional().describe("Where it happened (component, cluster, ...)."),
    })
    .describe("An event of an object."),
);

/** `GET .../{name}/-eventlog`: a list of events (cpln-local records none: the list is empty). */
export const eventLog = lazy(() => listResponse(event()).describe("The event log of an object (a list of events)."));

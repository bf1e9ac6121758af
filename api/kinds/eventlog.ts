import { eventLog } from "../schemas/event.js";
import type { EndpointContract } from "./types.js";

/**
 * `GET .../{name}/-eventlog`, served for every kind the official CLI offers `eventlog` on (its commands, and its REST
 * map for locations; recorded in `fidelity/facts/endpoints.json`): a list of events in the shape of
 * controlplane-com/types-ts `Event`. cpln-local records no events, so the list is empty.
 */
export const eventlogEndpoint: EndpointContract = {
  method: "GET",
  on: "item",
  summary: "The object's event log (cpln-local records no events: the list is empty)",
  response: { name: "EventLog", description: "The events", status: 200, schema: () => eventLog() },
};

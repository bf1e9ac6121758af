import { z } from "zod";
import { lazy } from "../../api/lazy.js";
import type { Location } from "../../api/schemas/index.js";
import { connect, orgArg, parseArgs, type FunctionEnv } from "./common.js";

// ---- args schema ----

export const getLocationArgs = lazy(() =>
  z
    .strictObject({
      name: z.string().min(1, "must not be empty").describe("Location name, e.g. aws-us-west-2."),
      org: orgArg(),
    })
    .describe("Arguments of getLocation."),
);
export type GetLocationArgs = z.input<ReturnType<typeof getLocationArgs>>;

// ---- result type ----

export type GetLocationResult = Location;

// ---- the fetch ----

/** `GET /org/{org}/location/{name}`. */
export async function getLocation(args: GetLocationArgs, env: FunctionEnv = {}): Promise<GetLocationResult> {
  const parsed = parseArgs("getLocation", getLocationArgs(), args);
  const { client, org } = connect(parsed.org, env);
  return client.getLocation(parsed.name, { org });
}

import { echoOnly } from "./jsonRules.js";
import { z } from "zod";
import { lazy } from "../lazy.js";
import { describedTaggedPatchFields, patchObject, readOnlyPatchShape, recordShape } from "./common.js";

export const org = lazy(() =>
  z
    .looseObject({
      ...recordShape("org"),
      spec: z.looseObject({}).optional().describe("Org settings."),
      status: z.looseObject({}).optional().describe("Server-maintained state."),
    })
    .describe("An organization: the root of every other object."),
);
export type Org = z.infer<ReturnType<typeof org>>;

/** Body of PATCH /org/{org}: description and tags (orgs are not created or deleted through this API). */
export const orgPatch = lazy(() =>
  patchObject(describedTaggedPatchFields(), {
    ...readOnlyPatchShape(),
    spec: echoOnly(z.unknown().optional().describe("Read-only here.")),
  }).describe("Body of PATCH /org/{org}."),
);

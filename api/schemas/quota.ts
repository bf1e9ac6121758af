import { echoOnly } from "./jsonRules.js";
import { z } from "zod";
import { lazy } from "../lazy.js";
import { description, patchObject, readOnlyPatchShape, recordShape } from "./common.js";

export const quotaOrigins = ["default", "builtin"] as const;

/** Quotas are addressed by id (UUID): names repeat, e.g. one `workloads-per-gvc` per gvc. */
export const quota = lazy(() =>
  z
    .looseObject({
      ...recordShape("quota"),
      unit: z.string().describe("Unit of max and current (count, MiB, millicore, ...)."),
      dimensions: z
        .record(z.string(), z.unknown())
        .describe("What the quota is scoped to, e.g. {gvcLink: '/org/acme/gvc/main'}; empty for org-wide quotas."),
      max: z.number().describe("Limit."),
      current: z.number().describe("Current usage."),
      origin: z.enum(quotaOrigins).describe("builtin or default."),
    })
    .describe("A limit on how many objects (or how much of a resource) the org may use."),
);
export type Quota = z.infer<ReturnType<typeof quota>>;

/** Body of PATCH /org/{org}/quota/{id}: the limit and the description change. */
export const quotaPatch = lazy(() =>
  patchObject(
    {
      description: { value: description() },
      max: { value: z.number().min(0).describe("Limit.") },
    },
    {
      ...readOnlyPatchShape(),
      unit: echoOnly(z.string().optional().describe("Read-only.")),
      dimensions: echoOnly(z.unknown().optional().describe("Read-only.")),
      current: echoOnly(z.number().optional().describe("Read-only.")),
      origin: echoOnly(z.enum(quotaOrigins).optional().describe("Read-only.")),
    },
  ).describe("Body of PATCH /org/{org}/quota/{id}."),
);

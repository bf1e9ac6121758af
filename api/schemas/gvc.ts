import { echoOnly } from "./jsonRules.js";
import { z } from "zod";
import { lazy } from "../lazy.js";
import {
  description,
  describedTaggedPatchFields,
  name,
  object,
  patchObject,
  readOnlyPatchShape,
  recordShape,
  tags,
  type ObjectMode,
} from "./common.js";

function envVar(mode: ObjectMode) {
  return object(mode, {
    name: z.string().min(1).describe("Variable name."),
    value: z.string().optional().describe("Value."),
  }).describe("An environment variable for every workload of the gvc.");
}

function staticPlacement(mode: ObjectMode) {
  return object(mode, {
    locationLinks: z.array(z.string().min(1)).optional().describe("Locations the gvc's workloads run in."),
  }).describe("Where the gvc's workloads run.");
}

function buildSpec(mode: ObjectMode) {
  return object(mode, {
    staticPlacement: staticPlacement(mode).optional(),
    pullSecretLinks: z.array(z.string().min(1)).optional().describe("Image pull secrets."),
    env: z.array(envVar(mode)).optional().describe("Environment variables."),
  }).describe("Global virtual cloud settings.");
}

export const gvcSpec = lazy(() => buildSpec("strict"));

export const gvc = lazy(() =>
  z
    .looseObject({
      ...recordShape("gvc"),
      alias: z.string().optional().describe("Short unique alias used in generated hostnames."),
      spec: buildSpec("loose").optional(),
      status: z.looseObject({}).optional().describe("Server-maintained state."),
    })
    .describe("A global virtual cloud: the scope of workloads, identities and volume sets."),
);
export type Gvc = z.infer<ReturnType<typeof gvc>>;

export const gvcCreate = lazy(() =>
  z
    .strictObject({
      name: name(),
      description: description().optional(),
      tags: tags().optional(),
      spec: gvcSpec().optional(),
    })
    .describe("Body of POST /org/{org}/gvc."),
);

export const gvcPatch = lazy(() =>
  patchObject(
    {
      ...describedTaggedPatchFields(),
      spec: {
        value: gvcSpec(),
        merge: patchObject({
          staticPlacement: {
            value: staticPlacement("strict"),
            merge: patchObject({
              locationLinks: {
                value: z.array(z.string().min(1)).describe("Locations."),
                array: { item: z.string().min(1), key: z.string().min(1), keyDescription: "the link" },
              },
            }),
          },
          pullSecretLinks: {
            value: z.array(z.string().min(1)).describe("Image pull secrets."),
            array: { item: z.string().min(1), key: z.string().min(1), keyDescription: "the link" },
          },
          env: {
            value: z.array(envVar("strict")).describe("Environment variables."),
            array: {
              item: envVar("strict"),
              key: z.string().min(1),
              patchItem: patchObject(
                { value: { value: z.string().describe("Value.") } },
                { name: z.string().min(1).describe("Names the variable.") },
              ),
              keyDescription: "the variable name",
            },
          },
        }),
      },
    },
    { ...readOnlyPatchShape(), alias: echoOnly(z.string().optional().describe("Read-only.")) },
  ).describe("Body of PATCH /org/{org}/gvc/{name}."),
);

import { z } from "zod";
import { lazy } from "../lazy.js";
import { crossFieldRules, echoOnly } from "./jsonRules.js";
import {
  description,
  describedTaggedPatchFields,
  links,
  listResponse,
  name,
  patchObject,
  readOnlyPatchShape,
  recordShape,
  tags,
  type PatchField,
} from "./common.js";
import { workloadSpecRules } from "./workloadRules.js";
import { buildWorkloadSpec } from "./workloadSpec.js";

/** Spec of a workload in a create body or a `$replace/spec` (unknown fields rejected). */
export const workloadSpec = lazy(() => buildWorkloadSpec("strict").register(crossFieldRules(), workloadSpecRules()));
/** Spec as the server returns it. */
export const workloadSpecOutput = lazy(() => buildWorkloadSpec("loose"));

/** Status of a workload (`WorkloadStatus` of types-ts `src/interfaces/workload.ts`); cpln-local emulates it. */
export const workloadStatus = lazy(() =>
  z
    .looseObject({
      parentId: z.string().optional().describe("Id of the gvc holding the workload."),
      canonicalEndpoint: z.string().optional().describe("Global endpoint: https://WORKLOAD-GVCALIAS.cpln.app."),
      endpoint: z.string().optional().describe("Global endpoint (a custom domain's when one routes here)."),
      internalName: z.string().optional().describe("Name inside the org: WORKLOAD.GVC.cpln.local."),
      replicaInternalNames: z.array(z.string()).optional().describe("Replica names (stateful)."),
      healthCheck: z
        .looseObject({
          active: z.boolean().describe("Whether a check runs."),
          success: z.boolean().optional().describe("Whether the last check passed."),
          message: z.string().optional().describe("What the check saw."),
          lastChecked: z.string().optional().describe("When it last ran."),
        })
        .optional()
        .describe("The global endpoint's health check."),
      currentReplicaCount: z
        .number()
        .int()
        .optional()
        .describe("Replicas per location (cpln-local: minScale; 0 when suspended, and for cron between runs)."),
      ready: z.boolean().optional().describe("Whether every deployment is ready."),
      resolvedImages: z
        .looseObject({
          resolvedAt: z.string().optional().describe("When the images were resolved."),
          images: z
            .array(z.looseObject({ digest: z.string().optional(), manifests: z.array(z.looseObject({})).optional() }))
            .optional()
            .describe("Each container's image, by digest."),
        })
        .optional()
        .describe("Image digests the containers run."),
      loadBalancer: z.array(z.looseObject({})).optional().describe("Direct load balancers."),
    })
    .describe("Server-maintained state of the workload."),
);

export const workload = lazy(() =>
  z
    .looseObject({
      ...recordShape("workload"),
      gvc: z.unknown().optional().describe("The gvc."),
      spec: workloadSpecOutput(),
      status: workloadStatus().optional(),
    })
    .describe("A workload: containers run in every location of its gvc."),
);

export const workloadCreate = lazy(() =>
  z
    .strictObject({
      name: name(),
      description: description().optional(),
      tags: tags().optional(),
      spec: workloadSpec(),
    })
    .describe("Body of POST /org/{org}/gvc/{gvc}/workload."),
);

/** Arrays whose items a PATCH names by a key field (DESIGN §3), by path below `spec`. */
export const workloadKeyedArrays: Readonly<Record<string, { field: string; key: () => z.ZodType; text: string }>> = {
  containers: { field: "name", key: () => z.string().min(1), text: "the container name" },
  "containers.ports": { field: "number", key: () => z.string().regex(/^[0-9]+$/), text: "the port number, as text" },
  "containers.env": { field: "name", key: () => z.string().min(1), text: "the variable name" },
  "containers.volumes": { field: "path", key: () => z.string().min(1), text: "the mount path" },
  localOptions: { field: "location", key: () => z.string().min(1), text: "the location" },
};

function unwrap(schema: z.ZodType): z.ZodType {
  return schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;
}

/** The patch form of a strict object: objects merge, keyed arrays take `$patch/`, `$append/`, `$drop/`, `$retain/`. */
function patchOf(object: z.ZodObject, path: string, extra: Record<string, z.ZodType> = {}, required: string[] = []) {
  const fields: Record<string, PatchField> = {};
  for (const [field, raw] of Object.entries(object.shape as Record<string, z.ZodType>)) {
    if (Object.hasOwn(extra, field)) continue;
    const value = unwrap(raw);
    const at = path ? `${path}.${field}` : field;
    const keyed = workloadKeyedArrays[at];
    if (value instanceof z.ZodObject && Object.keys(value.shape).length > 0) {
      fields[field] = { value, merge: patchOf(value, at) };
    } else if (keyed && value instanceof z.ZodArray) {
      const item = value.element as z.ZodObject;
      const keyField = unwrap(item.shape[keyed.field] as z.ZodType);
      const patchItem = patchOf(item, at, { [keyed.field]: keyField.describe(`Names the item (${keyed.text}).`) });
      fields[field] = { value, array: { item, key: keyed.key(), patchItem, keyDescription: keyed.text } };
    } else {
      fields[field] = { value };
    }
    if (required.includes(field)) fields[field] = { ...(fields[field] as PatchField), required: true };
  }
  return patchObject(fields, extra);
}

/** Body of PATCH /org/{org}/gvc/{gvc}/workload/{name}. */
export const workloadPatch = lazy(() =>
  patchObject(
    {
      ...describedTaggedPatchFields(),
      spec: {
        value: workloadSpec(),
        merge: patchOf(buildWorkloadSpec("strict"), "", {}, ["containers"])
          .describe("Changes to the spec (type cannot change).")
          .register(crossFieldRules(), workloadSpecRules()),
        required: true,
      },
    },
    { ...readOnlyPatchShape(), gvc: echoOnly(z.unknown().optional().describe("Read-only; ignored.")) },
  ).describe("Body of PATCH /org/{org}/gvc/{gvc}/workload/{name}: merge fields and patch directives."),
);

// ---- deployments (GET .../workload/{name}/deployment[/{location}]) ----

const containerStatus = () =>
  z
    .looseObject({
      name: z.string().optional(),
      image: z.string().optional(),
      ready: z.boolean().optional(),
      message: z.string().optional(),
      resources: z.looseObject({}).optional(),
    })
    .describe("A container's state (`ContainerStatus` of types-ts `containerstatus.ts`).");

/** A workload's deployment in one location: `Deployment` of types-ts `src/interfaces/deployment.ts`. */
export const deployment = lazy(() =>
  z
    .looseObject({
      name: z.string().describe("The location."),
      kind: z.literal("deployment").describe("Always 'deployment'."),
      links: links(),
      lastModified: z.string().optional().describe("When the deployment last changed."),
      status: z
        .looseObject({
          endpoint: z.string().optional().describe("The location's endpoint."),
          remote: z.string().optional().describe("The location's API."),
          lastProcessedVersion: z.number().int().optional().describe("Workload version last processed."),
          expectedDeploymentVersion: z.number().int().optional().describe("Deployment version expected."),
          internal: z.unknown().optional(),
          ready: z.boolean().optional().describe("Whether the deployment is ready."),
          deploying: z.boolean().optional().describe("Whether a version is rolling out."),
          versions: z
            .array(
              z.looseObject({
                name: z.string().optional(),
                created: z.string().optional(),
                workload: z.number().int().optional().describe("Workload version."),
                gvc: z.number().int().optional().describe("Gvc version."),
                containers: z.record(z.string(), containerStatus()).optional(),
                ready: z.boolean().optional(),
                message: z.string().optional(),
              }),
            )
            .optional()
            .describe("Versions deployed."),
          jobExecutions: z.array(z.looseObject({})).optional().describe("Runs of a cron workload."),
          message: z.string().optional(),
        })
        .optional()
        .describe("What runs in the location."),
    })
    .describe("A workload's deployment in one location of its gvc (read-only)."),
);

export const deploymentList = lazy(() => listResponse(deployment()).describe("The deployments of a workload."));

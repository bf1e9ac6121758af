import { catalogOf } from "./catalogs.js";
import {
  deployment,
  deploymentList,
  workload,
  workloadCreate,
  workloadKeyedArrays,
  workloadPatch,
} from "../schemas/workload.js";
import { workloadSpecDefaults } from "../schemas/workloadRules.js";
import type { ArrayRule } from "../patch/rules.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindDescriptor } from "./types.js";

/** Items of a keyed array of the spec name themselves by one field (`number` of a port, `path` of a volume, ...). */
function keyedBy(field: string): ArrayRule {
  return {
    key: (item) => {
      const value = typeof item === "object" && item !== null && !Array.isArray(item) ? item[field] : undefined;
      return typeof value === "string" || typeof value === "number" ? String(value) : undefined;
    },
    keyFields: [field],
    ordered: true,
  };
}

/**
 * The contract of kind `workload` (controlplane-com/types-ts `src/interfaces/workload.ts`): containers keyed by name,
 * their ports by number, env by name and volumes by path, so a minimal PATCH touches one item. Its deployments
 * (`deployment.ts`) are read-only: `GET .../workload/{name}/deployment` and `.../deployment/{location}`, the paths of
 * the official CLI's REST map (`/org/o/gvc/g/workload/w/deployment/d`).
 */
export const workloadKind = {
  kind: "workload",
  scope: "gvc",
  permissions: catalogOf("workload"),
  queryProperties: [],
  rels: ["gvc"],
  endpoints: {
    eventlog: eventlogEndpoint,
    deployments: {
      method: "GET",
      on: "item",
      segment: "deployment",
      summary: "The workload's deployments: one per location of its gvc (emulated: cpln-local runs no container)",
      response: { name: "DeploymentList", description: "The deployments", status: 200, schema: () => deploymentList() },
    },
    deployment: {
      method: "GET",
      on: "item",
      segment: "deployment",
      param: { name: "location", description: "A location of the workload's gvc." },
      summary: "The workload's deployment in one location of its gvc (read-only)",
      response: { name: "Deployment", description: "The deployment", status: 200, schema: () => deployment() },
    },
  },
  schemas: {
    record: () => workload(),
    create: () => workloadCreate(),
    patch: () => workloadPatch(),
  },
  patchRules: {
    arrays: Object.fromEntries(
      Object.entries(workloadKeyedArrays).map(([path, { field }]) => [`spec.${path}`, keyedBy(field)]),
    ),
  },
  addressing: { field: "name", by: "name" },
  immutable: ["spec.type"],
  // The API fills a spec's defaults (workloadRules.ts, with their sources); the provider fills the same before it
  // compares, so a program that leaves them out sees no change.
  defaults: (body) => ({ ...body, spec: workloadSpecDefaults((body.spec ?? {}) as Record<string, unknown>) }),
  resource: {
    typeName: "Workload",
    description:
      "A Control Plane workload in a gvc: serverless, standard, stateful or cron, with its containers, options, " +
      "firewall, identity and rollout settings. name, gvc, type and org cannot change in place; every other change " +
      "is one PATCH of only what changed (containers keyed by name, their ports by number, env by name, volumes by " +
      "path), so edits others make to other items survive. status holds the endpoint.",
  },
  examples: {
    create: (name) => ({
      name,
      spec: {
        type: "serverless",
        containers: [
          {
            name: "main",
            image: "nginx:1.27",
            ports: [{ number: 8080, protocol: "http" }],
            env: [{ name: "MODE", value: "example" }],
          },
        ],
      },
    }),
    patch: (marker) => ({ description: `patched ${marker}`, tags: { example: marker } }),
    immutableChange: { "spec.type": "standard" },
  },
} satisfies KindDescriptor<"workload">;

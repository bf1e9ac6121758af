import { z } from "zod";
import { object, type ObjectMode } from "./common.js";
import { container, port } from "./workloadContainer.js";

export {
  container,
  containerPort,
  envVar,
  healthCheck,
  RESERVED_CONTAINER_NAMES,
  RESERVED_ENV_NAMES,
  RESERVED_PORTS,
  RESERVED_VOLUME_PATHS,
  volume,
  VOLUME_URI_PATTERN,
  VOLUMES_MAX,
} from "./workloadContainer.js";

/**
 * The fields of a workload's spec (`WorkloadSpec` of controlplane-com/types-ts `src/interfaces/workload.ts`,
 * `workloadOptions.ts`), with the limits terraform-provider-cpln states in `internal/provider/resource_workload.go`.
 * A container and its parts are in `workloadContainer.ts`; rules spanning fields are in `workloadRules.ts`.
 */

export const workloadTypes = ["serverless", "standard", "stateful", "cron"] as const;
export type WorkloadType = (typeof workloadTypes)[number];

/** `//identity/N`, `//gvc/G/identity/N` or `/org/O/gvc/G/identity/N` (groups: N; G, N; O, G, N). */
export const IDENTITY_LINK_PATTERN =
  /^(?:\/\/identity\/([^/]+)|\/\/gvc\/([^/]+)\/identity\/([^/]+)|\/org\/([^/]+)\/gvc\/([^/]+)\/identity\/([^/]+))$/;
export const CONTAINERS_MAX = 8;

const metrics = ["concurrency", "cpu", "memory", "rps", "latency", "keda", "disabled"] as const;

function autoscaling(mode: ObjectMode) {
  return object(mode, {
    metric: z.enum(metrics).optional().describe("Scaling strategy (default concurrency; cpu for stateful)."),
    multi: z
      .array(
        object(mode, {
          metric: z.enum(["cpu", "memory", "rps"]).optional().describe("Metric."),
          target: z.number().int().min(1).max(20000).optional().describe("Target: 1-20000."),
        }),
      )
      .optional()
      .describe("Several metrics (instead of metric and target)."),
    metricPercentile: z.enum(["p50", "p75", "p99"]).optional().describe("Percentile of a distribution metric."),
    target: z.number().int().min(1).max(20000).optional().describe("Target value: 1-20000 (default 95)."),
    maxScale: z.number().int().min(0).optional().describe("Most replicas per location (default 5)."),
    minScale: z.number().int().min(0).optional().describe("Fewest replicas per location (default 1)."),
    scaleToZeroDelay: z.number().int().min(30).max(3600).optional().describe("Seconds idle before 0: 30-3600."),
    maxConcurrency: z.number().int().min(0).max(30000).optional().describe("Concurrent requests per replica."),
    keda: z.looseObject({}).optional().describe("KEDA settings (standard and stateful only)."),
  }).describe("Horizontal autoscaling.");
}

function optionFields(mode: ObjectMode) {
  return {
    autoscaling: autoscaling(mode).optional(),
    timeoutSeconds: z.number().int().min(1).max(3600).optional().describe("Request timeout: 1-3600 (default 5)."),
    capacityAI: z
      .boolean()
      .optional()
      .describe("Capacity AI (default true; false for stateful and cron, and with a GPU)."),
    capacityAIUpdateMinutes: z.number().int().min(2).optional().describe("Minutes between capacity AI updates."),
    spot: z.boolean().optional().describe("Run on spot capacity."),
    debug: z.boolean().optional().describe("Debug headers (default false)."),
    suspend: z.boolean().optional().describe("Suspended: no replicas run (default false)."),
    multiZone: object(mode, { enabled: z.boolean().optional().describe("Spread over zones.") })
      .describe("Multi-zone placement.")
      .optional(),
  };
}

export function defaultOptions(mode: ObjectMode) {
  return object(mode, optionFields(mode)).describe("Options of every location.");
}

export function localOption(mode: ObjectMode) {
  return object(mode, {
    location: z.string().min(1).describe("The location these options apply in (a location of the gvc)."),
    ...optionFields(mode),
  }).describe("Options of one location (keyed by location).");
}

function firewall(mode: ObjectMode) {
  const list = (text: string) => z.array(z.string()).optional().describe(text);
  return object(mode, {
    external: object(mode, {
      inboundAllowCIDR: z.array(z.string()).max(250).optional().describe("Who may reach it (CIDRs; at most 250)."),
      inboundBlockedCIDR: list("CIDRs refused even when allowed."),
      outboundAllowHostname: list("Hostnames it may reach (a '*' prefix allowed)."),
      outboundAllowPort: z
        .array(
          object(mode, {
            protocol: z.enum(["http", "https", "tcp"]).describe("Protocol."),
            number: port(),
          }),
        )
        .optional()
        .describe("Ports it may reach."),
      outboundAllowCIDR: list("CIDRs it may reach."),
      outboundBlockedCIDR: list("CIDRs it may not reach."),
      http: object(mode, {
        inboundHeaderFilter: z
          .array(
            object(mode, {
              key: z.string().max(128).describe("Header."),
              allowedValues: z.array(z.string()).optional().describe("Patterns allowed."),
              blockedValues: z.array(z.string()).optional().describe("Patterns blocked."),
            }),
          )
          .optional()
          .describe("Header filters."),
      })
        .describe("HTTP options.")
        .optional(),
    })
      .describe("Public traffic (nothing is allowed by default).")
      .optional(),
    internal: object(mode, {
      inboundAllowType: z
        .enum(["none", "same-gvc", "same-org", "workload-list"])
        .optional()
        .describe("Which workloads may call it (default none)."),
      inboundAllowWorkload: list("Workload links allowed with workload-list."),
    })
      .describe("Traffic from other workloads.")
      .optional(),
  }).describe("Firewall.");
}

export function buildWorkloadSpec(mode: ObjectMode) {
  return object(mode, {
    type: z.enum(workloadTypes).optional().describe("Workload type (immutable; default standard)."),
    identityLink: z
      .string()
      .regex(IDENTITY_LINK_PATTERN, "must be an identity link: //identity/NAME or /org/ORG/gvc/GVC/identity/NAME")
      .optional()
      .describe(
        "An identity of the same gvc: //identity/NAME, //gvc/GVC/identity/NAME or /org/ORG/gvc/GVC/identity/NAME.",
      ),
    containers: z
      .array(container(mode))
      .min(1, "must hold at least one container")
      .max(CONTAINERS_MAX, `must hold at most ${CONTAINERS_MAX} containers`)
      .describe(`Containers: 1-${CONTAINERS_MAX}, keyed by name.`),
    firewallConfig: firewall(mode).optional(),
    defaultOptions: defaultOptions(mode).optional(),
    localOptions: z.array(localOption(mode)).optional().describe("Per-location options (keyed by location)."),
    job: object(mode, {
      schedule: z.string().min(1).describe("Cron schedule (5 fields)."),
      concurrencyPolicy: z.enum(["Forbid", "Replace", "Allow"]).optional().describe("Default Forbid."),
      historyLimit: z.number().int().min(1).max(10).optional().describe("Finished runs kept: 1-10 (default 5)."),
      restartPolicy: z.enum(["OnFailure", "Never"]).optional().describe("Default Never."),
      activeDeadlineSeconds: z.number().int().min(1).max(86400).optional().describe("Limit of a run: 1-86400."),
    })
      .describe("The schedule of a cron workload (required for cron).")
      .optional(),
    sidecar: object(mode, { envoy: z.unknown().optional().describe("Envoy configuration.") })
      .describe("Sidecar settings.")
      .optional(),
    supportDynamicTags: z.boolean().optional().describe("Redeploy when a tag's image changes (default false)."),
    rolloutOptions: object(mode, {
      minReadySeconds: z.number().int().min(0).optional().describe("Default 0."),
      maxUnavailableReplicas: z.string().optional().describe("Count or percentage (not for stateful)."),
      maxSurgeReplicas: z.string().optional().describe("Count or percentage."),
      scalingPolicy: z.enum(["OrderedReady", "Parallel"]).optional().describe("Default OrderedReady."),
      terminationGracePeriodSeconds: z
        .number()
        .int()
        .min(0)
        .max(3600)
        .optional()
        .describe("0-900, up to 3600 with the tag cpln/relaxGracePeriodMax (default 90)."),
    })
      .describe("How new versions roll out.")
      .optional(),
    securityOptions: object(mode, {
      filesystemGroupId: z.number().int().min(1).max(65534).optional().describe("Group of mounted volumes."),
      runAsUser: z.number().int().min(1).max(65534).optional().describe("User of the processes."),
    })
      .describe("Process and file-system identity.")
      .optional(),
    loadBalancer: object(mode, {
      direct: object(mode, {
        enabled: z.boolean().describe("Whether it runs."),
        ports: z
          .array(
            object(mode, {
              externalPort: z.number().int().min(22).max(32768).describe("Public port: 22-32768."),
              protocol: z.enum(["TCP", "UDP"]).describe("Protocol."),
              scheme: z.enum(["http", "tcp", "https", "ws", "wss"]).optional().describe("URL scheme shown."),
              containerPort: port().optional(),
            }),
          )
          .optional()
          .describe("Ports exposed."),
        ipSet: z.string().optional().describe("An IP set link."),
      })
        .describe("A load balancer per location.")
        .optional(),
      geoLocation: object(mode, {
        enabled: z.boolean().optional().describe("Add geo headers (default false)."),
        headers: object(mode, {
          asn: z.string().max(128).optional(),
          city: z.string().max(128).optional(),
          country: z.string().max(128).optional(),
          region: z.string().max(128).optional(),
        })
          .describe("Header names.")
          .optional(),
      })
        .describe("Geo headers.")
        .optional(),
      replicaDirect: z.boolean().optional().describe("An endpoint per replica (stateful only; default false)."),
    })
      .describe("Load balancing.")
      .optional(),
    extras: z.looseObject({}).optional().describe("Kubernetes extras (BYOK only)."),
    requestRetryPolicy: object(mode, {
      attempts: z.number().int().min(0).optional().describe("Default 2."),
      retryOn: z.array(z.string()).optional().describe("Conditions retried."),
    })
      .describe("Retries of failed requests.")
      .optional(),
  }).describe("Workload specification.");
}

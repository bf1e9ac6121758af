import { z } from "zod";
import { crossFieldRules } from "./jsonRules.js";
import { object, type ObjectMode } from "./common.js";

/**
 * The fields of a workload's spec (`WorkloadSpec` of controlplane-com/types-ts `src/interfaces/workload.ts`,
 * `workloadOptions.ts`, `env.ts`, `volumeSpec.ts`), with the limits terraform-provider-cpln states in
 * `internal/provider/resource_workload.go` and `common.go` (`GetPortValidators`). Rules spanning fields are in
 * `workloadRules.ts`.
 */

export const workloadTypes = ["serverless", "standard", "stateful", "cron"] as const;
export type WorkloadType = (typeof workloadTypes)[number];

/** Ports a container may not use (the platform's sidecars): terraform-provider-cpln `GetPortValidators`. */
export const RESERVED_PORTS = [8012, 8022, 9090, 9091, 15000, 15001, 15006, 15020, 15021, 15090, 41000] as const;
/** Container names the platform uses (resource_workload.go `DisallowListValidator`), and the `cpln-` prefix. */
export const RESERVED_CONTAINER_NAMES = [
  "istio-proxy",
  "queue-proxy",
  "istio-validation",
  "cpln-envoy-assassin",
  "cpln-writer-proxy",
  "cpln-reader-proxy",
  "cpln-dbaas-config",
] as const;
/** Env names the platform sets (resource_workload.go `NoneOfCaseInsensitive`), compared case-insensitively. */
export const RESERVED_ENV_NAMES = ["K_SERVICE", "K_CONFIGURATION", "K_REVISION"] as const;
/** Mount paths a volume may not take (resource_workload.go, volume `path`). */
export const RESERVED_VOLUME_PATHS = [
  "/dev",
  "/dev/",
  "/dev/log",
  "/dev/log/",
  "/tmp",
  "/tmp/",
  "/var",
  "/var/",
  "/var/log",
  "/var/log/",
] as const;
/** `//identity/N`, `//gvc/G/identity/N` or `/org/O/gvc/G/identity/N` (groups: N; G, N; O, G, N). */
export const IDENTITY_LINK_PATTERN =
  /^(?:\/\/identity\/([^/]+)|\/\/gvc\/([^/]+)\/identity\/([^/]+)|\/org\/([^/]+)\/gvc\/([^/]+)\/identity\/([^/]+))$/;
export const VOLUME_URI_PATTERN = /^(s3|gs|azureblob|azurefs|cpln|scratch|k8s):\/\/.+/;
const QUANTITY_PATTERN = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
export const CONTAINERS_MAX = 8;
export const VOLUMES_MAX = 15;

const port = () =>
  z
    .number()
    .int()
    .min(80, "must be at least 80")
    .max(65535, "must be at most 65535")
    .refine((n) => !(RESERVED_PORTS as readonly number[]).includes(n), {
      message: `must not be a reserved port (${RESERVED_PORTS.join(", ")})`,
    })
    .describe(`A port: 80-65535, not ${RESERVED_PORTS.join(", ")} (used by the platform).`)
    .register(crossFieldRules(), { not: { enum: [...RESERVED_PORTS] } });

const quantity = (what: string) =>
  z
    .string()
    .max(20, "must be at most 20 characters")
    .regex(QUANTITY_PATTERN, `must be a valid ${what} quantity`)
    .describe(`A ${what} quantity such as ${what === "CPU" ? "50m or 1" : "128Mi or 1Gi"} (at most 20 characters).`);

const absolutePath = (what: string) => z.string().regex(/^\//, "must be an absolute path").describe(what);

function exec(mode: ObjectMode) {
  return object(mode, { command: z.array(z.string()).optional().describe("Command and arguments.") }).describe(
    "Runs a command.",
  );
}

/** A readiness or liveness probe (`HealthCheckSpec`): one way to check, and its timing. */
export function healthCheck(mode: ObjectMode) {
  const seconds = (min: number, max: number, text: string) => z.number().int().min(min).max(max).describe(text);
  return object(mode, {
    exec: exec(mode).optional(),
    grpc: object(mode, { port: port().optional() }).describe("gRPC health check.").optional(),
    tcpSocket: object(mode, { port: port().optional() }).describe("TCP connect check.").optional(),
    httpGet: object(mode, {
      path: z.string().max(256).optional().describe("Path (default '/')."),
      port: port().optional(),
      httpHeaders: z
        .array(object(mode, { name: z.string().describe("Header name."), value: z.string().describe("Value.") }))
        .optional()
        .describe("Headers sent with the request."),
      scheme: z.enum(["HTTP", "HTTPS"]).optional().describe("Scheme (default HTTP)."),
    })
      .describe("HTTP GET check.")
      .optional(),
    initialDelaySeconds: seconds(0, 600, "Seconds before the first check: 0-600.").optional(),
    periodSeconds: seconds(1, 600, "Seconds between checks: 1-600 (default 10).").optional(),
    timeoutSeconds: seconds(1, 600, "Seconds a check may take: 1-600 (default 1).").optional(),
    successThreshold: seconds(1, 20, "Successes that make it pass: 1-20 (default 1).").optional(),
    failureThreshold: seconds(1, 20, "Failures that make it fail: 1-20 (default 3).").optional(),
  }).describe("A health check: at most one of exec, grpc, tcpSocket and httpGet.");
}

export function envVar(mode: ObjectMode) {
  return object(mode, {
    name: z
      .string()
      .min(1)
      .describe(`Variable name (not ${RESERVED_ENV_NAMES.join(", ")}, in any case).`),
    value: z.string().max(4096).optional().describe("Value (at most 4096 characters); may reference a secret."),
  }).describe("An environment variable.");
}

export function containerPort(mode: ObjectMode) {
  return object(mode, {
    protocol: z.enum(["http", "http2", "grpc", "tcp"]).optional().describe("Protocol (default http)."),
    number: port(),
  }).describe("A port the container exposes.");
}

export function volume(mode: ObjectMode) {
  return object(mode, {
    uri: z
      .string()
      .regex(
        VOLUME_URI_PATTERN,
        "must be s3://, gs://, azureblob://, azurefs://, cpln://, scratch:// or k8s:// and a name",
      )
      .describe(
        "What is mounted: cpln://volumeset/<name> (a volume set of the same gvc), cpln://secret/<name>, s3://bucket, gs://bucket, azureblob://account/container, azurefs://account/share, scratch://<name>.",
      ),
    recoveryPolicy: z.enum(["retain", "recycle"]).optional().describe("Deprecated; default retain."),
    path: absolutePath(`Mount path: absolute, not ${RESERVED_VOLUME_PATHS.filter((p) => !p.endsWith("/")).join(", ")}.`)
      .refine((p) => !(RESERVED_VOLUME_PATHS as readonly string[]).includes(p), {
        message: "must not be a reserved path (/dev, /dev/log, /tmp, /var, /var/log)",
      })
      .register(crossFieldRules(), { not: { enum: [...RESERVED_VOLUME_PATHS] } }),
  }).describe("A volume mounted into the container.");
}

function gpu(mode: ObjectMode) {
  return object(mode, {
    nvidia: object(mode, {
      model: z.enum(["t4", "a10g"]).describe("GPU model."),
      quantity: z.number().int().min(0).max(4).describe("Number of GPUs: 0-4."),
    })
      .describe("NVIDIA GPUs.")
      .optional(),
    custom: object(mode, {
      resource: z
        .string()
        .max(64)
        .regex(/^[a-zA-Z0-9./]*$/)
        .describe("Resource name."),
      runtimeClass: z
        .string()
        .max(64)
        .regex(/^[a-zA-Z0-9./]*$/)
        .optional()
        .describe("Runtime class."),
      quantity: z.number().int().min(0).max(8).describe("Number of GPUs: 0-8."),
    })
      .describe("A custom GPU resource (BYOK).")
      .optional(),
  }).describe("GPUs: nvidia or custom, not both.");
}

function lifecycleHandler(mode: ObjectMode) {
  return object(mode, { exec: exec(mode) }).describe("A lifecycle hook.");
}

/** One container (`ContainerSpec`). */
export function container(mode: ObjectMode) {
  return object(mode, {
    name: z
      .string()
      .max(64, "must be at most 64 characters")
      .regex(/^[a-z]([-a-z0-9]*[a-z0-9])?$/, "must be lowercase letters, digits and '-', starting with a letter")
      .describe(`Name, unique in the workload; not ${RESERVED_CONTAINER_NAMES.join(", ")} nor starting with cpln-.`)
      .register(crossFieldRules(), {
        not: { anyOf: [{ enum: [...RESERVED_CONTAINER_NAMES] }, { pattern: "^cpln-" }] },
      }),
    image: z.string().min(1).max(512).describe("Image: a registry path and tag, or //image/NAME:TAG of the org."),
    workingDir: absolutePath("Working directory (absolute).").optional(),
    metrics: object(mode, {
      port: port(),
      path: z.string().max(128).describe("Path serving the metrics."),
      dropMetrics: z.array(z.string()).optional().describe("Patterns of metrics to drop."),
    })
      .describe("Custom metrics the container emits.")
      .optional(),
    port: port().optional().describe("Deprecated single port: use ports."),
    ports: z.array(containerPort(mode)).optional().describe("Ports the container exposes (keyed by number)."),
    memory: quantity("memory").optional(),
    cpu: quantity("CPU").optional(),
    minCpu: quantity("CPU").optional(),
    minMemory: quantity("memory").optional(),
    readinessProbe: healthCheck(mode).optional(),
    livenessProbe: healthCheck(mode).optional(),
    env: z.array(envVar(mode)).optional().describe("Environment variables (keyed by name)."),
    gpu: gpu(mode).optional(),
    inheritEnv: z.boolean().optional().describe("Inherit the gvc's env (default false)."),
    command: z.string().max(256).optional().describe("Entry point override."),
    args: z.array(z.string()).optional().describe("Arguments (ordered)."),
    lifecycle: object(mode, {
      postStart: lifecycleHandler(mode).optional(),
      preStop: lifecycleHandler(mode).optional(),
    })
      .describe("Hooks run after start and before stop.")
      .optional(),
    volumes: z.array(volume(mode)).max(VOLUMES_MAX).optional().describe("Volumes (keyed by path, at most 15)."),
  }).describe("A container of the workload.");
}

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

import { z } from "zod";
import { crossFieldRules } from "./jsonRules.js";
import { object, type ObjectMode } from "./common.js";

/**
 * One container of a workload's spec (`ContainerSpec` of controlplane-com/types-ts `src/interfaces/workload.ts`,
 * `env.ts`, `volumeSpec.ts`) and its parts: ports, probes, env, volumes, GPUs, lifecycle hooks; with the names, ports
 * and paths the platform keeps for itself, as terraform-provider-cpln states them in
 * `internal/provider/resource_workload.go` and `common.go` (`GetPortValidators`). The rest of the spec is
 * `workloadSpec.ts`.
 */

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
export const VOLUME_URI_PATTERN = /^(s3|gs|azureblob|azurefs|cpln|scratch|k8s):\/\/.+/;
const QUANTITY_PATTERN = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
export const VOLUMES_MAX = 15;

/** A port a container listens on or a rule names: 80-65535, not a reserved one. */
export const port = () =>
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

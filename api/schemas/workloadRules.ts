import type { Issue } from "../errors.js";
import { documentedRules } from "./jsonRules.js";
import { RESERVED_CONTAINER_NAMES, RESERVED_ENV_NAMES } from "./workloadContainer.js";
import type { WorkloadType } from "./workloadSpec.js";

/**
 * The rules of a workload spec that span fields, and the defaults the API fills. Sources: controlplane-com/
 * terraform-provider-cpln `internal/provider/resource_workload.go` (`WorkloadResourceValidator`, `ModifyPlan`,
 * `ModifyAutoscaling`, and the `Computed`/`Default` attributes), docs.controlplane.com/reference/workload/types
 * (ports per type, stateful and capacity AI), /reference/workload/volumes (unique mount paths) and
 * /reference/volumeset (a non-shared volume set serves at most one stateful workload). fidelity/facts/workload.json
 * holds each with its source.
 */

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const arr = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObj) : []);
const fill = (target: Json, defaults: Json): Json => ({ ...defaults, ...target });

export const DEFAULT_RETRY_ON = [
  "connect-failure",
  "refused-stream",
  "unavailable",
  "cancelled",
  "resource-exhausted",
  "retriable-status-codes",
];

function probeDefaults(probe: unknown, initialDelaySeconds: number): unknown {
  if (!isObj(probe)) return probe;
  const filled = fill(probe, {
    initialDelaySeconds,
    periodSeconds: 10,
    timeoutSeconds: 1,
    successThreshold: 1,
    failureThreshold: 3,
  });
  if (isObj(probe["httpGet"])) filled["httpGet"] = fill(probe["httpGet"], { path: "/", scheme: "HTTP" });
  return filled;
}

function containerDefaults(c: Json): Json {
  const out = fill(c, { cpu: "50m", memory: "128Mi", inheritEnv: false });
  if (Array.isArray(c["ports"])) out["ports"] = arr(c["ports"]).map((p) => fill(p, { protocol: "http" }));
  if (Array.isArray(c["volumes"])) out["volumes"] = arr(c["volumes"]).map((v) => fill(v, { recoveryPolicy: "retain" }));
  if (c["readinessProbe"] !== undefined) out["readinessProbe"] = probeDefaults(c["readinessProbe"], 10);
  if (c["livenessProbe"] !== undefined) out["livenessProbe"] = probeDefaults(c["livenessProbe"], 60);
  return out;
}

function optionsDefaults(options: Json, type: WorkloadType, gpu: boolean): Json {
  const out = fill(options, {
    timeoutSeconds: 5,
    // Stateful and cron workloads do not support capacity AI, nor does a container with a GPU.
    capacityAI: type !== "stateful" && type !== "cron" && !gpu,
    debug: false,
    suspend: false,
  });
  const scaling = isObj(options["autoscaling"]) ? options["autoscaling"] : {};
  const filled = fill(scaling, { minScale: 1, maxScale: 5, scaleToZeroDelay: 300, maxConcurrency: 0 });
  // ModifyAutoscaling: metric and target only when neither multi nor keda is given.
  if (scaling["multi"] === undefined && scaling["keda"] === undefined) {
    if (filled["metric"] === undefined) filled["metric"] = type === "stateful" ? "cpu" : "concurrency";
    if (filled["target"] === undefined && filled["metric"] !== "keda") filled["target"] = 95;
  }
  out["autoscaling"] = filled;
  return out;
}

/** The spec with every default the API fills; idempotent (only missing fields are set). */
export function workloadSpecDefaults(spec: Json): Json {
  // docs.controlplane.com/reference/workload/types: "Standard (default)".
  const type = (spec["type"] as WorkloadType | undefined) ?? "standard";
  const containers = arr(spec["containers"]).map(containerDefaults);
  const gpu = containers.some((c) => c["gpu"] !== undefined);
  const out: Json = { ...spec, type, containers, supportDynamicTags: spec["supportDynamicTags"] ?? false };
  out["defaultOptions"] = optionsDefaults(isObj(spec["defaultOptions"]) ? spec["defaultOptions"] : {}, type, gpu);
  if (Array.isArray(spec["localOptions"])) {
    out["localOptions"] = arr(spec["localOptions"]).map((o) => optionsDefaults(o, type, gpu));
  }
  const firewall = spec["firewallConfig"];
  if (isObj(firewall)) {
    const fw: Json = { ...firewall };
    if (isObj(firewall["external"])) {
      fw["external"] = fill(firewall["external"], {
        inboundAllowCIDR: [],
        inboundBlockedCIDR: [],
        outboundAllowHostname: [],
        outboundAllowCIDR: [],
        outboundBlockedCIDR: [],
      });
    }
    if (isObj(firewall["internal"])) {
      fw["internal"] = fill(firewall["internal"], { inboundAllowType: "none", inboundAllowWorkload: [] });
    }
    out["firewallConfig"] = fw;
  }
  if (isObj(spec["job"])) {
    out["job"] = fill(spec["job"], { concurrencyPolicy: "Forbid", historyLimit: 5, restartPolicy: "Never" });
  }
  if (isObj(spec["rolloutOptions"])) {
    out["rolloutOptions"] = fill(spec["rolloutOptions"], {
      minReadySeconds: 0,
      scalingPolicy: "OrderedReady",
      terminationGracePeriodSeconds: 90,
    });
  }
  const lb = spec["loadBalancer"];
  if (isObj(lb)) {
    const filled = fill(lb, { replicaDirect: false });
    if (isObj(lb["geoLocation"])) filled["geoLocation"] = fill(lb["geoLocation"], { enabled: false });
    out["loadBalancer"] = filled;
  }
  if (isObj(spec["requestRetryPolicy"])) {
    out["requestRetryPolicy"] = fill(spec["requestRetryPolicy"], { attempts: 2, retryOn: DEFAULT_RETRY_ON });
  }
  return out;
}

const PROBE_KINDS = ["exec", "grpc", "tcpSocket", "httpGet"] as const;
const CRON_FIELD = /^[0-9A-Za-z*?,/-]+$/;

function millicores(q: string): number {
  return q.endsWith("m") ? Number(q.slice(0, -1)) : Number(q) * 1000;
}
function mebibytes(q: string): number {
  const m = /^([0-9.]+)(Ki|Mi|Gi|Ti|K|M|G|T)?$/.exec(q);
  if (!m) return Number.NaN;
  const unit: Record<string, number> = {
    "": 1 / 1048576,
    Ki: 1 / 1024,
    Mi: 1,
    Gi: 1024,
    Ti: 1048576,
    K: 1e3 / 1048576,
    M: 1e6 / 1048576,
    G: 1e9 / 1048576,
    T: 1e12 / 1048576,
  };
  return Number(m[1]) * (unit[m[2] ?? ""] as number);
}

function optionsIssues(
  options: Json,
  at: (p: string, m: string) => void,
  base: string,
  type: WorkloadType,
  gpu: boolean,
) {
  const scaling = isObj(options["autoscaling"]) ? options["autoscaling"] : {};
  const s = `${base}.autoscaling`;
  if (scaling["multi"] !== undefined) {
    if (scaling["metric"] !== undefined) at(`${s}.metric`, "must not be set together with multi");
    if (scaling["target"] !== undefined) at(`${s}.target`, "must not be set together with multi");
  }
  const min = scaling["minScale"];
  const max = scaling["maxScale"];
  if (typeof min === "number" && typeof max === "number" && min > max)
    at(`${s}.minScale`, `must not exceed maxScale (${max})`);
  if ((scaling["metric"] === "keda" || scaling["keda"] !== undefined) && type !== "standard" && type !== "stateful") {
    at(`${s}.keda`, "is supported only by standard and stateful workloads");
  }
  if (type === "stateful" && scaling["metric"] === "concurrency") {
    at(`${s}.metric`, "must not be 'concurrency' for a stateful workload");
  }
  if (options["capacityAI"] === true) {
    if (type === "stateful" || type === "cron") at(`${base}.capacityAI`, `must be false for a ${type} workload`);
    else if (gpu) at(`${base}.capacityAI`, "must be false when a container uses a GPU");
  }
}

/** Rules spanning fields of a workload spec that has passed the strict schema (defaults filled). */
export function workloadSpecIssues(spec: Json, tags: Json = {}): Issue[] {
  const issues: Issue[] = [];
  const at = (path: string, message: string) => issues.push({ path: `spec.${path}`, message });
  const type = (spec["type"] as WorkloadType | undefined) ?? "standard";
  const containers = arr(spec["containers"]);
  const names = new Set<string>();
  const ports = new Set<number>();
  let portCount = 0;
  containers.forEach((c, i) => {
    const base = `containers.${i}`;
    const name = String(c["name"]);
    if ((RESERVED_CONTAINER_NAMES as readonly string[]).includes(name) || name.startsWith("cpln-")) {
      at(`${base}.name`, "must not be a name the platform uses (istio-proxy, queue-proxy, istio-validation, cpln-...)");
    }
    if (names.has(name)) at(`${base}.name`, "duplicates the name of another container");
    names.add(name);
    const own = [
      ...arr(c["ports"]).map((p) => p["number"] as number),
      ...(typeof c["port"] === "number" ? [c["port"]] : []),
    ];
    own.forEach((n, j) => {
      if (ports.has(n)) at(`${base}.ports.${j}.number`, `duplicates port ${n} of the workload`);
      ports.add(n);
    });
    portCount += own.length;
    if (type === "cron" && own.length > 0)
      at(`${base}.ports`, "must be empty in a cron workload (it exposes no ports)");
    if (type === "serverless" && arr(c["ports"]).some((p) => p["protocol"] === "tcp")) {
      at(`${base}.ports`, "must not use protocol 'tcp' in a serverless workload (it serves one HTTP port)");
    }
    const envNames = new Set<string>();
    arr(c["env"]).forEach((e, j) => {
      const key = String(e["name"]);
      if ((RESERVED_ENV_NAMES as readonly string[]).includes(key.toUpperCase())) {
        at(`${base}.env.${j}.name`, `must not be ${RESERVED_ENV_NAMES.join(", ")} (set by the platform)`);
      }
      if (envNames.has(key)) at(`${base}.env.${j}.name`, "duplicates another variable of the container");
      envNames.add(key);
    });
    const paths = new Set<string>();
    arr(c["volumes"]).forEach((v, j) => {
      const path = String(v["path"]);
      if (paths.has(path)) at(`${base}.volumes.${j}.path`, "duplicates the path of another volume of the container");
      paths.add(path);
      const uri = String(v["uri"]);
      if (uri.startsWith("cpln://") && !/^cpln:\/\/(volumeset|secret)\/[a-z][-a-z0-9]*$/.test(uri)) {
        at(`${base}.volumes.${j}.uri`, "must be cpln://volumeset/<name> or cpln://secret/<name>");
      }
    });
    for (const probe of ["readinessProbe", "livenessProbe"] as const) {
      const p = c[probe];
      if (p === undefined) continue;
      if (type === "cron") at(`${base}.${probe}`, "is not supported by a cron workload");
      if (isObj(p) && PROBE_KINDS.filter((k) => p[k] !== undefined).length > 1) {
        at(`${base}.${probe}`, "must hold at most one of exec, grpc, tcpSocket and httpGet");
      }
    }
    if (type === "cron") {
      if (c["minCpu"] !== undefined) at(`${base}.minCpu`, "is not allowed in a cron workload");
      if (c["minMemory"] !== undefined) at(`${base}.minMemory`, "is not allowed in a cron workload");
    }
    // types.mdx (stateful cost optimization): a minimum within 4000m / 4096Mi of its maximum, and at least a quarter.
    for (const [minField, maxField, units, spread, unit] of [
      ["minCpu", "cpu", millicores, 4000, "m"],
      ["minMemory", "memory", mebibytes, 4096, "Mi"],
    ] as const) {
      if (c[minField] === undefined) continue;
      const min = units(String(c[minField]));
      const max = units(String(c[maxField]));
      if (!Number.isFinite(min) || !Number.isFinite(max)) continue;
      if (min > max) at(`${base}.${minField}`, `must not exceed ${maxField} (${String(c[maxField])})`);
      else if (max - min > spread)
        at(`${base}.${minField}`, `must be within ${spread}${unit} of ${maxField} (${String(c[maxField])})`);
      else if (min * 4 < max)
        at(`${base}.${minField}`, `must be at least a quarter of ${maxField} (${String(c[maxField])})`);
    }
    const gpu = c["gpu"];
    if (isObj(gpu)) {
      if (gpu["nvidia"] !== undefined && gpu["custom"] !== undefined)
        at(`${base}.gpu`, "must hold nvidia or custom, not both");
      if (gpu["nvidia"] !== undefined) {
        const cpu = millicores(String(c["cpu"] ?? "50m"));
        const memory = mebibytes(String(c["memory"] ?? "128Mi"));
        if (!(cpu >= 2000) || !(memory >= 7000)) {
          at(`${base}.gpu`, "needs the container to have at least 2 CPU (2000m) and 7000Mi of memory");
        }
      }
    }
  });
  if (type === "serverless" && portCount !== 1) {
    at("containers", `must expose exactly one port in a serverless workload (found ${portCount})`);
  }
  const gpu = containers.some((c) => c["gpu"] !== undefined);
  if (isObj(spec["defaultOptions"])) optionsIssues(spec["defaultOptions"], at, "defaultOptions", type, gpu);
  if (type === "cron" && spec["localOptions"] !== undefined) {
    at("localOptions", "is not supported by a cron workload (it runs in every location alike)");
  }
  const locations = new Set<string>();
  arr(spec["localOptions"]).forEach((o, i) => {
    optionsIssues(o, at, `localOptions.${i}`, type, gpu);
    const location = String(o["location"]);
    if (locations.has(location)) at(`localOptions.${i}.location`, "duplicates the location of another item");
    locations.add(location);
  });
  const job = spec["job"];
  if (type === "cron" && job === undefined) at("job", "is required when spec.type is 'cron'");
  if (isObj(job)) {
    const fields = String(job["schedule"]).trim().split(/\s+/);
    if (fields.length !== 5 || !fields.every((f) => CRON_FIELD.test(f))) {
      at("job.schedule", "must be a cron expression with 5 fields (minute hour day-of-month month day-of-week)");
    }
  }
  const rollout = spec["rolloutOptions"];
  if (isObj(rollout)) {
    if (type === "stateful" && rollout["maxUnavailableReplicas"] !== undefined) {
      at("rolloutOptions.maxUnavailableReplicas", "is not supported by a stateful workload");
    }
    const grace = rollout["terminationGracePeriodSeconds"];
    if (typeof grace === "number" && grace > 900 && tags["cpln/relaxGracePeriodMax"] === undefined) {
      at(
        "rolloutOptions.terminationGracePeriodSeconds",
        "must be at most 900 unless the workload has the tag cpln/relaxGracePeriodMax",
      );
    }
  }
  const lb = spec["loadBalancer"];
  if (isObj(lb) && lb["replicaDirect"] === true && type !== "stateful") {
    at("loadBalancer.replicaDirect", "can be true only for a stateful workload");
  }
  return issues;
}

/** The rules above and the server's link checks, as the OpenAPI document states them (`x-cpln-rules`). */
export function workloadSpecRules() {
  return documentedRules([
    {
      rule: "Container names are unique in the workload and not a platform name (istio-proxy, queue-proxy, istio-validation, cpln-*); env names are unique in a container and not K_SERVICE, K_CONFIGURATION or K_REVISION (any case); mount paths are unique in a container; port numbers are unique in the workload.",
      issue: /^(must not be a name the platform uses .*|duplicates .*|must not be K_SERVICE, .*)$/,
    },
    {
      rule: "Ports by type: a serverless workload exposes exactly one port, not tcp; a cron workload exposes none and has no probes, minCpu, minMemory or localOptions, and needs `job` with a 5-field cron schedule.",
      issue:
        /^(must expose exactly one port .*|must not use protocol 'tcp' .*|must be empty in a cron workload .*|is not supported by a cron workload( \(it runs in every location alike\))?|is not allowed in a cron workload|is required when spec\.type is 'cron'|must be a cron expression with 5 fields .*)$/,
    },
    {
      rule: "A probe holds at most one of exec, grpc, tcpSocket and httpGet; a gpu holds nvidia or custom, and nvidia needs 2 CPU and 7000Mi; minCpu and minMemory are at most cpu and memory, within 4000m and 4096Mi of them and at least a quarter of them.",
      issue:
        /^(must hold at most one of .*|must hold nvidia or custom, not both|needs the container to have at least .*|must not exceed (cpu|memory) \(.*\)|must be within \d+(m|Mi) of (cpu|memory) \(.*\)|must be at least a quarter of (cpu|memory) \(.*\))$/,
    },
    {
      rule: "Autoscaling: multi excludes metric and target; minScale <= maxScale; keda only for standard and stateful; a stateful workload has no concurrency metric; stateful and cron workloads have no capacity AI; capacity AI is off with a GPU; localOptions locations are unique and exist.",
      issue:
        /^(must not be set together with multi|must not exceed maxScale .*|is supported only by standard and stateful workloads|must not be 'concurrency' for a stateful workload|must be false (for a (stateful|cron) workload|when a container uses a GPU)|names no location .*)$/,
    },
    {
      rule: "Stateful only: loadBalancer.replicaDirect; not for stateful: rolloutOptions.maxUnavailableReplicas. rolloutOptions.terminationGracePeriodSeconds is at most 900 unless the workload has the tag cpln/relaxGracePeriodMax (then 3600).",
      issue:
        /^(can be true only for a stateful workload|is not supported by a stateful workload|must be at most 900 unless .*)$/,
    },
    {
      rule: "Links: identityLink names an identity of the workload's gvc; a cpln:// volume is cpln://volumeset/<name> (an existing volume set of the same gvc; a non-shared one only for a stateful workload and at most one workload) or cpln://secret/<name>; a named object must exist when cpln-local serves its kind.",
      issue:
        /^(must be cpln:\/\/volumeset\/<name> or cpln:\/\/secret\/<name>|must be an identity link.*|must name an identity of the workload's gvc .*|names no (volume set|secret|identity) .*|mounts a volume set only a stateful workload may mount .*|mounts volume set .* already mounted by workload .*)$/,
    },
  ]);
}

import { z } from "zod";
import { crossFieldRules, type DocumentedRule } from "./jsonRules.js";
import { object, type ObjectMode } from "./common.js";
import { secretLink } from "./tracing.js";

/**
 * One external logging configuration of an org (`spec.logging`, each item of `spec.extraLogging`): the provider types
 * of controlplane-com/types-ts `src/interfaces/orgLogging.ts` (fields, required ones and enums), and `loki`, which
 * terraform-provider-cpln's client sends too (`internal/provider/client/org.go` `LokiLogging`). Secrets are links
 * (`credentials: //secret/x`), never values.
 */

export const cloudWatchRegions = [
  "us-east-1",
  "us-east-2",
  "us-west-1",
  "us-west-2",
  "ap-south-1",
  "ap-northeast-2",
  "ap-southeast-1",
  "ap-southeast-2",
  "ap-northeast-1",
  "eu-central-1",
  "eu-west-1",
  "eu-west-2",
  "eu-south-1",
  "eu-west-3",
  "eu-north-1",
  "me-south-1",
  "sa-east-1",
  "af-south-1",
] as const;
export const coralogixClusters = [
  "coralogix.com",
  "coralogix.us",
  "app.coralogix.in",
  "app.eu2.coralogix.com",
  "app.coralogixsg.com",
] as const;
export const datadogHosts = [
  "http-intake.logs.datadoghq.com",
  "http-intake.logs.us3.datadoghq.com",
  "http-intake.logs.us5.datadoghq.com",
  "http-intake.logs.datadoghq.eu",
] as const;
export const logzioListenerHosts = ["listener.logz.io", "listener-nl.logz.io"] as const;
export const stackdriverLocations = [
  "us-east1",
  "us-east4",
  "us-central1",
  "us-west1",
  "europe-west4",
  "europe-west1",
  "europe-west3",
  "europe-west2",
  "asia-east1",
  "asia-southeast1",
  "asia-northeast1",
  "asia-south1",
  "australia-southeast1",
  "southamerica-east1",
  "africa-south1",
  "asia-east2",
  "asia-northeast2",
  "asia-northeast3",
  "asia-south2",
  "asia-southeast2",
  "australia-southeast2",
  "europe-central2",
  "europe-north1",
  "europe-southwest1",
  "europe-west10",
  "europe-west12",
  "europe-west6",
  "europe-west8",
  "europe-west9",
  "me-central1",
  "me-central2",
  "me-west1",
  "northamerica-northeast1",
  "northamerica-northeast2",
  "southamerica-west1",
  "us-east5",
  "us-south1",
  "us-west2",
  "us-west3",
  "us-west4",
] as const;

/** At most this many logging configurations: `logging` plus `extraLogging` (terraform-provider-cpln
 * `docs/resources/org_logging.md`: "You can define up to four logging blocks"). */
export const MAX_LOGGING_CONFIGS = 4;

const text = (what: string) => z.string().min(1).describe(what);
const port = () => z.number().int().min(1).max(65535).describe("Port: 1-65535.");

function elastic(mode: ObjectMode) {
  return object(mode, {
    aws: object(mode, {
      host: text("Host."),
      port: port(),
      index: text("Index."),
      type: text("Type."),
      credentials: secretLink("Secret of type aws."),
      region: text("AWS region."),
    })
      .optional()
      .describe("Amazon OpenSearch / Elasticsearch."),
    elasticCloud: object(mode, {
      index: text("Index."),
      type: text("Type."),
      credentials: secretLink("Secret of type userpass."),
      cloudId: text("Elastic Cloud id."),
    })
      .optional()
      .describe("Elastic Cloud."),
    generic: object(mode, {
      host: text("Host."),
      port: port().optional(),
      path: z.string().optional().describe("Path."),
      index: text("Index."),
      type: text("Type."),
      credentials: secretLink("Secret of type userpass."),
      username: z.string().optional().describe("User name."),
      password: z.string().optional().describe("Password."),
    })
      .optional()
      .describe("Any Elasticsearch endpoint."),
  }).describe("Elasticsearch.");
}

/**
 * The providers, in the order the description lists them. A literal rather than the keys of `providers(...)`, which
 * would build every provider's schema when this module loads (the plugin's start paid for it on every command);
 * `providers` returns exactly these keys (its type says so).
 */
export const LOGGING_PROVIDERS = [
  "s3",
  "coralogix",
  "datadog",
  "logzio",
  "elastic",
  "cloudWatch",
  "fluentd",
  "stackdriver",
  "syslog",
  "opentelemetry",
  "loki",
] as const;
type LoggingProvider = (typeof LOGGING_PROVIDERS)[number];

function providers(mode: ObjectMode): Record<LoggingProvider, z.ZodType> {
  return {
    s3: object(mode, {
      bucket: text("Bucket."),
      region: text("AWS region."),
      prefix: z.string().optional().describe("Key prefix."),
      credentials: secretLink("Secret of type aws."),
    }).describe("Amazon S3."),
    coralogix: object(mode, {
      cluster: z.enum(coralogixClusters).describe("Coralogix cluster."),
      credentials: secretLink("Opaque secret with the private key."),
      app: z.string().optional().describe("Application name."),
      subsystem: z.string().optional().describe("Subsystem name."),
    }).describe("Coralogix."),
    datadog: object(mode, {
      host: z.enum(datadogHosts).describe("Datadog intake host."),
      credentials: secretLink("Opaque secret with the API key."),
    }).describe("Datadog."),
    logzio: object(mode, {
      listenerHost: z.enum(logzioListenerHosts).describe("Listener host."),
      credentials: secretLink("Opaque secret with the token."),
    }).describe("Logz.io."),
    elastic: elastic(mode),
    cloudWatch: object(mode, {
      region: z.enum(cloudWatchRegions).describe("AWS region."),
      credentials: secretLink("Secret of type aws."),
      retentionDays: z.number().int().min(1).optional().describe("Days CloudWatch keeps the logs."),
      groupName: text("Log group."),
      streamName: text("Log stream."),
      extractFields: z.record(z.string(), z.string()).optional().describe("Fields to extract."),
    }).describe("Amazon CloudWatch."),
    fluentd: object(mode, { host: text("Host."), port: port().optional() }).describe("Fluentd."),
    stackdriver: object(mode, {
      credentials: secretLink("Opaque secret with the service account key."),
      location: z.enum(stackdriverLocations).describe("Google Cloud location."),
    }).describe("Google Cloud Logging (Stackdriver)."),
    syslog: object(mode, {
      host: text("Host."),
      port: port(),
      mode: z.enum(["tcp", "udp", "tls"]).describe("Transport."),
      format: z.enum(["rfc3164", "rfc5424"]).describe("Message format."),
      severity: z.number().int().min(0).max(7).describe("Lowest severity sent: 0-7."),
    }).describe("Syslog."),
    opentelemetry: object(mode, {
      endpoint: text("Collector endpoint."),
      headers: z.record(z.string(), z.string()).optional().describe("Headers sent with the logs."),
      credentials: secretLink("Opaque secret.").optional(),
    }).describe("OpenTelemetry collector."),
    loki: object(mode, {
      endpoint: text("Loki endpoint."),
      credentials: secretLink("Secret of type userpass.").optional(),
      tenantId: z.string().optional().describe("X-Scope-OrgID of a multi-tenant Loki."),
    }).describe("Grafana Loki."),
  };
}

/** The one-provider rule as the document states it for merges (a merge may add a provider to a stored one). */
export const loggingProviderRule: DocumentedRule = {
  rule: "Each logging configuration (logging, extraLogging items) sets exactly one provider, after a merge too.",
  issue: /^must set exactly one logging provider \(.*\)$/,
};

/** One logging configuration: exactly one provider. */
export function logging(mode: ObjectMode) {
  const shape: Record<string, z.ZodType> = {};
  const byName = providers(mode);
  for (const key of LOGGING_PROVIDERS) shape[key] = byName[key].optional();
  const config = object(mode, shape).describe(
    `Where the org's logs go: exactly one of ${LOGGING_PROVIDERS.join(", ")}.`,
  );
  if (mode === "loose") return config;
  return config
    .superRefine((value, ctx) => {
      const set = Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined);
      if (set.length !== 1) {
        ctx.addIssue({
          code: "custom",
          message: `must set exactly one logging provider (${set.length === 0 ? "none" : set.join(" and ")} set)`,
        });
      }
    })
    .register(crossFieldRules(), { minProperties: 1, maxProperties: 1 });
}

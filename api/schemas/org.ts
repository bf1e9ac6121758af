import { z } from "zod";
import { lazy } from "../lazy.js";
import {
  describedTaggedPatchFields,
  object,
  patchObject,
  readOnlyPatchShape,
  recordShape,
  type ObjectMode,
  type PatchField,
} from "./common.js";
import { crossFieldRules, documentedRules } from "./jsonRules.js";
import { logging, loggingProviderRule, MAX_LOGGING_CONFIGS } from "./orgLogging.js";
import { tracing, tracingPatch, tracingProviderRule } from "./tracing.js";

/**
 * The org's settings: `OrgSpec` of controlplane-com/types-ts `src/interfaces/org.ts`, with the limits and defaults of
 * terraform-provider-cpln `internal/provider/resource_org.go` (sessionTimeoutSeconds ≥ 900, default 900; retention
 * days 0-3650, default 30; threat-detection syslog port 1-100000, transport default tcp).
 */

export const SESSION_TIMEOUT_MIN = 900;
export const RETENTION_DAYS_MAX = 3650;
export const RETENTION_FIELDS = ["logsRetentionDays", "metricsRetentionDays", "tracesRetentionDays"] as const;
/** What an org has until it is changed (resource_org.go: defaults, and what its Delete restores). */
export const ORG_SPEC_DEFAULTS = {
  sessionTimeoutSeconds: 900,
  observability: { logsRetentionDays: 30, metricsRetentionDays: 30, tracesRetentionDays: 30 },
} as const;
export const threatSeverities = ["warning", "error", "critical"] as const;

const retention = (what: string) =>
  z
    .number()
    .int()
    .min(0, `must be 0-${RETENTION_DAYS_MAX}`)
    .max(RETENTION_DAYS_MAX, `must be 0-${RETENTION_DAYS_MAX}`)
    .describe(`Days ${what} are kept: 0-${RETENTION_DAYS_MAX} (default 30; charges apply beyond 30).`);

function observabilityFields() {
  return {
    logsRetentionDays: retention("logs"),
    metricsRetentionDays: retention("metrics"),
    tracesRetentionDays: retention("traces"),
    defaultAlertEmails: z
      .array(z.email("must be an email address"))
      .describe("Alert recipients of the default Grafana contact point."),
  };
}

function observability(mode: ObjectMode) {
  const f = observabilityFields();
  return object(mode, {
    logsRetentionDays: f.logsRetentionDays.optional(),
    metricsRetentionDays: f.metricsRetentionDays.optional(),
    tracesRetentionDays: f.tracesRetentionDays.optional(),
    defaultAlertEmails: f.defaultAlertEmails.optional(),
  }).describe("Retention of logs, metrics and traces, and alert recipients.");
}

function authConfigFields() {
  return {
    domainAutoMembers: z
      .array(z.string().min(1))
      .describe("Email domains whose users become members when they sign in with SAML."),
    samlOnly: z.boolean().describe("Only SAML sign-in is allowed."),
  };
}

function authConfig(mode: ObjectMode) {
  const f = authConfigFields();
  return object(mode, { domainAutoMembers: f.domainAutoMembers, samlOnly: f.samlOnly.optional() }).describe(
    "Authentication settings.",
  );
}

function threatSyslog(mode: ObjectMode) {
  return object(mode, {
    transport: z.enum(["tcp", "udp"]).optional().describe("tcp (with TLS, the default) or udp."),
    host: z.string().min(1).describe("Host the messages go to."),
    port: z.number().int().min(1).max(100000).describe("Port: 1-100000."),
  }).describe("Syslog forwarding of threats.");
}

function threatDetection(mode: ObjectMode) {
  return object(mode, {
    enabled: z.boolean().describe("Forward detected threats."),
    minimumSeverity: z.enum(threatSeverities).optional().describe("Least severe threat forwarded."),
    syslog: threatSyslog(mode).optional(),
  }).describe("Threat detection.");
}

function security(mode: ObjectMode) {
  return object(mode, { threatDetection: threatDetection(mode).optional() }).describe("Security settings.");
}

function sessionTimeout() {
  return z
    .number()
    .int()
    .min(SESSION_TIMEOUT_MIN, `must be at least ${SESSION_TIMEOUT_MIN}`)
    .describe(`Idle seconds before the console signs a user out: at least ${SESSION_TIMEOUT_MIN} (default 900).`);
}

function extraLogging(mode: ObjectMode) {
  return z
    .array(logging(mode))
    .max(MAX_LOGGING_CONFIGS - 1, `at most ${MAX_LOGGING_CONFIGS - 1} (with logging, ${MAX_LOGGING_CONFIGS} in all)`)
    .describe(`More logging configurations: at most ${MAX_LOGGING_CONFIGS - 1}.`);
}

function buildSpec(mode: ObjectMode) {
  return object(mode, {
    logging: logging(mode).optional(),
    extraLogging: extraLogging(mode).optional(),
    tracing: tracing(mode).optional(),
    sessionTimeoutSeconds: sessionTimeout().optional(),
    authConfig: authConfig(mode).optional(),
    observability: observability(mode).optional(),
    security: security(mode).optional(),
  })
    .describe("Org settings.")
    .register(crossFieldRules(), mode === "strict" ? orgSpecRules() : {});
}

/** What a merge can break that JSON Schema cannot say of a merge body: one provider per block. */
function orgSpecRules() {
  return documentedRules([loggingProviderRule, tracingProviderRule]);
}

/** The org's spec as a `$replace/spec` or the result of a patch must be (unknown fields rejected). */
export const orgSpec = lazy(() => buildSpec("strict"));

export const org = lazy(() =>
  z
    .looseObject({
      ...recordShape("org"),
      spec: buildSpec("loose").optional(),
      status: z
        .looseObject({
          accountLink: z.string().optional().describe("The billing account (none in cpln-local)."),
          active: z.boolean().optional().describe("Whether the org is active."),
          endpointPrefix: z.string().optional().describe("Random prefix of the org's workload endpoints."),
        })
        .optional()
        .describe("Server-maintained state."),
    })
    .describe("An organization: the root of every other object."),
);
export type Org = z.infer<ReturnType<typeof org>>;

function leaves(fields: Record<string, z.ZodType>): Record<string, PatchField> {
  const out: Record<string, PatchField> = {};
  for (const [key, value] of Object.entries(fields)) out[key] = { value };
  return out;
}

function specPatch() {
  const threat = threatDetection("strict").shape;
  return patchObject({
    logging: { value: logging("strict") },
    extraLogging: { value: extraLogging("strict") },
    tracing: tracingPatch(),
    sessionTimeoutSeconds: { value: sessionTimeout() },
    authConfig: { value: authConfig("strict"), merge: patchObject(leaves(authConfigFields())) },
    observability: { value: observability("strict"), merge: patchObject(leaves(observabilityFields())) },
    security: {
      value: security("strict"),
      merge: patchObject({
        threatDetection: {
          value: threatDetection("strict"),
          merge: patchObject({
            enabled: { value: threat.enabled, required: true },
            minimumSeverity: { value: threat.minimumSeverity.unwrap() },
            syslog: { value: threat.syslog.unwrap() },
          }),
        },
      }),
    },
  })
    .describe("Changes to the org's settings: objects merge (use $replace/logging to switch a logging provider).")
    .register(crossFieldRules(), orgSpecRules());
}

/** Body of PATCH /org/{org}: description, tags and the settings (`spec`), with every directive. */
export const orgPatch = lazy(() =>
  patchObject(
    { ...describedTaggedPatchFields(), spec: { value: orgSpec(), merge: specPatch() } },
    readOnlyPatchShape(),
  ).describe("Body of PATCH /org/{org}."),
);

/**
 * The org's settings (`spec`) are writable as on the real API (types-ts `OrgSpec`; terraform-provider-cpln
 * `resource_org.go`, `resource_org_logging.go`, `resource_org_tracing.go` and `client/org.go` for what is sent):
 * defaults filled, PATCH merging nested objects, `$replace/spec` and nested `$replace/`, `$drop` applied — never
 * silently ignored — and a bad body a 400 naming the field before anything changes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { ORG, admin, start } from "./helpers.js";

let server: RunningServer;
const self = `/org/${ORG}`;

beforeAll(async () => {
  server = await start();
});

afterAll(async () => {
  await server.close();
});

type Org = { version: number; spec: Record<string, unknown>; status: Record<string, unknown> };
const read = async () => (await admin(server).get(self)).body as Org;
const patch = (body: unknown) => admin(server).patch(self, body);
const defaults = {
  sessionTimeoutSeconds: 900,
  observability: { logsRetentionDays: 30, metricsRetentionDays: 30, tracesRetentionDays: 30 },
};
const datadog = { datadog: { host: "http-intake.logs.datadoghq.com", credentials: "//secret/datadog" } };
const s3 = { s3: { bucket: "logs", region: "us-east-1", credentials: `/org/${ORG}/secret/aws` } };
const tracing = { sampling: 25, provider: { otel: { endpoint: "collector:4317" } } };

describe("org settings", () => {
  it("a new org has the defaults and a status with its endpoint prefix", async () => {
    const org = await read();
    expect(org.spec).toEqual(defaults);
    expect(org.status).toEqual({ active: true, endpointPrefix: expect.stringMatching(/^p[0-9a-f]{10}$/) });
  });

  it("PATCH spec.tracing is applied (it was answered 200 and ignored)", async () => {
    const before = await read();
    const answer = await patch({ spec: { tracing } });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ version: before.version + 1, spec: { ...defaults, tracing } });
    expect((await read()).spec["tracing"]).toEqual(tracing);
  });

  it("terraform's org logging: nested $replace/ sets and removes logging and extraLogging", async () => {
    const set = await patch({ spec: { "$replace/logging": datadog, "$replace/extraLogging": [s3] } });
    expect(set.status).toBe(200);
    const spec = (set.body as Org).spec;
    // Credentials are links to secrets, stored in full form.
    expect(spec["logging"]).toEqual({
      datadog: { host: "http-intake.logs.datadoghq.com", credentials: `/org/${ORG}/secret/datadog` },
    });
    expect(spec["extraLogging"]).toEqual([s3]);
    expect(spec["tracing"]).toEqual(tracing);
    const removed = await patch({ spec: { "$replace/logging": null, "$replace/extraLogging": null } });
    expect((removed.body as Org).spec).toEqual({ ...defaults, tracing });
  });

  it("nested objects merge, $drop inside spec removes, $replace/spec replaces with the defaults filled", async () => {
    await patch({ spec: { authConfig: { domainAutoMembers: ["example.com"], samlOnly: true } } });
    const merged = await patch({
      spec: {
        observability: { logsRetentionDays: 90, defaultAlertEmails: ["ops@example.com"] },
        authConfig: { samlOnly: false },
      },
    });
    expect((merged.body as Org).spec).toMatchObject({
      observability: {
        logsRetentionDays: 90,
        metricsRetentionDays: 30,
        tracesRetentionDays: 30,
        defaultAlertEmails: ["ops@example.com"],
      },
      authConfig: { domainAutoMembers: ["example.com"], samlOnly: false },
    });
    const dropped = await patch({ spec: { $drop: ["authConfig", "tracing"] } });
    expect((dropped.body as Org).spec).not.toHaveProperty("authConfig");
    expect((dropped.body as Org).spec).not.toHaveProperty("tracing");
    // terraform-provider-cpln's org update: the whole spec in $replace/spec.
    const security = {
      threatDetection: { enabled: true, minimumSeverity: "error", syslog: { host: "siem", port: 6514 } },
    };
    const replaced = await patch({
      "$replace/spec": { sessionTimeoutSeconds: 1800, observability: { metricsRetentionDays: 7 }, security },
    });
    expect(replaced.status).toBe(200);
    expect((replaced.body as Org).spec).toEqual({
      sessionTimeoutSeconds: 1800,
      observability: { logsRetentionDays: 30, metricsRetentionDays: 7, tracesRetentionDays: 30 },
      security,
    });
    // Its Delete writes the defaults back.
    const reset = await patch({
      "$replace/spec": { sessionTimeoutSeconds: 900, observability: defaults.observability },
    });
    expect((reset.body as Org).spec).toEqual(defaults);
  });

  it.each([
    ["a session timeout under 900 s", { sessionTimeoutSeconds: 600 }, "spec.sessionTimeoutSeconds"],
    [
      "a retention beyond 3650 days",
      { observability: { tracesRetentionDays: 4000 } },
      "spec.observability.tracesRetentionDays",
    ],
    [
      "an alert email that is not one",
      { observability: { defaultAlertEmails: ["ops"] } },
      "spec.observability.defaultAlertEmails.0",
    ],
    ["two providers in one logging", { "$replace/logging": { ...datadog, ...s3 } }, "spec.$replace/logging"],
    [
      "a credential that is no secret link",
      { "$replace/logging": { datadog: { host: "http-intake.logs.datadoghq.com", credentials: "key-123" } } },
      "spec.$replace/logging.datadog.credentials",
    ],
    ["four extra logging configurations", { extraLogging: [s3, s3, s3, s3] }, "spec.extraLogging"],
    [
      "an unknown threat severity",
      { security: { threatDetection: { enabled: true, minimumSeverity: "info" } } },
      "spec.security.threatDetection.minimumSeverity",
    ],
    ["an unknown field", { widgets: 1 }, "spec.widgets"],
  ])("%s: 400 naming the field, the org unchanged", async (_what, spec, path) => {
    const before = await read();
    const answer = await patch({ spec });
    expect(answer.status).toBe(400);
    const issues = (answer.body as { details: { issues: { path: string }[] } }).details.issues;
    expect(issues.map((i) => i.path)).toEqual([path]);
    expect(await read()).toEqual(before);
  });

  it("a merge that would leave two providers in one block is a 400 naming it, the org unchanged", async () => {
    expect((await patch({ spec: { "$replace/logging": datadog, "$replace/tracing": tracing } })).status).toBe(200);
    const before = await read();
    for (const [spec, path, message] of [
      [{ logging: s3 }, "spec.logging", "must set exactly one logging provider (s3 and datadog set)"],
      [
        { tracing: { provider: { controlplane: {} } } },
        "spec.tracing.provider",
        "must set exactly one of otel, lightstep, controlplane (otel and controlplane set)",
      ],
    ] as const) {
      const answer = await patch({ spec });
      expect(answer.status).toBe(400);
      expect((answer.body as { details: { issues: unknown[] } }).details.issues).toEqual([{ path, message }]);
    }
    expect(await read()).toEqual(before);
    // Switching providers: null removes the old one in the same merge.
    const switched = await patch({ spec: { tracing: { provider: { otel: null, controlplane: {} } } } });
    expect((switched.body as Org).spec["tracing"]).toEqual({ sampling: 25, provider: { controlplane: {} } });
  });

  it("the status is the server's: a PATCH of it changes nothing", async () => {
    const before = await read();
    const answer = await patch({ status: { active: false } });
    expect(answer.status).toBe(200);
    expect(await read()).toEqual(before);
  });
});

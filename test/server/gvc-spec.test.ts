/**
 * A gvc's whole spec as the real API takes it (types-ts `GvcSpec`, terraform-provider-cpln's client and validators):
 * every field round-trips, links are stored in full form, `endpointNamingFormat` defaults to `org`, the server gives
 * a unique read-only `alias`, PATCH merges nested objects and takes every directive, and a bad body is a 400 naming
 * the field and the rule before anything changes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { pullSecretIssues } from "../../server/domain/gvc.js";
import type { StoredRecord } from "../../server/store/store.js";
import { ORG, admin, start } from "./helpers.js";

let server: RunningServer;

const pullSecrets = [
  {
    name: "docker-pull",
    type: "docker",
    data: JSON.stringify({ auths: { "registry.example.com": { auth: "dTpw" } } }),
  },
  {
    name: "ecr-pull",
    type: "ecr",
    data: { accessKey: "AKIAEXAMPLE", secretKey: "example", repos: ["1.dkr.ecr.us-east-1.amazonaws.com/app"] },
  },
];
const gvcs = `/org/${ORG}/gvc`;
const full = (path: string) => `/org/${ORG}/${path}`;

beforeAll(async () => {
  server = await start();
  // The pull secrets the specs name: a pull secret must be a docker, ecr or gcp secret of the org.
  for (const secret of pullSecrets) {
    expect((await admin(server).post(`/org/${ORG}/secret`, secret)).status).toBe(201);
  }
});

afterAll(async () => {
  await server.close();
});

type Gvc = { alias: string; version: number; spec: Record<string, unknown>; status: unknown };
const get = async (name: string) => (await admin(server).get(`${gvcs}/${name}`)).body as Gvc;

/** Every field of the spec, links in their relative form. */
const whole = {
  staticPlacement: {
    locationLinks: ["//location/aws-eu-central-1", "//location/aws-us-west-2"],
    locationOptions: [
      { locationLink: "//location/aws-eu-central-1", routingTier: 1, latencyToleranceMs: 150 },
      { locationLink: "//location/aws-us-west-2", routingTier: 2, latencyOffsetMs: -5 },
    ],
  },
  pullSecretLinks: ["//secret/docker-pull"],
  domain: "app.example.com",
  endpointNamingFormat: "legacy",
  aliasWorkloadLink: "//gvc/whole/workload/front",
  tracing: {
    sampling: 55.55,
    provider: { lightstep: { endpoint: "test.cpln.local:8080", credentials: "//secret/lightstep" } },
    customTags: { env: { literal: { value: "prod" } } },
  },
  sidecar: { envoy: { http: [{ name: "envoy.filters.http.grpc_web" }], volumes: [{ path: "/etc/config" }] } },
  env: [{ name: "A", value: "1" }, { name: "B" }],
  loadBalancer: {
    dedicated: true,
    multiZone: { enabled: false },
    trustedProxies: 1,
    redirect: { class: { status5xx: "https://example.org/5xx", status401: "https://auth.example.org/%REQ(:path)%" } },
    ipSet: "//ipset/office",
  },
  keda: { enabled: true, identityLink: "//gvc/whole/identity/keda", secrets: ["//secret/trigger"] },
};

describe("gvc spec: create", () => {
  it("every field round-trips, links stored in full form; alias and status set by the server", async () => {
    const created = await admin(server).post(gvcs, { name: "whole", spec: whole });
    expect(created.status).toBe(201);
    const stored = {
      ...whole,
      staticPlacement: {
        locationLinks: [full("location/aws-eu-central-1"), full("location/aws-us-west-2")],
        locationOptions: [
          { ...whole.staticPlacement.locationOptions[0], locationLink: full("location/aws-eu-central-1") },
          { ...whole.staticPlacement.locationOptions[1], locationLink: full("location/aws-us-west-2") },
        ],
      },
      pullSecretLinks: [full("secret/docker-pull")],
      aliasWorkloadLink: full("gvc/whole/workload/front"),
      tracing: {
        ...whole.tracing,
        provider: { lightstep: { endpoint: "test.cpln.local:8080", credentials: full("secret/lightstep") } },
      },
      loadBalancer: { ...whole.loadBalancer, ipSet: full("ipset/office") },
      keda: { enabled: true, identityLink: full("gvc/whole/identity/keda"), secrets: [full("secret/trigger")] },
    };
    const body = created.body as Gvc;
    expect(body.spec).toEqual(stored);
    expect(body.status).toEqual({});
    expect(body.alias).toMatch(/^[a-z][a-z0-9]{11}$/);
    expect(await get("whole")).toEqual(body);
  });

  it("endpointNamingFormat defaults to org; every gvc gets its own alias, which a query finds", async () => {
    const a = (await admin(server).post(gvcs, { name: "plain-a" })).body as Gvc;
    const b = (await admin(server).post(gvcs, { name: "plain-b", spec: { env: [] } })).body as Gvc;
    expect(a.spec).toEqual({ endpointNamingFormat: "org" });
    expect(b.spec).toEqual({ env: [], endpointNamingFormat: "org" });
    expect(a.alias).not.toBe(b.alias);
    const found = await admin(server).post(`${gvcs}/-query`, {
      spec: { terms: [{ property: "alias", value: b.alias }] },
    });
    expect((found.body as { items: { name: string }[] }).items.map((i) => i.name)).toEqual(["plain-b"]);
  });

  it.each([
    [
      "an unknown location",
      { staticPlacement: { locationLinks: ["//location/aws-mars-1"] } },
      "spec.staticPlacement.locationLinks.0",
      "location 'aws-mars-1' does not exist in org 'acme'",
    ],
    [
      "a location listed twice",
      { staticPlacement: { locationLinks: ["//location/aws-us-west-2", `/org/${ORG}/location/aws-us-west-2`] } },
      "spec.staticPlacement.locationLinks.1",
      `names location '/org/${ORG}/location/aws-us-west-2' more than once`,
    ],
    [
      "an option for a location not listed",
      { staticPlacement: { locationOptions: [{ locationLink: "//location/aws-us-west-2" }] } },
      "spec.staticPlacement.locationOptions.0.locationLink",
      "must name one of staticPlacement.locationLinks",
    ],
    [
      "a link of the wrong kind",
      { pullSecretLinks: ["//group/viewers"] },
      "spec.pullSecretLinks.0",
      "must be a link to a secret (//secret/<name>)",
    ],
    [
      "trustedProxies above 2",
      { loadBalancer: { trustedProxies: 3 } },
      "spec.loadBalancer.trustedProxies",
      "Too big: expected number to be <=2",
    ],
    [
      "two tracing providers",
      { tracing: { sampling: 10, provider: { otel: { endpoint: "o:1" }, controlplane: {} } } },
      "spec.tracing.provider",
      "must set exactly one of otel, lightstep, controlplane (otel and controlplane set)",
    ],
    ["sampling above 100", { tracing: { sampling: 101 } }, "spec.tracing.sampling", "must be 0-100"],
    [
      "an alias workload of another gvc",
      { aliasWorkloadLink: "//gvc/other/workload/w" },
      "spec.aliasWorkloadLink",
      "must name a workload of gvc 'refused'",
    ],
    [
      "a repeated variable",
      { env: [{ name: "A" }, { name: "A", value: "2" }] },
      "spec.env.1",
      "names variable 'A' more than once",
    ],
    ["an unknown endpoint naming format", { endpointNamingFormat: "short" }, "spec.endpointNamingFormat", undefined],
  ])("%s: 400 naming the field, nothing created", async (_what, spec, path, message) => {
    const answer = await admin(server).post(gvcs, { name: "refused", spec });
    expect(answer.status).toBe(400);
    const issues = (answer.body as { details: { issues: { path: string; message: string }[] } }).details.issues;
    expect(issues.map((i) => i.path)).toEqual([path]);
    if (message !== undefined) expect(issues[0]?.message).toBe(message);
    expect((await admin(server).get(`${gvcs}/refused`)).status).toBe(404);
  });
});

describe("gvc spec: patch", () => {
  it("nested objects merge; keyed directives take relative links; $replace/spec and $drop reset", async () => {
    const item = `${gvcs}/patched`;
    expect((await admin(server).post(gvcs, { name: "patched", spec: whole })).status).toBe(400); // alias of gvc whole
    const spec = { ...whole, aliasWorkloadLink: "//gvc/patched/workload/front" };
    expect((await admin(server).post(gvcs, { name: "patched", spec })).status).toBe(201);
    const merged = await admin(server).patch(item, {
      spec: {
        loadBalancer: { trustedProxies: 2, redirect: null },
        tracing: { sampling: 10 },
        staticPlacement: {
          "$drop/locationOptions": ["//location/aws-us-west-2"],
          "$patch/locationOptions": [{ locationLink: "//location/aws-eu-central-1", routingTier: 0 }],
        },
        "$patch/env": [{ name: "B", value: "2" }],
        "$append/pullSecretLinks": ["//secret/ecr-pull"],
      },
    });
    expect(merged.status).toBe(200);
    const after = (merged.body as Gvc).spec;
    expect(after["loadBalancer"]).toEqual({
      dedicated: true,
      multiZone: { enabled: false },
      trustedProxies: 2,
      ipSet: full("ipset/office"),
    });
    expect(after["tracing"]).toMatchObject({ sampling: 10, customTags: whole.tracing.customTags });
    expect(after["staticPlacement"]).toEqual({
      locationLinks: [full("location/aws-eu-central-1"), full("location/aws-us-west-2")],
      locationOptions: [{ locationLink: full("location/aws-eu-central-1"), routingTier: 0, latencyToleranceMs: 150 }],
    });
    expect(after["env"]).toEqual([
      { name: "A", value: "1" },
      { name: "B", value: "2" },
    ]);
    expect(after["pullSecretLinks"]).toEqual([full("secret/docker-pull"), full("secret/ecr-pull")]);
    // terraform-provider-cpln's update: the whole spec in $replace/spec.
    const replaced = await admin(server).patch(item, {
      "$replace/spec": {
        staticPlacement: { locationLinks: ["//location/aws-us-west-2"] },
        endpointNamingFormat: "org",
      },
    });
    expect((replaced.body as Gvc).spec).toEqual({
      staticPlacement: { locationLinks: [full("location/aws-us-west-2")] },
      endpointNamingFormat: "org",
    });
    const dropped = await admin(server).patch(item, { $drop: ["spec"] });
    expect((dropped.body as Gvc).spec).toEqual({ endpointNamingFormat: "org" });
  });

  it("a bad patch is a 400 naming the field, the gvc unchanged; the alias is read-only", async () => {
    const item = `${gvcs}/guarded`;
    const created = (await admin(server).post(gvcs, { name: "guarded" })).body as Gvc;
    // A body valid in itself whose merge leaves out a required field: a conflict with the stored object (409).
    const refusals: [unknown, string, number][] = [
      [
        { spec: { staticPlacement: { "$append/locationLinks": ["//location/nowhere"] } } },
        "spec.staticPlacement.locationLinks.0",
        400,
      ],
      [{ spec: { loadBalancer: { trustedProxies: -1 } } }, "spec.loadBalancer.trustedProxies", 400],
      [{ spec: { keda: { identityLink: "//identity/x" } } }, "spec.keda.identityLink", 400],
      [{ spec: { tracing: { provider: { otel: { endpoint: "x:1" } } } } }, "spec.tracing.sampling", 409],
    ];
    for (const [body, path, status] of refusals) {
      const answer = await admin(server).patch(item, body);
      expect({ path, status: answer.status }).toEqual({ path, status });
      expect(JSON.stringify(answer.body)).toContain(`"path":"${path}"`);
    }
    expect(await get("guarded")).toEqual(created);
    const renamed = await admin(server).patch(item, { alias: "mine" });
    expect(renamed.status).toBe(409);
    expect(JSON.stringify(renamed.body)).toContain("is read-only");
    expect((await admin(server).patch(item, { alias: created.alias, description: "d" })).status).toBe(200);
    expect((await get("guarded")).alias).toBe(created.alias);
  });
});

describe("locations a gvc is placed in", () => {
  it("a BYOK location a gvc names cannot be deleted (409 InUse) until the gvc lets it go", async () => {
    expect((await admin(server).post(`/org/${ORG}/location`, { name: "rack-1", provider: "byok" })).status).toBe(201);
    const spec = { staticPlacement: { locationLinks: ["//location/rack-1"] } };
    expect((await admin(server).post(gvcs, { name: "on-rack", spec })).status).toBe(201);
    const refused = await admin(server).delete(`/org/${ORG}/location/rack-1`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: "InUse",
      message: "location rack-1 is a location of gvc on-rack; remove it there first",
    });
    expect((await admin(server).get(`/org/${ORG}/location/rack-1`)).status).toBe(200);
    const released = await admin(server).patch(`${gvcs}/on-rack`, {
      spec: { staticPlacement: { "$drop/locationLinks": ["//location/rack-1"] } },
    });
    expect((released.body as Gvc).spec["staticPlacement"]).toEqual({ locationLinks: [] });
    expect((await admin(server).delete(`/org/${ORG}/location/rack-1`)).status).toBe(202);
  });
});

describe("pull secrets, where the org serves secrets", () => {
  const store = (docs: Record<string, Record<string, unknown>>) => ({
    get: (_org: string, kind: string, _scope: string, name: string) =>
      Promise.resolve(kind === "secret" && docs[name] ? ({ doc: docs[name] } as unknown as StoredRecord) : undefined),
  });
  const links = [full("secret/reg"), full("secret/token"), full("secret/gone")];

  it("each must exist and be of type docker, ecr or gcp; links kept from before are not read again", async () => {
    const tx = store({ reg: { type: "docker" }, token: { type: "opaque" } });
    expect(await pullSecretIssues(tx, ORG, links, true)).toEqual([
      {
        path: "spec.pullSecretLinks.1",
        message: "is a secret of type 'opaque': a pull secret is of type docker, ecr, gcp",
      },
      { path: "spec.pullSecretLinks.2", message: `secret 'gone' does not exist in org '${ORG}'` },
    ]);
    expect(await pullSecretIssues(tx, ORG, links, true, links.slice(1))).toEqual([]);
    expect(await pullSecretIssues(tx, ORG, links, false)).toEqual([]);
  });
});

describe("the document states the rules JSON Schema cannot", () => {
  /** Every `x-cpln-rules` issue pattern of the OpenAPI document, wherever it sits. */
  async function documentedIssues(): Promise<RegExp[]> {
    const doc = (await admin(server).get("/openapi.json")).body;
    const found: RegExp[] = [];
    const visit = (value: unknown) => {
      if (Array.isArray(value)) value.forEach(visit);
      else if (typeof value === "object" && value !== null) {
        for (const [key, child] of Object.entries(value)) {
          if (key === "x-cpln-rules")
            for (const r of child as { issue: string }[]) found.push(new RegExp(r.issue, "u"));
          else visit(child);
        }
      }
    };
    visit(doc);
    return found;
  }

  it("each cross-item refusal of a gvc spec matches a documented rule", async () => {
    const issues = await documentedIssues();
    const messages = [
      "location 'aws-mars-1' does not exist in org 'acme'",
      `names location '/org/${ORG}/location/aws-us-west-2' more than once`,
      "must name one of staticPlacement.locationLinks",
      "must name a workload of gvc 'refused'",
      "names variable 'A' more than once",
      "must set exactly one of otel, lightstep, controlplane (otel and controlplane set)",
      "is a secret of type 'opaque': a pull secret is of type docker, ecr, gcp",
      `secret 'gone' does not exist in org '${ORG}'`,
    ];
    for (const message of messages)
      expect({ message, documented: issues.some((i) => i.test(message)) }).toEqual({ message, documented: true });
  });
});

// Workloads as the real API serves them: every type, the defaults it fills, keyed minimal PATCHes, the refusals it
// states (400 naming the field and rule, nothing written), the emulated status and read-only deployments.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import {
  addMember,
  admin,
  ANY_ID,
  ANY_TIME,
  apiError,
  call,
  ADMIN_KEY,
  bearer,
  ORG,
  serviceAccountWithKey,
  start,
} from "./helpers.js";
import { workloadSpecRules } from "../../api/schemas/workloadRules.js";

let server: RunningServer;
const GVC = "apps";
const base = `/org/${ORG}/gvc/${GVC}/workload`;
const auth = bearer(ADMIN_KEY);

beforeAll(async () => {
  server = await start();
  const gvc = await admin(server).post(`/org/${ORG}/gvc`, {
    name: GVC,
    spec: { staticPlacement: { locationLinks: [`//location/aws-eu-central-1`, `//location/aws-us-west-2`] } },
  });
  expect(gvc.status).toBe(201);
  const other = await admin(server).post(`/org/${ORG}/gvc`, { name: "other" });
  expect(other.status).toBe(201);
  for (const [gvc, name] of [
    [GVC, "data"],
    ["other", "elsewhere"],
  ] as const) {
    const set = await admin(server).post(`/org/${ORG}/gvc/${gvc}/volumeset`, {
      name,
      spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" },
    });
    expect(set.status).toBe(201);
  }
});
afterAll(async () => server.close());

const web = (name: string, env: { name: string; value: string }[] = []) => ({
  name,
  image: `registry.example/${name}:1`,
  ports: [{ number: 8080 }],
  env,
});

const DEFAULT_OPTIONS = {
  timeoutSeconds: 5,
  capacityAI: true,
  debug: false,
  suspend: false,
  autoscaling: {
    metric: "concurrency",
    target: 95,
    minScale: 1,
    maxScale: 5,
    scaleToZeroDelay: 300,
    maxConcurrency: 0,
  },
};

describe("workload types", () => {
  it("creates a serverless workload with the defaults the API fills and an emulated status", async () => {
    const created = await admin(server).post(base, {
      name: "api",
      spec: { type: "serverless", containers: [web("main")] },
    });
    expect(created.status).toBe(201);
    const gvc = await admin(server).get(`/org/${ORG}/gvc/${GVC}`);
    expect(created.body).toEqual({
      kind: "workload",
      id: ANY_ID,
      name: "api",
      description: "api",
      version: 1,
      tags: {},
      created: ANY_TIME,
      lastModified: ANY_TIME,
      links: [
        { rel: "self", href: `${base}/api` },
        { rel: "org", href: `/org/${ORG}` },
        { rel: "gvc", href: `/org/${ORG}/gvc/${GVC}` },
        { rel: "deployment", href: `${base}/api/deployment` },
      ],
      spec: {
        type: "serverless",
        supportDynamicTags: false,
        containers: [
          {
            name: "main",
            image: "registry.example/main:1",
            cpu: "50m",
            memory: "128Mi",
            inheritEnv: false,
            ports: [{ number: 8080, protocol: "http" }],
            env: [],
          },
        ],
        defaultOptions: DEFAULT_OPTIONS,
      },
      status: {
        parentId: (gvc.body as { id: string }).id,
        // The gvc's alias names the endpoint (server/domain/workloadStatus.ts).
        canonicalEndpoint: `https://api-${(gvc.body as { alias: string }).alias}.cpln.app`,
        endpoint: `https://api-${(gvc.body as { alias: string }).alias}.cpln.app`,
        internalName: `api.${GVC}.cpln.local`,
        currentReplicaCount: 1,
        ready: true,
        healthCheck: { active: false, message: "emulated by cpln-local: no container runs" },
        resolvedImages: {
          resolvedAt: ANY_TIME,
          images: [
            {
              digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
              manifests: [expect.objectContaining({ image: "registry.example/main:1" })],
            },
          ],
        },
      },
    });
  });

  it("creates standard, stateful (mounting a volume set of its gvc) and cron workloads, each with its defaults", async () => {
    const standard = await admin(server).post(base, {
      name: "worker",
      spec: {
        type: "standard",
        containers: [{ name: "w", image: "busybox", ports: [{ number: 80 }, { number: 81, protocol: "tcp" }] }],
      },
    });
    expect(standard.status).toBe(201);
    const stateful = await admin(server).post(base, {
      name: "db",
      spec: {
        type: "stateful",
        containers: [
          { name: "pg", image: "postgres:16", volumes: [{ uri: "cpln://volumeset/data", path: "/var/lib/pg" }] },
        ],
        rolloutOptions: {},
      },
    });
    expect(stateful.status).toBe(201);
    const statefulSpec = (stateful.body as { spec: Record<string, unknown> }).spec;
    expect(statefulSpec["defaultOptions"]).toEqual({
      ...DEFAULT_OPTIONS,
      capacityAI: false,
      autoscaling: { ...DEFAULT_OPTIONS.autoscaling, metric: "cpu" },
    });
    expect(statefulSpec["rolloutOptions"]).toEqual({
      minReadySeconds: 0,
      scalingPolicy: "OrderedReady",
      terminationGracePeriodSeconds: 90,
    });
    expect((statefulSpec["containers"] as { volumes: unknown }[])[0]?.volumes).toEqual([
      { uri: "cpln://volumeset/data", path: "/var/lib/pg", recoveryPolicy: "retain" },
    ]);
    const cron = await admin(server).post(base, {
      name: "nightly",
      spec: { type: "cron", containers: [{ name: "job", image: "busybox" }], job: { schedule: "0 3 * * *" } },
    });
    expect(cron.status).toBe(201);
    const cronBody = cron.body as { spec: Record<string, unknown>; status: Record<string, unknown> };
    expect(cronBody.spec["job"]).toEqual({
      schedule: "0 3 * * *",
      concurrencyPolicy: "Forbid",
      historyLimit: 5,
      restartPolicy: "Never",
    });
    expect(cronBody.status["endpoint"]).toBeUndefined();
    expect(cronBody.status["currentReplicaCount"]).toBe(0);
  });
});

describe("minimal PATCHes (containers by name, env by name, ports by number)", () => {
  it("changes one variable of one container and keeps the other container and variables", async () => {
    const body = {
      name: "pair",
      spec: {
        type: "standard",
        containers: [
          web("a", [
            { name: "X", value: "1" },
            { name: "Y", value: "2" },
          ]),
          { ...web("b", [{ name: "Z", value: "3" }]), ports: [{ number: 9000 }] },
        ],
      },
    };
    expect((await admin(server).post(base, body)).status).toBe(201);
    const patched = await admin(server).patch(`${base}/pair`, {
      spec: { "$patch/containers": [{ name: "a", "$patch/env": [{ name: "X", value: "changed" }] }] },
    });
    expect(patched.status).toBe(200);
    const containers = (patched.body as { spec: { containers: { name: string; env: unknown }[] }; version: number })
      .spec.containers;
    expect(containers.map((c) => [c.name, c.env])).toEqual([
      [
        "a",
        [
          { name: "X", value: "changed" },
          { name: "Y", value: "2" },
        ],
      ],
      ["b", [{ name: "Z", value: "3" }]],
    ]);
    expect((patched.body as { version: number }).version).toBe(2);
    const dropped = await admin(server).patch(`${base}/pair`, {
      spec: { "$patch/containers": [{ name: "b", "$drop/ports": ["9000"], "$append/ports": [{ number: 9001 }] }] },
    });
    expect(dropped.status).toBe(200);
    expect((dropped.body as { spec: { containers: { ports: unknown }[] } }).spec.containers[1]?.ports).toEqual([
      { number: 9001, protocol: "http" },
    ]);
  });

  it("refuses a change of type with 409 and leaves the workload as it was", async () => {
    const answer = await admin(server).patch(`${base}/pair`, { spec: { type: "serverless" } });
    expect(answer).toMatchObject({
      status: 409,
      body: apiError(409, "Conflict", expect.any(String), [
        { path: "spec.type", message: "is immutable: it cannot change after the object is created" },
      ]),
    });
    expect(((await admin(server).get(`${base}/pair`)).body as { version: number }).version).toBe(3);
  });
});

describe("refusals: 400 naming the field and rule, nothing written", () => {
  const cases: [string, unknown, string, string][] = [
    [
      "a cron workload without job",
      { type: "cron", containers: [{ name: "c", image: "x" }] },
      "spec.job",
      "is required when spec.type is 'cron'",
    ],
    [
      "two containers with one name",
      {
        type: "standard",
        containers: [
          { name: "c", image: "x" },
          { name: "c", image: "y" },
        ],
      },
      "spec.containers.1.name",
      "duplicates the name of another container",
    ],
    [
      "a reserved port",
      { containers: [{ name: "c", image: "x", ports: [{ number: 15000 }] }] },
      "spec.containers.0.ports.0.number",
      "must not be a reserved port (8012, 8022, 9090, 9091, 15000, 15001, 15006, 15020, 15021, 15090, 41000)",
    ],
    [
      "a serverless workload with two ports",
      { type: "serverless", containers: [{ name: "c", image: "x", ports: [{ number: 80 }, { number: 81 }] }] },
      "spec.containers",
      "must expose exactly one port in a serverless workload (found 2)",
    ],
    [
      "a cron workload with per-location options",
      {
        type: "cron",
        job: { schedule: "*/5 * * * *" },
        containers: [{ name: "c", image: "x" }],
        localOptions: [{ location: "aws-us-west-2" }],
      },
      "spec.localOptions",
      "is not supported by a cron workload (it runs in every location alike)",
    ],
    [
      "a minCpu below a quarter of cpu",
      { type: "stateful", containers: [{ name: "c", image: "x", cpu: "1", minCpu: "100m" }] },
      "spec.containers.0.minCpu",
      "must be at least a quarter of cpu (1)",
    ],
    [
      "a cron workload exposing a port",
      {
        type: "cron",
        job: { schedule: "* * * * *" },
        containers: [{ name: "c", image: "x", ports: [{ number: 80 }] }],
      },
      "spec.containers.0.ports",
      "must be empty in a cron workload (it exposes no ports)",
    ],
    [
      "a reserved env name",
      { type: "standard", containers: [{ name: "c", image: "x", env: [{ name: "k_service", value: "v" }] }] },
      "spec.containers.0.env.0.name",
      "must not be K_SERVICE, K_CONFIGURATION, K_REVISION (set by the platform)",
    ],
    [
      "a reserved container name",
      { type: "standard", containers: [{ name: "istio-proxy", image: "x" }] },
      "spec.containers.0.name",
      "must not be a name the platform uses (istio-proxy, queue-proxy, istio-validation, cpln-...)",
    ],
    [
      "a volume set of another gvc",
      {
        type: "stateful",
        containers: [{ name: "c", image: "x", volumes: [{ uri: "cpln://volumeset/elsewhere", path: "/data" }] }],
      },
      "spec.containers.0.volumes.0.uri",
      `names no volume set elsewhere in gvc ${GVC}`,
    ],
    [
      "a volume set on a standard workload",
      {
        type: "standard",
        containers: [{ name: "c", image: "x", volumes: [{ uri: "cpln://volumeset/data", path: "/data" }] }],
      },
      "spec.containers.0.volumes.0.uri",
      "mounts a volume set only a stateful workload may mount (data is not shared)",
    ],
    [
      "a volume set another workload mounts",
      {
        type: "stateful",
        containers: [{ name: "c", image: "x", volumes: [{ uri: "cpln://volumeset/data", path: "/data" }] }],
      },
      "spec.containers.0.volumes.0.uri",
      "mounts volume set data already mounted by workload db",
    ],
    [
      "an identity of another gvc",
      { type: "standard", identityLink: "//gvc/other/identity/app", containers: [{ name: "c", image: "x" }] },
      "spec.identityLink",
      `must name an identity of the workload's gvc (${GVC})`,
    ],
    [
      "a stateful concurrency metric",
      {
        type: "stateful",
        containers: [{ name: "c", image: "x" }],
        defaultOptions: { autoscaling: { metric: "concurrency" } },
      },
      "spec.defaultOptions.autoscaling.metric",
      "must not be 'concurrency' for a stateful workload",
    ],
    [
      "minScale above maxScale",
      {
        type: "standard",
        containers: [{ name: "c", image: "x" }],
        defaultOptions: { autoscaling: { minScale: 4, maxScale: 2 } },
      },
      "spec.defaultOptions.autoscaling.minScale",
      "must not exceed maxScale (2)",
    ],
    [
      "a location that does not exist",
      { type: "standard", containers: [{ name: "c", image: "x" }], localOptions: [{ location: "aws-nowhere-1" }] },
      "spec.localOptions.0.location",
      "names no location aws-nowhere-1",
    ],
  ];
  for (const [what, spec, path, message] of cases) {
    it(`refuses ${what}`, async () => {
      const before = await admin(server).get(base);
      const answer = await admin(server).post(base, { name: "refused", spec });
      expect(answer.status).toBe(400);
      expect((answer.body as { details: { issues: unknown[] } }).details.issues).toContainEqual({ path, message });
      // The OpenAPI document states the rule this refusal follows (`x-cpln-rules` of the spec), unless the schema says it.
      const stated = (workloadSpecRules()["x-cpln-rules"] as { issue: string }[]).some((r) =>
        new RegExp(r.issue).test(message),
      );
      expect([message, stated || path.endsWith(".number")]).toEqual([message, true]);
      expect((await admin(server).get(`${base}/refused`)).status).toBe(404);
      expect((await admin(server).get(base)).body).toEqual(before.body);
    });
  }

  it("refuses a PATCH breaking a rule with 400 and keeps the stored workload", async () => {
    const before = await admin(server).get(`${base}/api`);
    const answer = await admin(server).patch(`${base}/api`, {
      spec: { "$patch/containers": [{ name: "main", "$append/ports": [{ number: 8081 }] }] },
    });
    expect(answer.status).toBe(400);
    expect((answer.body as { details: { issues: unknown[] } }).details.issues).toEqual([
      { path: "spec.containers", message: "must expose exactly one port in a serverless workload (found 2)" },
    ]);
    expect((await admin(server).get(`${base}/api`)).body).toEqual(before.body);
  });
});

describe("deployments (read-only, one per location of the gvc)", () => {
  it("lists one deployment per location and reads one; an unknown location is a 404", async () => {
    const list = await admin(server).get(`${base}/api/deployment`);
    expect(list.status).toBe(200);
    const items = (
      list.body as { items: { name: string; kind: string; links: unknown; status: Record<string, unknown> }[] }
    ).items;
    expect(items.map((d) => [d.name, d.kind])).toEqual([
      ["aws-eu-central-1", "deployment"],
      ["aws-us-west-2", "deployment"],
    ]);
    const one = await admin(server).get(`${base}/api/deployment/aws-us-west-2`);
    const alias = ((await admin(server).get(`/org/${ORG}/gvc/${GVC}`)).body as { alias: string }).alias;
    expect(one.status).toBe(200);
    expect(one.body).toEqual(items[1]);
    expect((one.body as { links: unknown }).links).toEqual([
      { rel: "self", href: `${base}/api/deployment/aws-us-west-2` },
      { rel: "workload", href: `${base}/api` },
      { rel: "location", href: `/org/${ORG}/location/aws-us-west-2` },
    ]);
    expect((one.body as { status: Record<string, unknown> }).status).toMatchObject({
      endpoint: `https://api-${alias}.aws-us-west-2.controlplane.us`,
      ready: true,
      deploying: false,
      lastProcessedVersion: 1,
    });
    expect((await admin(server).get(`${base}/api/deployment/aws-nowhere-1`)).status).toBe(404);
  });

  it("shows deployments to a principal who may view the workload, and 404 to one who may not", async () => {
    const nobody = bearer(await serviceAccountWithKey(server, "nobody"));
    const viewer = bearer(await serviceAccountWithKey(server, "watcher"));
    await addMember(server, "viewers", "//serviceaccount/watcher");
    const seen = await call(server, "GET", `${base}/api/deployment`, { auth: viewer });
    expect(seen.status).toBe(200);
    expect((seen.body as { items: unknown[] }).items).toHaveLength(2);
    for (const path of [`${base}/api/deployment`, `${base}/api/deployment/aws-us-west-2`]) {
      const hidden = await call(server, "GET", path, { auth: nobody });
      expect([path, hidden.status]).toEqual([path, 404]);
    }
  });

  it("answers 405 to writes on deployments", async () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE"] as const) {
      const list = await call(server, method, `${base}/api/deployment`, {
        auth,
        body: method === "DELETE" ? undefined : {},
      });
      expect([method, list.status]).toEqual([method, 405]);
      const one = await call(server, method, `${base}/api/deployment/aws-us-west-2`, {
        auth,
        body: method === "DELETE" ? undefined : {},
      });
      expect([method, one.status]).toEqual([method, 405]);
    }
  });
});

describe("gvc and quota", () => {
  it("refuses to delete a gvc holding workloads (409 InUse) until they are gone", async () => {
    await admin(server).post(`/org/${ORG}/gvc`, { name: "short" });
    const w = await admin(server).post(`/org/${ORG}/gvc/short/workload`, {
      name: "ww",
      spec: { containers: [web("c")] },
    });
    expect(w.status).toBe(201);
    const refused = await admin(server).delete(`/org/${ORG}/gvc/short`);
    expect(refused).toMatchObject({
      status: 409,
      body: { code: "InUse", message: "gvc short still holds 1 workload(s); delete them first" },
    });
    expect((await admin(server).delete(`/org/${ORG}/gvc/short/workload/ww`)).status).toBe(202);
    expect((await admin(server).delete(`/org/${ORG}/gvc/short`)).status).toBe(202);
  });

  it("counts workloads against the gvc's workloads-per-gvc quota (max 5): the sixth is a 429", async () => {
    await admin(server).post(`/org/${ORG}/gvc`, { name: "full" });
    for (let i = 0; i < 5; i++) {
      const ok = await admin(server).post(`/org/${ORG}/gvc/full/workload`, {
        name: `w${i}`,
        spec: { containers: [web("c")] },
      });
      expect(ok.status).toBe(201);
    }
    const sixth = await admin(server).post(`/org/${ORG}/gvc/full/workload`, {
      name: "w5",
      spec: { containers: [web("c")] },
    });
    expect(sixth.status).toBe(429);
    expect((await admin(server).get(`/org/${ORG}/gvc/full/workload/w5`)).status).toBe(404);
  });
});

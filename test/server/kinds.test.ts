/**
 * The lifecycle every stored kind supports (create, get, list, patch, query, permissions, access report, delete) and
 * the kind rules beyond the 13 endpoints: BYOK locations, gvc quotas and InUse, users and JWTs, quotas by id, seeds.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kinds, permissionNames, type Kind } from "../../api/kinds/index.js";
import type { RunningServer } from "../../server/index.js";
import { ANY_ID, ANY_TIME, ORG, admin, apiError, as, bearer, field, jwtFor, links, start } from "./helpers.js";

let server: RunningServer;

beforeAll(async () => {
  server = await start();
});

afterAll(async () => {
  await server.close();
});

interface Lifecycle {
  kind: Kind;
  gvc?: string;
  /** Create body; `name` is the object's name unless the kind names objects otherwise. */
  body: Record<string, unknown>;
  name: string;
  /** Kind fields of the created record (besides the common ones). */
  fields: Record<string, unknown>;
  patch: Record<string, unknown>;
  patched: Record<string, unknown>;
}

const lifecycles: Lifecycle[] = [
  {
    kind: "gvc",
    body: { name: "staging", spec: { env: [{ name: "MODE", value: "staging" }] } },
    name: "staging",
    fields: {
      alias: expect.stringMatching(/^[a-z][a-z0-9]{11}$/),
      spec: { env: [{ name: "MODE", value: "staging" }], endpointNamingFormat: "org" },
      status: {},
    },
    patch: { spec: { "$patch/env": [{ name: "MODE", value: "stage" }] } },
    patched: { spec: { env: [{ name: "MODE", value: "stage" }], endpointNamingFormat: "org" } },
  },
  {
    kind: "volumeset",
    gvc: "default",
    body: { name: "logs", spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" } },
    name: "logs",
    fields: {
      spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd", fileSystemType: "ext4" },
      status: { parentId: ANY_ID },
    },
    patch: { spec: { autoscaling: { maxCapacity: 100, minFreePercentage: 10, scalingFactor: 1.5 } } },
    patched: {
      spec: {
        initialCapacity: 10,
        performanceClass: "general-purpose-ssd",
        fileSystemType: "ext4",
        autoscaling: { maxCapacity: 100, minFreePercentage: 10, scalingFactor: 1.5 },
      },
    },
  },
  {
    kind: "location",
    body: { name: "my-cluster", provider: "byok" },
    name: "my-cluster",
    fields: { origin: "custom", provider: "byok", region: "my-cluster", spec: { enabled: true }, status: {} },
    patch: { spec: { enabled: false } },
    patched: { spec: { enabled: false } },
  },
  {
    kind: "policy",
    body: { name: "readers", targetKind: "group", target: "all" },
    name: "readers",
    fields: { origin: "default", targetKind: "group", target: "all" },
    patch: { "$append/bindings": [{ permissions: ["view"], principalLinks: ["//user/someone@example.com"] }] },
    patched: { bindings: [{ permissions: ["view"], principalLinks: [`/org/${ORG}/user/someone@example.com`] }] },
  },
  {
    kind: "group",
    body: { name: "devs", memberLinks: ["//user/dev@example.com"] },
    name: "devs",
    fields: { origin: "default", memberLinks: [`/org/${ORG}/user/dev@example.com`] },
    patch: { "$append/memberLinks": ["//serviceaccount/controlplane"] },
    patched: { memberLinks: [`/org/${ORG}/user/dev@example.com`, `/org/${ORG}/serviceaccount/controlplane`] },
  },
  {
    kind: "serviceaccount",
    body: { name: "ci", description: "CI pipeline" },
    name: "ci",
    fields: { origin: "default", keys: [] },
    patch: { tags: { pipeline: "main" } },
    patched: { tags: { pipeline: "main" } },
  },
  {
    kind: "user",
    body: { email: "new.person@example.com", idp: "google" },
    name: "new.person@example.com",
    fields: { email: "new.person@example.com", idp: "google" },
    patch: { description: "New person" },
    patched: { description: "New person" },
  },
  {
    kind: "cloudaccount",
    body: { name: "azure-main", provider: "azure", data: { secretLink: "//secret/azure" } },
    name: "azure-main",
    fields: {
      provider: "azure",
      data: { secretLink: "//secret/azure" },
      status: { usable: true, lastChecked: ANY_TIME },
    },
    patch: { data: { secretLink: null, subscriptionId: "s-1" } },
    // The account is checked again when its data changes: without a secretLink it cannot be used.
    patched: {
      data: { subscriptionId: "s-1" },
      status: {
        usable: false,
        lastChecked: ANY_TIME,
        lastError: "data.secretLink is not set: the azure account cannot be used",
      },
    },
  },
  {
    kind: "mk8s",
    body: {
      name: "lab",
      spec: {
        version: "1.29.7",
        provider: { generic: { location: "aws-eu-central-1", nodePools: [{ name: "pool-a" }] } },
      },
    },
    name: "lab",
    fields: {
      alias: expect.stringMatching(/^[0-9a-f]{12}$/),
      spec: {
        version: "1.29.7",
        provider: { generic: { location: "aws-eu-central-1", nodePools: [{ name: "pool-a" }] } },
      },
      status: {
        serverUrl: expect.stringMatching(/^https:\/\/[0-9a-f]{12}\.mk8s\.acme\.cpln-local\.invalid:6443$/),
        oidcProviderUrl: expect.stringMatching(/^https:\/\/[0-9a-f]{12}\.oidc\.acme\.cpln-local\.invalid$/),
        homeLocation: "aws-eu-central-1",
      },
    },
    patch: { spec: { version: "1.30.3" } },
    patched: {
      spec: {
        version: "1.30.3",
        provider: { generic: { location: "aws-eu-central-1", nodePools: [{ name: "pool-a" }] } },
      },
    },
  },
  {
    kind: "auditctx",
    body: { name: "payments", tags: { team: "pay" } },
    name: "payments",
    fields: { origin: "default", status: {} },
    patch: { description: "Payment events" },
    patched: { description: "Payment events" },
  },
];

describe.each(lifecycles)("$kind lifecycle", (c) => {
  const collection = c.gvc ? `/org/${ORG}/gvc/${c.gvc}/${c.kind}` : `/org/${ORG}/${c.kind}`;
  const item = `${collection}/${c.name}`;

  it("create, get, list, patch, query, permissions, access report, delete", async () => {
    const created = await admin(server).post(collection, c.body);
    expect(created.status).toBe(201);
    expect(created.headers["location"]).toBe(item);
    const record = {
      kind: c.kind,
      id: ANY_ID,
      name: c.name,
      description: (c.body["description"] as string | undefined) ?? c.name,
      version: 1,
      tags: (c.body["tags"] as Record<string, unknown> | undefined) ?? {},
      created: ANY_TIME,
      lastModified: ANY_TIME,
      ...c.fields,
      links: links(c.kind, c.name, c.gvc),
    };
    expect(created.body).toEqual(record);
    expect((await admin(server).get(item)).body).toEqual(created.body);
    const listed = field<{ name: string }[]>((await admin(server).get(collection)).body, "items");
    expect(listed.find((i) => i.name === c.name)).toEqual(created.body);

    const patched = await admin(server).patch(item, c.patch);
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...record, ...c.patched, version: 2, id: field(created.body, "id") });

    const query = await admin(server).post(`${collection}/-query`, {
      spec: { terms: [{ property: "name", value: c.name }] },
    });
    expect(field(query.body, "items")).toEqual([patched.body]);

    const schema = await admin(server).get(`${collection}/-schema/permissions`);
    expect(field<{ name: string }[]>(schema.body, "items").map((p) => p.name)).toEqual(permissionNames(c.kind));

    const report = await admin(server).get(`${item}/-accessreport`);
    expect(field<{ name: string }[]>(report.body, "permissions").map((p) => p.name)).toEqual(permissionNames(c.kind));

    const deleted = await admin(server).delete(item);
    if (kinds[c.kind].deletable === false) {
      // Kinds whose objects cannot be deleted (audit contexts) refuse, and the object stays.
      expect(deleted.status).toBe(403);
      expect((await admin(server).get(item)).status).toBe(200);
      return;
    }
    expect(deleted.status).toBe(202);
    expect((await admin(server).get(item)).body).toEqual(apiError(404, "NotFound", `${c.kind} ${c.name} not found`));
    expect((await admin(server).delete(item)).status).toBe(404);
  });
});

describe("kind rules", () => {
  it("builtin locations cannot be created or deleted; only byok ones can be created", async () => {
    const aws = await admin(server).post(`/org/${ORG}/location`, { name: "aws-mars-1", provider: "aws" });
    expect(aws.status).toBe(400);
    expect(field(aws.body, "details", "issues", 0, "path")).toBe("provider");
    expect((await admin(server).delete(`/org/${ORG}/location/aws-us-east-1`)).body).toEqual(
      apiError(
        403,
        "Forbidden",
        "The builtin location aws-us-east-1 cannot be deleted (only BYOK locations can; disable it instead)",
      ),
    );
  });

  it("builtin groups keep editable membership but cannot be deleted; the builtin service account neither", async () => {
    expect((await admin(server).delete(`/org/${ORG}/group/viewers`)).body).toEqual(
      apiError(403, "Forbidden", "The builtin group viewers cannot be deleted"),
    );
    expect((await admin(server).delete(`/org/${ORG}/serviceaccount/controlplane`)).status).toBe(403);
    expect((await admin(server).post(`/org/${ORG}/serviceaccount/controlplane/-addKey`, {})).body).toEqual(
      apiError(403, "Forbidden", "Keys of the builtin service account controlplane are managed by the server"),
    );
  });

  it("a gvc gets its own per-gvc quotas, cannot be deleted while it holds volume sets, and takes its quotas along", async () => {
    expect((await admin(server).post(`/org/${ORG}/gvc`, { name: "busy" })).status).toBe(201);
    const perGvc = async () =>
      field<{ name: string; dimensions: Record<string, string> }[]>(
        (await admin(server).get(`/org/${ORG}/quota`)).body,
        "items",
      )
        .filter((q) => q.dimensions["gvcLink"] === `/org/${ORG}/gvc/busy`)
        .map((q) => q.name)
        .sort();
    expect(await perGvc()).toEqual(["identities-per-gvc", "volumesets-per-gvc", "workloads-per-gvc"]);
    const spec = { initialCapacity: 10, performanceClass: "general-purpose-ssd" };
    expect((await admin(server).post(`/org/${ORG}/gvc/busy/volumeset`, { name: "v1", spec })).status).toBe(201);
    expect((await admin(server).delete(`/org/${ORG}/gvc/busy`)).body).toEqual(
      apiError(409, "InUse", "gvc busy still holds 1 volumeset(s); delete them first"),
    );
    expect((await admin(server).delete(`/org/${ORG}/gvc/busy/volumeset/v1`)).status).toBe(202);
    expect((await admin(server).delete(`/org/${ORG}/gvc/busy`)).status).toBe(202);
    expect(await perGvc()).toEqual([]);
  });

  it("a volume set's spec: kept as stored by a patch that leaves it alone, checked and given defaults by one that changes it", async () => {
    const item = `/org/${ORG}/gvc/default/volumeset/spec-rules`;
    const spec = { initialCapacity: 10, performanceClass: "general-purpose-ssd", fileSystemType: "ext4" };
    const body = { name: "spec-rules", spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" } };
    expect((await admin(server).post(`/org/${ORG}/gvc/default/volumeset`, body)).status).toBe(201);
    const described = await admin(server).patch(item, { description: "kept spec" });
    expect(described.status).toBe(200);
    expect(described.body).toMatchObject({ description: "kept spec", version: 2, spec });
    // The spec's own rules still judge a patch of it: a 400 naming the field, nothing stored.
    const refused = await admin(server).patch(item, {
      spec: { initialCapacity: 20, autoscaling: { maxCapacity: 10 } },
    });
    expect(refused.body).toEqual(
      apiError(400, "BadRequest", expect.any(String), [
        { path: "spec.initialCapacity", message: "must not exceed autoscaling.maxCapacity (10 GB)" },
      ]),
    );
    expect((await admin(server).get(item)).body).toEqual(described.body);
    // A replaced spec gets the create defaults (fileSystemType ext4, which is also immutable).
    const replaced = await admin(server).patch(item, {
      "$replace/spec": { initialCapacity: 20, performanceClass: "general-purpose-ssd" },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ version: 3, spec: { ...spec, initialCapacity: 20 } });
    expect((await admin(server).delete(item)).status).toBe(202);
  });

  it("the gvcs quota counts creates and deletes", async () => {
    const gvcs = async () =>
      field<{ name: string; current: number }[]>((await admin(server).get(`/org/${ORG}/quota`)).body, "items").find(
        (q) => q.name === "gvcs",
      )?.current;
    const before = await gvcs();
    expect((await admin(server).post(`/org/${ORG}/gvc`, { name: "counted" })).status).toBe(201);
    expect(await gvcs()).toBe((before ?? 0) + 1);
    expect((await admin(server).delete(`/org/${ORG}/gvc/counted`)).status).toBe(202);
    expect(await gvcs()).toBe(before);
  });

  it("quotas cannot be created (405) or deleted (403); max is patchable, usage is read-only", async () => {
    expect((await admin(server).post(`/org/${ORG}/quota`, { name: "x1", unit: "count", max: 1 })).body).toEqual(
      apiError(405, "MethodNotAllowed", "POST is not allowed on /org/{org}/quota (allowed: GET, PUT, HEAD)"),
    );
    const agents = field<{ id: string; name: string }[]>(
      (await admin(server).get(`/org/${ORG}/quota`)).body,
      "items",
    ).find((q) => q.name === "agents");
    expect((await admin(server).delete(`/org/${ORG}/quota/${agents?.id}`)).status).toBe(403);
    const patched = await admin(server).patch(`/org/${ORG}/quota/${agents?.id}`, { max: 12 });
    expect(field(patched.body, "max")).toBe(12);
    expect(field(patched.body, "version")).toBe(2);
    const usage = await admin(server).patch(`/org/${ORG}/quota/${agents?.id}`, { current: 5 });
    expect(field(usage.body, "details", "issues")).toEqual([
      { path: "current", message: "is read-only: it is set by the server and cannot be changed" },
    ]);
  });

  it("a JWT user is the user named by its email claim", async () => {
    expect((await admin(server).post(`/org/${ORG}/user`, { email: "jwt.user@example.com" })).status).toBe(201);
    const policy = await admin(server).post(`/org/${ORG}/policy`, {
      name: "self-view",
      targetKind: "user",
      targetLinks: ["//user/jwt.user@example.com"],
      bindings: [{ permissions: ["view"], principalLinks: ["//user/jwt.user@example.com"] }],
    });
    expect(policy.status).toBe(201);
    const user = as(server, bearer(await jwtFor("jwt.user@example.com")));
    expect(field<{ name: string }[]>((await user.get(`/org/${ORG}/user`)).body, "items").map((u) => u.name)).toEqual([
      "jwt.user@example.com",
    ]);
  });
});

describe("seed records", () => {
  it("a seed with an invalid record refuses to start, naming the record and the path", async () => {
    await expect(
      start({ seed: { records: [{ kind: "cloudaccount", name: "bad", provider: "ibm" }] } }),
    ).rejects.toThrow(/^seed: records\.0 \(cloudaccount bad\) is invalid: provider: /);
    await expect(start({ seed: { records: [{ kind: "widget", name: "w1" }] } })).rejects.toThrow(
      'seed: records.0.kind: unknown kind "widget"',
    );
    await expect(start({ seed: { records: [{ kind: "volumeset", name: "v1", spec: {} }] } })).rejects.toThrow(
      "seed: records.0.gvc: required for volumeset",
    );
  });

  it("seeds gvc-scoped records and counts them in quotas", async () => {
    const seeded = await start({
      seed: {
        records: [
          { kind: "gvc", name: "prod" },
          {
            kind: "volumeset",
            gvc: "prod",
            name: "db",
            spec: { initialCapacity: 20, performanceClass: "general-purpose-ssd" },
          },
        ],
      },
    });
    try {
      expect((await admin(seeded).get(`/org/${ORG}/gvc/prod/volumeset/db`)).status).toBe(200);
      const quota = field<{ name: string; current: number; dimensions: Record<string, string> }[]>(
        (await admin(seeded).get(`/org/${ORG}/quota`)).body,
        "items",
      ).find((q) => q.name === "volumesets-per-gvc" && q.dimensions["gvcLink"] === `/org/${ORG}/gvc/prod`);
      expect(quota?.current).toBe(1);
    } finally {
      await seeded.close();
    }
  });
});

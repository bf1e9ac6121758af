/**
 * The 13 endpoints of the API document over the real app: the success case with the exact response shape, and each
 * error status the endpoint can give.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import {
  ADMIN_KEY,
  ANY_ID,
  ANY_TIME,
  ORG,
  addMember,
  admin,
  apiError,
  as,
  bearer,
  field,
  jwtFor,
  links,
  serviceAccountWithKey,
  start,
} from "./helpers.js";

let server: RunningServer;
let viewer: ReturnType<typeof as>;
let nobody: ReturnType<typeof as>;

beforeAll(async () => {
  server = await start();
  await addMember(server, "viewers", "//user/viewer@example.com");
  viewer = as(server, bearer(await jwtFor("viewer@example.com")));
  nobody = as(server, bearer(await serviceAccountWithKey(server, "nobody")));
});

afterAll(async () => {
  await server.close();
});

const vsBase = `/org/${ORG}/gvc/default/volumeset`;

describe("1 POST /org/{org}/gvc/{gvc}/volumeset", () => {
  it("201 with the Location header and the created record; defaults description=name and fileSystemType=ext4", async () => {
    const created = await admin(server).post(vsBase, {
      name: "data",
      tags: { team: "storage" },
      spec: { initialCapacity: 20, performanceClass: "general-purpose-ssd" },
    });
    expect(created.status).toBe(201);
    expect(created.headers["location"]).toBe(`${vsBase}/data`);
    const gvcId = field((await admin(server).get(`/org/${ORG}/gvc/default`)).body, "id");
    const expected = {
      kind: "volumeset",
      id: ANY_ID,
      name: "data",
      description: "data",
      version: 1,
      tags: { team: "storage" },
      created: ANY_TIME,
      lastModified: ANY_TIME,
      spec: { initialCapacity: 20, performanceClass: "general-purpose-ssd", fileSystemType: "ext4" },
      status: { parentId: gvcId },
      links: links("volumeset", "data", "default"),
    };
    expect(created.body).toEqual(expected);
    const read = await admin(server).get(`${vsBase}/data`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it("a shared file system implies the shared class, and no other spec default is materialized", async () => {
    const created = await admin(server).post(vsBase, {
      name: "shared-fs",
      spec: { initialCapacity: 10, fileSystemType: "shared" },
    });
    expect(created.status).toBe(201);
    expect(field(created.body, "spec")).toEqual({
      initialCapacity: 10,
      fileSystemType: "shared",
      performanceClass: "shared",
    });
  });

  it("400 lists every offending path (schema and cross-field rules)", async () => {
    const bad = await admin(server).post(vsBase, {
      name: "Bad_Name",
      spec: { initialCapacity: 10, performanceClass: "fast", extra: 1 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(
      apiError(400, "BadRequest", expect.stringContaining("Invalid request"), [
        { path: "name", message: expect.stringContaining("must start with a lowercase letter") },
        { path: "spec.performanceClass", message: expect.stringContaining("general-purpose-ssd") },
        { path: "spec.extra", message: 'Unknown field "extra"' },
      ]),
    );
    const small = await admin(server).post(vsBase, {
      name: "small",
      spec: { initialCapacity: 100, performanceClass: "high-throughput-ssd" },
    });
    expect(small.status).toBe(400);
    expect(small.body).toEqual(
      apiError(
        400,
        "BadRequest",
        "Invalid request: spec.initialCapacity: must be at least 200 GB for performanceClass 'high-throughput-ssd'",
        [
          {
            path: "spec.initialCapacity",
            message: "must be at least 200 GB for performanceClass 'high-throughput-ssd'",
          },
        ],
      ),
    );
  });

  it("403 without credentials (anonymous has no grants) and for a principal without create", async () => {
    const body = { name: "denied", spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" } };
    const anonymous = await as(server, undefined).post(vsBase, body);
    expect(anonymous.status).toBe(403);
    expect(anonymous.body).toEqual(apiError(403, "Forbidden", `Not allowed to create volumeset objects in org ${ORG}`));
    expect((await viewer.post(vsBase, body)).status).toBe(403);
    expect((await nobody.post(vsBase, body)).status).toBe(403);
    expect((await admin(server).get(`${vsBase}/denied`)).status).toBe(404);
  });

  it("401 for a bad key", async () => {
    const body = { name: "x1", spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" } };
    const bad = await as(server, "Bearer nosuch.key").post(vsBase, body);
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual(apiError(401, "Unauthorized", "Invalid credentials"));
  });

  it("404 for an unknown gvc", async () => {
    const missing = await admin(server).post(`/org/${ORG}/gvc/nope/volumeset`, {
      name: "data",
      spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" },
    });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(apiError(404, "NotFound", "gvc nope not found"));
  });

  it("409 when the name exists", async () => {
    const body = { name: "twice", spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" } };
    expect((await admin(server).post(vsBase, body)).status).toBe(201);
    const again = await admin(server).post(vsBase, body);
    expect(again.status).toBe(409);
    expect(again.body).toEqual(apiError(409, "AlreadyExists", "volumeset twice already exists"));
  });

  it("429 QuotaExceeded naming the quota when the gvc's volume-set quota is used up", async () => {
    expect((await admin(server).post(`/org/${ORG}/gvc`, { name: "tight" })).status).toBe(201);
    const quotas = field<{ id: string; name: string; dimensions: Record<string, string> }[]>(
      (await admin(server).get(`/org/${ORG}/quota`)).body,
      "items",
    );
    const quota = quotas.find(
      (q) => q.name === "volumesets-per-gvc" && q.dimensions["gvcLink"] === `/org/${ORG}/gvc/tight`,
    );
    expect(quota).toBeDefined();
    expect((await admin(server).patch(`/org/${ORG}/quota/${quota?.id}`, { max: 1 })).status).toBe(200);
    const spec = { initialCapacity: 10, performanceClass: "general-purpose-ssd" };
    expect((await admin(server).post(`/org/${ORG}/gvc/tight/volumeset`, { name: "first", spec })).status).toBe(201);
    const over = await admin(server).post(`/org/${ORG}/gvc/tight/volumeset`, { name: "second", spec });
    expect(over.status).toBe(429);
    expect(over.body).toEqual({
      status: 429,
      code: "QuotaExceeded",
      message: `Quota volumesets-per-gvc exceeded in gvc tight: 1 of 1 used (quota id ${quota?.id})`,
      details: { quota: "volumesets-per-gvc", quotaId: quota?.id, current: 1, max: 1 },
      id: ANY_ID,
    });
    expect(field((await admin(server).get(`/org/${ORG}/quota/${quota?.id}`)).body, "current")).toBe(1);
  });
});

describe("2 PATCH /org/{org}/location/{name}", () => {
  const url = `/org/${ORG}/location/aws-eu-central-1`;

  it("200 with the patched record; server tags survive $replace/tags; version +1", async () => {
    const before = await admin(server).get(url);
    const patched = await admin(server).patch(url, { "$replace/tags": { owner: "ops" }, spec: { enabled: false } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({
      kind: "location",
      id: field(before.body, "id"),
      name: "aws-eu-central-1",
      description: "AWS, Europe (Frankfurt)",
      version: field<number>(before.body, "version") + 1,
      tags: {
        owner: "ops",
        "cpln/city": "Frankfurt",
        "cpln/country": "Germany",
        "cpln/continent": "Europe",
      },
      created: field(before.body, "created"),
      lastModified: ANY_TIME,
      origin: "builtin",
      provider: "aws",
      region: "eu-central-1",
      spec: { enabled: false },
      status: {
        geo: { lat: 50.1109, lon: 8.6821, country: "Germany", city: "Frankfurt", continent: "Europe" },
        ipRanges: [],
      },
      links: links("location", "aws-eu-central-1"),
    });
  });

  it("a PATCH that changes nothing keeps the version; read-only fields echoed unchanged are accepted", async () => {
    const before = await admin(server).get(url);
    const same = await admin(server).patch(url, {
      provider: "aws",
      region: "eu-central-1",
      origin: "builtin",
      spec: { enabled: field(before.body, "spec", "enabled") },
      status: null,
    });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(before.body);
  });

  it("409 naming provider and region when they would change (echoed read-only fields must match the object)", async () => {
    const bad = await admin(server).patch(url, { provider: "gcp", region: "x" });
    expect(bad.status).toBe(409);
    expect(field(bad.body, "code")).toBe("Conflict");
    expect(field(bad.body, "details", "issues")).toEqual([
      { path: "provider", message: "is read-only: it is set by the server and cannot be changed" },
      { path: "region", message: "is read-only: it is set by the server and cannot be changed" },
    ]);
  });

  it("400 for an unknown field, 403 for a viewer, 404 for an unknown location, 409 for a stale version", async () => {
    const unknown = await admin(server).patch(url, { spec: { enabled: true, color: "red" } });
    expect(unknown.status).toBe(400);
    expect(field(unknown.body, "details", "issues")).toEqual([
      { path: "spec.color", message: 'Unknown field "color"' },
    ]);
    const denied = await viewer.patch(url, { spec: { enabled: true } });
    expect(denied.body).toEqual(apiError(403, "Forbidden", "Not allowed to edit location aws-eu-central-1"));
    const missing = await admin(server).patch(`/org/${ORG}/location/mars-1`, { spec: { enabled: true } });
    expect(missing.body).toEqual(apiError(404, "NotFound", "location mars-1 not found"));
    const stale = await admin(server).patch(url, { version: 1, spec: { enabled: true } });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual(
      apiError(
        409,
        "VersionConflict",
        expect.stringMatching(/^version 1 is not current \(the object is at version \d+\)$/),
      ),
    );
  });
});

describe("3 POST /org/{org}/cloudaccount/-query", () => {
  const url = `/org/${ORG}/cloudaccount/-query`;

  it("200 with the matches and the query echoed with defaults filled", async () => {
    const result = await admin(server).post(url, { spec: { terms: [{ property: "provider", value: "gcp" }] } });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      kind: "queryresult",
      itemKind: "cloudaccount",
      items: [
        {
          kind: "cloudaccount",
          id: ANY_ID,
          name: "gcp-dev",
          description: "gcp-dev",
          version: 1,
          tags: { env: "dev" },
          created: ANY_TIME,
          lastModified: ANY_TIME,
          provider: "gcp",
          data: { projectId: "dev-1" },
          status: { usable: true, lastChecked: ANY_TIME },
          links: links("cloudaccount", "gcp-dev"),
        },
      ],
      links: [{ rel: "self", href: url }],
      query: {
        kind: "cloudaccount",
        fetch: "items",
        spec: { match: "all", terms: [{ op: "=", property: "provider", value: "gcp" }] },
      },
    });
  });

  it("fetch links returns self links; match none and sort apply", async () => {
    const result = await admin(server).post(url, {
      fetch: "links",
      spec: { match: "none", terms: [{ tag: "env", value: "prod" }], sort: { by: "name", order: "desc" } },
    });
    expect(field(result.body, "items")).toEqual([
      `/org/${ORG}/cloudaccount/gcp-dev`,
      `/org/${ORG}/cloudaccount/aws-prod`,
    ]);
  });

  it("an empty body matches everything the caller may view; no grants means no items", async () => {
    expect(field<unknown[]>((await admin(server).post(url, {})).body, "items")).toHaveLength(2);
    const none = await nobody.post(url, {});
    expect(none.status).toBe(200);
    expect(field(none.body, "items")).toEqual([]);
  });

  it("400 for a term with two selectors and for a bad regular expression", async () => {
    const two = await admin(server).post(url, { spec: { terms: [{ property: "name", tag: "env", value: "x" }] } });
    expect(two.status).toBe(400);
    expect(field(two.body, "details", "issues")).toEqual([
      {
        path: "spec.terms.0.tag",
        message: "a term must set exactly one of property, rel or tag (property and tag are set)",
      },
    ]);
    const regex = await admin(server).post(url, { spec: { terms: [{ property: "name", op: "=~", value: "(" }] } });
    expect(regex.status).toBe(400);
    expect(field(regex.body, "details", "issues", 0, "path")).toBe("spec.terms.0.value");
  });
});

describe("4 POST /org/{org}/mk8s/{name}/-join", () => {
  it("200 with a bash script naming the cluster and pool, with a fresh token each time", async () => {
    const first = await admin(server).post(`/org/${ORG}/mk8s/edge/-join`, { nodePoolName: "general" });
    expect(first.status).toBe(200);
    expect(Object.keys(first.body as object)).toEqual(["script"]);
    const script = field(first.body, "script");
    expect(script.startsWith("#!/bin/bash\n")).toBe(true);
    expect(script).toContain("CLUSTER_NAME='edge'");
    expect(script).toContain("NODE_POOL='general'");
    const token = /BOOTSTRAP_TOKEN='([A-Za-z0-9_-]{32})'/.exec(script)?.[1];
    expect(token).toBeDefined();
    const second = field(
      (await admin(server).post(`/org/${ORG}/mk8s/edge/-join`, { nodepool: "ingress" })).body,
      "script",
    );
    expect(second).toContain("NODE_POOL='ingress'");
    expect(second).not.toContain(token as string);
  });

  it("hetzner dedicated-server pools join too", async () => {
    const joined = await admin(server).post(`/org/${ORG}/mk8s/metal/-join`, { nodePoolName: "dedicated" });
    expect(joined.status).toBe(200);
    expect(field(joined.body, "script")).toContain("CLUSTER_NAME='metal'");
  });

  it("400 Unsupported for other providers (the API document's status); 409 for a pool the cluster lacks", async () => {
    const aws = await admin(server).post(`/org/${ORG}/mk8s/cloud/-join`, { nodePoolName: "workers" });
    expect(aws.status).toBe(400);
    expect(aws.body).toEqual(
      apiError(
        400,
        "Unsupported",
        "Join scripts exist only for generic and hetzner clusters; the nodes of aws cluster cloud are provisioned by the platform",
      ),
    );
    const unknown = await admin(server).post(`/org/${ORG}/mk8s/edge/-join`, { nodePoolName: "gpu" });
    expect(unknown.body).toEqual(
      apiError(
        409,
        "Conflict",
        "Conflicts with the stored object: nodePoolName: cluster edge has no node pool 'gpu' (pools: general, ingress)",
        [{ path: "nodePoolName", message: "cluster edge has no node pool 'gpu' (pools: general, ingress)" }],
      ),
    );
    const viaOptions = await admin(server).post(`/org/${ORG}/mk8s/edge/-join`, { nodepool: "gpu" });
    expect(field(viaOptions.body, "details", "issues")).toEqual([
      { path: "nodepool", message: "cluster edge has no node pool 'gpu' (pools: general, ingress)" },
    ]);
  });

  it("endpoint 4 accepts {} (the node pool is optional) and the CLI's nodepool option", async () => {
    const any = await admin(server).post(`/org/${ORG}/mk8s/edge/-join`, {});
    expect(any.status).toBe(200);
    expect(field(any.body, "script")).toMatch(/^#!\/bin\/bash\n[^]*\bedge\b/);
    const pool = await admin(server).post(`/org/${ORG}/mk8s/edge/-join`, { nodepool: "ingress" });
    expect(pool.status).toBe(200);
    expect(field(pool.body, "script")).toContain("ingress");
  });

  it("403 for a viewer (join needs the join permission), 404 for an unknown cluster and for no grants", async () => {
    expect((await viewer.post(`/org/${ORG}/mk8s/edge/-join`, { nodePoolName: "general" })).body).toEqual(
      apiError(403, "Forbidden", "Not allowed to join mk8s edge (needs join)"),
    );
    expect((await admin(server).post(`/org/${ORG}/mk8s/nope/-join`, {})).body).toEqual(
      apiError(404, "NotFound", "mk8s nope not found"),
    );
    expect((await nobody.post(`/org/${ORG}/mk8s/edge/-join`, { nodePoolName: "general" })).body).toEqual(
      apiError(404, "NotFound", "mk8s edge not found"),
    );
  });
});

describe("5 PATCH /org/{org}/policy/{name} and 9 GET /org/{org}/policy/{name}", () => {
  it("creates, patches with directives and reads back the exact record", async () => {
    const created = await admin(server).post(`/org/${ORG}/policy`, {
      name: "ops",
      targetKind: "cloudaccount",
      targetLinks: ["//cloudaccount/aws-prod"],
      bindings: [{ permissions: ["view"], principalLinks: ["//group/viewers"] }],
    });
    expect(created.status).toBe(201);
    expect(created.headers["location"]).toBe(`/org/${ORG}/policy/ops`);
    const patched = await admin(server).patch(`/org/${ORG}/policy/ops`, {
      version: 1,
      description: "Operations",
      "$append/targetLinks": ["//cloudaccount/gcp-dev"],
      "$patch/bindings": [{ permissions: ["view"], "$append/principalLinks": ["//serviceaccount/nobody"] }],
      "$append/bindings": [{ permissions: ["edit", "browse"], principalLinks: ["//group/superusers"] }],
    });
    expect(patched.status).toBe(200);
    const expected = {
      kind: "policy",
      id: field(created.body, "id"),
      name: "ops",
      description: "Operations",
      version: 2,
      tags: {},
      created: field(created.body, "created"),
      lastModified: ANY_TIME,
      origin: "default",
      targetKind: "cloudaccount",
      targetLinks: [`/org/${ORG}/cloudaccount/aws-prod`, `/org/${ORG}/cloudaccount/gcp-dev`],
      bindings: [
        { permissions: ["view"], principalLinks: [`/org/${ORG}/group/viewers`, `/org/${ORG}/serviceaccount/nobody`] },
        { permissions: ["edit", "browse"], principalLinks: [`/org/${ORG}/group/superusers`] },
      ],
      links: links("policy", "ops"),
    };
    expect(patched.body).toEqual(expected);
    const read = await admin(server).get(`/org/${ORG}/policy/ops`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(patched.body);
  });

  it("400 for a permission outside the target kind's catalog; 409 for a binding key the policy already holds", async () => {
    const unknown = await admin(server).patch(`/org/${ORG}/policy/ops`, {
      "$append/bindings": [{ permissions: ["fly"], principalLinks: ["//group/viewers"] }],
    });
    expect(unknown.status).toBe(400);
    expect(field(unknown.body, "details", "issues", 0, "path")).toBe("bindings.2.permissions.0");
    const duplicate = await admin(server).patch(`/org/${ORG}/policy/ops`, {
      "$append/bindings": [{ permissions: ["view"], principalLinks: ["//group/superusers"] }],
    });
    expect(duplicate.status).toBe(409);
    expect(field(duplicate.body, "code")).toBe("Conflict");
    expect(field(duplicate.body, "details", "issues", 0, "path")).toBe("$append/bindings[0]");
  });

  it("409 for a link, permission or query kind of another kind (the stored targetKind rules it out); 400 for none", async () => {
    const url = `/org/${ORG}/policy/ops`;
    const before = (await admin(server).get(url)).body;
    const gvcLink = await admin(server).patch(url, { "$append/targetLinks": ["//gvc/main"] });
    expect(gvcLink.body).toEqual(
      apiError(
        409,
        "Conflict",
        "Conflicts with the stored object: targetLinks.2: must be a link to an object of kind cloudaccount, e.g. //cloudaccount/<name>",
        [
          {
            path: "targetLinks.2",
            message: "must be a link to an object of kind cloudaccount, e.g. //cloudaccount/<name>",
          },
        ],
      ),
    );
    const gvcPermission = await admin(server).patch(url, {
      "$append/bindings": [{ permissions: ["configureLoadBalancer"], principalLinks: ["//group/viewers"] }],
    });
    expect(gvcPermission.status).toBe(409);
    expect(field(gvcPermission.body, "details", "issues", 0, "path")).toBe("bindings.2.permissions.0");
    const queryKind = await admin(server).patch(url, {
      targetQuery: { kind: "gvc", spec: { match: "all", terms: [] } },
    });
    expect(queryKind.status).toBe(409);
    expect(field(queryKind.body, "details", "issues")).toEqual([
      { path: "targetQuery.kind", message: "must be the policy's targetKind 'cloudaccount'" },
    ]);
    // Values no kind admits are invalid in themselves: 400.
    const noLink = await admin(server).patch(url, { "$append/targetLinks": ["Y"] });
    expect(noLink.status).toBe(400);
    expect(field(noLink.body, "details", "issues", 0, "path")).toBe("targetLinks.2");
    expect((await admin(server).get(url)).body).toEqual(before);
  });

  it("409 when targetKind would change, 403 for a builtin policy and for a viewer, 404, 409", async () => {
    const kindChange = await admin(server).patch(`/org/${ORG}/policy/ops`, { targetKind: "group" });
    expect(kindChange.status).toBe(409);
    expect(field(kindChange.body, "code")).toBe("Conflict");
    expect(field(kindChange.body, "details", "issues")).toEqual([
      { path: "targetKind", message: "is immutable: it cannot change after the object is created" },
    ]);
    expect((await admin(server).patch(`/org/${ORG}/policy/superusers-group`, { description: "x" })).body).toEqual(
      apiError(403, "Forbidden", "The builtin policy superusers-group cannot be edited"),
    );
    expect((await viewer.patch(`/org/${ORG}/policy/ops`, { description: "x" })).status).toBe(403);
    expect((await admin(server).patch(`/org/${ORG}/policy/nope`, { description: "x" })).body).toEqual(
      apiError(404, "NotFound", "policy nope not found"),
    );
    expect((await admin(server).patch(`/org/${ORG}/policy/ops`, { version: 1, description: "x" })).status).toBe(409);
  });

  it("GET: 404 for a missing policy and for one the caller may not view, identical bodies but the id", async () => {
    const missing = await nobody.get(`/org/${ORG}/policy/nope`);
    const hidden = await nobody.get(`/org/${ORG}/policy/ops`);
    expect(missing.body).toEqual(apiError(404, "NotFound", "policy nope not found"));
    expect(hidden.body).toEqual(apiError(404, "NotFound", "policy ops not found"));
  });
});

describe("6 GET /org/{org}/cloudaccount/-schema/permissions", () => {
  it("200 with the catalog in API order and the implied map", async () => {
    const schema = await nobody.get(`/org/${ORG}/cloudaccount/-schema/permissions`);
    expect(schema.status).toBe(200);
    expect(schema.body).toEqual({
      kind: "permissions",
      targetKind: "cloudaccount",
      items: [
        { name: "browse", description: "Browse account contents" },
        { name: "create", description: "Create new cloud accounts" },
        { name: "delete", description: "Delete existing cloud accounts" },
        { name: "edit", description: "Modify existing cloud accounts" },
        { name: "manage", description: "Full access" },
        { name: "view", description: "Read-only access" },
      ],
      implied: {
        browse: ["view"],
        edit: ["view", "browse"],
        manage: ["browse", "create", "delete", "edit", "manage", "view"],
      },
      links: [{ rel: "self", href: `/org/${ORG}/cloudaccount/-schema/permissions` }],
    });
  });

  it("401 without credentials, 404 for an unknown org", async () => {
    expect((await as(server, undefined).get(`/org/${ORG}/cloudaccount/-schema/permissions`)).body).toEqual(
      apiError(401, "Unauthorized", "Missing Authorization header"),
    );
    expect((await admin(server).get(`/org/other/cloudaccount/-schema/permissions`)).body).toEqual(
      apiError(404, "NotFound", "org other not found"),
    );
  });
});

describe("7 GET /org/{org}/serviceaccount and 8 GET /org/{org}/group", () => {
  it("lists service accounts with key names only", async () => {
    const list = await admin(server).get(`/org/${ORG}/serviceaccount`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      kind: "list",
      itemKind: "serviceaccount",
      items: [
        {
          kind: "serviceaccount",
          id: ANY_ID,
          name: "controlplane",
          description: "Service account of the platform (builtin)",
          version: 2,
          tags: {},
          created: ANY_TIME,
          lastModified: ANY_TIME,
          origin: "builtin",
          keys: [{ name: ADMIN_KEY.split(".")[0], created: ANY_TIME, description: "cpln-local admin key" }],
          links: links("serviceaccount", "controlplane"),
        },
        {
          kind: "serviceaccount",
          id: ANY_ID,
          name: "nobody",
          description: "nobody",
          version: 2,
          tags: {},
          created: ANY_TIME,
          lastModified: ANY_TIME,
          origin: "default",
          keys: [{ name: expect.stringMatching(/^[0-9a-f]{16}$/), created: ANY_TIME, description: "test" }],
          links: links("serviceaccount", "nobody"),
        },
      ],
      links: [{ rel: "self", href: `/org/${ORG}/serviceaccount` }],
    });
    expect(JSON.stringify(list.body)).not.toContain(ADMIN_KEY.split(".")[1]);
  });

  it("lists groups with full member links", async () => {
    const list = await viewer.get(`/org/${ORG}/group`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      kind: "list",
      itemKind: "group",
      items: [
        {
          kind: "group",
          id: ANY_ID,
          name: "superusers",
          description: "Full access to every object of the org (builtin)",
          version: 1,
          tags: {},
          created: ANY_TIME,
          lastModified: ANY_TIME,
          origin: "builtin",
          memberLinks: [`/org/${ORG}/serviceaccount/controlplane`],
          links: links("group", "superusers"),
        },
        {
          kind: "group",
          id: ANY_ID,
          name: "viewers",
          description: "Read-only access to every object of the org (builtin)",
          version: 2,
          tags: {},
          created: ANY_TIME,
          lastModified: ANY_TIME,
          origin: "builtin",
          memberLinks: [`/org/${ORG}/user/viewer@example.com`],
          links: links("group", "viewers"),
        },
      ],
      links: [{ rel: "self", href: `/org/${ORG}/group` }],
    });
  });

  it("a principal with no grants gets empty lists; no credentials gets 401", async () => {
    for (const kind of ["serviceaccount", "group"]) {
      expect((await nobody.get(`/org/${ORG}/${kind}`)).body).toEqual({
        kind: "list",
        itemKind: kind,
        items: [],
        links: [{ rel: "self", href: `/org/${ORG}/${kind}` }],
      });
      expect((await as(server, undefined).get(`/org/${ORG}/${kind}`)).status).toBe(401);
    }
  });
});

describe("10 GET /org/{org}/group/{name}/-accessreport", () => {
  it("200: every group permission in catalog order with the builtin grants", async () => {
    const report = await viewer.get(`/org/${ORG}/group/viewers/-accessreport`);
    expect(report.status).toBe(200);
    const manage = (permission: string) => ({
      name: permission,
      description: expect.any(String),
      bindings: [
        {
          principalLink: `/org/${ORG}/group/superusers`,
          grantingPolicyLink: `/org/${ORG}/policy/superusers-group`,
          grantedPermissions: ["manage"],
          match: "all",
        },
        {
          principalLink: `/org/${ORG}/serviceaccount/controlplane`,
          grantingPolicyLink: `/org/${ORG}/policy/superusers-group`,
          grantedPermissions: ["manage"],
          match: "all",
        },
      ],
    });
    const view = manage("view");
    view.bindings.push({
      principalLink: `/org/${ORG}/group/viewers`,
      grantingPolicyLink: `/org/${ORG}/policy/viewers-group`,
      grantedPermissions: ["view"],
      match: "all",
    });
    expect(report.body).toEqual({
      kind: "accessreport",
      permissions: [manage("create"), manage("delete"), manage("edit"), manage("manage"), view],
      created: ANY_TIME,
      links: [
        { rel: "self", href: `/org/${ORG}/group/viewers/-accessreport` },
        { rel: "target", href: `/org/${ORG}/group/viewers` },
      ],
    });
  });

  it("404 for an unknown group and for a caller who may not view it", async () => {
    expect((await admin(server).get(`/org/${ORG}/group/nope/-accessreport`)).body).toEqual(
      apiError(404, "NotFound", "group nope not found"),
    );
    expect((await nobody.get(`/org/${ORG}/group/viewers/-accessreport`)).body).toEqual(
      apiError(404, "NotFound", "group viewers not found"),
    );
  });
});

describe("11 DELETE /org/{org}/auditctx/{name}", () => {
  it("403 for every context the caller can view, custom or builtin, whatever the caller's permissions; it stays", async () => {
    expect((await admin(server).post(`/org/${ORG}/auditctx`, { name: "temp" })).status).toBe(201);
    const before = await admin(server).get(`/org/${ORG}/auditctx/temp`);
    const refused = await admin(server).delete(`/org/${ORG}/auditctx/temp`);
    expect(refused.body).toEqual(
      apiError(
        403,
        "Forbidden",
        "Audit contexts cannot be deleted: temp stays (change its description or tags instead)",
      ),
    );
    expect((await admin(server).get(`/org/${ORG}/auditctx/temp`)).body).toEqual(before.body);
    expect((await admin(server).delete(`/org/${ORG}/auditctx/cpln`)).body).toEqual(
      apiError(
        403,
        "Forbidden",
        "Audit contexts cannot be deleted: cpln stays (change its description or tags instead)",
      ),
    );
    expect((await viewer.delete(`/org/${ORG}/auditctx/app-events`)).body).toEqual(
      apiError(
        403,
        "Forbidden",
        "Audit contexts cannot be deleted: app-events stays (change its description or tags instead)",
      ),
    );
  });

  it("404 when absent or hidden", async () => {
    expect((await admin(server).delete(`/org/${ORG}/auditctx/nope`)).body).toEqual(
      apiError(404, "NotFound", "auditctx nope not found"),
    );
    expect((await nobody.delete(`/org/${ORG}/auditctx/app-events`)).status).toBe(404);
    expect((await admin(server).get(`/org/${ORG}/auditctx/app-events`)).status).toBe(200);
  });
});

describe("12 GET /org/{org}/quota and 13 GET /org/{org}/quota/{id}", () => {
  it("lists every quota with real usage; per-gvc quotas repeat with a gvcLink dimension", async () => {
    const list = await viewer.get(`/org/${ORG}/quota`);
    expect(list.status).toBe(200);
    const items = field<{ name: string; current: number; dimensions: Record<string, string> }[]>(list.body, "items");
    const byName = (name: string, gvc?: string) =>
      items.find(
        (q) =>
          q.name === name &&
          (gvc === undefined
            ? Object.keys(q.dimensions).length === 0
            : q.dimensions["gvcLink"] === `/org/${ORG}/gvc/${gvc}`),
      );
    const gvcs = field<unknown[]>((await admin(server).get(`/org/${ORG}/gvc`)).body, "items").length;
    expect(byName("gvcs")?.current).toBe(gvcs);
    expect(byName("cloudaccounts")?.current).toBe(2);
    expect(byName("policies")?.current).toBe(
      field<unknown[]>((await admin(server).get(`/org/${ORG}/policy`)).body, "items").length,
    );
    const volumeSets = field<unknown[]>((await admin(server).get(vsBase)).body, "items").length;
    expect(byName("volumesets-per-gvc", "default")?.current).toBe(volumeSets);
    expect(byName("workloads-per-gvc", "default")).toBeDefined();
    expect(items.map((q) => q.name)).toEqual(
      expect.arrayContaining(["agents", "domains", "serviceaccounts", "groups"]),
    );
  });

  it("GET by id returns the exact record; 404 for an unknown id and for no grants", async () => {
    const items = field<{ id: string; name: string }[]>((await admin(server).get(`/org/${ORG}/quota`)).body, "items");
    const agents = items.find((q) => q.name === "agents");
    const one = await viewer.get(`/org/${ORG}/quota/${agents?.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      kind: "quota",
      id: agents?.id,
      name: "agents",
      description: "Max number of agents",
      version: 1,
      created: ANY_TIME,
      lastModified: ANY_TIME,
      unit: "count",
      dimensions: {},
      max: 10,
      current: 0,
      origin: "builtin",
      links: [
        { rel: "self", href: `/org/${ORG}/quota/${agents?.id}` },
        { rel: "org", href: `/org/${ORG}` },
      ],
    });
    const unknownId = "00000000-0000-4000-8000-000000000000";
    expect((await admin(server).get(`/org/${ORG}/quota/${unknownId}`)).body).toEqual(
      apiError(404, "NotFound", `quota ${unknownId} not found`),
    );
    expect((await nobody.get(`/org/${ORG}/quota/${agents?.id}`)).status).toBe(404);
    expect(field((await nobody.get(`/org/${ORG}/quota`)).body, "items")).toEqual([]);
  });
});

/**
 * Domains served by cpln-local: create/read/list/patch/delete, the emulated status (DNS records, endpoints,
 * locations), route edits by prefix that leave everyone else's routes alone (what DomainRoute sends), the 400s of the
 * spec's rules (field and rule named, nothing stored), links checked against stored objects, and permissions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isKind, kinds, patchRules } from "../../api/kinds/index.js";
import { buildPatch } from "../../api/patch/index.js";
import type { RunningServer } from "../../server/index.js";
import {
  ADMIN_KEY,
  ANY_ID,
  ANY_TIME,
  ORG,
  admin,
  as,
  bearer,
  call,
  ensureWorkloads,
  links,
  serviceAccountWithKey,
  start,
} from "./helpers.js";

let server: RunningServer;
const base = `/org/${ORG}/domain`;
const WEB = "//gvc/default/workload/web";
const API = "//gvc/default/workload/api";
const full = (link: string) => link.replace(/^\/\//, `/org/${ORG}/`);

interface Route {
  prefix?: string;
  regex?: string;
  workloadLink: string;
  port?: number;
}
interface Domain {
  name: string;
  version: number;
  spec: { ports: { number: number; routes?: Route[] }[] } & Record<string, unknown>;
  status: Record<string, unknown>;
}

beforeAll(async () => {
  server = await start();
  await ensureWorkloads(admin(server).post, ORG, "default", ["web", "api"]);
});
afterAll(async () => {
  await server.close();
});

async function make(name: string, spec: unknown, tags?: Record<string, unknown>): Promise<Domain> {
  const answer = await admin(server).post(base, { name, spec, ...(tags ? { tags } : {}) });
  expect({ name, status: answer.status, body: answer.status === 201 ? undefined : answer.body }).toEqual({
    name,
    status: 201,
    body: undefined,
  });
  return answer.body as Domain;
}

const prefixes = (domain: Domain, port = 443) =>
  domain.spec.ports.find((p) => p.number === port)?.routes?.map((r) => r.prefix ?? `regex:${String(r.regex)}`);

describe("domain CRUD", () => {
  it("creates, reads, lists, patches and deletes a domain named by its DNS name", async () => {
    const created = await admin(server).post(base, {
      name: "crud.example.com",
      description: "the shop",
      spec: { ports: [{ routes: [{ prefix: "/", workloadLink: WEB }] }] },
    });
    expect(created.status).toBe(201);
    expect(created.headers["location"]).toBe(`${base}/crud.example.com`);
    expect(created.body).toEqual({
      kind: "domain",
      id: ANY_ID,
      name: "crud.example.com",
      description: "the shop",
      version: 1,
      tags: {},
      created: ANY_TIME,
      lastModified: ANY_TIME,
      spec: {
        dnsMode: "cname",
        ports: [
          {
            number: 443,
            protocol: "http2",
            routes: [{ prefix: "/", workloadLink: full(WEB) }],
            tls: { minProtocolVersion: "TLSV1_2", cipherSuites: expect.arrayContaining(["AES128-GCM-SHA256"]) },
          },
        ],
      },
      status: expect.objectContaining({ status: "pendingDnsConfig" }),
      links: links("domain", "crud.example.com"),
    });
    expect((await admin(server).get(`${base}/crud.example.com`)).body).toEqual(created.body);
    const listed = (await admin(server).get(base)).body as { items: { name: string }[] };
    expect(listed.items.map((i) => i.name)).toContain("crud.example.com");
    const patched = await admin(server).patch(`${base}/crud.example.com`, { description: "renamed shop" });
    expect([patched.status, (patched.body as Domain & { description: string }).description]).toEqual([
      200,
      "renamed shop",
    ]);
    expect((await admin(server).delete(`${base}/crud.example.com`)).status).toBe(202);
    expect((await admin(server).get(`${base}/crud.example.com`)).status).toBe(404);
  });

  it("a PUT of the record as read changes nothing; a PUT without spec restores the default spec", async () => {
    const made = await make("put.example.com", { ports: [{ routes: [{ prefix: "/a", workloadLink: WEB }] }] });
    const path = `${base}/put.example.com`;
    const same = await call(server, "PUT", path, { auth: bearer(ADMIN_KEY), body: made });
    expect([same.status, (same.body as Domain).version]).toEqual([200, made.version]);
    const bare = await call(server, "PUT", path, { auth: bearer(ADMIN_KEY), body: { name: "put.example.com" } });
    expect(bare.status).toBe(200);
    expect((bare.body as Domain).spec.ports.map((p) => [p.number, p.routes])).toEqual([[443, undefined]]);
  });
});

describe("routes edited one at a time by prefix (DomainRoute's PATCH)", () => {
  const path = `${base}/routes.example.com`;

  it("$patch/ports + $append/routes adds one route; others' routes and ports stay as they were", async () => {
    await make("routes.example.com", {
      ports: [
        { number: 443, routes: [{ prefix: "/", workloadLink: WEB }] },
        { number: 8443, protocol: "http", routes: [{ prefix: "/admin", workloadLink: API }] },
      ],
    });
    // Someone else adds /shop while "our" stack adds /api: neither body names the other's route.
    const theirs = await admin(server).patch(path, {
      spec: { "$patch/ports": [{ number: 443, "$append/routes": [{ prefix: "/shop", workloadLink: WEB }] }] },
    });
    expect(theirs.status).toBe(200);
    const ours = await admin(server).patch(path, {
      spec: {
        "$patch/ports": [{ number: 443, "$append/routes": [{ prefix: "/api", workloadLink: API, port: 8080 }] }],
      },
    });
    expect(ours.status).toBe(200);
    const after = ours.body as Domain;
    expect(prefixes(after)).toEqual(["/shop", "/api", "/"]);
    expect(prefixes(after, 8443)).toEqual(["/admin"]);
    expect(after.spec.ports[0]?.routes?.find((r) => r.prefix === "/api")).toEqual({
      prefix: "/api",
      workloadLink: full(API),
      port: 8080,
    });
  });

  it("$patch/routes changes one route named by its prefix; $drop/routes removes only that one", async () => {
    const changed = await admin(server).patch(path, {
      spec: { "$patch/ports": [{ number: 443, "$patch/routes": [{ prefix: "/api", port: 9090 }] }] },
    });
    expect(changed.status).toBe(200);
    const routes = (changed.body as Domain).spec.ports[0]?.routes ?? [];
    expect(routes.find((r) => r.prefix === "/api")?.port).toBe(9090);
    expect(routes.find((r) => r.prefix === "/shop")).toEqual({ prefix: "/shop", workloadLink: full(WEB) });
    const dropped = await admin(server).patch(path, {
      spec: { "$patch/ports": [{ number: 443, "$drop/routes": ["/api"] }] },
    });
    expect(dropped.status).toBe(200);
    expect(prefixes(dropped.body as Domain)).toEqual(["/shop", "/"]);
    expect(prefixes(dropped.body as Domain, 8443)).toEqual(["/admin"]);
  });

  it("appending a prefix the port holds is a 409 naming the item; the domain is unchanged", async () => {
    const before = (await admin(server).get(path)).body as Domain;
    const answer = await admin(server).patch(path, {
      spec: { "$patch/ports": [{ number: 443, "$append/routes": [{ prefix: "/shop", workloadLink: API }] }] },
    });
    expect(answer.status).toBe(409);
    expect(JSON.stringify(answer.body)).toContain('an item with key \\"/shop\\" already exists');
    expect(((await admin(server).get(path)).body as Domain).version).toBe(before.version);
  });

  it("the patch engine builds exactly that body from the domain before and after one route is added", async () => {
    const before = (await admin(server).get(path)).body as Domain;
    const desired = structuredClone(before);
    desired.spec.ports[0]?.routes?.push({ prefix: "/new", workloadLink: full(API) });
    const body = buildPatch(
      before as unknown as Parameters<typeof buildPatch>[0],
      desired as unknown as Parameters<typeof buildPatch>[1],
      patchRules["domain"]!,
    );
    expect(body).toEqual({
      spec: { "$patch/ports": [{ number: 443, "$append/routes": [{ prefix: "/new", workloadLink: full(API) }] }] },
    });
    // A route order the server chose is no change: the domain as read, routes reversed, needs no patch.
    const reordered = structuredClone(before);
    reordered.spec.ports[0]?.routes?.reverse();
    expect(
      buildPatch(
        before as unknown as Parameters<typeof buildPatch>[0],
        reordered as unknown as Parameters<typeof buildPatch>[1],
        patchRules["domain"]!,
      ),
    ).toEqual({});
  });
});

describe("the spec's rules", () => {
  const refused = async (name: string, spec: unknown, path: string, message: string | RegExp) => {
    const answer = await admin(server).post(base, { name, spec });
    expect(answer.status).toBe(400);
    const issues = (answer.body as { details: { issues: { path: string; message: string }[] } }).details.issues;
    expect(issues).toContainEqual({ path, message: expect.stringMatching(message) });
    expect((await admin(server).get(`${base}/${name}`)).status).toBe(404);
  };

  it("each refusal is a 400 naming the field and the rule, and nothing is stored", async () => {
    await refused(
      "r1.example.com",
      { ports: [{ routes: [{ prefix: "/", workloadLink: "//workload/web" }] }] },
      "spec.ports.0.routes.0.workloadLink",
      /workload \(\/\/gvc\/<gvc>\/workload\/<name>\) link/,
    );
    await refused(
      "r2.example.com",
      { ports: [{ number: 443 }, { number: 443 }] },
      "spec.ports.1.number",
      "duplicates port 443",
    );
    await refused(
      "r3.example.com",
      {
        ports: [
          {
            routes: [
              { prefix: "/a", workloadLink: WEB },
              { prefix: "/a", workloadLink: API },
            ],
          },
        ],
      },
      "spec.ports.0.routes.1.prefix",
      "duplicates the route /a of this port",
    );
    await refused(
      "r4.example.com",
      { gvcLink: "//gvc/default", workloadLink: WEB },
      "spec.workloadLink",
      "must not be set together with spec.gvcLink",
    );
    await refused(
      "r5.example.com",
      { acceptAllHosts: true, acceptAllSubdomains: true },
      "spec.acceptAllSubdomains",
      /cannot be true together/,
    );
    await refused(
      "r6.example.com",
      { gvcLink: "//gvc/nowhere", dnsMode: "ns", certChallengeType: "dns01" },
      "spec.gvcLink",
      "names no gvc nowhere",
    );
  });

  it("a PATCH breaking a rule is refused as well, and the domain keeps its version", async () => {
    const made = await make("rules-patch.example.com", {
      ports: [
        {
          routes: [
            { prefix: "/", workloadLink: WEB },
            { prefix: "/api", workloadLink: API },
          ],
        },
      ],
    });
    const answer = await admin(server).patch(`${base}/rules-patch.example.com`, {
      spec: {
        "$patch/ports": [{ number: 443, "$append/routes": [{ prefix: "/x", workloadLink: "//gvc/other/workload/w" }] }],
      },
    });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain("must name a workload in gvc default");
    expect(((await admin(server).get(`${base}/rules-patch.example.com`)).body as Domain).version).toBe(made.version);
  });

  it("a route's workload must exist when cpln-local serves workloads; otherwise its link's form is checked", async () => {
    const answer = await admin(server).post(base, {
      name: "ghost.example.com",
      spec: { ports: [{ routes: [{ prefix: "/", workloadLink: "//gvc/default/workload/ghost" }] }] },
    });
    if (isKind("workload")) {
      expect(answer.status).toBe(400);
      expect(JSON.stringify(answer.body)).toContain("names no workload ghost in gvc default");
    } else {
      expect(answer.status).toBe(201);
    }
  });
});

describe("the emulated status", () => {
  it("pendingDnsConfig with the records to create; ready with cpln/skipDNSCheck; locations of the gvc", async () => {
    const org = (await admin(server).get(`/org/${ORG}`)).body as { id: string };
    const locations = ((await admin(server).get(`/org/${ORG}/location`)).body as { items: { name: string }[] }).items;
    const location = locations[0]!.name;
    expect(
      (
        await admin(server).patch(`/org/${ORG}/gvc/default`, {
          spec: { staticPlacement: { locationLinks: [`//location/${location}`] } },
        })
      ).status,
    ).toBe(200);
    const pending = await make("status.example.com", { ports: [{ routes: [{ prefix: "/", workloadLink: WEB }] }] });
    expect(pending.status).toEqual({
      status: "pendingDnsConfig",
      endpoints: [{ url: "https://status.example.com/", workloadLink: full(WEB) }],
      locations: [{ name: location, certificateStatus: "pendingDnsConfig" }],
      fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
      dnsConfig: [
        { type: "TXT", ttl: 600, host: "_cpln.example.com", value: org.id },
        // The gvc's alias names the target (a gvc has one since cpln-local serves the whole gvc spec).
        {
          type: "CNAME",
          ttl: 1800,
          host: "status.example.com",
          value: `${((await admin(server).get(`/org/${ORG}/gvc/default`)).body as { alias: string }).alias}.cpln.app`,
        },
      ],
    });
    const ready = await admin(server).patch(`${base}/status.example.com`, { tags: { "cpln/skipDNSCheck": true } });
    expect((ready.body as Domain).status["status"]).toBe("ready");
    expect((ready.body as Domain).status["locations"]).toEqual([{ name: location, certificateStatus: "ready" }]);
    // The status is the server's: a PATCH of it is ignored, never stored.
    const echo = await admin(server).patch(`${base}/status.example.com`, { status: { status: "errored" } });
    expect([echo.status, (echo.body as Domain).status["status"]]).toEqual([200, "ready"]);
  });
});

describe("subdomain routing", () => {
  it("with a gvcLink: the NS records, and one endpoint per workload of the gvc once cpln-local serves workloads", async () => {
    // Read through a string: "workload" is a kind name only once another change registers it.
    const workloadKind: string = "workload";
    const workload = isKind(workloadKind) ? kinds[workloadKind].examples.create?.("sub-web") : undefined;
    if (workload !== undefined) {
      expect((await admin(server).post(`/org/${ORG}/gvc/default/workload`, workload)).status).toBe(201);
    }
    const made = await make("apps.example.com", { gvcLink: "//gvc/default", certChallengeType: "dns01" });
    expect(made.spec["dnsMode"]).toBe("ns");
    expect((made.status["dnsConfig"] as { type: string }[]).map((r) => r.type)).toEqual([
      "TXT",
      "NS",
      "NS",
      "NS",
      "NS",
    ]);
    // One endpoint per workload of the gvc: sub-web and those earlier tests made there.
    const names =
      workload === undefined
        ? []
        : ((await admin(server).get(`/org/${ORG}/gvc/default/workload`)).body as { items: { name: string }[] }).items
            .map((item) => item.name)
            .sort();
    expect(names.length === 0 || names.includes("sub-web")).toBe(true);
    expect(made.status["endpoints"]).toEqual(
      names.map((name) => ({
        url: `https://${name}.apps.example.com`,
        workloadLink: `/org/${ORG}/gvc/default/workload/${name}`,
      })),
    );
  });
});

describe("permissions", () => {
  it("view reads, edit patches, no grant is a 404; create and delete need their own permissions", async () => {
    await make("perm.example.com", {});
    const key = await serviceAccountWithKey(server, "domain-viewer");
    const viewer = as(server, bearer(key));
    expect((await viewer.get(`${base}/perm.example.com`)).status).toBe(404);
    const policy = await admin(server).post(`/org/${ORG}/policy`, {
      name: "domain-view",
      targetKind: "domain",
      targetLinks: [`//domain/perm.example.com`],
      bindings: [{ permissions: ["view"], principalLinks: ["//serviceaccount/domain-viewer"] }],
    });
    expect(policy.status).toBe(201);
    expect((await viewer.get(`${base}/perm.example.com`)).status).toBe(200);
    expect((await viewer.patch(`${base}/perm.example.com`, { description: "x" })).status).toBe(403);
    expect((await viewer.post(base, { name: "mine.example.com" })).status).toBe(403);
    expect((await viewer.delete(`${base}/perm.example.com`)).status).toBe(403);
    expect(
      (
        await admin(server).patch(`/org/${ORG}/policy/domain-view`, {
          "$append/bindings": [{ permissions: ["edit"], principalLinks: ["//serviceaccount/domain-viewer"] }],
        })
      ).status,
    ).toBe(200);
    const edited = await viewer.patch(`${base}/perm.example.com`, { description: "by the editor" });
    expect([edited.status, (edited.body as { description: string }).description]).toEqual([200, "by the editor"]);
    const schema = (await admin(server).get(`${base}/-schema/permissions`)).body as { items: { name: string }[] };
    expect(schema.items.map((p) => p.name)).toEqual(["create", "delete", "edit", "manage", "use", "view"]);
  });
});

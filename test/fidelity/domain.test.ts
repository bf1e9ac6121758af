/**
 * The domain facts (`fidelity/facts/domain.json`, from types-ts, terraform-provider-cpln, the CLI bundle, the docs and
 * Control Plane's ai-plugin) replayed against cpln-local: fields and enums, the rules a spec is refused by (each a 400
 * naming its field), defaults, the emulated status and DNS records, and route edits as terraform sends them.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { certChallengeTypes, cipherSuites, dnsModes, domainProtocols, tlsVersions } from "../../api/schemas/domain.js";
import type { RunningServer } from "../../server/index.js";
import { ORG, admin, ensureWorkloads, start } from "../server/helpers.js";
import { loadFacts, Tally, type Fact } from "./facts.js";

let server: RunningServer;
const tally = new Tally();
const base = `/org/${ORG}/domain`;
let counter = 0;
const unique = () => `fid-${++counter}.example.com`;
const WEB = "//gvc/default/workload/web";

type Record_ = Record<string, unknown> & { spec: Spec; status: Record<string, unknown>; version: number };
type Spec = Record<string, unknown> & { ports: Port[] };
type Port = Record<string, unknown> & { number: number; routes?: Record<string, unknown>[] };

beforeAll(async () => {
  server = await start();
  await ensureWorkloads(admin(server).post, ORG, "default", ["web", "api", "shadow", "next"]);
});
// The org holds at most 20 domains (its `domains` quota): each check deletes what it made.
const made: string[] = [];
afterEach(async () => {
  for (const name of made.splice(0)) expect((await admin(server).delete(`${base}/${name}`)).status).toBe(202);
});
afterAll(async () => {
  await server.close();
  tally.print("facts of fidelity/facts/domain.json replayed against cpln-local");
});

async function create(spec: unknown, name = unique(), tags?: Record<string, unknown>): Promise<Record_> {
  const answer = await admin(server).post(base, { name, spec, ...(tags ? { tags } : {}) });
  expect({ name, status: answer.status, body: answer.status === 201 ? undefined : answer.body }).toEqual({
    name,
    status: 201,
    body: undefined,
  });
  made.push(name);
  return answer.body as Record_;
}

async function refusedAt(spec: unknown, path: string, name = unique(), tags?: Record<string, unknown>) {
  const answer = await admin(server).post(base, { name, spec, ...(tags ? { tags } : {}) });
  expect({ path, status: answer.status }).toEqual({ path, status: 400 });
  const issues = (answer.body as { details: { issues: { path: string }[] } }).details.issues.map((i) => i.path);
  expect(issues).toContain(path);
  expect((await admin(server).get(`${base}/${name}`)).status).toBe(404);
}

const full = (link: string) => link.replace(/^\/\//, `/org/${ORG}/`);

const checks: Record<string, (fact: Fact) => Promise<void>> = {
  enums: async (fact) => {
    const enums = fact["enums"] as Record<string, string[]>;
    expect({
      dnsMode: [...dnsModes],
      certChallengeType: [...certChallengeTypes],
      protocol: [...domainProtocols],
      minProtocolVersion: [...tlsVersions],
    }).toEqual(enums);
    await refusedAt({ dnsMode: "alias" }, "spec.dnsMode");
    await refusedAt({ ports: [{ protocol: "grpc" }] }, "spec.ports.0.protocol");
    await refusedAt({ ports: [{ tls: { minProtocolVersion: "TLSV1_4" } }] }, "spec.ports.0.tls.minProtocolVersion");
  },
  cipherSuites: async (fact) => {
    expect([cipherSuites.length, cipherSuites[0], cipherSuites[cipherSuites.length - 1]]).toEqual([
      fact["count"],
      fact["first"],
      fact["last"],
    ]);
    const made = await create({ ports: [{ tls: { cipherSuites: [...cipherSuites] } }] });
    expect(made.spec.ports[0]?.["tls"]).toEqual({ minProtocolVersion: "TLSV1_2", cipherSuites: [...cipherSuites] });
  },
  roundTrip: async (fact) => {
    const route = fact["route"] as Record<string, unknown>;
    const cors = fact["cors"] as Record<string, unknown> | undefined;
    const wildcard = route["hostPrefix"] !== undefined ? { acceptAllHosts: true } : {};
    const made = await create({ ...wildcard, ports: [{ number: 443, routes: [route], ...(cors ? { cors } : {}) }] });
    const stored = made.spec.ports[0] as Port;
    const expected = JSON.parse(JSON.stringify(route).replaceAll('"//gvc/', `"/org/${ORG}/gvc/`)) as unknown;
    expect(stored.routes).toEqual([expected]);
    if (cors) expect(stored["cors"]).toEqual(cors);
    const read = (await admin(server).get(`${base}/${String(made["name"])}`)).body as Record_;
    expect(read.spec).toEqual(made.spec);
  },
  status: async (fact) => {
    const made = await create({ ports: [{ routes: [{ prefix: "/", workloadLink: WEB }] }] });
    for (const field of fact["fields"] as string[]) expect(made.status, field).toHaveProperty(field);
    expect(fact["statuses"]).toContain(made.status["status"]);
    expect(made.status["endpoints"]).toEqual([{ url: `https://${String(made["name"])}/`, workloadLink: full(WEB) }]);
    // The fingerprint follows the spec: a changed spec, a new one; a tag, the same.
    const path = `${base}/${String(made["name"])}`;
    const tagged = (await admin(server).patch(path, { tags: { a: "b" } })).body as Record_;
    expect(tagged.status["fingerprint"]).toBe(made.status["fingerprint"]);
    const changed = (await admin(server).patch(path, { spec: { acceptAllSubdomains: true } })).body as Record_;
    expect(changed.status["fingerprint"]).not.toBe(made.status["fingerprint"]);
  },
  cliCreate: async () => {
    // What `cpln domain create --name ... --desc ...` sends: no spec.
    const name = unique();
    const answer = await admin(server).post(base, { name, description: "by the cli", tags: {} });
    expect(answer.status).toBe(201);
    made.push(name);
    const spec = (answer.body as Record_).spec;
    expect(spec["dnsMode"]).toBe("cname");
    expect(spec.ports.map((p) => [p.number, p["protocol"]])).toEqual([[443, "http2"]]);
  },
  name: async (fact) => {
    for (const name of fact["valid"] as string[]) await create({}, name);
    for (const name of fact["invalid"] as string[]) {
      const answer = await admin(server).post(base, { name, spec: {} });
      expect({ name, status: answer.status }).toEqual({ name, status: 400 });
      expect(JSON.stringify(answer.body)).toContain('"path":"name"');
    }
  },
  tfRouteAdd: async () => {
    const made = await create({ ports: [{ routes: [{ prefix: "/", workloadLink: WEB }] }] });
    const path = `${base}/${String(made["name"])}`;
    // AddDomainRoute: the spec as read, the route appended, sent as $replace/spec with the name.
    const spec = structuredClone(made.spec);
    spec.ports[0]?.routes?.push({ prefix: "/api", workloadLink: "//gvc/default/workload/api" });
    const added = await admin(server).patch(path, { name: made["name"], "$replace/spec": spec });
    expect(added.status).toBe(200);
    const routes = (added.body as Record_).spec.ports[0]?.routes?.map((r) => r["prefix"]);
    expect(routes).toEqual(["/api", "/"]);
    // RemoveDomainRoute: the same with the route cut.
    const cut = structuredClone((added.body as Record_).spec);
    cut.ports[0]!.routes = cut.ports[0]!.routes!.filter((r) => r["prefix"] !== "/api");
    const removed = await admin(server).patch(path, { name: made["name"], "$replace/spec": cut });
    expect((removed.body as Record_).spec.ports[0]?.routes?.map((r) => r["prefix"])).toEqual(["/"]);
  },
  defaults: async () => {
    const ns = await create({ gvcLink: "//gvc/default", certChallengeType: "dns01" });
    expect(ns.spec["dnsMode"]).toBe("ns");
    const made = await create({
      ports: [
        {
          routes: [
            { workloadLink: WEB },
            { prefix: "/api", workloadLink: WEB },
            { prefix: "/api/v2", workloadLink: WEB },
          ],
          cors: { allowHeaders: ["X-Token"], exposeHeaders: ["X-Request-Id"] },
        },
      ],
    });
    const port = made.spec.ports[0] as Port;
    expect(port.routes?.map((r) => r["prefix"])).toEqual(["/api/v2", "/api", "/"]);
    expect(port["cors"]).toEqual({ allowHeaders: ["x-token"], exposeHeaders: ["x-request-id"] });
    expect((port["tls"] as Record<string, unknown>)["minProtocolVersion"]).toBe("TLSV1_2");
    // With a regex route the order is the one sent.
    const regex = await create({
      ports: [
        {
          routes: [
            { prefix: "/", workloadLink: WEB },
            { regex: "/a/.*", workloadLink: WEB },
          ],
        },
      ],
    });
    expect(regex.spec.ports[0]?.routes?.map((r) => r["prefix"] ?? r["regex"])).toEqual(["/", "/a/.*"]);
  },
  tlsDefaults: async (fact) => {
    const made = await create({
      ports: [
        { number: 443, protocol: "http" },
        { number: 8080, protocol: "http2" },
        { number: 8443, protocol: "tcp" },
      ],
    });
    const tls = { minProtocolVersion: "TLSV1_2", cipherSuites: fact["cipherSuites"] };
    // Every port but a non-standard one of a non-HTTP protocol gets the default TLS settings.
    expect(made.spec.ports.map((p) => p["tls"])).toEqual([tls, tls, undefined]);
  },
  rule: async (fact) => {
    await refusedAt(fact["spec"], String(fact["path"]), (fact["name"] as string | undefined) ?? unique());
  },
  routeLimit: async (fact) => {
    const limit = fact["limit"] as number;
    const routes = (n: number) => Array.from({ length: n }, (_, i) => ({ prefix: `/r${i}`, workloadLink: WEB }));
    await create({ ports: [{ routes: routes(limit) }] });
    await refusedAt({ ports: [{ routes: routes(limit + 1) }] }, "spec.ports.0.routes");
    await create({ ports: [{ routes: routes(limit + 1) }] }, unique(), { [String(fact["tag"])]: "true" });
    // Across ports too.
    await refusedAt(
      {
        ports: [
          { number: 443, routes: routes(limit) },
          { number: 8443, routes: [{ prefix: "/x", workloadLink: WEB }] },
        ],
      },
      "spec.ports",
    );
  },
  unique: async () => {
    await refusedAt({ ports: [{ number: 443 }, { number: 443 }] }, "spec.ports.1.number");
    await refusedAt(
      {
        ports: [
          {
            routes: [
              { prefix: "/a", workloadLink: WEB },
              { prefix: "/a", workloadLink: WEB },
            ],
          },
        ],
      },
      "spec.ports.0.routes.1.prefix",
    );
    // One prefix for two hosts is two routes (ai-plugin's wildcard example).
    await create({
      acceptAllHosts: true,
      ports: [
        {
          routes: [
            { prefix: "/", hostPrefix: "api", workloadLink: WEB },
            { prefix: "/", workloadLink: WEB },
          ],
        },
      ],
    });
  },
  dnsNs: async (fact) => {
    const made = await create({ gvcLink: "//gvc/default", certChallengeType: "dns01" });
    const ns = (made.status["dnsConfig"] as Record<string, unknown>[]).filter((r) => r["type"] === "NS");
    expect(ns).toEqual(
      (fact["servers"] as string[]).map((value) => ({ type: "NS", ttl: fact["ttl"], host: made["name"], value })),
    );
  },
  dnsTxt: async (fact) => {
    const org = (await admin(server).get(`/org/${ORG}`)).body as { id: string };
    const sub = await create({}, "app.txt-example.com");
    expect((sub.status["dnsConfig"] as Record<string, unknown>[]).filter((r) => r["type"] === "TXT")).toEqual([
      { type: "TXT", ttl: fact["ttl"], host: "_cpln.txt-example.com", value: org.id },
    ]);
    // Once the org holds the apex domain, its subdomains need no TXT record.
    await create({}, "txt-example.com");
    const next = await create({}, "api.txt-example.com");
    expect((next.status["dnsConfig"] as Record<string, unknown>[]).filter((r) => r["type"] === "TXT")).toEqual([]);
  },
  dnsCname: async () => {
    const made = await create({ ports: [{ routes: [{ prefix: "/", workloadLink: WEB }] }] });
    const gvc = (await admin(server).get(`/org/${ORG}/gvc/default`)).body as { alias?: string };
    const cname = (made.status["dnsConfig"] as Record<string, unknown>[]).filter((r) => r["type"] === "CNAME");
    expect(cname).toEqual([
      { type: "CNAME", ttl: 1800, host: made["name"], value: `${gvc.alias ?? "default"}.cpln.app` },
    ]);
  },
};

describe("domains", () => {
  const file = loadFacts("domain.json");
  it.each(file.facts.map((f) => [f.id, f] as const))("%s", async (_id, fact) => {
    const check = checks[String(fact["check"])];
    expect(check, `no check ${String(fact["check"])}`).toBeDefined();
    await tally.check(fact, () => (check as (fact: Fact) => Promise<void>)(fact));
  });
});

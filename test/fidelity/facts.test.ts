/**
 * The fidelity suite: replays the facts recorded from Control Plane's published artefacts (`fidelity/facts/*.json`)
 * against cpln-local, and against the provider's Check where a fact concerns input. Prints, per source, how many
 * facts hold; any fact that does not hold fails its test.
 */
import { X509Certificate } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogOf, isKind, kinds, type Kind, type PolicyKind } from "../../api/kinds/index.js";
import { checkInputs } from "../../provider/resources/lifecycle.js";
import { policyDefinition } from "../../provider/resources/policy.js";
import { serviceAccountKeyDefinition } from "../../provider/resources/serviceAccountKey.js";
import type { RunningServer } from "../../server/index.js";
import { ORG, admin, as, call, bearer, ADMIN_KEY, start } from "../server/helpers.js";
import { loadFacts, Tally, type Fact } from "./facts.js";

let server: RunningServer;
const tally = new Tally();

beforeAll(async () => {
  server = await start();
});

afterAll(async () => {
  await server.close();
  tally.print("facts of fidelity/facts/*.json replayed against cpln-local");
});

interface DocumentedPermission {
  name: string;
  description: string;
  implies: string[];
}

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

/** What the provider's Check says about a Policy with these inputs: the failing properties. */
function policyCheck(inputs: Record<string, unknown>): string[] {
  return checkInputs(policyDefinition, {}, { ...inputs, org: ORG }, () => ORG).failures.map((f) => f.property);
}

/** Creates a policy through the API; answers the response. */
async function createPolicy(body: Record<string, unknown>) {
  return admin(server).post(`/org/${ORG}/policy`, { name: unique("fid"), ...body });
}

const viewers = `/org/${ORG}/group/viewers`;

describe("permission catalogs", () => {
  const file = loadFacts("permissions.json");
  const followed = file.facts.filter((f) => f.supersededBy === undefined);

  it.each(followed.map((f) => [f.id, f] as const))("%s", async (_id, fact) => {
    await tally.check(fact, async () => {
      const kind = fact["kind"] as PolicyKind;
      const documented = fact["permissions"] as DocumentedPermission[];
      // The contract's catalog (what policies are checked against) is the documented one.
      expect(
        catalogOf(kind).map((p) => ({ name: p.name, description: p.description, implies: [...p.implies].sort() })),
      ).toEqual(documented.map((p) => ({ ...p, implies: [...p.implies].sort() })));
      if (isKind(kind)) {
        // A stored kind serves it: GET .../-schema/permissions.
        const answer = await admin(server).get(`/org/${ORG}/${kind}/-schema/permissions`);
        expect(answer.status).toBe(200);
        const body = answer.body as {
          items: { name: string; description: string }[];
          implied: Record<string, string[]>;
        };
        expect(body.items).toEqual(documented.map(({ name, description }) => ({ name, description })));
        const implied = Object.fromEntries(
          documented.filter((p) => p.implies.length > 0).map((p) => [p.name, [...p.implies].sort()]),
        );
        expect(Object.fromEntries(Object.entries(body.implied).map(([k, v]) => [k, [...v].sort()]))).toEqual(implied);
      }
      // Every documented permission can be granted by a policy on the kind; anything else is refused naming them.
      const granted = await createPolicy({
        targetKind: kind,
        target: "all",
        bindings: documented.map((p) => ({ permissions: [p.name], principalLinks: [viewers] })),
      });
      expect(granted.status).toBe(201);
      const refused = await createPolicy({
        targetKind: kind,
        target: "all",
        bindings: [{ permissions: ["not-a-permission"], principalLinks: [viewers] }],
      });
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toContain(documented.map((p) => p.name).join(", "));
    });
  });

  it.each(file.facts.filter((f) => f.supersededBy !== undefined).map((f) => [f.id, f] as const))(
    "%s is recorded, superseded by the source followed",
    (_id, fact) => {
      expect(file.facts.some((f) => f.id === fact.supersededBy && f.supersededBy === undefined)).toBe(true);
      expect(fact.reason).toMatch(/followed/);
      tally.superseded(fact);
    },
  );
});

describe("policy target kinds", () => {
  const file = loadFacts("policy-kinds.json");
  const fact = (id: string): Fact => file.facts.find((f) => f.id === id) as Fact;

  it("policy/targetKind: every kind of the policy set is a target on the server and in the provider's Check", async () => {
    const f = fact("policy/targetKind");
    await tally.check(f, async () => {
      const all = f["kinds"] as string[];
      expect(all).toHaveLength(33);
      for (const kind of all) {
        const created = await createPolicy({ targetKind: kind, target: "all" });
        expect({ kind, status: created.status }).toEqual({ kind, status: 201 });
        expect(policyCheck({ targetKind: kind, target: "all" })).toEqual([]);
      }
      // A kind outside the set is refused by both.
      expect((await createPolicy({ targetKind: "widget", target: "all" })).status).toBe(400);
      expect(policyCheck({ targetKind: "widget", target: "all" })).toEqual(["targetKind"]);
    });
  });

  it("policy/gvc-scoped-kinds: links to gvc-scoped kinds name the gvc", async () => {
    const f = fact("policy/gvc-scoped-kinds");
    await tally.check(f, async () => {
      for (const kind of f["gvcScoped"] as string[]) {
        const inGvc = await createPolicy({ targetKind: kind, targetLinks: [`//gvc/default/${kind}/x`] });
        expect({ kind, status: inGvc.status }).toEqual({ kind, status: 201 });
        const inOrg = await createPolicy({ targetKind: kind, targetLinks: [`//${kind}/x`] });
        expect({ kind, status: inOrg.status }).toEqual({ kind, status: 400 });
      }
    });
  });

  it("policy/deployment-link: deployments are linked under their workload", async () => {
    const f = fact("policy/deployment-link");
    await tally.check(f, async () => {
      const ok = await createPolicy({
        targetKind: "deployment",
        targetLinks: ["//gvc/default/workload/w/deployment/d"],
      });
      expect(ok.status).toBe(201);
      expect((ok.body as { targetLinks: string[] }).targetLinks).toEqual([
        `/org/${ORG}/gvc/default/workload/w/deployment/d`,
      ]);
      expect((await createPolicy({ targetKind: "deployment", targetLinks: ["//deployment/d"] })).status).toBe(400);
    });
  });

  it("policy/tf-targets: the targets terraform-provider-cpln's tests use are accepted with links", async () => {
    const f = fact("policy/tf-targets");
    await tally.check(f, async () => {
      const links: Record<string, string> = { secret: "//secret/s", workload: "//gvc/default/workload/w" };
      for (const kind of f["kinds"] as string[]) {
        const body = {
          targetKind: kind,
          targetLinks: [links[kind]],
          bindings: [{ permissions: ["view"], principalLinks: ["//group/viewers"] }],
        };
        expect((await createPolicy(body)).status).toBe(201);
        expect(policyCheck(body)).toEqual([]);
      }
    });
  });

  it("policy/links-in-org: a policy's targets and principals are of its org (another org's: 400 naming each)", async () => {
    const f = fact("policy/links-in-org");
    await tally.check(f, async () => {
      const refused = await createPolicy({
        targetKind: "secret",
        targetLinks: ["/org/terraform-test-org/secret/secret-01"],
        bindings: [{ permissions: ["view"], principalLinks: ["/org/terraform-test-org/group/viewers"] }],
      });
      expect(refused.status).toBe(400);
      const issues = (refused.body as { details: { issues: { path: string }[] } }).details.issues;
      expect(issues.map((i) => i.path)).toEqual(f["fields"]);
    });
  });

  it("links/one-org: a relative link resolves in the request's org and is stored full; a full link names it", async () => {
    const f = fact("links/one-org");
    await tally.check(f, async () => {
      const stored = await admin(server).post(`/org/${ORG}/group`, {
        name: unique("members"),
        memberLinks: ["//serviceaccount/robot", `/org/${ORG}/user/a@example.com`],
      });
      expect(stored.status).toBe(201);
      expect((stored.body as { memberLinks: string[] }).memberLinks).toEqual([
        `/org/${ORG}/serviceaccount/robot`,
        `/org/${ORG}/user/a@example.com`,
      ]);
      const elsewhere = await admin(server).post(`/org/${ORG}/group`, {
        name: unique("members"),
        memberLinks: ["/org/another-org/serviceaccount/robot"],
      });
      expect(elsewhere.status).toBe(400);
    });
  });
});

describe("deletion", () => {
  const file = loadFacts("deletion.json");

  const checks: Record<string, (fact: Fact) => Promise<void>> = {
    "catalog-lacks": async (fact) => {
      const answer = await admin(server).get(`/org/${ORG}/${String(fact["kind"])}/-schema/permissions`);
      const names = (answer.body as { items: { name: string }[] }).items.map((p) => p.name);
      expect(names).not.toContain(fact["permission"]);
    },
    "not-deletable": async () => {
      const link = `/org/${ORG}/auditctx/app-events`;
      const before = await admin(server).get(link);
      const refused = await admin(server).delete(link);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ status: 403, code: "Forbidden" });
      expect((refused.body as { message: string }).message).toMatch(/^Audit contexts cannot be deleted/);
      const after = await admin(server).get(link);
      expect(after.status).toBe(200);
      expect(after.body).toEqual(before.body);
    },
    "delete-answers-error-only": async () => {
      const document = (await call(server, "GET", "/openapi.json", { auth: bearer(ADMIN_KEY) })).body as {
        paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      };
      const responses = document.paths["/org/{org}/auditctx/{name}"]?.["delete"]?.responses ?? {};
      expect(Object.keys(responses).length).toBeGreaterThan(0);
      expect(Object.keys(responses).filter((status) => status.startsWith("2"))).toEqual([]);
    },
    "protected-tag": async () => {
      // Objects of several kinds with the tag set to "true" cannot be deleted; with the tag removed they can.
      const objects = [
        { path: `/org/${ORG}/policy`, body: { targetKind: "secret", target: "all" } },
        { path: `/org/${ORG}/group`, body: {} },
        { path: `/org/${ORG}/serviceaccount`, body: {} },
        {
          path: `/org/${ORG}/gvc/default/volumeset`,
          body: { spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" } },
        },
      ];
      for (const { path, body } of objects) {
        const name = unique("protected");
        const created = await admin(server).post(path, { name, ...body, tags: { "cpln/protected": "true" } });
        expect({ path, status: created.status }).toEqual({ path, status: 201 });
        const refused = await admin(server).delete(`${path}/${name}`);
        expect({ path, status: refused.status }).toEqual({ path, status: 403 });
        expect((refused.body as { message: string }).message).toContain("cpln/protected");
        expect((await admin(server).get(`${path}/${name}`)).status).toBe(200);
        expect((await admin(server).patch(`${path}/${name}`, { tags: { "cpln/protected": "false" } })).status).toBe(
          200,
        );
        expect((await admin(server).delete(`${path}/${name}`)).status).toBe(202);
      }
    },
    "delete-succeeds-with": async (fact) => {
      // A deletable object's DELETE answers a status the client counts as success, with no body; the object is gone.
      const statuses = fact["statuses"] as number[];
      const link = `/org/${ORG}/group/${unique("deleted")}`;
      expect((await admin(server).post(`/org/${ORG}/group`, { name: link.split("/").pop() })).status).toBe(201);
      const deleted = await call(server, "DELETE", link, { auth: bearer(ADMIN_KEY) });
      expect(statuses).toContain(deleted.status);
      expect(deleted.body).toBeUndefined();
      expect(deleted.headers["content-length"]).toBe("0");
      expect((await admin(server).get(link)).status).toBe(404);
      // The document says so for every kind that can be deleted (cpln-local's own `/_cpln-local` routes aside).
      const document = (await call(server, "GET", "/openapi.json", { auth: bearer(ADMIN_KEY) })).body as {
        paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      };
      for (const [path, operations] of Object.entries(document.paths).filter(([path]) => path.startsWith("/org"))) {
        const success = Object.keys(operations["delete"]?.responses ?? {}).filter((status) => status.startsWith("2"));
        for (const status of success) expect(statuses.map(String), `DELETE ${path}`).toContain(status);
      }
    },
    "builtin-location-not-deletable": async () => {
      expect((await admin(server).delete(`/org/${ORG}/location/gcp-us-west1`)).status).toBe(403);
    },
  };

  it.each(file.facts.map((f) => [f.id, f] as const))("%s", async (_id, fact) => {
    const check = checks[String(fact["check"])];
    expect(check, `no check named ${String(fact["check"])}`).toBeDefined();
    await tally.check(fact, () => (check as (fact: Fact) => Promise<void>)(fact));
  });
});

describe("builtin locations", () => {
  const file = loadFacts("locations.json");

  interface PublishedLocation {
    name: string;
    description: string;
    provider: string;
    region: string;
    origin: string;
    enabled: boolean;
    tags: Record<string, string>;
  }

  it.each(file.facts.map((f) => [f.id, f] as const))("%s", async (_id, fact) => {
    await tally.check(fact, async () => {
      const published = fact["location"] as PublishedLocation;
      const answer = await admin(server).get(`/org/${ORG}/location/${published.name}`);
      expect(answer.status).toBe(200);
      const record = answer.body as Record<string, unknown> & { status: { geo: Record<string, unknown> } };
      expect(record).toMatchObject({
        name: published.name,
        description: published.description,
        provider: published.provider,
        region: published.region,
        origin: published.origin,
        spec: { enabled: published.enabled },
        tags: published.tags,
      });
      for (const [tag, value] of Object.entries(published.tags)) {
        expect(record.status.geo[tag.slice("cpln/".length)]).toBe(value);
      }
      expect(typeof record.status.geo["lat"]).toBe("number");
      expect(typeof record.status.geo["lon"]).toBe("number");
    });
  });

  it("no builtin location beyond the published list", async () => {
    const names: string[] = [];
    let next: string | undefined = `/org/${ORG}/location`;
    while (next !== undefined) {
      const page = (await admin(server).get(next)).body as {
        items: { name: string; origin: string }[];
        links: { rel: string; href: string }[];
      };
      names.push(...page.items.filter((l) => l.origin === "builtin").map((l) => l.name));
      next = page.links.find((l) => l.rel === "next")?.href;
    }
    const published = file.facts.map((f) => (f["location"] as PublishedLocation).name);
    expect(names.sort()).toEqual([...published].sort());
  });
});

describe("the kinds cpln-local stores are in the policy set", () => {
  it("every stored kind has the documented or common catalog of its policy-set entry", () => {
    for (const kind of Object.keys(kinds) as (keyof typeof kinds)[]) {
      expect(kinds[kind].permissions).toBe(catalogOf(kind));
    }
  });
});

describe("mk8s clusters", () => {
  const file = loadFacts("mk8s.json");
  const generic = (version: string) => ({
    spec: { version, provider: { generic: { location: "aws-eu-central-1", nodePools: [{ name: "general" }] } } },
  });

  const checks: Record<string, (fact: Fact) => Promise<void>> = {
    versions: async (fact) => {
      const versions = fact["versions"] as string[];
      for (const version of versions) {
        const created = await admin(server).post(`/org/${ORG}/mk8s`, { name: unique("k"), ...generic(version) });
        expect({ version, status: created.status }).toEqual({ version, status: 201 });
      }
      const unknown = await admin(server).post(`/org/${ORG}/mk8s`, { name: unique("k"), ...generic("1.25.0") });
      expect(unknown.status).toBe(400);
      expect(JSON.stringify(unknown.body)).toContain("spec.version");
    },
    status: async (fact) => {
      const name = unique("k");
      const created = await admin(server).post(`/org/${ORG}/mk8s`, { name, ...generic("1.31.5") });
      const status = (created.body as { status: Record<string, unknown> }).status;
      for (const field of fact["fields"] as string[]) expect(typeof status[field], field).toBe("string");
      expect(status["homeLocation"]).toBe("aws-eu-central-1");
      expect(new URL(status["serverUrl"] as string).protocol).toBe("https:");
      expect(new URL(status["oidcProviderUrl"] as string).protocol).toBe("https:");
    },
    "generic-location": async (fact) => {
      const path = "spec.provider.generic.location";
      const issuePaths = (body: unknown) =>
        (body as { details?: { issues?: { path: string }[] } }).details?.issues?.map((i) => i.path) ?? [];
      const create = (location: unknown) =>
        admin(server).post(`/org/${ORG}/mk8s`, {
          name: unique("k"),
          spec: { version: "1.31.5", provider: { generic: { ...(location === undefined ? {} : { location }) } } },
        });
      // Missing, naming no location, or a location that cannot host one: 400 naming the field, nothing created.
      for (const location of [undefined, "", "aws-xx-nowhere-9", "gcp-us-west1"]) {
        const refused = await create(location);
        expect({ location, status: refused.status, paths: issuePaths(refused.body) }).toEqual({
          location,
          status: 400,
          paths: [path],
        });
      }
      const hosting = (fact["locations"] as string[] | undefined) ?? ["aws-eu-central-1"];
      for (const location of hosting) {
        const created = await create(location);
        expect({ location, status: created.status }).toEqual({ location, status: 201 });
      }
      // A patch cannot remove it or move it to a location that does not exist; the cluster stays as it was.
      const name = unique("k");
      await admin(server).post(`/org/${ORG}/mk8s`, { name, ...generic("1.31.5") });
      const before = (await admin(server).get(`/org/${ORG}/mk8s/${name}`)).body;
      for (const location of [null, "aws-xx-nowhere-9"]) {
        const patched = await admin(server).patch(`/org/${ORG}/mk8s/${name}`, {
          spec: { provider: { generic: { location } } },
        });
        expect({ location, status: patched.status, paths: issuePaths(patched.body) }).toEqual({
          location,
          status: 400,
          paths: [path],
        });
      }
      expect((await admin(server).get(`/org/${ORG}/mk8s/${name}`)).body).toEqual(before);
    },
    alias: async () => {
      const name = unique("k");
      const created = await admin(server).post(`/org/${ORG}/mk8s`, { name, ...generic("1.31.5"), alias: "ignored" });
      expect(created.status).toBe(201);
      const alias = (created.body as { alias: unknown }).alias;
      expect(alias).toMatch(/^[0-9a-z]+$/);
      expect(alias).not.toBe("ignored");
      // Echoed back as read it is accepted; a different value conflicts with the stored one (409).
      const echoed = await admin(server).patch(`/org/${ORG}/mk8s/${name}`, { alias, description: "d" });
      expect(echoed.status).toBe(200);
      expect((echoed.body as { alias: unknown }).alias).toBe(alias);
      expect((await admin(server).patch(`/org/${ORG}/mk8s/${name}`, { alias: "other" })).status).toBe(409);
    },
  };

  it.each(file.facts.map((f) => [f.id, f] as const))("%s", async (_id, fact) => {
    const check = checks[String(fact["check"])];
    expect(check, `no check named ${String(fact["check"])}`).toBeDefined();
    await tally.check(fact, () => (check as (fact: Fact) => Promise<void>)(fact));
  });
});

/** The PEM certificates of a `-cacerts` answer, parsed. */
function certificatesOf(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/=\n]+-----END CERTIFICATE-----\n?/g) ?? [];
  expect(blocks.join("")).toBe(pem);
  return blocks.map((block) => new X509Certificate(block));
}

describe("endpoints the official clients call", () => {
  const file = loadFacts("endpoints.json");
  const cluster = unique("kc");
  const volumeSet = unique("vs");
  // A principal with view on every kind cpln-local stores, and nothing else.
  let viewerKey = "";

  beforeAll(async () => {
    expect(
      (
        await admin(server).post(`/org/${ORG}/mk8s`, {
          name: cluster,
          spec: { version: "1.31.5", provider: { generic: { location: "aws-eu-central-1" } } },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await admin(server).post(`/org/${ORG}/gvc/default/volumeset`, {
          name: volumeSet,
          spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" },
        })
      ).status,
    ).toBe(201);
    const sa = unique("viewer");
    expect((await admin(server).post(`/org/${ORG}/serviceaccount`, { name: sa })).status).toBe(201);
    const key = await admin(server).post(`/org/${ORG}/serviceaccount/${sa}/-addKey`, { description: "viewer" });
    viewerKey = (key.body as { key: string }).key;
    const group = unique("only-view");
    expect(
      (await admin(server).post(`/org/${ORG}/group`, { name: group, memberLinks: [`//serviceaccount/${sa}`] })).status,
    ).toBe(201);
    for (const kind of Object.keys(kinds)) {
      const granted = await createPolicy({
        targetKind: kind,
        target: "all",
        bindings: [{ permissions: ["view"], principalLinks: [`//group/${group}`] }],
      });
      expect({ kind, status: granted.status }).toEqual({ kind, status: 201 });
    }
  });

  /**
   * An object of `kind` (the eventlog's owner): the org itself, or one made from the kind's declared example create
   * body (api/kinds/<kind>.ts), so a new kind needs nothing here.
   */
  async function objectOf(kind: Kind): Promise<string> {
    if (kinds[kind].singleton) return `/org/${ORG}`;
    const make = kinds[kind].examples.create;
    if (make === undefined) throw new Error(`${kind} declares no example create body`);
    const collection = kinds[kind].scope === "gvc" ? `/org/${ORG}/gvc/default/${kind}` : `/org/${ORG}/${kind}`;
    const made = await admin(server).post(collection, make(unique(`eventlog-${kind}`)));
    expect({ kind, status: made.status }).toEqual({ kind, status: 201 });
    const self = (made.body as { links: { rel: string; href: string }[] }).links.find((l) => l.rel === "self");
    return String(self?.href);
  }

  const checks: Record<string, (fact: Fact) => Promise<void>> = {
    cacerts: async () => {
      const link = `/org/${ORG}/mk8s/${cluster}`;
      const answer = await admin(server).get(`${link}/-cacerts`);
      expect(answer.status).toBe(200);
      const { cacerts } = answer.body as { cacerts: string };
      const [ca, ...rest] = certificatesOf(cacerts);
      expect(rest).toEqual([]);
      // A CA certificate, self-signed (its own key verifies it), valid now.
      expect(ca?.ca).toBe(true);
      expect(ca?.subject).toBe(ca?.issuer);
      expect(ca?.verify(ca.publicKey)).toBe(true);
      expect(Date.parse(ca?.validFrom ?? "")).toBeLessThanOrEqual(Date.now());
      expect(Date.parse(ca?.validTo ?? "")).toBeGreaterThan(Date.now());
      // What the CLI's kubeconfig builds from it: base64 of the PEM, which decodes back to the certificate.
      const data = Buffer.from(cacerts).toString("base64");
      expect(new X509Certificate(Buffer.from(data, "base64")).fingerprint256).toBe(ca?.fingerprint256);
      // The same CA on every call; another cluster has another one.
      expect((await admin(server).get(`${link}/-cacerts`)).body).toEqual(answer.body);
      const other = (await admin(server).get(`/org/${ORG}/mk8s/edge/-cacerts`)).body as { cacerts: string };
      expect(certificatesOf(other.cacerts)[0]?.fingerprint256).not.toBe(ca?.fingerprint256);
      // A viewer may read it; an unknown cluster is a 404.
      expect((await as(server, bearer(viewerKey)).get(`${link}/-cacerts`)).status).toBe(200);
      expect((await admin(server).get(`/org/${ORG}/mk8s/absent/-cacerts`)).status).toBe(404);
    },
    instructions: async (fact) => {
      for (const provider of fact["providers"] as string[]) {
        const answer = await admin(server).get(`/org/${ORG}/cloudaccount/-instructions/${provider}`);
        expect({ provider, status: answer.status }).toEqual({ provider, status: 200 });
        const body = answer.body as { message: unknown; data: Record<string, unknown> };
        expect(typeof body.message).toBe("string");
        expect(body.data).toBeTypeOf("object");
        // The CLI prints each command of data.cli (an array) for aws and gcp.
        if (provider === "aws" || provider === "gcp") {
          const cli = body.data["cli"] as unknown[];
          expect(Array.isArray(cli) && cli.length > 0 && cli.every((c) => typeof c === "string")).toBe(true);
        }
      }
      // A provider outside the set is no path of the API.
      expect((await admin(server).get(`/org/${ORG}/cloudaccount/-instructions/ibm`)).status).toBe(404);
      // The instructions are for those who may create cloud accounts: a viewer gets 403.
      expect((await as(server, bearer(viewerKey)).get(`/org/${ORG}/cloudaccount/-instructions/aws`)).status).toBe(403);
    },
    eventlog: async (fact) => {
      const served = (fact["kinds"] as string[]).filter(isKind);
      expect(served.length).toBeGreaterThan(0);
      for (const kind of served) {
        const link = await objectOf(kind);
        const answer = await as(server, bearer(viewerKey)).get(`${String(link)}/-eventlog`);
        expect({ kind, status: answer.status }).toEqual({ kind, status: 200 });
        expect(answer.body).toEqual({
          kind: "list",
          itemKind: "event",
          items: [],
          links: [{ rel: "self", href: `${String(link)}/-eventlog` }],
        });
      }
      // Of an object that does not exist: 404.
      expect((await admin(server).get(`/org/${ORG}/group/absent/-eventlog`)).status).toBe(404);
    },
    "eventlog-shape": async () => {
      // The document's EventLog is a list of Event, whose only required field is status (types-ts Event).
      const document = (await call(server, "GET", "/openapi.json", { auth: bearer(ADMIN_KEY) })).body as {
        components: { schemas: Record<string, { properties: Record<string, { items?: unknown }> }> };
      };
      const eventLog = document.components.schemas["EventLog"];
      expect(eventLog?.properties["items"]?.items).toMatchObject({
        required: ["status"],
        properties: { status: { type: "string" }, eventCount: { type: "integer" }, pinned: { type: "boolean" } },
      });
    },
    invite: async () => {
      const path = `/org/${ORG}/user/-invite`;
      await admin(server).post(`/org/${ORG}/user`, { email: "grace@example.com" });
      const before = (await admin(server).get(`/org/${ORG}/user`)).body;
      const answer = await admin(server).post(path, {
        emails: ["new.one@example.com", "grace@example.com"],
        groupLink: "//group/viewers",
      });
      expect(answer.status).toBe(200);
      const body = answer.body as { invitations: Record<string, string>; errors: Record<string, unknown> };
      expect(Object.keys(body.invitations)).toEqual(["new.one@example.com"]);
      expect(body.invitations["new.one@example.com"]).toMatch(/^[0-9a-f-]{36}$/);
      expect(body.errors["grace@example.com"]).toMatchObject({ status: 409, code: "AlreadyExists" });
      // No user is created by an invitation (it is accepted by the invitee).
      expect((await admin(server).get(`/org/${ORG}/user`)).body).toEqual(before);
      // Bad input: 400 naming the field.
      for (const [bad, field] of [
        [{}, "emails"],
        [{ emails: ["not-an-email"] }, "emails.0"],
        [{ emails: ["a@example.com"], groupLink: "viewers" }, "groupLink"],
      ] as const) {
        const refused = await admin(server).post(path, bad);
        expect({ bad, status: refused.status }).toEqual({ bad, status: 400 });
        expect(JSON.stringify(refused.body)).toContain(`"path":"${field}"`);
      }
      // A group link valid in itself that names no group of the org conflicts with the org's groups: 409.
      const absent = await admin(server).post(path, { emails: ["a@example.com"], groupLink: "//group/absent" });
      expect(absent.status).toBe(409);
      expect(absent.body).toMatchObject({
        code: "Conflict",
        details: { issues: [{ path: "groupLink", message: `names no group of org ${ORG}` }] },
      });
      // A viewer may not invite.
      expect((await as(server, bearer(viewerKey)).post(path, { emails: ["b@example.com"] })).status).toBe(403);
    },
    command: async (fact) => {
      const link = `/org/${ORG}/gvc/default/volumeset/${volumeSet}`;
      const specs: Record<string, Record<string, unknown>> = {
        expandVolume: { location: "aws-eu-central-1", volumeIndex: 0, newStorageCapacity: 20, timeoutSeconds: 600 },
        shrinkVolume: { location: "aws-eu-central-1", volumeIndex: 0, newStorageCapacity: 10 },
        deleteVolume: { location: "aws-eu-central-1", volumeIndex: 1 },
        createVolumeSnapshot: { location: "aws-eu-central-1", volumeIndex: 0, snapshotName: "s1", snapshotTags: [] },
        deleteVolumeSnapshot: { location: "aws-eu-central-1", volumeIndex: 0, snapshotName: "s1" },
        restoreVolume: { location: "aws-eu-central-1", volumeIndex: 0, snapshotName: "s1" },
      };
      const before = (await admin(server).get(link)).body;
      for (const type of fact["types"] as string[]) {
        const spec = specs[type];
        expect(spec, `no spec for ${type}`).toBeDefined();
        const answer = await admin(server).post(`${link}/-command`, { type, spec });
        expect({ type, status: answer.status }).toEqual({ type, status: 201 });
        expect(answer.body).toMatchObject({ kind: "command", type, lifecycleStage: "pending", spec });
        expect((answer.body as { id: string }).id).toMatch(/^[0-9a-f-]{36}$/);
      }
      // The volume set is unchanged.
      expect((await admin(server).get(link)).body).toEqual(before);
      // Bad input: 400 naming the field; a viewer has no exec permission.
      const unknown = await admin(server).post(`${link}/-command`, { type: "formatVolume", spec: {} });
      expect(unknown.status).toBe(400);
      expect(JSON.stringify(unknown.body)).toContain('"path":"type"');
      const noIndex = await admin(server).post(`${link}/-command`, {
        type: "deleteVolume",
        spec: { location: "aws-eu-central-1" },
      });
      expect(noIndex.status).toBe(400);
      expect(JSON.stringify(noIndex.body)).toContain('"path":"spec.volumeIndex"');
      const viewer = await as(server, bearer(viewerKey)).post(`${link}/-command`, {
        type: "deleteVolume",
        spec: specs["deleteVolume"],
      });
      expect(viewer.status).toBe(403);
      expect((viewer.body as { message: string }).message).toContain("exec.deleteVolume");
    },
  };

  it.each(file.facts.map((f) => [f.id, f] as const))("%s", async (_id, fact) => {
    const check = checks[String(fact["check"])];
    expect(check, `no check named ${String(fact["check"])}`).toBeDefined();
    await tally.check(fact, () => (check as (fact: Fact) => Promise<void>)(fact));
  });
});

describe("service accounts", () => {
  const file = loadFacts("serviceaccount.json");

  const checks: Record<string, (fact: Fact) => Promise<void>> = {
    "addKey-description": async () => {
      const name = unique("sa");
      expect((await admin(server).post(`/org/${ORG}/serviceaccount`, { name })).status).toBe(201);
      const link = `/org/${ORG}/serviceaccount/${name}`;
      const before = (await admin(server).get(link)).body;
      for (const body of [{}, undefined]) {
        const refused = await admin(server).post(`${link}/-addKey`, body);
        expect(refused.status).toBe(400);
        expect(JSON.stringify(refused.body)).toContain('"path":"description"');
      }
      // Nothing changed: no key was added.
      expect((await admin(server).get(link)).body).toEqual(before);
      const added = await admin(server).post(`${link}/-addKey`, { description: "ci" });
      expect(added.status).toBe(200);
      expect(added.body).toMatchObject({ description: "ci" });
      // The provider's Check refuses a ServiceAccountKey without one at preview.
      const check = (inputs: Record<string, unknown>) =>
        checkInputs(serviceAccountKeyDefinition, {}, { ...inputs, org: ORG }, () => ORG).failures.map(
          (f) => f.property,
        );
      expect(check({ serviceAccount: name })).toEqual(["description"]);
      expect(check({ serviceAccount: name, description: "ci" })).toEqual([]);
    },
  };

  it.each(file.facts.map((f) => [f.id, f] as const))("%s", async (_id, fact) => {
    const check = checks[String(fact["check"])];
    expect(check, `no check named ${String(fact["check"])}`).toBeDefined();
    await tally.check(fact, () => (check as (fact: Fact) => Promise<void>)(fact));
  });
});

describe("cloud accounts", () => {
  const file = loadFacts("cloudaccount.json");

  const checks: Record<string, (fact: Fact) => Promise<void>> = {
    status: async (fact) => {
      const collection = `/org/${ORG}/cloudaccount`;
      const good = unique("ca");
      const bad = unique("ca");
      const usable = await admin(server).post(collection, {
        name: good,
        provider: "aws",
        data: { roleArn: "arn:aws:iam::123456789012:role/cpln" },
      });
      const unusable = await admin(server).post(collection, { name: bad, provider: "gcp" });
      expect([usable.status, unusable.status]).toEqual([201, 201]);
      const statusOf = (answer: { body: unknown }) => (answer.body as { status: Record<string, unknown> }).status;
      expect(statusOf(usable)).toEqual({ usable: true, lastChecked: expect.any(String) });
      expect(statusOf(unusable)).toEqual({
        usable: false,
        lastChecked: expect.any(String),
        lastError: expect.stringContaining("data.projectId"),
      });
      for (const status of [statusOf(usable), statusOf(unusable)]) {
        expect(new Date(String(status["lastChecked"])).toISOString()).toBe(status["lastChecked"]);
      }
      // Every documented field is returned by one of them.
      const returned = new Set([...Object.keys(statusOf(usable)), ...Object.keys(statusOf(unusable))]);
      for (const field of fact["fields"] as string[]) expect(returned.has(field), field).toBe(true);
      // Accepted back as read: collection PUT (cpln apply) and PUT of the object change nothing.
      for (const answer of [usable, unusable]) {
        const record = answer.body as Record<string, unknown>;
        const applied = await call(server, "PUT", collection, { auth: bearer(ADMIN_KEY), body: record });
        expect(applied.status).toBe(200);
        expect(applied.body).toEqual(record);
        const replaced = await call(server, "PUT", `${collection}/${String(record["name"])}`, {
          auth: bearer(ADMIN_KEY),
          body: record,
        });
        expect(replaced.status).toBe(200);
        expect(replaced.body).toEqual(record);
      }
      // When the data changes the account is checked again.
      const fixed = await admin(server).patch(`${collection}/${bad}`, { data: { projectId: "p-1" } });
      expect(fixed.status).toBe(200);
      expect(statusOf(fixed)).toEqual({ usable: true, lastChecked: expect.any(String) });
    },
  };

  it.each(file.facts.map((f) => [f.id, f] as const))("%s", async (_id, fact) => {
    const check = checks[String(fact["check"])];
    expect(check, `no check named ${String(fact["check"])}`).toBeDefined();
    await tally.check(fact, () => (check as (fact: Fact) => Promise<void>)(fact));
  });
});

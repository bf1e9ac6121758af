/**
 * The fidelity suite: replays the facts recorded from Control Plane's published artefacts (`fidelity/facts/*.json`)
 * against cpln-local, and against the provider's Check where a fact concerns input. Prints, per source, how many
 * facts hold; any fact that does not hold fails its test.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogOf, isKind, kinds, type PolicyKind } from "../../api/kinds.js";
import { checkInputs } from "../../provider/resources/engine.js";
import { policyDefinition } from "../../provider/resources/policy.js";
import type { RunningServer } from "../../server/index.js";
import { ORG, admin, call, bearer, ADMIN_KEY, start } from "../server/helpers.js";
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
        expect((await admin(server).delete(`${path}/${name}`)).status).toBe(204);
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
    alias: async () => {
      const name = unique("k");
      const created = await admin(server).post(`/org/${ORG}/mk8s`, { name, ...generic("1.31.5"), alias: "ignored" });
      expect(created.status).toBe(201);
      const alias = (created.body as { alias: unknown }).alias;
      expect(alias).toMatch(/^[0-9a-z]+$/);
      expect(alias).not.toBe("ignored");
      // Echoed back as read it is accepted; a different value is refused.
      const echoed = await admin(server).patch(`/org/${ORG}/mk8s/${name}`, { alias, description: "d" });
      expect(echoed.status).toBe(200);
      expect((echoed.body as { alias: unknown }).alias).toBe(alias);
      expect((await admin(server).patch(`/org/${ORG}/mk8s/${name}`, { alias: "other" })).status).toBe(400);
    },
  };

  it.each(file.facts.map((f) => [f.id, f] as const))("%s", async (_id, fact) => {
    const check = checks[String(fact["check"])];
    expect(check, `no check named ${String(fact["check"])}`).toBeDefined();
    await tally.check(fact, () => (check as (fact: Fact) => Promise<void>)(fact));
  });
});

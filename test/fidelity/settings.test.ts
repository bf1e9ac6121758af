/**
 * The fidelity suite, second part: the facts of the gvc's spec, the org's settings and volume sets
 * (`fidelity/facts/gvc.json`, `org.json`, `volumeset.json`), replayed against cpln-local. Prints, per source, how many
 * facts hold; any fact that does not hold fails its test.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { ORG, admin, start } from "../server/helpers.js";
import { loadFacts, Tally, type Fact } from "./facts.js";

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
const tally = new Tally();

beforeAll(async () => {
  server = await start();
  // The pull secrets the specs name: a pull secret must be a docker, ecr or gcp secret of the org.
  for (const secret of pullSecrets) {
    expect((await admin(server).post(`/org/${ORG}/secret`, secret)).status).toBe(201);
  }
});

afterAll(async () => {
  await server.close();
  tally.print("facts of fidelity/facts/{gvc,org,volumeset}.json replayed against cpln-local");
});

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

function facts(file: string): (id: string) => Fact {
  const loaded = loadFacts(file);
  return (id) => {
    const found = loaded.facts.find((f) => f.id === id);
    if (found === undefined) throw new Error(`no fact ${id} in ${file}`);
    return found;
  };
}

describe("volume sets", () => {
  const fact = facts("volumeset.json");
  const collection = `/org/${ORG}/gvc/default/volumeset`;

  it("volumeset/shared-snapshots-encryption: a shared volume set takes both in a create and a $replace/spec", async () => {
    const f = fact("volumeset/shared-snapshots-encryption");
    await tally.check(f, async () => {
      const spec = f["spec"] as Record<string, unknown>;
      const created = await admin(server).post(collection, { name: unique("shared"), spec });
      expect(created.status).toBe(201);
      expect((created.body as { spec: unknown }).spec).toEqual(spec);
      const name = unique("shared");
      const base = { initialCapacity: 10, fileSystemType: "shared" };
      expect((await admin(server).post(collection, { name, spec: base })).status).toBe(201);
      const updated = await admin(server).patch(`${collection}/${name}`, { "$replace/spec": spec });
      expect(updated.status).toBe(200);
      expect((updated.body as { spec: unknown }).spec).toEqual(spec);
    });
  });

  it("volumeset/shared-derived-class: the shared file system implies the shared class", async () => {
    const f = fact("volumeset/shared-derived-class");
    await tally.check(f, async () => {
      const created = await admin(server).post(collection, { name: unique("derived"), spec: f["spec"] });
      expect(created.status).toBe(201);
      expect((created.body as { spec: unknown }).spec).toMatchObject(f["expect"] as object);
    });
  });
});

/** `{gvc}` in a fact's links stands for the gvc the test creates. */
function inGvc(value: unknown, gvc: string): unknown {
  return JSON.parse(JSON.stringify(value).replaceAll("{gvc}", gvc));
}

/** What the server stores for a spec sent with relative links: every `//x` link in full form. */
function fullForm(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value).replaceAll('"//', `"/org/${ORG}/`));
}

describe("gvc spec", () => {
  const fact = facts("gvc.json");
  const gvcs = `/org/${ORG}/gvc`;

  it.each(["gvc/spec-fields", "gvc/client-fields", "gvc/unchecked-links", "gvc/replace-spec-update"])(
    "%s: created with the fact's spec and updated to it by $replace/spec, each read back",
    async (id) => {
      const f = fact(id);
      await tally.check(f, async () => {
        const name = unique("fid-gvc");
        const spec = inGvc(f["spec"], name) as Record<string, unknown>;
        const expected = { endpointNamingFormat: "org", ...(fullForm(spec) as object) };
        const created = await admin(server).post(gvcs, { name, spec });
        expect(created.status).toBe(201);
        expect((created.body as { spec: unknown }).spec).toEqual(expected);
        const other = unique("fid-gvc");
        expect((await admin(server).post(gvcs, { name: other })).status).toBe(201);
        const replaced = await admin(server).patch(`${gvcs}/${other}`, { "$replace/spec": inGvc(f["spec"], other) });
        expect(replaced.status).toBe(200);
        expect((replaced.body as { spec: unknown }).spec).toEqual({
          endpointNamingFormat: "org",
          ...(fullForm(inGvc(f["spec"], other)) as object),
        });
      });
    },
  );

  it("gvc/endpoint-naming-default: a gvc created without it has org; each value is kept", async () => {
    const f = fact("gvc/endpoint-naming-default");
    await tally.check(f, async () => {
      const plain = await admin(server).post(gvcs, { name: unique("fid-gvc") });
      expect((plain.body as { spec: { endpointNamingFormat: string } }).spec.endpointNamingFormat).toBe(f["default"]);
      for (const value of f["values"] as string[]) {
        const made = await admin(server).post(gvcs, { name: unique("fid-gvc"), spec: { endpointNamingFormat: value } });
        expect((made.body as { spec: { endpointNamingFormat: string } }).spec.endpointNamingFormat).toBe(value);
      }
    });
  });

  it("gvc/limits: values outside terraform's validators are refused, naming the field", async () => {
    const f = fact("gvc/limits");
    await tally.check(f, async () => {
      for (const [block, field, value] of f["refused"] as [string, string, number][]) {
        const spec = block === "tracing" ? { tracing: { [field]: value } } : { [block]: { [field]: value } };
        const answer = await admin(server).post(gvcs, { name: unique("fid-gvc"), spec });
        expect({ field, status: answer.status }).toEqual({ field, status: 400 });
        expect(JSON.stringify(answer.body)).toContain(`spec.${block}.${field}`);
      }
    });
  });

  it("gvc/full-location-links: a relative location link is returned in full form", async () => {
    const f = fact("gvc/full-location-links");
    await tally.check(f, async () => {
      const spec = { staticPlacement: { locationLinks: [f["sent"]] } };
      const made = await admin(server).post(gvcs, { name: unique("fid-gvc"), spec });
      expect((made.body as { spec: { staticPlacement: unknown } }).spec.staticPlacement).toEqual({
        locationLinks: [String(f["returned"]).replace("{org}", ORG)],
      });
    });
  });

  it("gvc/alias: the server sets it, and a query on it finds the gvc", async () => {
    const f = fact("gvc/alias");
    await tally.check(f, async () => {
      const name = unique("fid-gvc");
      const made = (await admin(server).post(gvcs, { name })).body as { alias: string };
      expect(made.alias).toEqual(expect.any(String));
      const found = await admin(server).post(`${gvcs}/-query`, {
        spec: { terms: [{ property: f["property"], value: made.alias }] },
      });
      expect((found.body as { items: { name: string }[] }).items.map((i) => i.name)).toEqual([name]);
    });
  });
});

describe("org settings", () => {
  const fact = facts("org.json");
  const self = `/org/${ORG}`;
  const spec = async () => ((await admin(server).get(self)).body as { spec: Record<string, unknown> }).spec;

  it("org/defaults: the org shows them, and terraform's delete (writing them back) is accepted", async () => {
    const f = fact("org/defaults");
    await tally.check(f, async () => {
      expect(await spec()).toEqual(f["spec"]);
      expect((await admin(server).patch(self, { "$replace/spec": f["spec"] })).status).toBe(200);
      expect(await spec()).toEqual(f["spec"]);
    });
  });

  it.each(["org/spec-fields", "org/replace-spec-update"])("%s: $replace/spec with it is read back", async (id) => {
    const f = fact(id);
    await tally.check(f, async () => {
      const answer = await admin(server).patch(self, { "$replace/spec": f["spec"] });
      expect(answer.status).toBe(200);
      expect(await spec()).toEqual(fullForm(f["spec"]));
    });
  });

  it("org/limits: terraform's bounds hold on both sides", async () => {
    const f = fact("org/limits");
    await tally.check(f, async () => {
      for (const body of f["refused"] as object[]) {
        expect({ body, status: (await admin(server).patch(self, { spec: body })).status }).toEqual({
          body,
          status: 400,
        });
      }
      for (const body of f["accepted"] as object[]) {
        expect({ body, status: (await admin(server).patch(self, { spec: body })).status }).toEqual({
          body,
          status: 200,
        });
      }
    });
  });

  it("org/logging-update and org/tracing-update: nested $replace/ sets them, null removes them", async () => {
    for (const id of ["org/logging-update", "org/tracing-update"]) {
      const f = fact(id);
      await tally.check(f, async () => {
        const fields = id === "org/tracing-update" ? ["tracing"] : ["logging", "extraLogging"];
        const set: Record<string, unknown> = {};
        const unset: Record<string, unknown> = {};
        for (const field of fields) {
          set[`$replace/${field}`] = f[field];
          unset[`$replace/${field}`] = null;
        }
        expect((await admin(server).patch(self, { spec: set })).status).toBe(200);
        const after = await spec();
        for (const field of fields) expect(after[field]).toEqual(fullForm(f[field]));
        expect((await admin(server).patch(self, { spec: unset })).status).toBe(200);
        const removed = await spec();
        for (const field of fields) expect(removed).not.toHaveProperty(field);
      });
    }
  });

  it("org/logging-count: logging and extraLogging hold at most four configurations", async () => {
    const f = fact("org/logging-count");
    await tally.check(f, async () => {
      const one = { fluentd: { host: "fluentd" } };
      const extra = (n: number) => Array.from({ length: n }, () => one);
      const max = f["max"] as number;
      expect((await admin(server).patch(self, { spec: { logging: one, extraLogging: extra(max - 1) } })).status).toBe(
        200,
      );
      expect((await admin(server).patch(self, { spec: { extraLogging: extra(max) } })).status).toBe(400);
    });
  });

  it("org/status: the server sets active and the endpoint prefix", async () => {
    const f = fact("org/status");
    await tally.check(f, async () => {
      const status = ((await admin(server).get(self)).body as { status: Record<string, unknown> }).status;
      for (const field of f["fields"] as string[]) expect(status).toHaveProperty(field);
      expect(status["active"]).toBe(true);
    });
  });
});

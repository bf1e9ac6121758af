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
const tally = new Tally();

beforeAll(async () => {
  server = await start();
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

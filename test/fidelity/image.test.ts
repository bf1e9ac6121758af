/**
 * The image facts (`fidelity/facts/image.json`, from types-ts, terraform-provider-cpln, the CLI bundle, the docs and
 * Control Plane's ai-plugin) replayed against cpln-local: the record's fields, the `<repository>:<tag>` name, no create
 * through the API (the emulator's push stands in for a docker push), tags the only thing a PATCH changes, queries on
 * the image's own properties, the latest image of a repository, delete.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryProperties } from "../../api/kinds/index.js";
import type { RunningServer } from "../../server/index.js";
import { ORG, admin, start } from "../server/helpers.js";
import { loadFacts, Tally, type Fact } from "./facts.js";

let server: RunningServer;
const tally = new Tally();
const base = `/org/${ORG}/image`;
const push = `/_cpln-local/org/${ORG}/image`;
let counter = 0;
const unique = () => `fid-${++counter}:v1`;

beforeAll(async () => {
  server = await start();
});
afterAll(async () => {
  await server.close();
  tally.print("facts of fidelity/facts/image.json replayed against cpln-local");
});

async function pushed(name = unique(), manifest?: unknown): Promise<Record<string, unknown>> {
  const answer = await admin(server).post(push, { name, ...(manifest ? { manifest } : {}) });
  expect({ name, status: answer.status }).toEqual({ name, status: 201 });
  return answer.body as Record<string, unknown>;
}

const checks: Record<string, (fact: Fact) => Promise<void>> = {
  fields: async (fact) => {
    const image = await pushed("shop:1.2.3");
    for (const field of fact["fields"] as string[]) expect(image, field).toHaveProperty(field);
    expect([image["repository"], image["tag"]]).toEqual(["shop", "1.2.3"]);
    expect((await admin(server).get(`${base}/shop:1.2.3`)).body).toEqual(image);
  },
  manifest: async (fact) => {
    const manifest = {
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      config: { size: 7, digest: `sha256:${"a".repeat(64)}`, mediaType: "application/vnd.oci.image.config.v1+json" },
      layers: [{ size: 9, digest: `sha256:${"b".repeat(64)}`, mediaType: "application/vnd.oci.image.layer.v1.tar" }],
    };
    const image = await pushed(unique(), manifest);
    expect(Object.keys(image["manifest"] as object).sort()).toEqual([...(fact["fields"] as string[])].sort());
    expect(image["manifest"]).toEqual(manifest);
    // The digest is the manifest's sha256, as a registry computes it from the manifest's bytes.
    const { createHash } = await import("node:crypto");
    expect(image["digest"]).toBe(`sha256:${createHash("sha256").update(JSON.stringify(manifest)).digest("hex")}`);
  },
  name: async (fact) => {
    for (const name of fact["valid"] as string[]) await pushed(name);
    for (const name of fact["invalid"] as string[]) {
      const answer = await admin(server).post(push, { name });
      expect({ name, status: answer.status }).toEqual({ name, status: 400 });
      expect(JSON.stringify(answer.body)).toContain('"path":"name"');
    }
  },
  noCreate: async () => {
    const answer = await admin(server).post(base, { name: "made:v1" });
    expect([405, 403]).toContain(answer.status);
    expect((await admin(server).get(`${base}/made:v1`)).status).toBe(404);
  },
  tagsOnly: async () => {
    const image = await pushed();
    const path = `${base}/${String(image["name"])}`;
    const tagged = await admin(server).patch(path, { tags: { team: "shop" } });
    expect([tagged.status, (tagged.body as { tags: unknown }).tags]).toEqual([200, { team: "shop" }]);
    for (const change of [{ description: "x" }, { digest: `sha256:${"c".repeat(64)}` }, { tag: "v2" }]) {
      const answer = await admin(server).patch(path, change);
      expect({ change, status: answer.status }).toEqual({ change, status: 409 });
    }
    const unknown = await admin(server).patch(path, { spec: {} });
    expect(unknown.status).toBe(400);
    const after = (await admin(server).get(path)).body as Record<string, unknown>;
    expect([after["digest"], after["tag"], after["version"]]).toEqual([image["digest"], image["tag"], 2]);
  },
  cli: async (fact) => {
    expect(queryProperties("image")).toEqual(expect.arrayContaining(fact["props"] as string[]));
  },
  query: async (fact) => {
    const image = await pushed("queried:v9");
    for (const property of fact["props"] as string[]) {
      const value = image[property];
      const answer = await admin(server).post(`${base}/-query`, { spec: { terms: [{ property, value }] } });
      expect({ property, status: answer.status }).toEqual({ property, status: 200 });
      const names = (answer.body as { items: { name: string }[] }).items.map((i) => i.name);
      expect({ property, names }).toEqual({ property, names: expect.arrayContaining(["queried:v9"]) });
    }
  },
  latest: async () => {
    // Each push in a later millisecond than the one before, so "pushed last" is one image.
    const pushedInTurn = async (name: string) => {
      const image = await pushed(name);
      while (new Date().toISOString() <= String(image["created"])) await new Promise((r) => setTimeout(r, 1));
      return image;
    };
    await pushedInTurn("newest:v2");
    const last = await pushedInTurn("newest:v1");
    const answer = await admin(server).get(`${base}/-latest/newest`);
    expect([answer.status, answer.body]).toEqual([200, last]);
  },
  delete: async () => {
    const image = await pushed();
    const path = `${base}/${String(image["name"])}`;
    expect((await admin(server).delete(path)).status).toBe(202);
    expect((await admin(server).get(path)).status).toBe(404);
  },
};

describe("images", () => {
  const file = loadFacts("image.json");
  it.each(file.facts.map((f) => [f.id, f] as const))("%s", async (_id, fact) => {
    const check = checks[String(fact["check"])];
    expect(check, `no check ${String(fact["check"])}`).toBeDefined();
    await tally.check(fact, () => (check as (fact: Fact) => Promise<void>)(fact));
  });
});

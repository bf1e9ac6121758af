/**
 * Round trip (what `cpln get -o yaml | cpln apply` does): every record cpln-local returns, of every kind, builtin ones
 * included, sent back as it was read — to the collection's PUT where the kind has one, else to the object's PUT — is
 * accepted and changes nothing (same version).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectionPath } from "../../api/links.js";
import { kindNames, kinds } from "../../api/kinds/index.js";
import type { RunningServer } from "../../server/index.js";
import { ADMIN_KEY, ORG, admin, bearer, call, ensureWorkloads, start } from "../server/helpers.js";

let server: RunningServer;

beforeAll(async () => {
  server = await start();
  expect((await admin(server).post(`/org/${ORG}/user`, { email: "dev@example.com" })).status).toBe(201);
  // A service account with a key: its record lists the key.
  expect((await admin(server).post(`/org/${ORG}/serviceaccount`, { name: "ci" })).status).toBe(201);
  expect((await admin(server).post(`/org/${ORG}/serviceaccount/ci/-addKey`, { description: "k" })).status).toBe(200);
  expect(
    (
      await admin(server).post(`/org/${ORG}/gvc/default/volumeset`, {
        name: "data",
        spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" },
      })
    ).status,
  ).toBe(201);
  // One object of every other gvc-scoped kind, from its declaration's example.
  for (const kind of kindNames) {
    const create = kinds[kind].examples.create;
    if (kinds[kind].scope !== "gvc" || kind === "volumeset" || create === undefined) continue;
    expect((await admin(server).post(collectionPath(ORG, kind, "default"), create(`rt-${kind}`))).status).toBe(201);
  }
  // An image (the API creates none: the emulator's push stands in for a docker push).
  expect((await admin(server).post(`/_cpln-local/org/${ORG}/image`, { name: "app:v1" })).status).toBe(201);
  await ensureWorkloads(admin(server).post, ORG, "default", ["api", "web", "tcp"]);
  // A domain using every part of its spec: routes (prefix, regex, host rule, headers, mirror), CORS and TLS.
  expect(
    (
      await admin(server).post(`/org/${ORG}/domain`, {
        name: "shop.example.com",
        tags: { [`cpln/skipDNSCheck`]: true },
        spec: {
          acceptAllSubdomains: true,
          ports: [
            {
              number: 443,
              protocol: "http2",
              routes: [
                { prefix: "/api", replacePrefix: "/", workloadLink: "//gvc/default/workload/api", port: 8080 },
                { prefix: "/", hostPrefix: "admin", workloadLink: "//gvc/default/workload/web" },
                {
                  prefix: "/",
                  workloadLink: "//gvc/default/workload/web",
                  headers: { request: { set: { "x-client": "%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%" } } },
                  mirror: [{ workloadLink: "//gvc/default/workload/api", percent: 10 }],
                },
              ],
              cors: {
                allowOrigins: [{ exact: "https://example.com" }],
                allowHeaders: ["Authorization"],
                maxAge: "24h",
              },
              tls: { minProtocolVersion: "TLSV1_3" },
            },
            { number: 8443, protocol: "tcp", routes: [{ regex: "/.*", workloadLink: "//gvc/default/workload/tcp" }] },
          ],
        },
      })
    ).status,
  ).toBe(201);
});

afterAll(async () => {
  await server.close();
});

type Item = Record<string, unknown> & {
  name: string;
  version: number;
  id: string;
  links: { rel: string; href: string }[];
};

async function listAll(path: string): Promise<Item[]> {
  const items: Item[] = [];
  let next: string | undefined = path;
  while (next !== undefined) {
    const page = (await admin(server).get(next)).body as { items: Item[]; links: { rel: string; href: string }[] };
    items.push(...page.items);
    next = page.links.find((l) => l.rel === "next")?.href;
  }
  return items;
}

describe.each(kindNames.map((kind) => [kind] as const))("%s: GET then PUT back changes nothing", (kind) => {
  it("every record is accepted back unchanged", async () => {
    const info = kinds[kind];
    const collection = collectionPath(ORG, kind, info.scope === "gvc" ? "default" : undefined);
    // A kind the seed holds no object of gets one from its declaration's example body.
    if (kind !== "org" && info.examples.create && (await listAll(collection)).length === 0) {
      expect((await admin(server).post(collection, info.examples.create(`example-${kind}`))).status).toBe(201);
    }
    const items = kind === "org" ? [(await admin(server).get(`/org/${ORG}`)).body as Item] : await listAll(collection);
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) {
      const self = item.links.find((l) => l.rel === "self")?.href as string;
      // `cpln apply` PUTs to the parent of the object's link: the collection (`/org` for the org itself).
      const target = kind === "org" ? "/org" : collectionPath(ORG, kind, info.scope === "gvc" ? "default" : undefined);
      const answer = await call(server, "PUT", target, { auth: bearer(ADMIN_KEY), body: item });
      expect({ self, status: answer.status, body: answer.status === 200 ? undefined : answer.body }).toEqual({
        self,
        status: 200,
        body: undefined,
      });
      const after = (await admin(server).get(self)).body as Item;
      expect({ self, version: after.version }).toEqual({ self, version: item.version });
    }
  });
});

// Refresh and import of a kind with reveal-only fields (a secret's data) read through `-reveal`; a token without
// `reveal` on the object falls back to the plain GET and keeps the state's value. Against an in-process cpln-local.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kinds } from "../../api/kinds/index.js";
import { CplnClient } from "../../provider/client/index.js";
import { declaredDefinitions } from "../../provider/resources/declared.js";
import type { Props, ResourceClient, ResourceContext } from "../../provider/resources/types.js";
import type { RunningServer } from "../../server/index.js";
import { admin, ORG, serviceAccountWithKey, start } from "../server/helpers.js";

const definition = declaredDefinitions([kinds.secret])["Secret"]!;
const link = `/org/${ORG}/secret/reveal-read`;
let server: RunningServer;

// A read makes GETs only: the context's client is the real client's getByLink.
const contextFor = (token: string): ResourceContext => {
  const client = new CplnClient({ endpoint: server.url, token, org: ORG });
  return {
    client: { getByLink: (link: string) => client.getByLink(link) } as ResourceClient,
    org: ORG,
    warn: () => {},
  };
};

beforeAll(async () => {
  server = await start({ recordRequests: true });
  const created = await admin(server).post(`/org/${ORG}/secret`, {
    name: "reveal-read",
    type: "dictionary",
    data: { KEY: "changed elsewhere" },
  });
  expect(created.status).toBe(201);
});
afterAll(() => server.close());

describe("Secret read", () => {
  const state: Props = { name: "reveal-read", type: "dictionary", data: { KEY: "the program's" } };

  it("with reveal: one GET of -reveal; the data is what the API stores", async () => {
    server.clearRequests();
    const outs = await definition.read(contextFor(server.adminKey), link, state);
    expect(server.requests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`GET ${link}/-reveal 200`]);
    expect(outs).toMatchObject({ selfLink: link, data: { KEY: "changed elsewhere" } });
  });

  it("with view alone: -reveal is refused (403), the plain GET answers, and the state's data stays", async () => {
    const key = await serviceAccountWithKey(server, "viewer");
    const policy = await admin(server).post(`/org/${ORG}/policy`, {
      name: "view-reveal-read",
      targetKind: "secret",
      targetLinks: [link],
      bindings: [{ permissions: ["view"], principalLinks: [`/org/${ORG}/serviceaccount/viewer`] }],
    });
    expect(policy.status).toBe(201);
    server.clearRequests();
    const outs = await definition.read(contextFor(key), link, state);
    expect(server.requests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET ${link}/-reveal 403`,
      `GET ${link} 200`,
    ]);
    expect(outs).toMatchObject({ selfLink: link, data: { KEY: "the program's" } });
  });

  it("gone: one GET of -reveal (404), and the read reports it missing", async () => {
    server.clearRequests();
    expect(await definition.read(contextFor(server.adminKey), `/org/${ORG}/secret/missing`, state)).toBeUndefined();
    expect(server.requests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET /org/${ORG}/secret/missing/-reveal 404`,
    ]);
  });
});

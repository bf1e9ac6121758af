/**
 * `GET /org/{org}/image/-latest/{repository}`: what terraform-provider-cpln's `cpln_image` data source reads for a
 * name without a tag (`client/image.go` `GetLatestImage`). The answer is the repository's image pushed last.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { ORG, admin, apiError, as, bearer, call, serviceAccountWithKey, start } from "./helpers.js";

let server: RunningServer;
const base = `/org/${ORG}/image`;
const latest = (repository: string) => `${base}/-latest/${repository}`;

/** Pushes `name` and waits into the next millisecond, so each push has a later `created`. */
async function pushed(name: string): Promise<unknown> {
  const answer = await admin(server).post(`/_cpln-local/org/${ORG}/image`, { name });
  expect(answer.status).toBe(201);
  const created = (answer.body as { created: string }).created;
  while (new Date().toISOString() <= created) await new Promise((resolve) => setTimeout(resolve, 1));
  return answer.body;
}

beforeAll(async () => {
  server = await start();
});
afterAll(async () => {
  await server.close();
});

describe("GET /org/{org}/image/-latest/{repository}", () => {
  it("answers the repository's image pushed last (not the greatest tag), as GET of its name does", async () => {
    await pushed("shop:v9");
    await pushed("shop:v10");
    await pushed("shopfront:v1");
    const answer = await admin(server).get(latest("shop"));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual((await admin(server).get(`${base}/shop:v10`)).body);
    const next = await pushed("shop:v2");
    expect((await admin(server).get(latest("shop"))).body).toEqual(next);
  });

  it("after the latest is deleted, the one pushed before it", async () => {
    expect((await admin(server).delete(`${base}/shop:v2`)).status).toBe(202);
    expect(((await admin(server).get(latest("shop"))).body as { name: string }).name).toBe("shop:v10");
  });

  it("404 for a repository with no image; 400 naming `repository` and its rule for a name no repository can have", async () => {
    expect(await admin(server).get(latest("nothing-here"))).toMatchObject({
      status: 404,
      body: apiError(404, "NotFound", "image repository nothing-here not found"),
    });
    for (const bad of ["Shop", "shop:v10", "-shop"]) {
      const answer = await admin(server).get(latest(encodeURIComponent(bad)));
      expect({ bad, status: answer.status }).toEqual({ bad, status: 400 });
      expect((answer.body as { details: { issues: unknown[] } }).details.issues).toEqual([
        {
          path: "repository",
          message: "must be a repository name: lowercase letters, digits, '.', '_' and '-', a letter or digit first",
        },
      ]);
    }
  });

  it("the OpenAPI document states the repository's rule on the path parameter", async () => {
    const doc = (await admin(server).get("/openapi.json")).body as {
      paths: Record<string, { get: { parameters: { name: string; in: string; schema: unknown }[] } }>;
    };
    const parameters = doc.paths["/org/{org}/image/-latest/{repository}"]?.get.parameters;
    expect(parameters?.find((p) => p.name === "repository")).toEqual({
      name: "repository",
      in: "path",
      required: true,
      description: "A repository of the org's registry (an image's name before `:`).",
      schema: { type: "string", maxLength: 128, pattern: "^[a-z0-9][a-z0-9._-]*$" },
    });
  });

  it("needs credentials (401) and `view` on images (403 without it); only GET is served there (405)", async () => {
    expect((await as(server, undefined).get(latest("shop"))).status).toBe(401);
    const nobody = await serviceAccountWithKey(server, "nobody");
    const refused = await as(server, bearer(nobody)).get(latest("shop"));
    expect(refused.body).toEqual(
      apiError(403, "Forbidden", `Not allowed to use -latest of image in org ${ORG} (needs view)`),
    );
    const policy = await admin(server).post(`/org/${ORG}/policy`, {
      name: "see-images",
      targetKind: "image",
      target: "all",
      bindings: [{ permissions: ["view"], principalLinks: ["//serviceaccount/nobody"] }],
    });
    expect(policy.status).toBe(201);
    const allowed = await as(server, bearer(nobody)).get(latest("shop"));
    expect([allowed.status, (allowed.body as { name: string }).name]).toEqual([200, "shop:v10"]);
    const patch = await call(server, "PATCH", latest("shop"), { auth: bearer("x"), body: {} });
    expect([patch.status, patch.headers["allow"]]).toEqual([405, "GET, HEAD"]);
  });
});

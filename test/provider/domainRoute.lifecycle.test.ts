// DomainRoute through Pulumi's real dynamic-provider host against cpln-local: one route on a domain owned elsewhere.
// Create appends only it (exact PATCH body), a route another client adds meanwhile survives the update (a $patch of
// only the changed field, named by prefix), a refresh after the route is removed out of band drops the resource, and
// delete drops only its route. Needs `npm run build`.
import { beforeAll, describe, expect, it } from "vitest";
import { inputsOf, ResourceStack, sdk, serverRecord, withEnv, type Env } from "./support.js";

const TYPE = "pulumi-nodejs:dynamic/cpln:DomainRoute";
const DOMAIN = "shop.example.com";

let env: Env;
let org = "";
withEnv((started) => {
  env = started;
  org = started.server.org;
});

type Args = Record<string, unknown>;
const DomainRoute = (sdk as unknown as Record<string, new (name: string, args: Args) => unknown>).DomainRoute!;
const routeInputs = (args: Args) => inputsOf(TYPE, () => new DomainRoute("api-route", args));
const workload = (name: string) => `/org/${org}/gvc/default/workload/${name}`;
const routesOnServer = async () =>
  (
    ((await serverRecord(env, `/org/${org}/domain/${DOMAIN}`)) as { spec: { ports: { routes?: Args[] }[] } }).spec
      .ports[0]!.routes ?? []
  ).map((route) => `${String(route.prefix)} → ${String(route.workloadLink)}:${String(route.port ?? "")}`);

beforeAll(async () => {
  for (const name of ["web", "api"]) {
    await env.client.createByLink(`/org/${org}/gvc/default/workload`, {
      name,
      spec: {
        type: "standard",
        containers: [{ name: "main", image: "nginx:1.27", ports: [{ number: 8080, protocol: "http" }] }],
      },
    });
  }
  // The domain belongs to someone else; it routes / to web.
  await env.client.createByLink(`/org/${org}/domain`, {
    name: DOMAIN,
    spec: {
      ports: [
        { number: 443, protocol: "http2", routes: [{ prefix: "/", workloadLink: "//gvc/default/workload/web" }] },
      ],
    },
  });
});

describe("DomainRoute lifecycle", () => {
  let stack: ResourceStack;
  const args: Args = { domain: DOMAIN, prefix: "/api", workloadLink: "//gvc/default/workload/api", port: 8080 };
  const domainLink = () => `/org/${org}/domain/${DOMAIN}`;

  it("create: one PATCH appending only this route; the owner's route stays", async () => {
    stack = new ResourceStack(env, TYPE, "api-route");
    const step = await stack.up(await routeInputs(args));
    expect(step.requests).toEqual([
      {
        method: "PATCH",
        path: domainLink(),
        status: 200,
        body: {
          spec: {
            "$patch/ports": [
              { number: 443, "$append/routes": [{ prefix: "/api", workloadLink: workload("api"), port: 8080 }] },
            ],
          },
        },
      },
    ]);
    expect(stack.id).toBe(`${domainLink()}#443#/api`);
    expect(await routesOnServer()).toEqual([`/api → ${workload("api")}:8080`, `/ → ${workload("web")}:`]);
  });

  it("the same program: no change, no request", async () => {
    expect(await stack.up(await routeInputs(args))).toMatchObject({ op: "same", requests: [] });
  });

  it("an update patches only the changed field of this route; a route another client added meanwhile survives", async () => {
    await env.client.patchByLink(domainLink(), {
      spec: {
        "$patch/ports": [
          { number: 443, "$append/routes": [{ prefix: "/shop", workloadLink: "//gvc/default/workload/web" }] },
        ],
      },
    });
    const step = await stack.up(await routeInputs({ ...args, port: 9090 }));
    expect(step.requests).toEqual([
      {
        method: "PATCH",
        path: domainLink(),
        status: 200,
        body: { spec: { "$patch/ports": [{ number: 443, "$patch/routes": [{ prefix: "/api", port: 9090 }] }] } },
      },
    ]);
    expect(await routesOnServer()).toEqual([
      `/shop → ${workload("web")}:`,
      `/api → ${workload("api")}:9090`,
      `/ → ${workload("web")}:`,
    ]);
  });

  it("delete drops only this route", async () => {
    const requests = await stack.destroy();
    expect(requests).toEqual([
      {
        method: "PATCH",
        path: domainLink(),
        status: 200,
        body: { spec: { "$patch/ports": [{ number: 443, "$drop/routes": ["/api"] }] } },
      },
    ]);
    expect(await routesOnServer()).toEqual([`/shop → ${workload("web")}:`, `/ → ${workload("web")}:`]);
  });

  it("a route removed out of band: refresh finds it gone", async () => {
    const again = new ResourceStack(env, TYPE, "api-route");
    await again.up(await routeInputs(args));
    await env.client.patchByLink(domainLink(), {
      spec: { "$patch/ports": [{ number: 443, "$drop/routes": ["/api"] }] },
    });
    expect((await again.refresh()).gone).toBe(true);
  });
});

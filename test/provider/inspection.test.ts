// Request inspection checks the minimal-PATCH claim from outside: after a provider update through Pulumi's real
// dynamic-provider host, GET /_cpln-local/requests shows exactly the PATCH body the provider sent. Needs `npm run build`.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { PolicyArgs } from "../../sdk/index.js";
import { programInputs, ResourceStack, sdk, startEnv, stopEnv, type Env } from "./support.js";

let env: Env;
beforeAll(async () => {
  env = await startEnv({ records: [{ kind: "group", name: "devs" }] });
});
afterAll(async () => {
  await stopEnv(env);
});

async function inspected(): Promise<{ method: string; path: string; status: number; body?: unknown }[]> {
  const response = await fetch(`${env.server.url}/_cpln-local/requests`, {
    headers: { authorization: `Bearer ${env.server.adminKey}` },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { items: { method: string; path: string; status: number; body?: unknown }[] })
    .items;
}

it("a policy update shows up as one PATCH whose body holds only the change", async () => {
  const args: PolicyArgs = {
    targetKind: "group",
    targetLinks: ["//group/devs"],
    bindings: [{ permissions: ["view"], principalLinks: ["//group/devs"] }],
    description: "before",
  };
  const policy = new ResourceStack(env, "pulumi-nodejs:dynamic/cpln:Policy", "inspected");
  const inputs = async (a: PolicyArgs) => (await programInputs(() => new sdk.Policy("inspected", a))).inputs;
  await policy.up(await inputs(args));
  const step = await policy.up(await inputs({ ...args, description: "after" }));
  expect(step.op).toBe("update");
  const sent = step.requests.filter((r) => r.method === "PATCH");
  expect(sent).toHaveLength(1);
  const seen = (await inspected()).filter((r) => r.method === "PATCH");
  expect(seen).toHaveLength(1);
  expect(seen[0]).toMatchObject({ path: sent[0]?.path, status: 200 });
  expect(seen[0]?.body).toEqual(sent[0]?.body);
  expect(seen[0]?.body).toMatchObject({ description: "after" });
  expect(Object.keys(seen[0]?.body as object).filter((k) => !["description", "version", "name"].includes(k))).toEqual(
    [],
  );
});

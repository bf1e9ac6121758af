// `cpln:timeoutSeconds` of the stack config, as the real dynamic-provider host receives it (its configure hook),
// against cpln-local answering every request 2.5 s late: a limit of 1 s ends a Create naming that limit, the same
// Create without the key completes, and a value that is not a positive number of seconds fails the Create naming the
// key and the rule before any request. Needs `npm run build`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { harness, inputsOf, sdk, startEnv, stopEnv, takeRequests, type Env } from "./support.js";

const DELAY_MS = 2500;
const TYPE = "pulumi-nodejs:dynamic/cpln:ServiceAccount";

let env: Env;
beforeAll(async () => {
  env = await startEnv();
});
afterAll(async () => {
  env.server.setFaults(undefined);
  await stopEnv(env);
});

/** A Create of service account `name` by a fresh host configured with `extra` besides org, endpoint and token. */
async function createWith(name: string, extra: Record<string, string>): Promise<Error | undefined> {
  const host = await harness.startHost();
  try {
    await host.configure(
      { "cpln:token": env.server.adminKey, "cpln:endpoint": env.server.url, "cpln:org": env.server.org, ...extra },
      ["cpln:token"],
    );
    const urn = harness.urnFor(TYPE, name);
    const { inputs, failures } = await host.check(
      urn,
      {},
      await inputsOf(TYPE, () => new sdk.ServiceAccount(name, { name, description: "made under a slow API" })),
    );
    expect(failures).toEqual([]);
    takeRequests(env.server);
    env.server.setFaults({ rate: 1, modes: ["delay"], delayMs: DELAY_MS });
    return await host.create(urn, inputs).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
  } finally {
    env.server.setFaults(undefined);
    await host.stop();
  }
}

describe("cpln:timeoutSeconds reaches the dynamic provider's calls", () => {
  it("a limit of 1 s ends a Create the server answers 2.5 s late, naming the 1000 ms limit", async () => {
    const error = await createWith("short-limit", { "cpln:timeoutSeconds": "1" });
    expect(error?.message).toContain("no complete response within the time limit of 1000 ms");
    expect(takeRequests(env.server).map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /org/${env.server.org}/serviceaccount`,
    ]);
  });

  it("without the key (the default limit) the same slow Create completes", async () => {
    const started = Date.now();
    expect(await createWith("default-limit", {})).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThan(DELAY_MS);
    expect(
      takeRequests(env.server)
        .filter((r) => r.method !== "GET")
        .map((r) => `${r.method} ${r.path} ${r.status}`),
    ).toEqual([`POST /org/${env.server.org}/serviceaccount 201`]);
  });

  it.each(["0", "-1", "soon"])(
    "cpln:timeoutSeconds %s fails the Create naming the key and the rule, sending nothing",
    async (value) => {
      const error = await createWith("bad-limit", { "cpln:timeoutSeconds": value });
      expect(error?.message).toContain(`cpln:timeoutSeconds must be a positive number of seconds, got "${value}"`);
      expect(takeRequests(env.server)).toEqual([]);
    },
  );
});

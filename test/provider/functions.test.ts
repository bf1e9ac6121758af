import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { kinds } from "../../api/kinds/index.js";
import { CplnApiError } from "../../provider/client/errors.js";
import * as fn from "../../provider/functions/index.js";
import { FunctionArgsError, type FunctionEnv } from "../../provider/functions/index.js";
import * as sdk from "../../sdk/functions.js";
import { startServer, type RunningServer, type SeedDocument } from "../../server/index.js";

/**
 * Every data-source function against a seeded cpln-local: the Promise forms (provider/functions, and sdk/functions
 * reading the stack config), the Output forms under `setMocks`, argument validation before any request, and the
 * join script's secrecy.
 */

const seed: SeedDocument = {
  records: [
    { kind: "cloudaccount", name: "aws-prod", provider: "aws", data: { roleArn: "arn:aws:iam::1:role/prod" } },
    { kind: "cloudaccount", name: "aws-dev", provider: "aws", data: { roleArn: "arn:aws:iam::1:role/dev" } },
    { kind: "cloudaccount", name: "gcp-main", provider: "gcp", data: { projectId: "main-123" } },
    { kind: "cloudaccount", name: "azure-eu", provider: "azure", tags: { region: "eu" } },
    {
      kind: "mk8s",
      name: "edge",
      spec: {
        version: "1.28.4",
        provider: { generic: { location: "aws-eu-central-1", nodePools: [{ name: "general" }, { name: "gpu" }] } },
      },
    },
    {
      kind: "mk8s",
      name: "eks",
      spec: { version: "1.28.4", provider: { aws: { nodePools: [{ name: "workers" }] } } },
    },
    { kind: "group", name: "ops", description: "Operators", memberLinks: ["//serviceaccount/controlplane"] },
  ],
};

let server: RunningServer;
let env: FunctionEnv;
const savedEnv: Record<string, string | undefined> = {};

function stackConfigOf(values: Record<string, string>): FunctionEnv["stackConfig"] {
  return { get: (key) => values[key] };
}

/** The value of an Output (the mocks run applies, so it resolves). */
function valueOf<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply(resolve));
}

/**
 * The Output's own value promise, which rejects when the apply threw (internal to @pulumi/pulumi, stable across 3.x).
 * Its `isKnown`/`isSecret` promises reject too: in a program the runtime reports that as the program's failure; here
 * they are observed so the rejection is asserted once, through the value.
 */
function settled<T>(output: pulumi.Output<T>): Promise<T> {
  const internals = output as unknown as {
    promise(): Promise<T>;
    isKnown: Promise<boolean>;
    isSecret: Promise<boolean>;
  };
  internals.isKnown.catch(() => undefined);
  internals.isSecret.catch(() => undefined);
  return internals.promise();
}

async function expectApiError(promise: Promise<unknown>): Promise<CplnApiError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(CplnApiError);
    return error as CplnApiError;
  }
  throw new Error("expected the call to fail");
}

beforeAll(async () => {
  // The functions fall back to CPLN_* from the environment: make sure none leak in from the machine.
  for (const key of ["CPLN_ORG", "CPLN_ENDPOINT", "CPLN_TOKEN"]) {
    savedEnv[key] = process.env[key];
    delete process.env[key];
  }
  server = await startServer({ host: "127.0.0.1", port: 0, org: "acme", seed, recordRequests: true });
  env = {
    stackConfig: stackConfigOf({ "cpln:org": server.org, "cpln:endpoint": server.url, "cpln:token": server.adminKey }),
    retry: { retries: 1, minDelayMs: 1, maxDelayMs: 5 },
  };
});

afterAll(async () => {
  await server?.close();
  for (const [key, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

beforeEach(() => server.clearRequests());

function requestLines(): string[] {
  return server.requests().map((r) => `${r.method} ${r.path} ${r.status}`);
}

describe("functions (Promise forms) against a seeded server", () => {
  it("getQuotas lists the org's quotas; cloudaccounts counts the 4 seeded accounts", async () => {
    const result = await fn.getQuotas({}, env);
    expect(result.org).toBe("acme");
    const byName = new Map(result.items.map((q) => [q.name, q]));
    expect(byName.get("gvcs")).toMatchObject({ kind: "quota", max: 20, unit: "count", origin: "builtin" });
    expect(byName.get("cloudaccounts")).toMatchObject({ current: 4, max: 10 });
    expect(requestLines()).toEqual(["GET /org/acme/quota 200"]);
  });

  it("getQuota reads one quota by id, equal to its list entry", async () => {
    const listed = (await fn.getQuotas({}, env)).items.find((q) => q.name === "groups");
    expect(listed).toBeDefined();
    server.clearRequests();
    const quota = await fn.getQuota({ id: listed!.id }, env);
    expect(quota).toEqual(listed);
    expect(requestLines()).toEqual([`GET /org/acme/quota/${listed!.id} 200`]);
  });

  it("getQuota for an unknown id is a 404 CplnApiError", async () => {
    const error = await expectApiError(fn.getQuota({ id: "00000000-0000-4000-8000-000000000000" }, env));
    expect(error.status).toBe(404);
    expect(error.code).toBe("NotFound");
  });

  it("getCloudAccountPermissions returns the catalog in API order with implied permissions", async () => {
    const schema = await fn.getCloudAccountPermissions({}, env);
    const catalog = kinds.cloudaccount.permissions;
    expect(schema.kind).toBe("permissions");
    expect(schema.targetKind).toBe("cloudaccount");
    expect(schema.items.map((p) => p.name)).toEqual(catalog.map((p) => p.name));
    expect(schema.items.map((p) => p.name)).toEqual(["browse", "create", "delete", "edit", "manage", "view"]);
    expect([...(schema.implied["edit"] ?? [])].sort()).toEqual(["browse", "view"]);
    expect([...(schema.implied["manage"] ?? [])].sort()).toEqual([
      "browse",
      "create",
      "delete",
      "edit",
      "manage",
      "view",
    ]);
    expect(requestLines()).toEqual(["GET /org/acme/cloudaccount/-schema/permissions 200"]);
  });

  it("queryCloudAccounts filters by provider, sorts, and echoes the query with defaults filled", async () => {
    const result = await fn.queryCloudAccounts(
      { spec: { terms: [{ property: "provider", value: "aws" }], sort: { by: "name" } } },
      env,
    );
    expect(result.items.map((a) => a.name)).toEqual(["aws-dev", "aws-prod"]);
    expect(result.items.every((a) => a.provider === "aws")).toBe(true);
    expect(result.query).toMatchObject({
      spec: {
        match: "all",
        terms: [{ op: "=", property: "provider", value: "aws" }],
        sort: { by: "name", order: "asc" },
      },
    });
    expect(requestLines()).toEqual(["POST /org/acme/cloudaccount/-query 200"]);
    expect(server.requests()[0]!.body).toEqual({
      kind: "cloudaccount",
      fetch: "items",
      spec: { terms: [{ property: "provider", value: "aws" }], sort: { by: "name" } },
    });
  });

  it("queryCloudAccounts with match any, none, and no spec at all", async () => {
    const any = await fn.queryCloudAccounts(
      {
        spec: {
          match: "any",
          terms: [
            { property: "provider", value: "gcp" },
            { tag: "region", value: "eu" },
          ],
          sort: { by: "name", order: "desc" },
        },
      },
      env,
    );
    expect(any.items.map((a) => a.name)).toEqual(["gcp-main", "azure-eu"]);
    const none = await fn.queryCloudAccounts(
      { spec: { match: "none", terms: [{ property: "provider", value: "aws" }], sort: { by: "name" } } },
      env,
    );
    expect(none.items.map((a) => a.name)).toEqual(["azure-eu", "gcp-main"]);
    const all = await fn.queryCloudAccounts(undefined, env);
    expect(all.items.map((a) => a.name).sort()).toEqual(["aws-dev", "aws-prod", "azure-eu", "gcp-main"]);
  });

  it("getServiceAccounts lists controlplane with key names only (no secret)", async () => {
    const result = await fn.getServiceAccounts({}, env);
    const controlplane = result.items.find((sa) => sa.name === "controlplane");
    expect(controlplane).toMatchObject({ kind: "serviceaccount", origin: "builtin" });
    expect(controlplane!.keys!.length).toBeGreaterThan(0);
    expect(JSON.stringify(result)).not.toContain(server.adminKey);
    expect(requestLines()).toEqual(["GET /org/acme/serviceaccount 200"]);
  });

  it("getGroups lists the built-in groups and the seeded one", async () => {
    const result = await fn.getGroups({}, env);
    expect(result.items.map((g) => g.name).sort()).toEqual(["ops", "superusers", "viewers"]);
    expect(result.items.find((g) => g.name === "ops")).toMatchObject({
      description: "Operators",
      memberLinks: ["/org/acme/serviceaccount/controlplane"],
    });
    expect(requestLines()).toEqual(["GET /org/acme/group 200"]);
  });

  it("getPolicy reads a built-in policy", async () => {
    const policy = await fn.getPolicy({ name: "viewers-group" }, env);
    expect(policy).toMatchObject({
      kind: "policy",
      name: "viewers-group",
      origin: "builtin",
      targetKind: "group",
      target: "all",
      bindings: [{ permissions: ["view"], principalLinks: ["/org/acme/group/viewers"] }],
    });
    expect(requestLines()).toEqual(["GET /org/acme/policy/viewers-group 200"]);
  });

  it("getLocation reads a built-in location with its geo data", async () => {
    const location = await fn.getLocation({ name: "aws-us-west-2" }, env);
    expect(location).toMatchObject({
      kind: "location",
      name: "aws-us-west-2",
      origin: "builtin",
      provider: "aws",
      region: "us-west-2",
    });
    expect(location.status?.geo?.country).toBeTypeOf("string");
    expect(requestLines()).toEqual(["GET /org/acme/location/aws-us-west-2 200"]);
  });

  it("getGroupAccessReport lists, per group permission, who holds it and through which policy", async () => {
    const report = await fn.getGroupAccessReport({ name: "ops" }, env);
    expect(report.kind).toBe("accessreport");
    expect(report.permissions.map((p) => p.name)).toEqual(kinds.group.permissions.map((p) => p.name));
    const view = report.permissions.find((p) => p.name === "view")!;
    expect(view.bindings).toContainEqual({
      principalLink: "/org/acme/group/viewers",
      grantingPolicyLink: "/org/acme/policy/viewers-group",
      grantedPermissions: ["view"],
      match: "all",
    });
    expect(view.bindings).toContainEqual({
      principalLink: "/org/acme/group/superusers",
      grantingPolicyLink: "/org/acme/policy/superusers-group",
      grantedPermissions: ["manage"],
      match: "all",
    });
    const remove = report.permissions.find((p) => p.name === "delete")!;
    expect(remove.bindings.map((b) => b.principalLink).sort()).toEqual([
      "/org/acme/group/superusers",
      "/org/acme/serviceaccount/controlplane",
    ]);
    expect(requestLines()).toEqual(["GET /org/acme/group/ops/-accessreport 200"]);
  });

  it("getMk8sJoinScript returns a bash script naming the generic cluster and the pool", async () => {
    const result = await fn.getMk8sJoinScript({ name: "edge", options: { nodePoolName: "gpu" } }, env);
    expect(result.name).toBe("edge");
    expect(result.script.startsWith("#!/bin/bash")).toBe(true);
    expect(result.script).toContain("edge");
    expect(result.script).toContain("gpu");
    expect(requestLines()).toEqual(["POST /org/acme/mk8s/edge/-join 200"]);
  });

  it("getMk8sJoinScript for an aws cluster is the 400 Unsupported, sent once (no retry)", async () => {
    const error = await expectApiError(
      fn.getMk8sJoinScript({ name: "eks", options: { nodePoolName: "workers" } }, env),
    );
    expect(error.status).toBe(400);
    expect(error.code).toBe("Unsupported");
    expect(error.message).toMatch(/^POST \/org\/acme\/mk8s\/eks\/-join failed \(400 Unsupported\): /);
    expect(requestLines()).toEqual(["POST /org/acme/mk8s/eks/-join 400"]);
  });
});

describe("arguments and configuration", () => {
  it("invalid arguments are refused before any request, naming the field", async () => {
    const cases: [() => Promise<unknown>, RegExp][] = [
      [() => fn.getPolicy({} as never, env), /^getPolicy: invalid arguments: name: /],
      [() => fn.getQuota({ id: "" }, env), /^getQuota: invalid arguments: id: must not be empty/],
      [
        () => fn.getLocation({ name: "x", colour: "red" } as never, env),
        /^getLocation: invalid arguments: colour: Unknown field/,
      ],
      [
        () => fn.queryCloudAccounts({ spec: { match: "most" as never } }, env),
        /^queryCloudAccounts: invalid arguments: spec\.match: /,
      ],
      [
        () => fn.queryCloudAccounts({ spec: { terms: [{ property: "provider", tag: "x", value: "aws" }] } }, env),
        /^queryCloudAccounts: invalid arguments: spec\.terms\.0\.tag: a term must set exactly one of property, rel or tag/,
      ],
      [
        () => fn.getMk8sJoinScript({ name: "edge", options: { nodePoolName: "" } }, env),
        /^getMk8sJoinScript: invalid arguments: options\.nodePoolName: /,
      ],
      [() => fn.getGroups({ org: "" }, env), /^getGroups: invalid arguments: org: must not be empty/],
    ];
    for (const [call, message] of cases) {
      const failure = call().then(
        () => undefined,
        (error: unknown) => error,
      );
      const error = await failure;
      expect(error).toBeInstanceOf(FunctionArgsError);
      expect((error as Error).message).toMatch(message);
    }
    expect(server.requests()).toEqual([]);
  });

  it("the org argument wins over the stack config, which wins over the environment", async () => {
    process.env.CPLN_ORG = "from-env";
    try {
      const wrongStack = {
        ...env,
        stackConfig: stackConfigOf({
          "cpln:org": "from-stack",
          "cpln:endpoint": server.url,
          "cpln:token": server.adminKey,
        }),
      };
      expect((await fn.getGroups({ org: "acme" }, wrongStack)).org).toBe("acme");
      const error = await expectApiError(fn.getGroups({}, wrongStack));
      expect(error.path).toBe("/org/from-stack/group");
      const noStackOrg = {
        ...env,
        stackConfig: stackConfigOf({ "cpln:endpoint": server.url, "cpln:token": server.adminKey }),
      };
      const fromEnv = await expectApiError(fn.getGroups({}, noStackOrg));
      expect(fromEnv.path).toBe("/org/from-env/group");
    } finally {
      delete process.env.CPLN_ORG;
    }
  });

  it("a missing token or org is a clear error naming the config key and the env var, with no request", async () => {
    const noToken = { stackConfig: stackConfigOf({ "cpln:org": "acme", "cpln:endpoint": server.url }) };
    await expect(fn.getGroups({}, noToken)).rejects.toThrow(/cpln:token.*CPLN_TOKEN/);
    const noOrg = { stackConfig: stackConfigOf({ "cpln:endpoint": server.url, "cpln:token": server.adminKey }) };
    await expect(fn.getGroups({}, noOrg)).rejects.toThrow(/cpln:org.*CPLN_ORG/);
    expect(server.requests()).toEqual([]);
  });
});

describe("sdk/functions: stack config through pulumi.Config, and the Output forms under setMocks", () => {
  beforeAll(() => {
    pulumi.runtime.setMocks(
      {
        newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }),
        call: (args) => args.inputs,
      },
      "functions-test",
      "dev",
      false,
    );
    pulumi.runtime.setAllConfig(
      { "cpln:org": server.org, "cpln:endpoint": server.url, "cpln:token": server.adminKey },
      ["cpln:token"],
    );
  });

  it("every Promise form reads cpln:org/endpoint/token from the stack config", async () => {
    const quotas = await sdk.getQuotas();
    const quotaId = quotas.items[0]!.id;
    const results = await Promise.all([
      sdk.getQuota({ id: quotaId }),
      sdk.getCloudAccountPermissions(),
      sdk.queryCloudAccounts({ spec: { terms: [{ property: "provider", value: "gcp" }] } }),
      sdk.getServiceAccounts(),
      sdk.getGroups(),
      sdk.getPolicy({ name: "superusers-policy" }),
      sdk.getLocation({ name: "aws-us-east-1" }),
      sdk.getGroupAccessReport({ name: "viewers" }),
      sdk.getMk8sJoinScript({ name: "edge", options: { nodePoolName: "general" } }),
    ]);
    expect(quotas.org).toBe("acme");
    expect(results[0].id).toBe(quotaId);
    expect(results[1].targetKind).toBe("cloudaccount");
    expect(results[2].items.map((a) => a.name)).toEqual(["gcp-main"]);
    expect(results[3].items.some((sa) => sa.name === "controlplane")).toBe(true);
    expect(results[4].items).toHaveLength(3);
    expect(results[5].name).toBe("superusers-policy");
    expect(results[6].name).toBe("aws-us-east-1");
    expect(results[7].kind).toBe("accessreport");
    expect(results[8].script).toContain("general");
    expect(server.requests()).toHaveLength(10);
  });

  it("getMk8sJoinScriptOutput is secret as a whole; getQuotasOutput is not", async () => {
    const join = sdk.getMk8sJoinScriptOutput({ name: pulumi.output("edge"), options: { nodePoolName: "general" } });
    expect(await pulumi.isSecret(join)).toBe(true);
    const value = await valueOf(join);
    expect(value.name).toBe("edge");
    expect(value.script).toContain("#!/bin/bash");
    expect(await pulumi.isSecret(join.apply((j) => j.script))).toBe(true);

    const quotas = sdk.getQuotasOutput({ org: pulumi.output("acme") });
    expect(await pulumi.isSecret(quotas)).toBe(false);
    expect((await valueOf(quotas)).org).toBe("acme");
  });

  it("every Output form resolves to the same result as its Promise form", async () => {
    const quotaId = (await sdk.getQuotas()).items[0]!.id;
    const awsQuery = { spec: { terms: [{ property: "provider", value: "aws" }], sort: { by: "name" } } };
    const pairs: [pulumi.Output<unknown>, Promise<unknown>][] = [
      [sdk.getQuotaOutput({ id: pulumi.output(quotaId) }), sdk.getQuota({ id: quotaId })],
      [sdk.getCloudAccountPermissionsOutput(), sdk.getCloudAccountPermissions()],
      [sdk.queryCloudAccountsOutput(awsQuery), sdk.queryCloudAccounts(awsQuery)],
      [sdk.getServiceAccountsOutput(), sdk.getServiceAccounts()],
      [sdk.getGroupsOutput(), sdk.getGroups()],
      [sdk.getPolicyOutput({ name: pulumi.output("viewers-policy") }), sdk.getPolicy({ name: "viewers-policy" })],
      [sdk.getLocationOutput({ name: "aws-us-east-2" }), sdk.getLocation({ name: "aws-us-east-2" })],
      [sdk.getGroupAccessReportOutput({ name: "ops" }), sdk.getGroupAccessReport({ name: "ops" })],
    ];
    for (const [output, promise] of pairs) {
      const [fromOutput, fromPromise] = await Promise.all([valueOf(output), promise]);
      // Access reports carry their computation time; everything else must be identical.
      if ((fromPromise as { kind?: string }).kind === "accessreport") {
        expect({ ...(fromOutput as object), created: "" }).toEqual({ ...(fromPromise as object), created: "" });
      } else {
        expect(fromOutput).toEqual(fromPromise);
      }
    }
  });

  it("an Output form with an invalid argument rejects with the argument error and sends nothing", async () => {
    const output = sdk.getPolicyOutput({ name: pulumi.output("") });
    await expect(settled(output)).rejects.toThrow(/getPolicy: invalid arguments: name: must not be empty/);
    expect(server.requests()).toEqual([]);
  });
});

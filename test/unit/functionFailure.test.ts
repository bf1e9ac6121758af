/**
 * A data-source function's failure, as a program shows it: one line naming the function, what failed and the setting
 * to check (`cpln:token`, `cpln:org`, the org argument, `CPLN_TOKEN`), thrown as a `pulumi.RunError` (which the Node
 * SDK prints without a stack), never the token. Against cpln-local in process.
 */
import * as pulumi from "@pulumi/pulumi";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { closePool } from "../../provider/client/http.js";
import { FunctionArgsError } from "../../provider/functions/errors.js";
import { describeFailure, settingSources } from "../../provider/functions/failure.js";
import { getQuotas } from "../../provider/functions/index.js";
import * as sdk from "../../sdk/functions.js";
import { startServer, type RunningServer } from "../../server/index.js";

const ADMIN_KEY = "failure-admin.0123456789abcdef0123456789abcdef";
const BAD_TOKEN = "not-a-key.fedcba9876543210fedcba9876543210";
let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ host: "127.0.0.1", port: 0, org: "demo", adminKey: ADMIN_KEY, recordRequests: true });
  process.env.CPLN_LOG_RETRIES = "0";
});

afterAll(async () => {
  await closePool(server.url);
  await server.close();
});

afterEach(() => {
  for (const key of ["cpln:org", "cpln:endpoint", "cpln:token"]) pulumi.runtime.setConfig(key, "");
  delete process.env.CPLN_TOKEN;
});

const stack = (values: Record<string, string>) => ({ get: (key: string) => values[key] });

async function failure(
  values: Record<string, string>,
  org?: string,
  env: Record<string, string> = {},
): Promise<string> {
  const config = stack({ "cpln:endpoint": server.url, ...values });
  const error = await getQuotas(org === undefined ? {} : { org }, { stackConfig: config }).catch((e: unknown) => e);
  return describeFailure("getQuotas", error, settingSources(org, config, env));
}

describe("describeFailure", () => {
  it("a refused token names where it came from (cpln:token or CPLN_TOKEN) and how to set it; never the token", async () => {
    const fromStack = await failure({ "cpln:org": "demo", "cpln:token": BAD_TOKEN });
    expect(fromStack).toMatch(
      /^getQuotas: GET \/org\/demo\/quota failed \(401 Unauthorized\): .* — the token from cpln:token was refused; set a valid one: pulumi config set --secret cpln:token <key>$/,
    );
    expect(fromStack).not.toContain(BAD_TOKEN);
    const config = stack({ "cpln:endpoint": server.url, "cpln:org": "demo" });
    process.env.CPLN_TOKEN = BAD_TOKEN;
    const error = await getQuotas({}, { stackConfig: config }).catch((e: unknown) => e);
    expect(describeFailure("getQuotas", error, settingSources(undefined, config, process.env))).toMatch(
      / — the token from CPLN_TOKEN was refused; /,
    );
  });

  it("an unknown org names where it came from: cpln:org, or the function's org argument", async () => {
    expect(await failure({ "cpln:org": "nope", "cpln:token": ADMIN_KEY })).toMatch(
      /^getQuotas: GET \/org\/nope\/quota failed \(404 NotFound\): org nope not found .* — check the org from cpln:org: pulumi config set cpln:org <org>$/,
    );
    expect(await failure({ "cpln:org": "demo", "cpln:token": ADMIN_KEY }, "other")).toMatch(
      / — check the org from the function's org argument: /,
    );
  });

  it("a missing setting and a dead endpoint stay one line, with nothing added", async () => {
    const missing = await failure({ "cpln:token": ADMIN_KEY });
    expect(missing).toBe(
      "getQuotas: No Control Plane org: pass `org`, set the stack config `cpln:org` (pulumi config set cpln:org <org>) or the environment variable CPLN_ORG",
    );
    const config = stack({ "cpln:endpoint": "http://127.0.0.1:1", "cpln:org": "demo", "cpln:token": ADMIN_KEY });
    const error = await getQuotas({}, { stackConfig: config }).catch((e: unknown) => e);
    const line = describeFailure("getQuotas", error, settingSources(undefined, config, {}));
    expect(line).toMatch(
      /^getQuotas: GET \/org\/demo\/quota failed \(NetworkError\): cannot reach http:\/\/127\.0\.0\.1:1 /,
    );
    expect(line).not.toContain("\n");
  });
});

describe("the SDK's functions (sdk/functions.ts)", () => {
  it("reject with a pulumi.RunError carrying that one line (printed without a stack)", async () => {
    pulumi.runtime.setConfig("cpln:endpoint", server.url);
    pulumi.runtime.setConfig("cpln:org", "demo");
    pulumi.runtime.setConfig("cpln:token", BAD_TOKEN);
    const error = await sdk.getQuotas({}).catch((e: unknown) => e);
    expect(pulumi.RunError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^getQuotas: .*401.* — the token from cpln:token was refused; /);
    expect((error as Error).message).not.toContain(BAD_TOKEN);
  });

  it("leave an argument error as the exported FunctionArgsError, before any request", async () => {
    const before = server.requests().length;
    const error = await sdk.getQuota({ id: "" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FunctionArgsError);
    expect((error as Error).message).toMatch(/^getQuota: invalid arguments: id: /);
    expect(server.requests().length).toBe(before);
  });
});

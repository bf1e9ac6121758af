// AuditContext and CloudAccount through Pulumi's real dynamic-provider host against cpln-local: create (one POST),
// no-op, update (one PATCH with only the change), read (one GET), delete (audit context: forgotten, no request; cloud account: one DELETE); the builtin audit context is
// refused in check; a cloud account's provider change replaces it. Needs `npm run build`.
import { describe, expect, it } from "vitest";
import type { AuditContextArgs, CloudAccountArgs } from "../../sdk/index.js";
import {
  harness,
  inputsOf,
  programInputs,
  ResourceStack,
  sdk,
  serverRecord,
  takeRequests,
  withEnv,
  type Env,
  type PropertyMap,
} from "./support.js";

const AUDIT = "pulumi-nodejs:dynamic/cpln:AuditContext";
const CLOUD = "pulumi-nodejs:dynamic/cpln:CloudAccount";

let env: Env;
let org = "";
withEnv((started) => {
  env = started;
  org = started.server.org;
});

function auditInputs(args: AuditContextArgs): Promise<PropertyMap> {
  return inputsOf(AUDIT, () => new sdk.AuditContext("audit", args));
}

function cloudInputs(args: CloudAccountArgs): Promise<PropertyMap> {
  return inputsOf(CLOUD, () => new sdk.CloudAccount("aws", args));
}

async function exists(link: string): Promise<boolean> {
  return (await serverRecord(env, link)) !== undefined;
}

describe("AuditContext lifecycle", () => {
  const stack = () => new ResourceStack(env, AUDIT, "audit");
  let audit: ResourceStack;
  let link = "";

  it("create: one POST with a generated name; the same args again: no request", async () => {
    audit = stack();
    const step = await audit.up(await auditInputs({ description: "CI events" }));
    const name = audit.outputs.name as string;
    expect(name).toMatch(/^audit-[0-9a-f]{7}$/);
    link = `/org/${org}/auditctx/${name}`;
    expect(step.requests).toEqual([
      { method: "POST", path: `/org/${org}/auditctx`, status: 201, body: { name, description: "CI events", tags: {} } },
    ]);
    expect(audit.outputs).toMatchObject({ origin: "default", selfLink: link, org, version: 1 });
    expect(await audit.up(await auditInputs({ description: "CI events" }))).toMatchObject({ op: "same", requests: [] });
  });

  it("update: one PATCH with the tag only; read: one GET", async () => {
    const step = await audit.up(await auditInputs({ description: "CI events", tags: { team: "ci" } }));
    expect(step.requests).toEqual([{ method: "PATCH", path: link, status: 200, body: { tags: { team: "ci" } } }]);
    const refreshed = await audit.refresh();
    expect(refreshed.requests).toEqual([{ method: "GET", path: link, status: 200, body: undefined }]);
    expect(audit.outputs).toMatchObject({ tags: { team: "ci" }, version: 2 });
  });

  it("delete: no request; the context is forgotten and stays in the org (audit contexts cannot be deleted)", async () => {
    expect(await audit.destroy()).toEqual([]);
    expect(await exists(link)).toBe(true);
  });

  it("the builtin context is refused in check, before any request; .get reads it", async () => {
    takeRequests(env.server);
    const result = await env.host.check(harness.urnFor(AUDIT, "builtin"), {}, await auditInputs({ name: "cpln" }));
    expect(result.failures).toEqual([
      {
        property: "name",
        reason:
          '"cpln" is the org\'s builtin audit context: it can be neither changed nor deleted, so it cannot be a ' +
          'resource; read it with AuditContext.get("cpln", "/org/<org>/auditctx/cpln")',
      },
    ]);
    expect(takeRequests(env.server)).toEqual([]);
    const builtin = `/org/${org}/auditctx/cpln`;
    const { inputs } = await programInputs(() => sdk.AuditContext.get("cpln", builtin));
    const read = await env.host.read(builtin, harness.urnFor(AUDIT, "cpln"), inputs, {});
    expect(takeRequests(env.server)).toEqual([{ method: "GET", path: builtin, status: 200, body: undefined }]);
    expect(read.props).toMatchObject({ name: "cpln", origin: "builtin" });
  });
});

describe("CloudAccount lifecycle", () => {
  let cloud: ResourceStack;
  let link = "";
  const base: CloudAccountArgs = { name: "aws-prod", provider: "aws", data: { roleArn: "arn:aws:iam::1:role/cpln" } };

  it("create: one POST; the same args again: no request", async () => {
    cloud = new ResourceStack(env, CLOUD, "aws");
    const step = await cloud.up(await cloudInputs(base));
    link = `/org/${org}/cloudaccount/aws-prod`;
    expect(step.requests).toEqual([
      {
        method: "POST",
        path: `/org/${org}/cloudaccount`,
        status: 201,
        body: {
          name: "aws-prod",
          description: "aws-prod",
          tags: {},
          provider: "aws",
          data: { roleArn: "arn:aws:iam::1:role/cpln" },
        },
      },
    ]);
    expect(cloud.id).toBe(link);
    expect(cloud.outputs).toMatchObject({ provider: "aws", data: { roleArn: "arn:aws:iam::1:role/cpln" }, version: 1 });
    expect(await cloud.up(await cloudInputs(base))).toMatchObject({ op: "same", requests: [] });
  });

  it("update of data: one PATCH with only the changed key", async () => {
    const step = await cloud.up(await cloudInputs({ ...base, data: { roleArn: "arn:aws:iam::1:role/cpln-2" } }));
    expect(step.requests).toEqual([
      { method: "PATCH", path: link, status: 200, body: { data: { roleArn: "arn:aws:iam::1:role/cpln-2" } } },
    ]);
  });

  it("a provider change replaces it: the name is the user's, so the old one is deleted first", async () => {
    const step = await cloud.up(await cloudInputs({ ...base, provider: "gcp", data: { projectId: "analytics" } }));
    expect(step.diff).toEqual({ changes: true, replaces: ["provider"], deleteBeforeReplace: true });
    expect(step.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `DELETE ${link} 202`,
      `POST /org/${org}/cloudaccount 201`,
    ]);
    expect(cloud.outputs).toMatchObject({ provider: "gcp", data: { projectId: "analytics" } });
  });

  it("delete: one DELETE", async () => {
    expect(await cloud.destroy()).toEqual([{ method: "DELETE", path: link, status: 202, body: undefined }]);
    expect(await exists(link)).toBe(false);
  });
});

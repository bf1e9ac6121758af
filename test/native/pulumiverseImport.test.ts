// Taking over what a @pulumiverse/cpln stack made. Objects are created through the API in the shapes
// terraform-provider-cpln v1.2.31 sends (internal/provider/client/*.go: full links, its `cpln/managedByTerraform` and
// `cpln/terraformProviderVersion` tags from client.go ForceCreatedByTerraformTag, `bindings` always present), then
// imported through the native plugin by the ids pulumiverse users know (tools/migration/terraform.json) exactly as
// `pulumi import` does it: Read with only the id, Check of the read inputs, Diff. Then the program a user translates
// from pulumiverse (short links, `gvc` with target names) diffs clean against the imported state. Only GETs reach the
// server and every object keeps its version. Needs `npm run build`.
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TerraformFacts } from "../../tools/migration/guide.js";
import { resourceMap } from "../../tools/migration/mapping.js";
import {
  executable,
  nativeClient,
  repoRoot,
  scratchDir,
  serverModule,
  takeRequests,
  urnFor,
  type NativePluginClient,
  type Props,
  type RunningServer,
} from "./support.js";

const terraform = JSON.parse(
  fs.readFileSync(path.join(repoRoot, "tools", "migration", "terraform.json"), "utf8"),
) as TerraformFacts;
const token = (name: string) => `cpln-native:index:${name}`;
const TF_TAGS = { "cpln/managedByTerraform": "true", "cpln/terraformProviderVersion": "1.2.31" };
const DOMAIN = "shop.example.com";

let server: RunningServer;
let plugin: NativePluginClient;
let org = "";
let keyName = "";

async function post(collection: string, body: Props): Promise<Props> {
  const response = await fetch(`${server.url}${collection}`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.adminKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 201 && response.status !== 200)
    throw new Error(`POST ${collection}: ${response.status} ${text}`);
  return (text === "" ? {} : JSON.parse(text)) as Props;
}

async function get(link: string): Promise<Props> {
  const response = await fetch(`${server.url}${link}`, { headers: { authorization: `Bearer ${server.adminKey}` } });
  expect(response.status, link).toBe(200);
  return (await response.json()) as Props;
}

/**
 * Each imported object: the type here, the Terraform import id, its self link (the resource id), and the one GET the
 * import makes when it is not of that link (a secret's data is read from -reveal, as the Terraform provider reads it).
 */
function objects(): { pulumiverse: string; type: string; id: string; link: string; get?: string }[] {
  const o = `/org/${org}`;
  return [
    { pulumiverse: "AuditContext", type: "AuditContext", id: "audit", link: `${o}/auditctx/audit` },
    { pulumiverse: "CloudAccount", type: "CloudAccount", id: "aws-prod", link: `${o}/cloudaccount/aws-prod` },
    { pulumiverse: "Domain", type: "Domain", id: DOMAIN, link: `${o}/domain/${DOMAIN}` },
    {
      pulumiverse: "DomainRoute",
      type: "DomainRoute",
      id: `${DOMAIN}:443:/`,
      link: `${o}/domain/${DOMAIN}#443#/`,
    },
    { pulumiverse: "Group", type: "Group", id: "ops", link: `${o}/group/ops` },
    { pulumiverse: "Gvc", type: "Gvc", id: "app", link: `${o}/gvc/app` },
    { pulumiverse: "Identity", type: "Identity", id: "app:web-id", link: `${o}/gvc/app/identity/web-id` },
    { pulumiverse: "Location", type: "Location", id: "aws-us-east-1", link: `${o}/location/aws-us-east-1` },
    { pulumiverse: "Org", type: "Org", id: org, link: o },
    { pulumiverse: "Policy", type: "Policy", id: "volumes", link: `${o}/policy/volumes` },
    { pulumiverse: "Secret", type: "Secret", id: "db", link: `${o}/secret/db`, get: `${o}/secret/db/-reveal` },
    { pulumiverse: "ServiceAccount", type: "ServiceAccount", id: "ci", link: `${o}/serviceaccount/ci` },
    {
      pulumiverse: "ServiceAccountKey",
      type: "ServiceAccountKey",
      id: `ci:${keyName}`,
      link: `${o}/serviceaccount/ci#${keyName}`,
    },
    { pulumiverse: "VolumeSet", type: "VolumeSet", id: "default:data", link: `${o}/gvc/default/volumeset/data` },
    { pulumiverse: "Workload", type: "Workload", id: "app:web", link: `${o}/gvc/app/workload/web` },
  ];
}

beforeAll(async () => {
  server = await serverModule.startServer({ recordRequests: true });
  org = server.org;
  const o = `/org/${org}`;
  await post(`${o}/serviceaccount`, { name: "ci", description: "CI", tags: { ...TF_TAGS, team: "ci" } });
  const key = await post(`${o}/serviceaccount/ci/-addKey`, { description: "ci key" });
  keyName = String(key.name);
  await post(`${o}/group`, {
    name: "ops",
    description: "Operators",
    tags: TF_TAGS,
    memberLinks: [`${o}/serviceaccount/ci`, `${o}/user/me@example.com`],
    identityMatcher: { expression: "groups", language: "jmespath" },
  });
  await post(`${o}/gvc/default/volumeset`, {
    name: "data",
    description: "data",
    tags: TF_TAGS,
    spec: {
      initialCapacity: 10,
      performanceClass: "general-purpose-ssd",
      fileSystemType: "ext4",
      snapshots: { createFinalSnapshot: true, retentionDuration: "7d" },
      autoscaling: { maxCapacity: 100, minFreePercentage: 10, scalingFactor: 1.5 },
    },
  });
  await post(`${o}/policy`, {
    name: "volumes",
    description: "volumes",
    tags: TF_TAGS,
    targetKind: "volumeset",
    targetLinks: [`${o}/gvc/default/volumeset/data`],
    bindings: [{ permissions: ["view"], principalLinks: [`${o}/group/ops`, `${o}/serviceaccount/ci`] }],
  });
  await post(`${o}/cloudaccount`, {
    name: "aws-prod",
    description: "aws-prod",
    tags: TF_TAGS,
    provider: "aws",
    data: { roleArn: "arn:aws:iam::123456789012:role/cpln-aws-prod" },
  });
  await post(`${o}/auditctx`, { name: "audit", description: "audit", tags: TF_TAGS });
  // The app kinds, in the shapes terraform-provider-cpln v1.2.31 sends (full links: resource_gvc.go
  // buildStaticPlacement, resource_secret.go buildType/buildData).
  await post(`${o}/gvc`, {
    name: "app",
    description: "app",
    tags: TF_TAGS,
    spec: { staticPlacement: { locationLinks: [`${o}/location/aws-us-east-1`] } },
  });
  await post(`${o}/gvc/app/workload`, {
    name: "web",
    description: "web",
    tags: TF_TAGS,
    spec: {
      type: "standard",
      containers: [{ name: "main", image: "nginx:1.27", ports: [{ number: 8080, protocol: "http" }] }],
    },
  });
  await post(`${o}/gvc/app/identity`, { name: "web-id", description: "web-id", tags: TF_TAGS });
  await post(`${o}/secret`, {
    name: "db",
    description: "db",
    tags: TF_TAGS,
    type: "dictionary",
    data: { user: "app" },
  });
  await post(`${o}/domain`, {
    name: DOMAIN,
    description: DOMAIN,
    tags: TF_TAGS,
    spec: {
      dnsMode: "cname",
      ports: [
        {
          number: 443,
          protocol: "http2",
          routes: [
            { prefix: "/", workloadLink: `${o}/gvc/app/workload/web` },
            { regex: "^/v[0-9]+/", workloadLink: `${o}/gvc/app/workload/web`, port: 8080 },
          ],
        },
      ],
    },
  });
  plugin = await nativeClient.NativePluginClient.executable(executable, { cwd: scratchDir() });
  await plugin.configure({ org, endpoint: server.url, token: server.adminKey });
  takeRequests(server);
});

afterAll(async () => {
  await plugin?.stop();
  await server?.close();
});

describe("pulumi import of objects a pulumiverse stack made, by their Terraform ids", () => {
  it("the ids cover every covered pulumiverse resource with an import form and follow those forms", () => {
    const covered = Object.keys(terraform.importIds).filter((name) => name !== "CustomLocation");
    expect(objects().map((o) => o.pulumiverse)).toEqual(covered);
    for (const o of objects()) {
      expect(resourceMap[o.pulumiverse]?.to, o.pulumiverse).toBe(o.type);
      const form = terraform.importIds[o.pulumiverse]?.form ?? "";
      expect(o.id.split(":").length, `${o.pulumiverse} ${form}`).toBe(form.split(":").length);
    }
  });

  it("each: one GET, Check passes, Diff is empty; no write; every object keeps its version", async () => {
    const before = new Map<string, unknown>();
    for (const o of objects()) before.set(o.link, (await get(o.link.split("#")[0] as string)).version);
    takeRequests(server);
    for (const o of objects()) {
      const urn = urnFor(token(o.type), o.id.replace(/[:]/g, "-"));
      const read = await plugin.read(o.id, urn);
      expect(read.id, o.id).toBe(o.link);
      expect(takeRequests(server), o.id).toEqual([
        { method: "GET", path: o.get ?? o.link.split("#")[0], status: 200, body: undefined },
      ]);
      const checked = await plugin.check(urn, {}, read.inputs);
      expect(checked.failures, o.id).toEqual([]);
      const diff = await plugin.diff(read.id, urn, read.props, checked.inputs, read.inputs);
      expect(diff, o.id).toMatchObject({ changes: "none", detailedDiff: {} });
      expect(takeRequests(server), o.id).toEqual([]);
    }
    for (const o of objects()) expect((await get(o.link.split("#")[0] as string)).version).toBe(before.get(o.link));
  });

  it("a key id without the key name is refused, naming the form, before any request", async () => {
    takeRequests(server);
    await expect(plugin.read("ci", urnFor(token("ServiceAccountKey"), "k"))).rejects.toThrow(
      'ServiceAccountKey: "ci" is not an id of this resource: use its id or "<service account>:<key name>"',
    );
    expect(takeRequests(server)).toEqual([]);
  });

  it("a domain route by its regex, with the domain's link: the id is the route's own key, one GET", async () => {
    const o = `/org/${org}`;
    takeRequests(server);
    const read = await plugin.read(`${o}/domain/${DOMAIN}:443:^/v[0-9]+/`, urnFor(token("DomainRoute"), "v"));
    expect(read.id).toBe(`${o}/domain/${DOMAIN}#443#regex:^/v[0-9]+/`);
    expect(read.props).toMatchObject({ domain: DOMAIN, regex: "^/v[0-9]+/", port: 8080, routeKey: "regex:^/v[0-9]+/" });
    expect(takeRequests(server)).toEqual([
      { method: "GET", path: `${o}/domain/${DOMAIN}`, status: 200, body: undefined },
    ]);
  });

  it("a workload by GVC_NAME:WORKLOAD_NAME reads that gvc's workload, its gvc and containers in the inputs", async () => {
    const read = await plugin.read("app:web", urnFor(token("Workload"), "web"));
    expect(read.id).toBe(`/org/${org}/gvc/app/workload/web`);
    expect(read.inputs).toMatchObject({ name: "web", gvc: "app", type: "standard" });
    expect(read.inputs.containers).toEqual([
      expect.objectContaining({ name: "main", image: "nginx:1.27", ports: [{ number: 8080, protocol: "http" }] }),
    ]);
  });

  it("the Terraform tags stay on the objects as server tags, not as drift", async () => {
    const read = await plugin.read("ops", urnFor(token("Group"), "ops"));
    expect(read.props.serverTags).toEqual(TF_TAGS);
    expect(read.inputs.tags ?? {}).toEqual({});
    expect(read.props.identityMatcher).toEqual({ expression: "groups", language: "jmespath" });
  });
});

describe("the program translated from pulumiverse diffs clean against the imported state", () => {
  /** The pulumiverse program's args, rewritten as docs/migrating-from-pulumiverse.md says. */
  const programs: Record<string, (o: string) => Props> = {
    Policy: () => ({
      name: "volumes",
      description: "volumes",
      targetKind: "volumeset",
      gvc: "default",
      targetLinks: ["data"],
      bindings: [{ permissions: ["view"], principalLinks: ["group/ops", "serviceaccount/ci"] }],
    }),
    Group: () => ({
      name: "ops",
      description: "Operators",
      memberLinks: ["serviceaccount/ci", "user/me@example.com"],
      identityMatcher: { expression: "groups", language: "jmespath" },
    }),
    CloudAccount: () => ({
      name: "aws-prod",
      provider: "aws",
      data: { roleArn: "arn:aws:iam::123456789012:role/cpln-aws-prod" },
    }),
    VolumeSet: () => ({
      name: "data",
      gvc: "default",
      initialCapacity: 10,
      performanceClass: "general-purpose-ssd",
      fileSystemType: "ext4",
      snapshots: { createFinalSnapshot: true, retentionDuration: "7d" },
      autoscaling: { maxCapacity: 100, minFreePercentage: 10, scalingFactor: 1.5 },
    }),
    // pulumiverse: locations ["aws-us-east-1"] → staticPlacement.locationLinks.
    Gvc: (o) => ({
      name: "app",
      description: "app",
      staticPlacement: { locationLinks: [`${o}/location/aws-us-east-1`] },
    }),
    // pulumiverse: gvc + containers, type standard; no other change.
    Workload: () => ({
      name: "web",
      gvc: "app",
      description: "web",
      type: "standard",
      containers: [{ name: "main", image: "nginx:1.27", ports: [{ number: 8080, protocol: "http" }] }],
    }),
    // pulumiverse: dictionary { user: "app" } → type "dictionary" + data.
    Secret: () => ({ name: "db", description: "db", type: "dictionary", data: { user: "app" } }),
    // pulumiverse: domainLink → domain (the name).
    DomainRoute: (o) => ({ domain: DOMAIN, prefix: "/", workloadLink: `${o}/gvc/app/workload/web` }),
  };

  it.each(Object.keys(programs))(
    "%s: Check of the program against the imported inputs, then Diff: none",
    async (type) => {
      const o = objects().find((x) => x.type === type);
      if (o === undefined) throw new Error(`no object of type ${type}`);
      const urn = urnFor(token(type), o.id.replace(/[:]/g, "-"));
      const read = await plugin.read(o.id, urn);
      takeRequests(server);
      const checked = await plugin.check(urn, read.inputs, programs[type]!(`/org/${org}`));
      expect(checked.failures).toEqual([]);
      const diff = await plugin.diff(read.id, urn, read.props, checked.inputs, read.inputs);
      expect(diff).toMatchObject({ changes: "none", detailedDiff: {} });
      expect(takeRequests(server)).toEqual([]);
    },
  );
});

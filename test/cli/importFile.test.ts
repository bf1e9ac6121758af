// `cpln-pulumi import-file` (dist/tools/cpln-pulumi.js, spawned as a user runs it) against cpln-local on 127.0.0.1 with
// a seeded org: the exact `pulumi import --file` document, built-ins left out or included and marked, ids that the
// native plugin's Read accepts, and the token taken only from CPLN_TOKEN or a file and shown nowhere. Needs
// `npm run build`.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  executable,
  nativeClient,
  scratchDir,
  serverModule,
  takeRequests,
  urnFor,
  type RunningServer,
} from "../native/support.js";

const COMMAND = path.join(__dirname, "..", "..", "dist", "tools", "cpln-pulumi.js");
const ORG = "acme";
const ADMIN_KEY = "importadmin.secret-admin-key-for-import-file-tests";

let server: RunningServer;
let keyName = "";
let dir = "";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string> = { CPLN_TOKEN: ADMIN_KEY }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [COMMAND, ...args],
      { env: { PATH: process.env.PATH ?? "", ...env }, timeout: 600_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

beforeAll(async () => {
  server = await serverModule.startServer({
    org: ORG,
    adminKey: ADMIN_KEY,
    recordRequests: true,
    seed: {
      records: [
        { kind: "gvc", name: "other" },
        {
          kind: "volumeset",
          gvc: "default",
          name: "data",
          spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" },
        },
        {
          kind: "volumeset",
          gvc: "default",
          name: "logs",
          spec: { initialCapacity: 20, performanceClass: "general-purpose-ssd" },
        },
        {
          kind: "volumeset",
          gvc: "other",
          name: "data",
          spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" },
        },
        { kind: "serviceaccount", name: "ci" },
        { kind: "group", name: "ops", memberLinks: ["//serviceaccount/ci"] },
        {
          kind: "policy",
          name: "volumes",
          targetKind: "volumeset",
          target: "all",
          bindings: [{ permissions: ["view"], principalLinks: ["//group/ops"] }],
        },
        {
          kind: "cloudaccount",
          name: "aws-prod",
          provider: "aws",
          data: { roleArn: "arn:aws:iam::123456789012:role/x" },
        },
        { kind: "auditctx", name: "audit" },
        // The app kinds (the declared resources' sources: tools/importFile/document.ts).
        {
          kind: "workload",
          gvc: "default",
          name: "web",
          spec: { type: "standard", containers: [{ name: "main", image: "nginx:1.27", ports: [{ number: 80 }] }] },
        },
        { kind: "identity", gvc: "other", name: "web-id" },
        { kind: "secret", name: "db", type: "opaque", data: { payload: "s3cret", encoding: "plain" } },
        { kind: "domain", name: "shop.example.com", spec: { dnsMode: "cname" } },
      ],
    },
  });
  const response = await fetch(`${server.url}/org/${ORG}/serviceaccount/ci/-addKey`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ description: "ci key" }),
  });
  keyName = ((await response.json()) as { name: string }).name;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-import-file-"));
  takeRequests(server);
});

afterAll(async () => {
  await server?.close();
  if (dir !== "") fs.rmSync(dir, { recursive: true, force: true });
});

const T = (type: string) => `cpln-native:index:${type}`;

function userObjects() {
  const o = `/org/${ORG}`;
  return [
    { type: T("AuditContext"), name: "auditcontext_audit", id: `${o}/auditctx/audit`, logicalName: "audit" },
    {
      type: T("CloudAccount"),
      name: "cloudaccount_aws_prod",
      id: `${o}/cloudaccount/aws-prod`,
      logicalName: "aws-prod",
    },
    {
      type: T("Domain"),
      name: "domain_shop_example_com",
      id: `${o}/domain/shop.example.com`,
      logicalName: "shop.example.com",
    },
    { type: T("Group"), name: "group_ops", id: `${o}/group/ops`, logicalName: "ops" },
    { type: T("Gvc"), name: "gvc_default", id: `${o}/gvc/default`, logicalName: "default" },
    { type: T("Gvc"), name: "gvc_other", id: `${o}/gvc/other`, logicalName: "other" },
    {
      type: T("Identity"),
      name: "identity_other_web_id",
      id: `${o}/gvc/other/identity/web-id`,
      logicalName: "other/web-id",
    },
    { type: T("Policy"), name: "policy_volumes", id: `${o}/policy/volumes`, logicalName: "volumes" },
    { type: T("Secret"), name: "secret_db", id: `${o}/secret/db`, logicalName: "db" },
    { type: T("ServiceAccount"), name: "serviceaccount_ci", id: `${o}/serviceaccount/ci`, logicalName: "ci" },
    {
      type: T("ServiceAccountKey"),
      name: `serviceaccountkey_ci_${keyName.replace(/[^A-Za-z0-9]+/g, "_")}`,
      id: `${o}/serviceaccount/ci#${keyName}`,
      logicalName: `ci/${keyName}`,
    },
    {
      type: T("VolumeSet"),
      name: "volumeset_default_data",
      id: `${o}/gvc/default/volumeset/data`,
      logicalName: "default/data",
    },
    {
      type: T("VolumeSet"),
      name: "volumeset_default_logs",
      id: `${o}/gvc/default/volumeset/logs`,
      logicalName: "default/logs",
    },
    {
      type: T("VolumeSet"),
      name: "volumeset_other_data",
      id: `${o}/gvc/other/volumeset/data`,
      logicalName: "other/data",
    },
    {
      type: T("Workload"),
      name: "workload_default_web",
      id: `${o}/gvc/default/workload/web`,
      logicalName: "default/web",
    },
  ];
}

describe("cpln-pulumi import-file", () => {
  it("writes exactly the org's own objects of the managed kinds; built-ins left out and counted; only GETs", async () => {
    const result = await run(["import-file", "--org", ORG, "--endpoint", server.url]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ resources: userObjects() });
    expect(result.stderr).toMatch(
      new RegExp(
        `^${userObjects().length} resources of org ${ORG}; \\d+ built-in objects left out \\(--include-builtins\\)\\. Next: pulumi import --file <file>\\n$`,
      ),
    );
    const methods = new Set(takeRequests(server).map((r) => r.method));
    expect([...methods]).toEqual(["GET"]);
  });

  it("--include-builtins adds every built-in object, named builtin_..., and the count matches what was left out", async () => {
    const plain = await run(["import-file", "--org", ORG, "--endpoint", server.url]);
    const leftOut = Number(/; (\d+) built-in objects left out/.exec(plain.stderr)?.[1]);
    const out = path.join(dir, "all.json");
    const result = await run([
      "import-file",
      "--org",
      ORG,
      "--endpoint",
      server.url,
      "--include-builtins",
      "--out",
      out,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("");
    const { resources } = JSON.parse(fs.readFileSync(out, "utf8")) as { resources: { name: string; id: string }[] };
    const builtins = resources.filter((r) => r.name.startsWith("builtin_"));
    expect(resources.filter((r) => !r.name.startsWith("builtin_"))).toEqual(userObjects());
    expect(builtins.length).toBe(leftOut);
    // Each built-in object the API lists (origin builtin) is there: policies, groups, the controlplane account,
    // the cpln audit context, the built-in locations.
    for (const kind of ["policy", "group", "serviceaccount", "auditctx", "location"]) {
      const listed = (await (
        await fetch(`${server.url}/org/${ORG}/${kind}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })
      ).json()) as { items: { name: string; origin?: string }[] };
      const expected = listed.items.filter((i) => i.origin === "builtin").map((i) => `/org/${ORG}/${kind}/${i.name}`);
      expect(expected.length, kind).toBeGreaterThan(0);
      expect(
        builtins.map((b) => b.id).filter((id) => id.startsWith(`/org/${ORG}/${kind}/`) && !id.includes("#")),
        kind,
      ).toEqual(expected.sort());
    }
    // The keys of the built-in service account (here the admin key cpln-local was started with) are built-in too.
    expect(builtins.filter((b) => b.id.includes("#"))).toEqual([
      {
        type: T("ServiceAccountKey"),
        name: "builtin_serviceaccountkey_controlplane_importadmin",
        id: `/org/${ORG}/serviceaccount/controlplane#importadmin`,
        logicalName: "controlplane/importadmin",
      },
    ]);
    expect(new Set(resources.map((r) => r.name)).size).toBe(resources.length);
    expect(result.stderr).toBe(`${resources.length} resources of org ${ORG}. Next: pulumi import --file ${out}\n`);
  });

  it("every id is one the native plugin's Read accepts: one GET each (a secret's -reveal), the same id back", async () => {
    const plugin = await nativeClient.NativePluginClient.executable(executable, { cwd: scratchDir() });
    try {
      await plugin.configure({ org: ORG, endpoint: server.url, token: ADMIN_KEY });
      takeRequests(server);
      for (const spec of userObjects()) {
        const read = await plugin.read(spec.id, urnFor(spec.type, spec.logicalName));
        expect(read.id, spec.id).toBe(spec.id);
        expect(takeRequests(server), spec.id).toEqual([
          {
            method: "GET",
            path: `${spec.id.split("#")[0]}${spec.type === T("Secret") ? "/-reveal" : ""}`,
            status: 200,
            body: undefined,
          },
        ]);
      }
    } finally {
      await plugin.stop();
    }
  });

  it("the token comes from --token-file as well; it is in no output", async () => {
    const file = path.join(dir, "token");
    fs.writeFileSync(file, `${ADMIN_KEY}\n`);
    const result = await run(["import-file", "--org", ORG, "--endpoint", server.url, "--token-file", file], {});
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ resources: userObjects() });
    expect(result.stdout + result.stderr).not.toContain(ADMIN_KEY);
  });

  it("--help, -h and help print the commands and options on stdout with exit 0, before any request", async () => {
    takeRequests(server);
    for (const args of [["--help"], ["-h"], ["help"], ["import-file", "--help"]]) {
      const result = await run(args, {});
      expect(result.code, args.join(" ")).toBe(0);
      expect(result.stderr, args.join(" ")).toBe("");
      expect(result.stdout, args.join(" ")).toMatch(
        /^cpln-pulumi: commands for bringing an existing Control Plane org/,
      );
      for (const option of [
        "import-file",
        "--org <org>",
        "--endpoint <url>",
        "--include-builtins",
        "--token-file",
        "--out",
      ]) {
        expect(result.stdout, option).toContain(option);
      }
    }
    expect(server.requests()).toEqual([]);
  });

  it("refuses --token, a missing token, a missing org and a bad endpoint with exit 2, before any request", async () => {
    takeRequests(server);
    const cases: [string[], Record<string, string>, string][] = [
      [
        ["import-file", "--org", ORG, "--token", ADMIN_KEY],
        {},
        "--token is not accepted: pass the token in CPLN_TOKEN or a file (--token-file)",
      ],
      [["import-file", "--org", ORG, `--token=${ADMIN_KEY}`], {}, "--token is not accepted"],
      [
        ["import-file", "--org", ORG, "--endpoint", server.url],
        {},
        "no token: set CPLN_TOKEN or pass --token-file <file>",
      ],
      [["import-file", "--endpoint", server.url], { CPLN_TOKEN: ADMIN_KEY }, "--org is required (or set CPLN_ORG)"],
      [
        ["import-file", "--org", ORG, "--endpoint", "ftp://x"],
        { CPLN_TOKEN: ADMIN_KEY },
        '--endpoint must be an http(s) URL, got "ftp://x"',
      ],
      [["import-file", "--org", ORG, "--token-file", path.join(dir, "absent")], {}, "--token-file: cannot read"],
      [["export"], { CPLN_TOKEN: ADMIN_KEY }, 'unknown command "export"'],
    ];
    for (const [args, env, message] of cases) {
      const result = await run(args, env);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr, args.join(" ")).toContain(`cpln-pulumi: ${message}`);
      expect(result.stdout + result.stderr).not.toContain(ADMIN_KEY);
    }
    expect(server.requests()).toEqual([]);
  });

  it("a wrong token: exit 1 with the API's 401, the token shown nowhere", async () => {
    const wrong = "wrongkey.not-a-valid-key-for-this-org";
    const result = await run(["import-file", "--org", ORG, "--endpoint", server.url], { CPLN_TOKEN: wrong });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^cpln-pulumi: .*401/);
    expect(result.stderr).not.toContain(wrong);
  });
});

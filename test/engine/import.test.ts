/**
 * `pulumi import` by the REAL CLI through the cpln-native plugin (installed from its release archive): objects of
 * every resource type, created through the API, imported one at a time and several at once (`--file`), by the id
 * forms the plugin documents (self link, `<gvc>:<name>`, `<name>`, and `<self link>#<key>` for keys and bindings);
 * then an up of a program declaring them (test/engine/fixtures/imported) changes nothing. First, TypeScript code
 * generation in the fixture's TypeScript project, through the Node.js language host `npm run engine` builds.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import {
  ADMIN_KEY,
  api,
  EngineDriver,
  engineSuite,
  isMutating,
  ORG,
  repoRoot,
  requestLog,
  stackConfig,
  nativeStackProject,
  type EngineSuite,
  type StackProject,
} from "./harness.js";
import { skipWithoutEngine } from "./support.js";

const fixture = path.join(__dirname, "fixtures", "imported");
const token = (type: string) => `cpln-native:index:${type}`;
const STACK = "imp";

let suite: EngineSuite;
let project: StackProject;
let keyName: string;

const pulumi = (args: string[]) => project.pulumi(args);

interface StateResource {
  urn: string;
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

async function stateResources(): Promise<StateResource[]> {
  const exported = JSON.parse((await pulumi(["stack", "export"])).stdout) as {
    deployment: { resources?: StateResource[] };
  };
  return (exported.deployment.resources ?? []).filter((r) => r.type.startsWith("cpln-native:index:"));
}

describe.skipIf(skipWithoutEngine)("pulumi import through the native plugin (real CLI)", () => {
  suite = engineSuite("import", true, async () => {
    // Objects made outside Pulumi, one of every resource type.
    const post = (p: string, body: unknown) => api(suite.server, "POST", `/org/${ORG}${p}`, body);
    await post("/gvc/default/volumeset", {
      name: "imp-data",
      description: "imported volume set",
      spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd", fileSystemType: "ext4" },
    });
    await post("/policy", {
      name: "imp-policy",
      description: "imported policy",
      targetKind: "volumeset",
      targetLinks: ["//gvc/default/volumeset/imp-data"],
      bindings: [{ permissions: ["view"], principalLinks: ["//group/data-readers"] }],
    });
    await post("/group", {
      name: "imp-group",
      description: "imported group",
      memberLinks: ["//serviceaccount/ci-bot"],
    });
    await post("/serviceaccount", { name: "imp-sa", description: "imported service account" });
    const added = (await api(suite.server, "POST", `/org/${ORG}/serviceaccount/imp-sa/-addKey`, {
      description: "imported key",
    })) as { key: string };
    keyName = added.key.split(".")[0]!;
    await post("/auditctx", { name: "imp-audit", description: "imported audit context" });
    await post("/cloudaccount", {
      name: "imp-cloud",
      description: "imported cloud account",
      provider: "aws",
      data: { roleArn: "arn:aws:iam::333333333333:role/cpln" },
    });
    await post("/policy", {
      name: "imp-shared",
      description: "imp-shared",
      targetKind: "volumeset",
      target: "all",
      bindings: [{ permissions: ["edit"], principalLinks: ["//group/imp-group"] }],
    });
    // The fixture's project (runtime: nodejs) first: TypeScript code generation through the Node.js language host.
    const pulumiYaml = fs.readFileSync(path.join(fixture, "Pulumi.yaml"), "utf8");
    project = await nativeStackProject(suite, "imported", STACK, pulumiYaml);
    fs.copyFileSync(
      path.join(repoRoot, "test", "fixtures", "pulumi-template", "nodenext", "package.json"),
      path.join(project.dir, "package.json"),
    );
  });

  it("in the TypeScript project, pulumi import prints the TypeScript that declares the object (Node.js host)", async () => {
    const result = await pulumi([
      "import",
      token("VolumeSet"),
      "data",
      "default:imp-data",
      "--yes",
      "--non-interactive",
    ]);
    const output = `${result.stdout}${result.stderr}`;
    expect(output).toMatch(/^import \* as \w+ from "@cpln-pulumi\/cpln-native";$/m);
    expect(output).toMatch(/^const data = new \w+\.VolumeSet\("data", \{$/m);
    expect(output).toContain('name: "imp-data"');
    expect(output).toContain("protect: true");
    expect((await stateResources()).map((r) => r.type)).toEqual([token("VolumeSet")]);
    // Out of the state again (it was imported protected): the imports below start from an empty stack, with the YAML
    // language host, whose generated code they check; the TypeScript program then runs inline against the same stack.
    await pulumi(["state", "delete", `urn:pulumi:${STACK}::imported::${token("VolumeSet")}::data`, "--force", "--yes"]);
    expect(await stateResources()).toEqual([]);
    fs.writeFileSync(path.join(project.dir, "Pulumi.yaml"), "name: imported\nruntime: yaml\n");
  });

  it("imports one object at a time, by self link, <gvc>:<name> and <name>; no request writes; YAML code", async () => {
    const newRequests = requestLog(suite.server);
    // With code generation (the YAML language host's): the code that declares the object.
    const generated = await pulumi([
      "import",
      token("VolumeSet"),
      "data",
      "default:imp-data",
      "--yes",
      "--non-interactive",
    ]);
    // Imported resources are protected; the code says so (YAML writes the `index` module's token short).
    expect(generated.stdout).toContain(
      [
        "resources:",
        "  data:",
        "    type: cpln-native:VolumeSet",
        "    properties:",
        "      description: imported volume set",
        "      fileSystemType: ext4",
        "      gvc: default",
        "      initialCapacity: 10",
        "      name: imp-data",
        "      org: test",
        "      performanceClass: general-purpose-ssd",
        "      tags: {}",
        "    options:",
        "      protect: true",
      ].join("\n"),
    );
    const one = [
      [token("Policy"), "access", "imp-policy"],
      [token("Location"), "frankfurt", "aws-eu-central-1"],
      [token("Group"), "team", `/org/${ORG}/group/imp-group`],
    ];
    for (const args of one) await pulumi(["import", ...args, "--yes", "--generate-code=false", "--non-interactive"]);
    expect(
      (await stateResources()).map((r) => [r.type, r.urn.slice(r.urn.lastIndexOf("::") + 2), r.id]).sort(),
    ).toEqual(
      [
        [token("Group"), "team", `/org/${ORG}/group/imp-group`],
        [token("Location"), "frankfurt", `/org/${ORG}/location/aws-eu-central-1`],
        [token("Policy"), "access", `/org/${ORG}/policy/imp-policy`],
        [token("VolumeSet"), "data", `/org/${ORG}/gvc/default/volumeset/imp-data`],
      ].sort(),
    );
    expect(newRequests().filter(isMutating)).toEqual([]);
  });

  it("imports several objects at once with --file (keys and bindings by <self link>#<key>)", async () => {
    const newRequests = requestLog(suite.server);
    const file = path.join(project.dir, "import.json");
    fs.writeFileSync(
      file,
      JSON.stringify({
        resources: [
          { type: token("ServiceAccount"), name: "robot", id: "imp-sa" },
          { type: token("ServiceAccountKey"), name: "robot-key", id: `/org/${ORG}/serviceaccount/imp-sa#${keyName}` },
          { type: token("AuditContext"), name: "audit", id: "imp-audit" },
          { type: token("CloudAccount"), name: "cloud", id: `/org/${ORG}/cloudaccount/imp-cloud` },
          { type: token("PolicyBinding"), name: "shared-edit", id: `/org/${ORG}/policy/imp-shared#edit` },
        ],
      }),
    );
    await pulumi(["import", "--file", file, "--yes", "--generate-code=false", "--non-interactive"]);
    const state = await stateResources();
    expect(state.map((r) => r.type).sort()).toEqual(
      [
        "VolumeSet",
        "Policy",
        "Location",
        "Group",
        "ServiceAccount",
        "ServiceAccountKey",
        "AuditContext",
        "CloudAccount",
        "PolicyBinding",
      ]
        .map(token)
        .sort(),
    );
    // A key imported has no `key`: it was returned once, to whoever added it.
    const key = state.find((r) => r.type === token("ServiceAccountKey"))!;
    expect(key.outputs!.name).toBe(keyName);
    expect(key.outputs!.key).toBeUndefined();
    expect(JSON.stringify(state).includes(ADMIN_KEY)).toBe(false);
    expect(newRequests().filter(isMutating)).toEqual([]);
  });

  it("then an up of a program declaring them changes nothing: every step is same, zero writes", async () => {
    const newRequests = requestLog(suite.server);
    const driver = await EngineDriver.start({
      programDir: fixture,
      workDir: project.dir,
      binDir: suite.world.binDir,
      stackName: STACK,
      provider: "native",
      config: stackConfig(suite.server),
      env: suite.world.env,
    });
    try {
      const result = await driver.run({ cmd: "up" });
      expect(result.steps.filter((step) => step.op !== "same")).toEqual([]);
      expect(result.steps).toHaveLength(9);
      expect(newRequests().filter(isMutating)).toEqual([]);
      expect(result.outputs.keyName).toEqual({ value: keyName, secret: false });
    } finally {
      await driver.close();
    }
  });
});

/**
 * A policy on listed objects stays on those objects through `pulumi import` with YAML code generation and an up of
 * the generated program (real CLI, the cpln-native plugin from its release archive). Until schema.json stopped
 * declaring `Policy.target` as `const: "all"`, pulumi-yaml filled the const in: the preview after the import was not
 * a no-op (`+ target: "all"`) and the up made the policy grant on every volume set of the org.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { api, engineSuite, isMutating, nativeStackProject, ORG, requestLog, type EngineSuite } from "./harness.js";
import { skipWithoutEngine } from "./support.js";

const HEADER = "name: grants\nruntime: yaml\n";

let suite: EngineSuite;
let robotKey = "";

async function asRobot(urlPath: string): Promise<number> {
  const response = await fetch(`${suite.server.url}${urlPath}`, { headers: { authorization: `Bearer ${robotKey}` } });
  await response.body?.cancel();
  return response.status;
}

describe.skipIf(skipWithoutEngine)("an imported policy on listed objects, through YAML code generation", () => {
  suite = engineSuite("policy-target", true, async () => {
    for (const name of ["pt-data", "pt-other"]) {
      await api(suite.server, "POST", `/org/${ORG}/gvc/default/volumeset`, {
        name,
        spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd", fileSystemType: "ext4" },
      });
    }
    await api(suite.server, "POST", `/org/${ORG}/serviceaccount`, { name: "pt-robot" });
    robotKey = (
      (await api(suite.server, "POST", `/org/${ORG}/serviceaccount/pt-robot/-addKey`, {
        description: "pt",
      })) as { key: string }
    ).key;
    await api(suite.server, "POST", `/org/${ORG}/policy`, {
      name: "pt-policy",
      targetKind: "volumeset",
      targetLinks: [`/org/${ORG}/gvc/default/volumeset/pt-data`],
      bindings: [{ permissions: ["manage"], principalLinks: [`/org/${ORG}/serviceaccount/pt-robot`] }],
    });
  });

  it("the generated program previews as a no-op, and after up the policy still grants on its one volume set only", async () => {
    const project = await nativeStackProject(suite, "grants", "dev", HEADER);
    const imported = await project.pulumi([
      "import",
      "cpln-native:index:Policy",
      "access",
      "pt-policy",
      "--yes",
      "--non-interactive",
    ]);
    const generated = imported.stdout.slice(imported.stdout.indexOf("resources:"));
    expect(generated).toContain("type: cpln-native:Policy");
    expect(generated).not.toContain("target: all");
    fs.writeFileSync(path.join(project.dir, "Pulumi.yaml"), HEADER + generated);

    const newRequests = requestLog(suite.server);
    // --expect-no-changes fails the command (and so this test) on any step but `same`.
    await project.pulumi(["preview", "--expect-no-changes", "--non-interactive"]);
    await project.pulumi(["up", "--yes", "--skip-preview", "--expect-no-changes", "--non-interactive"]);
    expect(newRequests().filter(isMutating)).toEqual([]);

    const policy = (await api(suite.server, "GET", `/org/${ORG}/policy/pt-policy`)) as Record<string, unknown>;
    expect(policy.target).toBeUndefined();
    expect(policy.targetLinks).toEqual([`/org/${ORG}/gvc/default/volumeset/pt-data`]);
    // What the robot can do afterwards: manage the one volume set, not see the other.
    expect(await asRobot(`/org/${ORG}/gvc/default/volumeset/pt-data`)).toBe(200);
    expect(await asRobot(`/org/${ORG}/gvc/default/volumeset/pt-other`)).toBe(404);
  }, 600_000);
});

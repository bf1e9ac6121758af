/**
 * The README's TypeScript section as a user follows it: a project directory made like `pulumi new typescript` (Pulumi's
 * template files, test/fixtures/pulumi-template/nodenext), the README's program verbatim as index.ts, the README's
 * `pulumi config set` lines, and the plain `pulumi up` / `pulumi destroy` through the Node.js language host that
 * `npm run engine` builds (on PATH). Checked on the server: the requests it received and the objects it holds. Then
 * `pulumi import --out index.ts` in the same project: program generation through that host.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { ADMIN_KEY, api, engineSuite, ORG, repoRoot, requestLog, type CliResult } from "./harness.js";
import { skipWithoutEngine } from "./support.js";

/** The first fenced block of `language` after `heading` in README.md, verbatim. */
function readmeBlock(heading: string, language: string): string {
  const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8");
  const at = readme.indexOf(`\n## ${heading}\n`);
  if (at < 0) throw new Error(`README.md has no "## ${heading}"`);
  const block = new RegExp("```" + language + "\\n([\\s\\S]*?)\\n```").exec(readme.slice(at));
  if (!block) throw new Error(`README.md has no ${language} block under "## ${heading}"`);
  return `${block[1]}\n`;
}

const SECTION = "Use it in a TypeScript program";

/**
 * The two projects (each its own engine world and cpln-local) run side by side; a project's steps run in order
 * (`it.sequential`), each on the state the one before left.
 */
const projectSuite = describe.skipIf(skipWithoutEngine).concurrent;
const step = it.sequential;

projectSuite("the README's TypeScript program, run with `pulumi up` in its project", () => {
  const it = step;
  let project = "";
  let requests: ReturnType<typeof requestLog>;
  const suite = engineSuite("typescript", true, async ({ server, world }) => {
    project = path.join(world.workDir, "readme");
    fs.mkdirSync(project);
    const template = path.join(repoRoot, "test", "fixtures", "pulumi-template", "nodenext");
    for (const file of ["package.json", "tsconfig.json"]) {
      fs.copyFileSync(path.join(template, file), path.join(project, file));
    }
    // What `pulumi new typescript` writes as Pulumi.yaml (its template's runtime options).
    fs.writeFileSync(
      path.join(project, "Pulumi.yaml"),
      "name: readme\nruntime:\n  name: nodejs\n  options:\n    packagemanager: npm\n",
    );
    fs.writeFileSync(path.join(project, "index.ts"), readmeBlock(SECTION, "ts"));
    // `npm install <the packed package>`: the checkout's node_modules holds it (node_modules/cpln-pulumi, linked to
    // the checkout) with @pulumi/pulumi; test/user/project.test.ts installs the packed tarball itself.
    fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(project, "node_modules"));
    await must(["stack", "init", "dev"]);
    requests = requestLog(server);
  });

  async function must(args: string[]): Promise<CliResult> {
    const result = await suite.world.pulumi(args, project);
    if (result.status !== 0)
      throw new Error(`pulumi ${args.join(" ")} → ${result.status}\n${result.stdout}${result.stderr}`);
    return result;
  }

  it("the README's config lines, as written but for the values, then pulumi up: a volume set, a policy, the quotas", async () => {
    const lines = readmeBlock(SECTION, "sh")
      .split("\n")
      .filter((line) => line.startsWith("pulumi config set"));
    expect(lines).toEqual([
      "pulumi config set cpln:org my-org",
      "pulumi config set --secret cpln:token <service-account key>",
      "pulumi config set cpln:endpoint http://127.0.0.1:8080",
    ]);
    await must(["config", "set", "cpln:org", ORG]);
    await must(["config", "set", "--secret", "cpln:token", ADMIN_KEY]);
    await must(["config", "set", "cpln:endpoint", suite.server.url]);

    const up = await must(["up", "--yes"]);
    expect(up.stdout).toMatch(/\+ 3 created/);
    const writes = requests()
      .filter((r) => r.method !== "GET")
      .map((r) => `${r.method} ${r.path} ${r.status}`)
      .sort();
    expect(writes).toEqual([`POST /org/${ORG}/gvc/default/volumeset 201`, `POST /org/${ORG}/policy 201`]);

    const outputs = JSON.parse((await must(["stack", "output", "--json"])).stdout) as { quotas: { id: string }[] };
    const quotas = (await api(suite.server, "GET", `/org/${ORG}/quota`)) as { items: { id: string }[] };
    expect(outputs.quotas.map((q) => q.id).sort()).toEqual(quotas.items.map((q) => q.id).sort());

    const state = JSON.parse((await must(["stack", "export"])).stdout) as {
      deployment: { resources: { type: string; outputs?: Record<string, unknown> }[] };
    };
    const volumeSet = state.deployment.resources.find((r) => r.type === "pulumi-nodejs:dynamic/cpln:VolumeSet")!;
    const policy = state.deployment.resources.find((r) => r.type === "pulumi-nodejs:dynamic/cpln:Policy")!;
    const volumeSetLink = volumeSet.outputs!.selfLink as string;
    const onServer = (await api(suite.server, "GET", volumeSetLink)) as { spec: Record<string, unknown> };
    expect(onServer.spec).toMatchObject({ initialCapacity: 20, performanceClass: "general-purpose-ssd" });
    const policyOnServer = (await api(suite.server, "GET", policy.outputs!.selfLink as string)) as {
      targetLinks: string[];
      bindings: unknown[];
    };
    expect(policyOnServer.targetLinks).toEqual([volumeSetLink]);
    expect(policyOnServer.bindings).toEqual([
      { permissions: ["view"], principalLinks: [`/org/${ORG}/group/data-readers`] },
    ]);
    expect(JSON.stringify(state)).not.toContain(ADMIN_KEY);
  });

  it("a second pulumi up changes nothing and sends no write", async () => {
    const up = await must(["up", "--yes", "--expect-no-changes"]);
    expect(up.stdout).toMatch(/3 unchanged/);
    expect(requests().filter((r) => r.method !== "GET")).toEqual([]);
  });

  it("pulumi import --out index.ts writes the TypeScript that declares an imported object (cpln-native plugin)", async () => {
    await must(["config", "set", "cpln-native:org", ORG]);
    await must(["config", "set", "--secret", "cpln-native:token", ADMIN_KEY]);
    await must(["config", "set", "cpln-native:endpoint", suite.server.url]);
    const out = path.join(project, "imported.ts");
    await must(["import", "cpln-native:index:Group", "viewers", "viewers", "--yes", "--out", out]);
    const code = fs.readFileSync(out, "utf8");
    expect(code).toMatch(/^import \* as pulumi from "@pulumi\/pulumi";$/m);
    expect(code).toMatch(/new \w+\.Group\("viewers", \{/);
    expect(code).toContain('name: "viewers"');
    expect(code).toContain("protect: true");
    expect(requests().filter((r) => r.method !== "GET")).toEqual([]);
  });

  it("pulumi destroy deletes the volume set and the policy; the imported group, taken out of the state first, stays", async () => {
    await must(["state", "delete", "urn:pulumi:dev::readme::cpln-native:index:Group::viewers", "--force", "--yes"]);
    await must(["destroy", "--yes"]);
    const deletes = requests()
      .filter((r) => r.method === "DELETE")
      .map((r) => r.path.replace(/\/[^/]+$/, "/*"))
      .sort();
    expect(deletes).toEqual([`/org/${ORG}/gvc/default/volumeset/*`, `/org/${ORG}/policy/*`]);
    expect(await api(suite.server, "GET", `/org/${ORG}/group/viewers`)).toMatchObject({ name: "viewers" });
  });
});

projectSuite("pulumi preview --diff of an edit to dynamic resources", () => {
  const it = step;
  let project = "";
  const suite = engineSuite("preview-diff", false, async ({ server, world }) => {
    project = path.join(world.workDir, "edit");
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: edit\nruntime: nodejs\n");
    fs.writeFileSync(
      path.join(project, "index.ts"),
      [
        'import * as pulumi from "@pulumi/pulumi";',
        'import * as cpln from "cpln-pulumi";',
        'const note = new pulumi.Config().require("note");',
        'const data = new cpln.VolumeSet("data", {',
        '  gvc: "default",',
        "  initialCapacity: 10,",
        '  performanceClass: "general-purpose-ssd",',
        "  description: note,",
        "});",
        'new cpln.Policy("access", { targetKind: "volumeset", targetLinks: [data.selfLink], description: "fixed" });',
        "",
      ].join("\n"),
    );
    fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(project, "node_modules"));
    for (const args of [
      ["stack", "init", "dev"],
      ["config", "set", "cpln:org", ORG],
      ["config", "set", "cpln:endpoint", server.url],
      ["config", "set", "--secret", "cpln:token", ADMIN_KEY],
      ["config", "set", "note", "one"],
      ["up", "--yes"],
      ["config", "set", "note", "two"],
    ]) {
      const result = await world.pulumi(args, project);
      if (result.status !== 0) throw new Error(`pulumi ${args.join(" ")}: ${result.stdout}${result.stderr}`);
    }
  });

  it("shows the one update `up` makes: the policy's target, the volume set's selfLink, stays known", async () => {
    const preview = await suite.world.pulumi(["preview", "--diff"], project);
    expect(preview.status, preview.stderr).toBe(0);
    expect(preview.stdout).toMatch(/~ description\s*: "one" => "two"/);
    expect(preview.stdout).not.toContain("[unknown]");
    expect(preview.stdout).toMatch(/~ 1 to update/);
    const up = await suite.world.pulumi(["up", "--yes"], project);
    expect(up.stdout).toMatch(/~ 1 updated/);
  });
});

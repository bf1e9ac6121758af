/**
 * Issue 21, item 3, as a user meets it with the plain `pulumi` command: one stack with a Policy, a PolicyBinding on it,
 * a ServiceAccount and its key (test/fixtures/agree-program) against cpln-local: up → refresh → up. The refresh writes
 * nothing and takes in no change made outside the program (the PolicyBinding's grant and the key are the stack's
 * own), the next `up --expect-no-changes` passes with no write, and the account keeps its grant. Then a principal
 * granted by hand is drift: refresh takes it in, preview names `bindings`, and up puts the policy back.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { ADMIN_KEY, api, engineSuite, isMutating, ORG, repoRoot, requestLog, type CliResult } from "./harness.js";
import { skipWithoutEngine } from "./support.js";

const fixture = path.join(repoRoot, "test", "fixtures", "agree-program");

describe.skipIf(skipWithoutEngine)("a Policy, its PolicyBinding, a ServiceAccount and its key in one stack", () => {
  let project = "";
  let writes: () => string[];
  const suite = engineSuite("agree", false, async ({ server, world }) => {
    project = path.join(world.workDir, "agree");
    fs.mkdirSync(project);
    for (const file of ["Pulumi.yaml", "index.ts"]) fs.copyFileSync(path.join(fixture, file), path.join(project, file));
    fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(project, "node_modules"));
    await must(["stack", "init", "dev"]);
    await must([
      "config",
      "set-all",
      ...["--plaintext", `cpln:org=${ORG}`, "--plaintext", `cpln:endpoint=${server.url}`],
      ...["--secret", `cpln:token=${ADMIN_KEY}`],
    ]);
    const sent = requestLog(server);
    writes = () =>
      sent()
        .filter(isMutating)
        .map((r) => `${r.method} ${r.path}`);
  });

  async function must(args: string[]): Promise<CliResult> {
    const result = await suite.world.pulumi(args, project);
    if (result.status !== 0)
      throw new Error(`pulumi ${args.join(" ")} → ${result.status}\n${result.stdout}${result.stderr}`);
    return result;
  }

  let policy = "";
  let account = "";
  async function bindings(): Promise<Record<string, string[]>> {
    const record = (await api(suite.server, "GET", `/org/${ORG}/policy/${policy}`)) as {
      bindings: { permissions: string[]; principalLinks: string[] }[];
    };
    return Object.fromEntries(record.bindings.map((b) => [b.permissions.join(","), b.principalLinks]));
  }
  const granted = () => ({
    view: [`/org/${ORG}/group/viewers`],
    edit: [`/org/${ORG}/serviceaccount/${account}`],
  });

  it("pulumi up creates the four resources; the binding grants the account edit on the policy", async () => {
    const up = await must(["up", "--yes", "--skip-preview"]);
    expect(up.stdout).toMatch(/\+ 5 created/); // the four resources and the stack
    const outputs = JSON.parse((await must(["stack", "output", "--json"])).stdout) as Record<string, string>;
    policy = outputs.policyName!;
    account = outputs.accountName!;
    expect(await bindings()).toEqual(granted());
    // One write per resource, plus the key's marker tag on its account (provider/resources/serviceAccountKey.ts).
    expect(writes().sort()).toEqual(
      [
        `POST /org/${ORG}/policy`,
        `POST /org/${ORG}/serviceaccount`,
        `POST /org/${ORG}/serviceaccount/${account}/-addKey`,
        `PATCH /org/${ORG}/policy/${policy}`,
        `PATCH /org/${ORG}/serviceaccount/${account}`,
      ].sort(),
    );
  });

  it("pulumi refresh writes nothing; the next up --expect-no-changes passes with no write; the grant stays", async () => {
    await must(["refresh", "--yes", "--skip-preview"]);
    expect(writes()).toEqual([]);
    const up = await must(["up", "--yes", "--expect-no-changes"]);
    expect(up.stdout).toMatch(/5 unchanged/);
    expect(writes()).toEqual([]);
    expect(await bindings()).toEqual(granted());
  });

  it("a principal granted by hand is drift: refresh takes it in, preview names bindings, up puts the policy back", async () => {
    await api(suite.server, "PATCH", `/org/${ORG}/policy/${policy}`, {
      "$patch/bindings": [{ permissions: ["edit"], "$append/principalLinks": ["//group/viewers"] }],
    });
    writes();
    await must(["refresh", "--yes", "--skip-preview"]);
    const preview = await suite.world.pulumi(["preview", "--diff", "--expect-no-changes"], project);
    expect(preview.status, preview.stdout).not.toBe(0);
    expect(preview.stdout).toMatch(/~ pulumi-nodejs:dynamic\/cpln:Policy: \(update\)\n.*\n.*cpln:Policy::volumes\]/);
    expect(preview.stdout).toMatch(/~ bindings\s*: \[/);
    expect(preview.stdout).toMatch(/~ 1 to update\n\s+4 unchanged/);
    expect(writes()).toEqual([]);
    await must(["up", "--yes", "--skip-preview"]);
    expect(writes()).toEqual([`PATCH /org/${ORG}/policy/${policy}`]);
    expect(await bindings()).toEqual(granted());
    await must(["up", "--yes", "--expect-no-changes"]);
    await must(["destroy", "--yes", "--skip-preview"]);
    await expect(api(suite.server, "GET", `/org/${ORG}/serviceaccount/${account}`)).rejects.toThrow(/→ 404/);
  });
});

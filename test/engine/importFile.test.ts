/**
 * An org into code, end to end: `cpln-pulumi import-file` (dist/tools/cpln-pulumi.js, spawned as a user runs it) lists
 * the objects of a seeded cpln-local org as a `pulumi import --file` document, and the REAL `pulumi import --file`
 * (cpln-native plugin) takes every one of them into a stack: the state holds exactly the file's resources, by type,
 * resource name and id, and not one request writes.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import {
  ADMIN_KEY,
  api,
  engineSuite,
  isMutating,
  ORG,
  repoRoot,
  requestLog,
  nativeStackProject,
  type EngineSuite,
  type StackProject,
} from "./harness.js";
import { skipWithoutEngine } from "./support.js";

const COMMAND = path.join(__dirname, "..", "..", "dist", "tools", "cpln-pulumi.js");

let suite: EngineSuite;
let project: StackProject;

const pulumi = (args: string[]) => project.pulumi(args);

function importFile(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [COMMAND, "import-file", ...args],
      { env: { PATH: process.env.PATH ?? "", CPLN_TOKEN: ADMIN_KEY }, timeout: 600_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe.skipIf(skipWithoutEngine)("cpln-pulumi import-file output through the real pulumi import --file", () => {
  suite = engineSuite("import-file", true, async () => {
    // Objects made outside Pulumi, besides the seed's: a service account with a key, an audit context, a cloud account.
    await api(suite.server, "POST", `/org/${ORG}/serviceaccount`, { name: "if-sa" });
    await api(suite.server, "POST", `/org/${ORG}/serviceaccount/if-sa/-addKey`, { description: "hand-made key" });
    await api(suite.server, "POST", `/org/${ORG}/auditctx`, { name: "if-audit" });
    await api(suite.server, "POST", `/org/${ORG}/cloudaccount`, {
      name: "if-cloud",
      provider: "aws",
      data: { roleArn: "arn:aws:iam::444444444444:role/cpln" },
    });
    // A TypeScript project, as docs/import-file.md's commands assume (`--out index.ts`).
    project = await nativeStackProject(suite, "org", "org", "name: org\nruntime: nodejs\n");
    fs.copyFileSync(
      path.join(repoRoot, "test", "fixtures", "pulumi-template", "nodenext", "package.json"),
      path.join(project.dir, "package.json"),
    );
  });

  it("every resource of the file is in the state, by type, name and id; zero writes", async () => {
    const file = path.join(project.dir, "import.json");
    const written = await importFile(["--org", ORG, "--endpoint", suite.server.url, "--out", file]);
    expect(written.code, written.stderr).toBe(0);
    const document = JSON.parse(fs.readFileSync(file, "utf8")) as {
      resources: { type: string; name: string; logicalName?: string; id: string }[];
    };
    const types = new Set(document.resources.map((r) => r.type));
    // The hand-made objects are in it, and several resource types.
    for (const type of ["ServiceAccount", "ServiceAccountKey", "AuditContext", "CloudAccount"]) {
      expect(types.has(`cpln-native:index:${type}`), type).toBe(true);
    }

    const newRequests = requestLog(suite.server);
    // docs/import-file.md's second command, as written (plus --yes for no prompt).
    await pulumi(["import", "--file", "import.json", "--out", "index.ts", "--yes", "--non-interactive"]);
    const code = fs.readFileSync(path.join(project.dir, "index.ts"), "utf8");
    // One declaration per resource of the file, each under its resource name and protected.
    for (const r of document.resources) {
      const type = r.type.replace("cpln-native:index:", "");
      expect(code, `${type} ${r.logicalName ?? r.name}`).toContain(`.${type}("${r.logicalName ?? r.name}", {`);
    }
    expect(code.match(/protect: true/g)?.length).toBe(document.resources.length);
    const exported = JSON.parse((await pulumi(["stack", "export"])).stdout) as {
      deployment: { resources?: { urn: string; type: string; id?: string }[] };
    };
    const state = (exported.deployment.resources ?? []).filter((r) => r.type.startsWith("cpln-native:index:"));
    // Each resource of the file, by type and resource name (`logicalName`, else `name`), with the id it was imported by.
    const entry = (type: string, name: string, id: unknown) => `${type} ${name} ${String(id)}`;
    expect(state.map((r) => entry(r.type, r.urn.split("::").pop() ?? "", r.id)).sort()).toEqual(
      document.resources.map((r) => entry(r.type, r.logicalName ?? r.name, r.id)).sort(),
    );
    expect(JSON.stringify(exported).includes(ADMIN_KEY)).toBe(false);
    expect(newRequests().filter(isMutating)).toEqual([]);
  });
});

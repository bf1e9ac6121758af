/**
 * examples/app/python (the app example in Python, on the native plugin's SDK) through the REAL Pulumi CLI and its
 * Python language host, as a user runs it (`pulumi up` in the project directory, `virtualenv: venv` holding `pulumi`
 * and the release's wheel, pip-installed: ./sdkPackages.ts), against cpln-local: up (exactly one POST per object), a no-op up (no write), the edit of
 * one container's env (exactly the PATCH of cases.ts's `app`), an out-of-band change that refresh shows and takes in
 * and up puts back, destroy (the org as before). Between up and the edit the official `cpln` CLI reads back what the
 * program made: `cpln workload get`, `cpln secret reveal`, `cpln domain get`.
 *
 * One cpln-local, one engine environment, one stack (the cost of one example of examples.test.ts).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { cplnJson, type CplnTarget } from "../cli/cplnRun.js";
import { exampleCases } from "./cases.js";
import {
  ADMIN_KEY,
  api,
  engineSuite,
  isMutating,
  nativeStackProject,
  ORG,
  orgAfterDestroy,
  orgSnapshot,
  repoRoot,
  requestLog,
  type Recorded,
  type StackProject,
} from "./harness.js";
import { expectWheelImported, packagedSdks, type PackagedSdks } from "./sdkPackages.js";
import { skipWithoutEngine } from "./support.js";

const programDir = path.join(repoRoot, "examples", "app", "python");
const app = exampleCases.find((example) => example.name === "app")!;
const hex7 = "[0-9a-f]{7}";
/** The secret's values as the program declares them (examples/app/python/__main__.py). */
const settings = { DATABASE_URL: "postgres://app@db.internal:5432/app", API_KEY: "example-key-not-real" };

const SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d";

interface StateResource {
  type: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
}
type Doc = Record<string, unknown> & { spec: Record<string, unknown>; status?: Record<string, unknown> };

describe.skipIf(skipWithoutEngine)("examples/app/python through the real Pulumi engine", () => {
  let project: StackProject;
  let sdks: PackagedSdks;
  let before: Record<string, unknown>;
  let sent: () => Recorded[];
  const writes = () => sent().filter(isMutating);
  const suite = engineSuite("app-python", true, async ({ server, world }) => {
    before = await orgSnapshot(server);
    sdks = await packagedSdks({ ...(process.env as Record<string, string>), ...world.env });
    const pulumiYaml = fs.readFileSync(path.join(programDir, "Pulumi.yaml"), "utf8");
    project = await nativeStackProject({ server, world }, "app-python", "dev", pulumiYaml);
    fs.copyFileSync(path.join(programDir, "__main__.py"), path.join(project.dir, "__main__.py"));
    // The virtualenv a user makes (README): pulumi and the SDK's wheel.
    fs.symlinkSync(sdks.venv, path.join(project.dir, "venv"));
    sent = requestLog(server);
  });

  /** Names the program's autonamed objects got, from the up's POSTs. */
  const made = { gvc: "", secret: "", workload: "", workloadPath: "" };
  const domainPath = `/org/${ORG}/domain/app.example.com`;

  it("up creates the seven objects, one POST each; the secret's values and the token only as ciphertext", async () => {
    await project.pulumi(["up", "--yes", "--skip-preview"]);
    const posts = writes();
    const lines = posts.map((r) => `${r.method} ${r.path} ${r.status}`);
    const identityPost = new RegExp(`^POST /org/${ORG}/gvc/(app-${hex7})/identity 201$`);
    made.gvc = identityPost.exec(lines.find((line) => identityPost.test(line)) ?? "")?.[1] ?? "";
    expect(made.gvc, lines.join("\n")).not.toBe("");
    const g = `/org/${ORG}/gvc/${made.gvc}`;
    expect([...lines].sort()).toEqual(
      [
        `POST /org/${ORG}/gvc 201`,
        `POST /org/${ORG}/secret 201`,
        `POST /org/${ORG}/policy 201`,
        `POST ${g}/identity 201`,
        `POST ${g}/volumeset 201`,
        `POST ${g}/workload 201`,
        `POST /org/${ORG}/domain 201`,
      ].sort(),
    );
    const bodyOf = (p: string) => posts.find((r) => r.path === p)!.body as Record<string, unknown>;
    made.secret = bodyOf(`/org/${ORG}/secret`).name as string;
    made.workload = bodyOf(`${g}/workload`).name as string;
    made.workloadPath = `${g}/workload/${made.workload}`;
    // cpln-local's request log redacts a secret's data; `cpln secret reveal` (next test) reads what was stored.
    expect(bodyOf(`/org/${ORG}/secret`)).toEqual({
      name: expect.stringMatching(new RegExp(`^app-settings-${hex7}$`)),
      description: made.secret,
      tags: {},
      type: "dictionary",
      data: "[redacted]",
    });
    expect(bodyOf(`/org/${ORG}/policy`)).toMatchObject({
      targetKind: "secret",
      targetLinks: [`/org/${ORG}/secret/${made.secret}`],
      bindings: [{ permissions: ["reveal"], principalLinks: [expect.stringMatching(new RegExp(`^${g}/identity/`))] }],
    });
    expect(bodyOf(`/org/${ORG}/gvc`)).toMatchObject({
      name: made.gvc,
      spec: {
        staticPlacement: {
          locationLinks: [`/org/${ORG}/location/aws-eu-central-1`, `/org/${ORG}/location/aws-us-west-2`],
        },
      },
    });
    expect(bodyOf(`${g}/workload`)).toMatchObject({
      name: expect.stringMatching(new RegExp(`^app-${hex7}$`)),
      spec: { type: "stateful", identityLink: expect.stringMatching(new RegExp(`^${g}/identity/app-${hex7}$`)) },
    });
    // The workload is created only once the policy lets its identity reveal the secret (dependsOn).
    const order = posts.map((r) => r.path);
    expect(order.indexOf(`/org/${ORG}/policy`)).toBeLessThan(order.indexOf(`${g}/workload`));
    expect(order.indexOf(`${g}/workload`)).toBeLessThan(order.indexOf(`/org/${ORG}/domain`));

    // The outputs: the workload's endpoint and the domain's DNS records, as the server states them.
    const outputs = JSON.parse((await project.pulumi(["stack", "output", "--json"])).stdout) as Record<string, unknown>;
    const workload = (await api(suite.server, "GET", made.workloadPath)) as Doc;
    const domain = (await api(suite.server, "GET", domainPath)) as Doc;
    expect(outputs).toEqual({
      endpoint: workload.status!.endpoint,
      dnsRecords: domain.status!.dnsConfig,
      gvcName: made.gvc,
    });
    expect(outputs.endpoint).toEqual(expect.stringContaining(made.workload));
    expect((outputs.dnsRecords as unknown[]).length).toBeGreaterThan(0);
    // The secret's data is secret in the state as input and output, though the Python SDK sends it in plaintext.
    const state = (await project.pulumi(["stack", "export"])).stdout;
    for (const value of [ADMIN_KEY, ...Object.values(settings)]) expect(state.includes(value), value).toBe(false);
    const { resources } = (JSON.parse(state) as { deployment: { resources: StateResource[] } }).deployment;
    const secretState = resources.find((r) => r.type === "cpln-native:index:Secret")!;
    expect(Object.keys(secretState.inputs.data as object).sort()).toEqual([SECRET_SIG_KEY, "ciphertext"]);
    expect(Object.keys(secretState.outputs.data as object).sort()).toEqual([SECRET_SIG_KEY, "ciphertext"]);
    sent(); // the reads above
  });

  it("the program ran on the SDK pip installed from the release's wheel, not a generated directory", async () => {
    await expectWheelImported(path.join(project.dir, "venv"), sdks, suite.world.env);
  });

  it("the official cpln CLI reads back what the program made: workload get, secret reveal, domain get", async () => {
    const home = fs.mkdtempSync(path.join(suite.world.workDir, "cpln-home-"));
    const target: CplnTarget = { url: suite.server.url, token: ADMIN_KEY, org: ORG, gvc: made.gvc, home };
    const workload = await cplnJson<Doc>(target, ["workload", "get", made.workload]);
    expect(workload.spec.type).toBe("stateful");
    expect(workload.spec.identityLink).toMatch(new RegExp(`^/org/${ORG}/gvc/${made.gvc}/identity/app-${hex7}$`));
    const [container] = workload.spec.containers as Record<string, unknown>[];
    expect(container).toMatchObject({
      name: "app",
      image: "nginx:1.27",
      ports: [{ number: 8080, protocol: "http" }],
      env: [
        { name: "GREETING", value: "hello" },
        { name: "DATABASE_URL", value: `cpln://secret/${made.secret}.DATABASE_URL` },
      ],
      volumes: [{ uri: expect.stringMatching(new RegExp(`^cpln://volumeset/app-data-${hex7}$`)), path: "/data" }],
    });
    const secret = await cplnJson<Doc & { data: unknown }>(target, ["secret", "reveal", made.secret]);
    expect(secret).toMatchObject({ name: made.secret, type: "dictionary", data: settings });
    const domain = await cplnJson<Doc>(target, ["domain", "get", "app.example.com"]);
    expect(domain.spec).toMatchObject({
      dnsMode: "cname",
      ports: [
        {
          number: 443,
          protocol: "http2",
          routes: [{ prefix: "/", port: 8080, workloadLink: made.workloadPath }],
        },
      ],
    });
    // Reading back wrote nothing.
    expect(writes()).toEqual([]);
  });

  it("a second up changes nothing (--expect-no-changes) and sends no write", async () => {
    await project.pulumi(["up", "--yes", "--skip-preview", "--expect-no-changes"]);
    expect(writes()).toEqual([]);
  });

  let beforeEdit: Doc;

  it("the edit of one container's env: preview names that one path; up sends exactly the one PATCH", async () => {
    beforeEdit = (await api(suite.server, "GET", made.workloadPath)) as Doc;
    for (const [key, value] of Object.entries(app.edit)) await project.pulumi(["config", "set", key, value]);
    sent();
    const preview = JSON.parse((await project.pulumi(["preview", "--json"])).stdout) as {
      steps: { op: string; urn: string; detailedDiff?: Record<string, unknown> }[];
    };
    const updates = preview.steps.filter((step) => step.op === "update");
    expect(updates.map((step) => step.urn.slice(step.urn.indexOf("::cpln-native")))).toEqual([
      "::cpln-native:index:Workload::app",
    ]);
    expect(Object.keys(updates[0]!.detailedDiff ?? {})).toEqual(["containers[0].env[0].value"]);
    expect(writes()).toEqual([]);
    await project.pulumi(["up", "--yes", "--skip-preview"]);
    expect(writes().map(({ method, path: p, body, status }) => ({ method, path: p, body, status }))).toEqual(
      app.expected.map(({ method, body }) => ({ method, path: made.workloadPath, body, status: 200 })),
    );
  });

  it("an out-of-band change: refresh shows the drift and takes it in, sending nothing; up puts it back with the PATCH", async () => {
    // The workload put back as it was before the edit (a PUT of its earlier body), outside Pulumi.
    const { id: _id, created: _created, links: _links, status: _status, version: _version, ...body } = beforeEdit;
    await api(suite.server, "PUT", made.workloadPath, body);
    sent();
    const refreshed = await project.pulumi(["refresh", "--yes", "--skip-preview", "--diff"]);
    expect(refreshed.stdout).toMatch(/~ cpln-native:index:Workload: \(update\)/);
    expect(refreshed.stdout).toMatch(/~ value\s*: "bonjour" => "hello"/);
    expect(refreshed.stdout).toMatch(/~ 1 updated/);
    expect(writes()).toEqual([]);
    await project.pulumi(["up", "--yes", "--skip-preview"]);
    expect(writes().map(({ method, path: p, body: b }) => ({ method, path: p, body: b }))).toEqual(
      app.expected.map(({ method, body: b }) => ({ method, path: made.workloadPath, body: b })),
    );
  });

  it("destroy deletes the seven objects and leaves the org as it was before the first up", async () => {
    await project.pulumi(["destroy", "--yes", "--skip-preview"]);
    const g = `/org/${ORG}/gvc/${made.gvc}`;
    expect(
      writes()
        .map((r) => `${r.method} ${r.path.replace(/-[0-9a-f]{7}(?=\/|$)/g, "-*")} ${r.status}`)
        .sort(),
    ).toEqual(
      [
        `DELETE ${domainPath} 202`,
        `DELETE ${g.replace(made.gvc, "app-*")}/workload/app-* 202`,
        `DELETE ${g.replace(made.gvc, "app-*")}/volumeset/app-data-* 202`,
        `DELETE ${g.replace(made.gvc, "app-*")}/identity/app-* 202`,
        `DELETE /org/${ORG}/policy/app-reveal-* 202`,
        `DELETE /org/${ORG}/secret/app-settings-* 202`,
        `DELETE /org/${ORG}/gvc/app-* 202`,
      ].sort(),
    );
    expect(await orgAfterDestroy(suite.server, before)).toEqual(before);
  });
});

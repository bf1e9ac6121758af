/**
 * Every language the native plugin claims, through the real Pulumi CLI and the plugin installed from its release
 * archive, against cpln-local: the Node.js, Python, Go and YAML programs of docs/languages.md (read from the doc
 * verbatim) each create a volume set, a policy on it, a service account with a key and a policy binding; update three
 * of them in place; and destroy everything. Each step is checked by the HTTP requests the server received and by the state
 * (`pulumi stack export`): the key and the token only as ciphertext.
 *
 * Each runs as a project directory with the plain `pulumi up`, through the language host `npm run engine` built
 * (pulumi-language-nodejs, pulumi-language-python with Pulumi.yaml's `runtime.options.virtualenv`, pulumi-language-go,
 * pulumi-language-yaml), on the SDK as a user installs it (./sdkPackages.ts): the release's npm tarball `npm install`ed
 * into the project, the release's wheel `pip install`ed into the venv, the release's Go module required by go.mod and
 * downloaded by `go` from a module proxy.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as ServerModule from "../../server/index.js";
import type { RunningServer } from "../../server/index.js";
import { docProgram, installPlugin, repoRoot, run, succeeded } from "./languages-support.js";
import {
  expectModuleImported,
  expectTarballInstalled,
  expectWheelImported,
  GO_MODULE,
  goEnv,
  packagedSdks,
  type PackagedSdks,
} from "./sdkPackages.js";
import { engineEnv, requireEngine, skipWithoutEngine } from "./support.js";

const serverModule = createRequire(__filename)("../../dist/server/index.js") as typeof ServerModule;

const SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
const TYPES = ["PolicyBinding", "Policy", "ServiceAccountKey", "ServiceAccount", "VolumeSet"];

let root = "";
let pulumiHome = "";
let sdks: PackagedSdks;

beforeAll(async () => {
  if (skipWithoutEngine) return;
  const { pulumi, binDir } = requireEngine();
  root = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-langs-"));
  const env = engineEnv(root, binDir);
  pulumiHome = env.PULUMI_HOME!;
  sdks = await packagedSdks({ ...(process.env as Record<string, string>), ...env });
  await installPlugin(pulumi, env);
}, 1_200_000);

afterAll(() => {
  if (root !== "") fs.rmSync(root, { recursive: true, force: true });
});

/**
 * The engine's environment for this file: its own backend per work directory, the PULUMI_HOME with the plugin, and
 * the module proxy that serves the Go SDK's package.
 */
function env(work: string): Record<string, string> {
  const { binDir } = requireEngine();
  const base = { ...engineEnv(work, binDir), PULUMI_HOME: pulumiHome };
  return { ...base, ...goEnv(sdks, base) };
}

async function pulumiIn(work: string, args: string[], input?: string) {
  const { pulumi } = requireEngine();
  return succeeded(
    `pulumi ${args.join(" ")}`,
    await run(pulumi, args, { cwd: work, env: env(work), input, timeoutMs: 900_000 }),
  );
}

/** What a language's test drives. */
interface Program {
  up(note: string): Promise<void>;
  destroy(): Promise<void>;
  work: string;
}

interface StateResource {
  type: string;
  urn: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

async function exportState(work: string): Promise<{ text: string; resources: StateResource[] }> {
  const text = (await pulumiIn(work, ["stack", "export", "--stack", "dev"])).stdout;
  const parsed = JSON.parse(text) as { deployment: { resources?: StateResource[] } };
  return { text, resources: parsed.deployment.resources ?? [] };
}

function byType(resources: StateResource[], type: string): StateResource {
  const found = resources.filter((r) => r.type === `cpln-native:index:${type}`);
  expect(found, type).toHaveLength(1);
  return found[0]!;
}

/** The server's write requests since the last call as `METHOD path status` and body, in a stable order (the engine
 * runs independent steps in parallel); then forgets them. */
function writes(server: RunningServer): { line: string; body: unknown }[] {
  const seen = server
    .requests()
    .filter((r) => r.method !== "GET")
    .map((r) => ({ line: `${r.method} ${r.path} ${r.status}`, body: r.body }))
    .sort((a, b) =>
      a.line < b.line ? -1 : a.line > b.line ? 1 : JSON.stringify(a.body) < JSON.stringify(b.body) ? -1 : 1,
    );
  server.clearRequests();
  return seen;
}

function isCiphertext(value: unknown): boolean {
  const envelope = value as Record<string, unknown> | undefined;
  return (
    envelope?.[SECRET_SIG_KEY] === SECRET_SIG && typeof envelope.ciphertext === "string" && !("plaintext" in envelope)
  );
}

/**
 * The languages run side by side (each its own cpln-local and work directory with its backend); a language's steps run
 * in order (`it.sequential`), each on the state the one before left.
 */
const languageSuite = describe.skipIf(skipWithoutEngine).concurrent;
const step = it.sequential;

/** What a language's test checks of where its program took the SDK from (after the first up built it). */
interface Imported {
  what: string;
  check(work: string): Promise<void>;
}

function scenario(
  language: string,
  start: (server: RunningServer, work: string) => Promise<Program>,
  imported?: Imported,
) {
  languageSuite(`${language}: the docs/languages.md program through the real CLI`, () => {
    const it = step;
    let server: RunningServer;
    let program: Program;
    let org = "";
    let keyName = "";
    let markerTag = "";

    beforeAll(async () => {
      server = await serverModule.startServer({ recordRequests: true });
      org = server.org;
      // A volume set the program never names: its policy must not reach it.
      const other = await fetch(`${server.url}/org/${org}/gvc/default/volumeset`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.adminKey}`, "content-type": "application/json" },
        body: JSON.stringify({
          name: "other",
          spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd", fileSystemType: "ext4" },
        }),
      });
      expect(other.status).toBe(201);
      server.clearRequests();
      program = await start(server, fs.mkdtempSync(path.join(root, `${language}-`)));
    });

    afterAll(async () => {
      await server?.close();
    });

    it("up creates the five resources with one write each, plus the key's marker; the key is in state only as ciphertext", async () => {
      await program.up("first");
      const made = writes(server);
      expect(made.map((w) => w.line)).toEqual([
        `PATCH /org/${org}/policy/access 200`,
        `PATCH /org/${org}/serviceaccount/robot 200`,
        `POST /org/${org}/gvc/default/volumeset 201`,
        `POST /org/${org}/policy 201`,
        `POST /org/${org}/serviceaccount 201`,
        `POST /org/${org}/serviceaccount/robot/-addKey 200`,
      ]);
      const { text, resources } = await exportState(program.work);
      keyName = byType(resources, "ServiceAccountKey").outputs!.name as string;
      expect(keyName).toMatch(/^[0-9a-f]{16}$/);
      markerTag = byType(resources, "PolicyBinding").outputs!.markerTag as string;
      expect(markerTag).toMatch(/^cpln\/pulumiPolicyBinding\.[0-9a-f]{12}$/);
      expect(made[0]!.body).toEqual({
        "$patch/bindings": [{ permissions: ["view"], "$append/principalLinks": [`/org/${org}/serviceaccount/robot`] }],
        tags: { [markerTag]: expect.any(String) },
      });
      expect(made[1]!.body).toEqual({ tags: { [`cpln/pulumiServiceAccountKey.${keyName}`]: "true" } });
      expect(made[2]!.body).toMatchObject({ name: "data", description: "first", spec: { initialCapacity: 10 } });
      expect(made[3]!.body).toMatchObject({
        name: "access",
        description: "first",
        targetKind: "volumeset",
        targetLinks: [`/org/${org}/gvc/default/volumeset/data`],
      });
      // No `target: "all"`: the program names one volume set (a `const` in schema.json once made every SDK send it).
      expect(made[3]!.body).not.toHaveProperty("target");
      expect(made[4]!.body).toMatchObject({ name: "robot", description: "first" });
      expect(made[5]!.body).toEqual({ description: "ci" });

      expect(resources.map((r) => r.type.replace("cpln-native:index:", "")).sort()).toEqual(
        ["pulumi:providers:cpln-native", "pulumi:pulumi:Stack", ...TYPES].sort(),
      );
      expect(byType(resources, "VolumeSet").outputs).toMatchObject({
        selfLink: `/org/${org}/gvc/default/volumeset/data`,
        description: "first",
        initialCapacity: 10,
      });
      expect(byType(resources, "PolicyBinding").outputs).toMatchObject({
        policy: `/org/${org}/policy/access`,
        permissions: ["view"],
        principalLinks: [`/org/${org}/serviceaccount/robot`],
      });
      const key = byType(resources, "ServiceAccountKey");
      expect(isCiphertext(key.outputs!.key)).toBe(true);
      const stackOutputs = resources.find((r) => r.type === "pulumi:pulumi:Stack")!.outputs!;
      expect(stackOutputs.volumeSet).toBe(`/org/${org}/gvc/default/volumeset/data`);
      expect(isCiphertext(stackOutputs.robotKey)).toBe(true);
      // The key the server issued works, and neither it nor the admin token is anywhere in the state.
      const plaintext = (await pulumiIn(program.work, ["stack", "output", "robotKey", "--show-secrets"])).stdout.trim();
      expect(plaintext.length).toBeGreaterThan(20);
      const asRobot = await fetch(`${server.url}/org/${org}/gvc/default/volumeset/data`, {
        headers: { authorization: `Bearer ${plaintext}` },
      });
      expect(asRobot.status).toBe(200);
      // What the policy grants: `view` on the volume set it names, nothing on the one it does not.
      const otherAsRobot = await fetch(`${server.url}/org/${org}/gvc/default/volumeset/other`, {
        headers: { authorization: `Bearer ${plaintext}` },
      });
      expect(otherAsRobot.status).toBe(404);
      expect(text).not.toContain(plaintext);
      expect(text).not.toContain(server.adminKey);
    });

    if (imported) {
      it(`the program ran on the SDK's package (${imported.what}), not a generated directory`, async () => {
        await imported.check(program.work);
      });
    }

    it("up with another note patches the three descriptions, nothing else", async () => {
      await program.up("second");
      expect(writes(server)).toEqual([
        { line: `PATCH /org/${org}/gvc/default/volumeset/data 200`, body: { description: "second" } },
        { line: `PATCH /org/${org}/policy/access 200`, body: { description: "second" } },
        { line: `PATCH /org/${org}/serviceaccount/robot 200`, body: { description: "second" } },
      ]);
      const { resources } = await exportState(program.work);
      for (const type of ["VolumeSet", "Policy", "ServiceAccount"]) {
        expect(byType(resources, type).outputs!.description, type).toBe("second");
      }
    });

    it("destroy deletes what up made (binding and key first) and leaves an empty stack", async () => {
      await program.destroy();
      // In the order made: the binding leaves the policy, and the key the service account, before they are deleted.
      const order = server.requests().map((r) => `${r.method} ${r.path} ${JSON.stringify(r.body ?? null)}`);
      const at = (prefix: string) => order.findIndex((line) => line.startsWith(prefix));
      expect(at(`PATCH /org/${org}/policy/access {"$patch/bindings"`)).toBeGreaterThanOrEqual(0);
      expect(at(`PATCH /org/${org}/policy/access {"$patch/bindings"`)).toBeLessThan(
        at(`DELETE /org/${org}/policy/access`),
      );
      expect(at(`PATCH /org/${org}/serviceaccount/robot {"$drop/keys"`)).toBeGreaterThanOrEqual(0);
      expect(at(`PATCH /org/${org}/serviceaccount/robot {"$drop/keys"`)).toBeLessThan(
        at(`DELETE /org/${org}/serviceaccount/robot`),
      );
      expect(writes(server)).toEqual([
        { line: `DELETE /org/${org}/gvc/default/volumeset/data 202`, body: undefined },
        { line: `DELETE /org/${org}/policy/access 202`, body: undefined },
        { line: `DELETE /org/${org}/serviceaccount/robot 202`, body: undefined },
        { line: `PATCH /org/${org}/policy/access 200`, body: { "$drop/bindings": ["view"] } },
        {
          line: `PATCH /org/${org}/policy/access 200`,
          body: {
            "$patch/bindings": [
              { permissions: ["view"], "$drop/principalLinks": [`/org/${org}/serviceaccount/robot`] },
            ],
            tags: { [markerTag]: null },
          },
        },
        {
          line: `PATCH /org/${org}/serviceaccount/robot 200`,
          body: { "$drop/keys": [keyName], tags: { [`cpln/pulumiServiceAccountKey.${keyName}`]: null } },
        },
      ]);
      const { resources } = await exportState(program.work);
      expect(resources).toEqual([]);
      for (const link of [`gvc/default/volumeset/data`, `policy/access`, `serviceaccount/robot`]) {
        const response = await fetch(`${server.url}/org/${org}/${link}`, {
          headers: { authorization: `Bearer ${server.adminKey}` },
        });
        expect(response.status, link).toBe(404);
      }
    });
  });
}

/** The stack config every program gets: the plugin's endpoint, org and (secret) token, and the note. */
function stackConfig(server: RunningServer, project: string, note: string) {
  return {
    "cpln-native:endpoint": { value: server.url },
    "cpln-native:org": { value: server.org },
    "cpln-native:token": { value: server.adminKey, secret: true },
    [`${project}:note`]: { value: note },
  };
}

/**
 * A project directory run with `pulumi up`, as a user runs it: `Pulumi.yaml` (`pulumiYaml`), the program's files,
 * a stack `dev` with the plugin's config. The language host is the one `npm run engine` built, on PATH.
 */
async function projectProgram(
  server: RunningServer,
  work: string,
  project: string,
  files: Record<string, string>,
): Promise<Program> {
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(work, name), text);
  await pulumiIn(work, ["stack", "init", "dev"]);
  const config = stackConfig(server, project, "first");
  for (const [key, item] of Object.entries(config)) {
    if (key === `${project}:note`) continue;
    // The token goes in on stdin (`pulumi config set KEY` reads the value there), never on a command line.
    await pulumiIn(work, ["config", "set", ...("secret" in item ? ["--secret"] : []), key], item.value);
  }
  return {
    work,
    up: async (note) => {
      await pulumiIn(work, ["config", "set", "note", note]);
      await pulumiIn(work, ["up", "--yes", "--skip-preview"]);
    },
    destroy: async () => void (await pulumiIn(work, ["destroy", "--yes", "--skip-preview"])),
  };
}

scenario(
  "nodejs",
  async (server, work) => {
    // What `pulumi new typescript` writes, then `npm install <the release's tarball>` (its dependencies from npm's
    // cache where it has them).
    const template = path.join(repoRoot, "test", "fixtures", "pulumi-template", "nodenext");
    const packageJson = fs.readFileSync(path.join(template, "package.json"), "utf8");
    fs.writeFileSync(path.join(work, "package.json"), packageJson.replace("${PROJECT}", "cpln-nodejs"));
    fs.copyFileSync(path.join(template, "tsconfig.json"), path.join(work, "tsconfig.json"));
    const install = ["install", "--prefer-offline", "--no-audit", "--no-fund", sdks.npmTarball];
    succeeded("npm install", await run("npm", install, { cwd: work, env: env(work), timeoutMs: 600_000 }));
    return projectProgram(server, work, "cpln-nodejs", {
      "Pulumi.yaml": "name: cpln-nodejs\nruntime:\n  name: nodejs\n  options:\n    packagemanager: npm\n",
      "index.ts": docProgram("nodejs"),
    });
  },
  {
    what: "the release's npm tarball, npm-installed into the project",
    check: async (work) => expectTarballInstalled(work, sdks),
  },
);

scenario(
  "python",
  async (server, work) => {
    // The virtualenv `pulumi new python` makes, here one with `pulumi` and the release's wheel (sdkPackages.ts).
    fs.symlinkSync(sdks.venv, path.join(work, "venv"));
    return projectProgram(server, work, "cpln-python", {
      "Pulumi.yaml": "name: cpln-python\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n",
      "__main__.py": docProgram("python"),
    });
  },
  {
    what: "the wheel pip installed into the venv",
    check: async (work) => expectWheelImported(path.join(work, "venv"), sdks, env(work)),
  },
);

scenario(
  "go",
  async (server, work) => {
    // go.mod requires the SDK's module at the version the proxy serves; no `replace`: `go` downloads its zip.
    const goMod = fs.readFileSync(path.join(repoRoot, "test", "engine", "languages", "go", "go.mod"), "utf8");
    const required = `\t${GO_MODULE} v0.0.0\n`;
    if (!goMod.includes(required)) throw new Error(`test/engine/languages/go/go.mod has no line ${required.trim()}`);
    return projectProgram(server, work, "cpln-go", {
      "Pulumi.yaml": "name: cpln-go\nruntime: go\n",
      "go.mod": goMod.replace(required, `\t${GO_MODULE} ${sdks.goVersion}\n`),
      "go.sum": fs.readFileSync(path.join(repoRoot, "test", "engine", "languages", "go", "go.sum"), "utf8"),
      "main.go": docProgram("go"),
    });
  },
  {
    what: "the module go downloaded from the proxy into its module cache",
    check: async (work) => expectModuleImported(work, sdks, env(work)),
  },
);

scenario("yaml", async (server, work) =>
  projectProgram(server, work, "cpln-yaml", { "Pulumi.yaml": docProgram("yaml") }),
);

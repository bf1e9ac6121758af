/**
 * `npm run demo` (the compiled tools/demo.js) with the engine `npm run engine` built: exits 0 and prints what the
 * README promises — the resources with their ids, the single PATCH the edit sent, the stack outputs (quotas as
 * current/max, the volume set's self link, the access report), and that nothing was left running. Without a Pulumi
 * CLI it never runs a stand-in: with Go on PATH it states the build's cost before building (here a `go` that fails,
 * so the build stops at once), without Go it says in one line how to install Pulumi; both exit 1 and start nothing.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { engine, skipWithoutEngine } from "./support.js";

const repoRoot = path.resolve(__dirname, "..", "..");
const demo = path.join(repoRoot, "dist", "tools", "demo.js");

describe.skipIf(skipWithoutEngine)("npm run demo", () => {
  it("runs examples/quickstart against a fresh cpln-local and prints the steps, the edit's PATCH and the outputs", () => {
    const env = { ...process.env };
    delete env.CPLN_TOKEN;
    delete env.CPLN_ENDPOINT;
    delete env.CPLN_ORG;
    const result = spawnSync(process.execPath, [demo], {
      cwd: repoRoot,
      env,
      encoding: "utf8",
      timeout: 900_000,
    });
    const output = `${result.stdout}${result.stderr}`;
    expect(result.status, output).toBe(0);

    expect(output).toMatch(/^cpln-local is serving org "demo" at http:\/\/127\.0\.0\.1:\d+ /m);
    expect(output).toMatch(/\+ VolumeSet data +created +\/org\/demo\/gvc\/default\/volumeset\/data-[0-9a-f]{7}$/m);
    expect(output).toMatch(/\+ Policy data-access +created +\/org\/demo\/policy\/data-access-[0-9a-f]{7}$/m);
    expect(output).toMatch(/\+ Location aws-us-west-2 +created +\/org\/demo\/location\/aws-us-west-2$/m);
    // The engine `npm run engine` built (its cache) comes first.
    const binDir = engine.available ? engine.binDir : "";
    expect(output).toContain(
      `Running examples/quickstart with the Pulumi CLI ${path.basename(path.dirname(binDir)).split("-")[1]} (${binDir}; Automation API, inline program, local file backend).`,
    );
    expect(output).toContain("3 unchanged; 0 requests that change anything");

    const patches = output.match(/^ {4}PATCH .*$/gm) ?? [];
    expect(patches).toHaveLength(1);
    expect(patches[0]).toMatch(/^ {4}PATCH \/org\/demo\/policy\/data-access-[0-9a-f]{7} → 200$/);
    expect(output).toContain(
      '{"$patch/bindings":[{"permissions":["view"],"$append/principalLinks":["/org/demo/serviceaccount/ci-bot"]}]}',
    );

    expect(output).toMatch(/^ {2}volumeSetSelfLink: \/org\/demo\/gvc\/default\/volumeset\/data-[0-9a-f]{7}$/m);
    expect(output).toMatch(/^ {4}volumesets-per-gvc: 1\/\d+$/m);
    expect(output).toMatch(/^ {4}view: \[.*"\/org\/demo\/group\/viewers".*\]$/m);
    expect(output).toMatch(/- Policy data-access +deleted/);
    // The builtin location is put back as it was, not deleted, and the demo says so.
    expect(output).toMatch(/- Location aws-us-west-2 +restored/);
    expect(output).not.toMatch(/Location aws-us-west-2 +deleted/);
    expect(output).toMatch(/no process left running\.$/m);
  });
});

describe("npm run demo without a Pulumi CLI", () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-demo-nocli-"));
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

  /**
   * The tools the demo and scripts/engine.sh call, and nothing else: a directory of links to them, so PATH holds no
   * `pulumi` and no `go` wherever the machine installed them.
   */
  const tools = path.join(scratch, "tools");
  fs.mkdirSync(tools);
  for (const tool of [
    "bash",
    "dirname",
    "basename",
    "sed",
    "head",
    "cat",
    "sha256sum",
    "cut",
    "flock",
    "mkdir",
    "rm",
  ]) {
    const found = spawnSync("bash", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim();
    if (found === "") throw new Error(`${tool} is not installed`);
    fs.symlinkSync(found, path.join(tools, tool));
  }

  /** The demo with no CLI anywhere it looks: an empty engine cache and HOME, PATH the tools above and `extra`. */
  function demoWithout(extra: string[]): { status: number | null; stdout: string; stderr: string } {
    const home = fs.mkdtempSync(path.join(scratch, "home-"));
    const env: NodeJS.ProcessEnv = {
      PATH: [...extra, tools].join(path.delimiter),
      HOME: home,
      CPLN_PULUMI_CACHE: path.join(home, "cache"),
      GOPATH: path.join(home, "go"),
    };
    const result = spawnSync(process.execPath, [demo], { cwd: repoRoot, env, encoding: "utf8", timeout: 300_000 });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  it("without Go: one line saying how to install Pulumi, exit 1, nothing started", () => {
    const result = demoWithout([]);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr.trimEnd().split("\n")).toEqual([
      "Pulumi CLI not found (npm run engine's cache, PATH, ~/.pulumi/bin): install it (curl -fsSL https://get.pulumi.com | sh; https://www.pulumi.com/docs/install/) or Go 1.26+ for `npm run engine`, then run `npm run demo` again.",
    ]);
  });

  it("with Go: the build's cost first, then scripts/engine.sh's own lines; a failed build is exit 1, no stand-in", () => {
    // A `go` that answers `go version` and fails every build: the demo must build, not fall back.
    const fakeGo = fs.mkdtempSync(path.join(scratch, "go-"));
    fs.writeFileSync(
      path.join(fakeGo, "go"),
      '#!/bin/sh\nif [ "$1" = version ]; then echo "go version go1.26.0 linux/amd64"; exit 0; fi\necho "go: no network here" >&2\nexit 1\n',
      { mode: 0o755 },
    );
    const result = demoWithout([fakeGo]);
    expect(result.status).toBe(1);
    expect(result.stdout.split("\n")[0]).toBe(
      "Pulumi CLI not found (npm run engine's cache, PATH, ~/.pulumi/bin): building it from the Go module proxy with `npm run engine` (scripts/engine.sh) — about 6 minutes on 2 idle cores the first time, longer on busy ones; then cached and reused (seconds).",
    );
    expect(result.stderr).toMatch(/^engine: \[1\/\d+, \d+ s\] /m);
    expect(result.stderr).toMatch(/^demo: scripts\/engine\.sh failed \(exit \d+\): see its lines above$/m);
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/stand-in|cpln-local is serving|^\s+at /m);
  });
});

/**
 * `npm run demo` (the compiled tools/demo.js) exits 0 and prints what the README promises: the resources with their
 * ids, the single PATCH the edit sent, the stack outputs (quotas as current/max, the volume set's self link, the
 * access report), and that nothing was left running.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { engine } from "../engine/support.js";

const repoRoot = path.resolve(__dirname, "..", "..");

describe("npm run demo", () => {
  it("runs examples/quickstart against a fresh cpln-local and prints the steps, the edit's PATCH and the outputs", () => {
    const env = { ...process.env };
    delete env.CPLN_TOKEN;
    delete env.CPLN_ENDPOINT;
    delete env.CPLN_ORG;
    const result = spawnSync(process.execPath, [path.join(repoRoot, "dist", "tools", "demo.js")], {
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
    // The real engine when `npm run engine` has built it (its cache), else whatever CLI is installed, else the runner.
    if (engine.available) {
      expect(output).toContain(
        `Running examples/quickstart with the Pulumi CLI ${path.basename(path.dirname(engine.binDir)).split("-")[1]} (${engine.binDir}; Automation API, inline program, local file backend).`,
      );
    } else {
      expect(output).toMatch(
        /^(Pulumi CLI not found .*offline program runner, a stand-in for the Pulumi engine\.|Running examples\/quickstart with the Pulumi CLI .*)$/m,
      );
    }
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

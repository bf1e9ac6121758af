// What CI's Schemathesis run is told (issue 39 items 7 and 8): at least 25 examples per operation by default, and the
// join script's documented 400 for a provider without one taken as a refusal the schema cannot state, on that
// operation only (the status is the API document's; the fuzzer is configured, not pleased).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const script = readFileSync(join(__dirname, "..", "..", "scripts", "schemathesis.sh"), "utf8");
const config = script.slice(script.indexOf("<<'TOML'"), script.indexOf("\nTOML\n"));

/** The `[[operations]]` blocks of the config: their lines, keyed by the path regex they include. */
function operations(): Map<string, string[]> {
  const blocks = new Map<string, string[]>();
  for (const block of config.split("[[operations]]").slice(1)) {
    const lines = block.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#") && !l.startsWith("["));
    const regex = /^include-path-regex = "(.*)"$/m.exec(block)?.[1] ?? "";
    blocks.set(regex, lines);
  }
  return blocks;
}

describe("scripts/schemathesis.sh", () => {
  it("runs all checks with at least 25 examples per operation by default", () => {
    expect(script).toContain("--checks all");
    const examples = /--max-examples "\$\{SCHEMATHESIS_MAX_EXAMPLES:-(\d+)\}"/.exec(script)?.[1];
    expect(Number(examples)).toBeGreaterThanOrEqual(25);
  });

  it("takes 400 as the join script's refusal for POST .../mk8s/{name}/-join only", () => {
    const join = operations().get("^/org/[^/]+/mk8s/[^/]+/-join$");
    expect(join).toBeDefined();
    expect(join).toContain('include-method = "POST"');
    const statuses = join?.find((l) => l.startsWith("checks.positive_data_acceptance.expected-statuses"));
    expect(JSON.parse(statuses?.split(" = ")[1] ?? "[]")).toContain("400");
    // The regex matches the join operation's path template and no other operation's.
    const regex = new RegExp("^/org/[^/]+/mk8s/[^/]+/-join$");
    expect(regex.test("/org/{org}/mk8s/{name}/-join")).toBe(true);
    expect(regex.test("/org/{org}/mk8s/{name}")).toBe(false);
    expect(regex.test("/org/{org}/mk8s/{name}/-cacerts")).toBe(false);
  });

  it("takes 413 (a body over the 1 MiB limit) as a refusal of negative data, on every operation", () => {
    const global = /\[checks\.negative_data_rejection\]\nexpected-statuses = (\[.*\])/.exec(config)?.[1];
    expect(JSON.parse(global ?? "[]")).toEqual(expect.arrayContaining(["400", "413", "422"]));
    // An operation's own list replaces the global one: each must say 413 too.
    for (const [regex, lines] of operations()) {
      const own = lines.find((l) => l.startsWith("checks.negative_data_rejection.expected-statuses"));
      if (own) expect(JSON.parse(own.split(" = ")[1] ?? "[]"), regex).toContain("413");
    }
  });

  it("every phase runs: fuzzing and stateful over every operation, coverage per operation", () => {
    expect(script).toContain('print("fuzzing,stateful")');
    expect(script).toContain('["examples,coverage"]');
    expect(script).toContain('--phases "${job[0]}"');
  });
});

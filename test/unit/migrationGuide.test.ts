// The migration guide from @pulumiverse/cpln (docs/migrating-from-pulumiverse.md) is generated: the committed page is
// the generator's output for the recorded facts and this package's schema.json, and the generator refuses a mapping
// that does not fit the schemas (a pulumiverse property left unplaced, a stale entry, a rename to nothing).
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { guideText, readGuideInputs } from "../../tools/migration-guide.js";
import { classify, renderGuide } from "../../tools/migration/guide.js";
import { flattenResource } from "../../tools/migration/flatten.js";
import { COVERED_RESOURCES } from "../../tools/migration/extract-pulumiverse.js";
import { propertyMap, resourceMap } from "../../tools/migration/mapping.js";

const repoRoot = path.resolve(__dirname, "..", "..");
const inputs = readGuideInputs(repoRoot);

describe("docs/migrating-from-pulumiverse.md", () => {
  it("is exactly what the generator writes (run npm run gen:migration after changing the schema or the mapping)", async () => {
    const committed = fs.readFileSync(path.join(repoRoot, "docs", "migrating-from-pulumiverse.md"), "utf8");
    expect(committed).toBe(await guideText(repoRoot));
    expect(renderGuide(inputs)).toContain("| `cpln:index/policy:Policy` | [`cpln-native:index:Policy`]");
  });

  it("records its sources: pulumiverse's schema at a commit, the Terraform provider at a tag and commit", () => {
    expect(inputs.pulumiverse.source).toMatchObject({
      repository: "pulumiverse/pulumi-cpln",
      path: "provider/cmd/pulumi-resource-cpln/schema.json",
    });
    expect(inputs.pulumiverse.source.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(inputs.terraform.source).toMatchObject({ repository: "controlplane-com/terraform-provider-cpln" });
    expect(inputs.terraform.source.commit).toMatch(/^[0-9a-f]{40}$/);
  });

  it("places every property of every covered pulumiverse resource, and gives each an import id form", () => {
    expect(Object.keys(inputs.pulumiverse.properties).sort()).toEqual([...COVERED_RESOURCES].sort());
    for (const name of COVERED_RESOURCES) {
      const to = resourceMap[name]?.to;
      expect(to, name).toBeDefined();
      const theirs = inputs.pulumiverse.properties[name] ?? {};
      const rows = classify(
        name,
        theirs,
        flattenResource(inputs.schema, `cpln-native:index:${to}`),
        propertyMap[name]!,
      );
      expect(rows.map((row) => row.path)).toEqual(Object.keys(theirs));
      expect(inputs.terraform.importIds[name]?.form, name).toMatch(/^[A-Z_]+(:[A-Z_]+)?$/);
    }
  });

  it("Policy.gvc and Group.identityMatcher are the same here (accepted as pulumiverse users write them)", () => {
    const rows = (name: string, to: string) =>
      classify(name, inputs.pulumiverse.properties[name] ?? {}, flattenResource(inputs.schema, to), propertyMap[name]!);
    expect(rows("Policy", "cpln-native:index:Policy").find((r) => r.path === "gvc")?.status).toBe("same");
    const group = rows("Group", "cpln-native:index:Group");
    expect(group.filter((r) => r.path.startsWith("identityMatcher")).map((r) => [r.path, r.status])).toEqual([
      ["identityMatcher", "same"],
      ["identityMatcher.expression", "same"],
      ["identityMatcher.language", "same"],
    ]);
  });
});

describe("classify refuses a mapping that does not fit the schemas", () => {
  const prop = (type: string, input = true) => ({ type, input, required: false, secret: false });

  it("a pulumiverse property with neither a counterpart nor an entry is named", () => {
    expect(() => classify("X", { color: prop("string") }, {}, {})).toThrow(
      "X.color (string, absent here) has no mapping entry",
    );
  });

  it("an entry for a property the schemas agree on is stale", () => {
    const entry = { status: "renamed" as const, to: "name", why: "x" };
    expect(() => classify("X", { name: prop("string") }, { name: prop("string") }, { name: entry })).toThrow(
      "X.name: the schemas agree; drop its mapping entry",
    );
  });

  it("a rename to a property this package lacks, and an entry for a property pulumiverse lacks", () => {
    const renamed = { status: "renamed" as const, to: "colour", why: "x" };
    expect(() => classify("X", { color: prop("string") }, {}, { color: renamed })).toThrow(
      'X.color: renamed to "colour", which this package does not have',
    );
    const missing = { status: "missing" as const, why: "x" };
    expect(() => classify("X", {}, {}, { ghost: missing })).toThrow("X.ghost: mapped, but pulumiverse has no such");
  });

  it("an argument there that is only an output here is not the same; an output there may be an argument here", () => {
    expect(() => classify("X", { region: prop("string") }, { region: prop("string", false) }, {})).toThrow(
      "X.region (string, here string) has no mapping entry",
    );
    const rows = classify("X", { region: prop("string", false) }, { region: prop("string") }, {});
    expect(rows).toEqual([
      { path: "region", theirs: prop("string", false), status: "same", to: "region", why: "also an argument here." },
    ]);
  });
});

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
import { propertyMap, propertyMoves, resourceMap, unmappedReason } from "../../tools/migration/mapping.js";

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
        propertyMoves[name],
      );
      expect(rows.map((row) => row.path)).toEqual(Object.keys(theirs));
      expect(inputs.terraform.importIds[name]?.form, name).toMatch(/^[A-Z_]+(:[A-Z_]+)*$/);
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

describe("the app kinds (Gvc, Workload, Secret, Identity, Domain, DomainRoute, Org) have property maps", () => {
  const APP = ["Domain", "DomainRoute", "Gvc", "Identity", "Org", "Secret", "Workload"];
  const rowsOf = (name: string) =>
    classify(
      name,
      inputs.pulumiverse.properties[name] ?? {},
      flattenResource(inputs.schema, `cpln-native:index:${name}`),
      propertyMap[name] ?? {},
      propertyMoves[name],
    );
  const row = (name: string, path: string) => {
    const found = rowsOf(name).find((r) => r.path === path);
    return found && { status: found.status, to: found.to };
  };

  it("each has pulumiverse's properties recorded, every one placed, and a section in the guide (no bare pointer)", () => {
    const guide = renderGuide(inputs);
    // Only these kinds' rows of the Resources table: a kind added later (the scratch kind of
    // test/provider/scratchKind.test.ts, a pulumiverse resource too) keeps the bare pointer until its map is written.
    const rowOf = (name: string) => guide.split("\n").filter((line) => line.includes(`:${name}\` |`));
    for (const name of APP) {
      expect(rowOf(name).length, name).toBeGreaterThan(0);
      for (const line of rowOf(name)) expect(line, name).not.toContain(unmappedReason);
      const theirs = Object.keys(inputs.pulumiverse.properties[name] ?? {});
      expect(theirs.length, name).toBeGreaterThan(5);
      expect(
        rowsOf(name).map((r) => r.path),
        name,
      ).toEqual(theirs);
      expect(guide, name).toContain(`### ${name} → ${name}\n`);
    }
  });

  it("a secret type's block becomes type + data; its fields go inside data", () => {
    expect(row("Secret", "dictionary")).toEqual({ status: "reshaped", to: 'type: "dictionary", data' });
    expect(row("Secret", "opaque.payload")).toEqual({ status: "reshaped", to: "data.payload" });
    expect(row("Secret", "docker")).toEqual({ status: "reshaped", to: 'type: "docker", data' });
    expect(row("Secret", "secretLink")?.status).toBe("missing");
  });

  it("gvc locations, a domain's spec, workload options and firewall, identity policies, the route's domain", () => {
    expect(row("Gvc", "locations")).toEqual({ status: "reshaped", to: "staticPlacement.locationLinks" });
    expect(row("Gvc", "locationQuery.spec.terms[].op")).toEqual({
      status: "renamed",
      to: "staticPlacement.locationQuery.spec.terms[].op",
    });
    expect(row("Gvc", "lightstepTracing.endpoint")).toEqual({
      status: "renamed",
      to: "tracing.provider.lightstep.endpoint",
    });
    expect(row("Domain", "spec.dnsMode")).toEqual({ status: "renamed", to: "dnsMode" });
    expect(row("Domain", "spec.ports[].routes[].mirrors[].percent")).toEqual({
      status: "renamed",
      to: "ports[].routes[].mirror[].percent",
    });
    expect(row("Workload", "options.capacityAi")).toEqual({ status: "renamed", to: "defaultOptions.capacityAI" });
    expect(row("Workload", "localOptions[].autoscaling.keda.triggers[].type")).toEqual({
      status: "reshaped",
      to: "localOptions[].autoscaling.keda.triggers[].type",
    });
    expect(row("Workload", "containers[].env")).toEqual({ status: "reshaped", to: "containers[].env" });
    expect(row("Workload", "firewallSpec.external.outboundAllowCidrs")).toEqual({
      status: "renamed",
      to: "firewallConfig.external.outboundAllowCIDR",
    });
    expect(row("Workload", "jobs[].schedule")).toEqual({ status: "reshaped", to: "job.schedule" });
    expect(row("Workload", "vm.cpu.sockets")).toEqual({ status: "missing", to: undefined });
    expect(row("Identity", "ngsAccessPolicy.pub.allows")).toEqual({ status: "renamed", to: "ngs.pub.allow" });
    expect(row("DomainRoute", "domainLink")).toEqual({ status: "reshaped", to: "domain" });
    expect(row("Org", "accountId")).toEqual({ status: "missing", to: undefined });
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

  it("a move places a subtree where this package has it, inside a free-form object, or as missing", () => {
    const theirs = { spec: prop("object"), "spec.mode": prop("string"), vm: prop("object"), "vm.cpu": prop("integer") };
    const ours = { mode: prop("string"), extra: prop("map<any>") };
    const rows = classify("X", theirs, ours, { spec: { status: "reshaped", why: "flat" } }, [
      { from: "spec", to: "", why: "flat here" },
      { from: "vm", missing: true, why: "no vm" },
    ]);
    expect(rows.map((r) => [r.path, r.status, r.to])).toEqual([
      ["spec", "reshaped", undefined],
      ["spec.mode", "renamed", "mode"],
      ["vm", "missing", undefined],
      ["vm.cpu", "missing", undefined],
    ]);
    const free = classify("X", { keda: prop("object"), "keda.a": prop("string") }, ours, {}, [
      { from: "keda", to: "extra", freeForm: true, why: "free" },
    ]);
    expect(free.map((r) => [r.path, r.status, r.to])).toEqual([
      ["keda", "reshaped", "extra"],
      ["keda.a", "reshaped", "extra.a"],
    ]);
  });

  it("a move landing on nothing here, a free-form move to a typed object, and a move placing nothing", () => {
    const ours = { mode: prop("string") };
    expect(() =>
      classify("X", { "spec.kind": prop("string") }, ours, {}, [{ from: "spec", to: "", why: "x" }]),
    ).toThrow("X.spec.kind (string, absent here, moved to kind (absent)) has no mapping entry");
    expect(() =>
      classify("X", { k: prop("object") }, ours, {}, [{ from: "k", to: "mode", freeForm: true, why: "x" }]),
    ).toThrow("X: move k → mode, which this package does not have as such");
    expect(() => classify("X", {}, ours, {}, [{ from: "gone", to: "mode", why: "x" }])).toThrow(
      "X: move gone → mode places no property",
    );
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

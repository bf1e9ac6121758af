// Check through the real dynamic-provider host: every rule of the contract becomes a failure naming the input
// property, all problems are reported at once, unknown values (preview) are accepted, and no HTTP request is made.
// Needs `npm run build`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  harness,
  programInputs,
  sdk,
  startEnv,
  stopEnv,
  UNKNOWN,
  type DynamicProviderHost,
  type Env,
  type PropertyMap,
} from "./support.js";

let env: Env;
const providers: Record<string, string> = {};

beforeAll(async () => {
  env = await startEnv();
  const capture = async (construct: () => void) => (await programInputs(construct)).inputs.__provider as string;
  providers.VolumeSet = await capture(() => new sdk.VolumeSet("v", { gvc: "default", initialCapacity: 10 }));
  providers.Policy = await capture(() => new sdk.Policy("p", { targetKind: "gvc" }));
  providers.Location = await capture(() => new sdk.Location("l", { name: "aws-us-east-1" }));
  env.server.clearRequests();
});
afterAll(async () => {
  await stopEnv(env);
});

async function check(kind: "VolumeSet" | "Policy" | "Location", inputs: PropertyMap, host?: DynamicProviderHost) {
  const urn = harness.urnFor(`pulumi-nodejs:dynamic/cpln:${kind}`, "x");
  const news = { __logicalName: "x", ...inputs, __provider: providers[kind] as string };
  return (host ?? env.host).check(urn, {}, news);
}

const volumeSet: PropertyMap = { gvc: "default", initialCapacity: 20, performanceClass: "general-purpose-ssd" };
const binding = { permissions: ["view"], principalLinks: ["//group/devs"] };
const policy: PropertyMap = { targetKind: "gvc", target: "all", bindings: [binding] };

const cases: {
  kind: "VolumeSet" | "Policy" | "Location";
  rule: string;
  inputs: PropertyMap;
  property: string;
  reason: RegExp;
}[] = [
  // names, descriptions, tags (every kind)
  {
    kind: "VolumeSet",
    rule: "name pattern",
    inputs: { ...volumeSet, name: "Bad_Name" },
    property: "name",
    reason: /lowercase/,
  },
  {
    kind: "VolumeSet",
    rule: "name length",
    inputs: { ...volumeSet, name: `a${"b".repeat(64)}` },
    property: "name",
    reason: /at most 64/,
  },
  { kind: "Policy", rule: "name pattern", inputs: { ...policy, name: "-x" }, property: "name", reason: /lowercase/ },
  { kind: "Location", rule: "name required", inputs: { enabled: true }, property: "name", reason: /.+/ },
  {
    kind: "VolumeSet",
    rule: "description length",
    inputs: { ...volumeSet, description: "d".repeat(251) },
    property: "description",
    reason: /at most 250/,
  },
  {
    kind: "Location",
    rule: "description length",
    inputs: { name: "aws-us-east-1", description: "d".repeat(251) },
    property: "description",
    reason: /at most 250/,
  },
  {
    kind: "Policy",
    rule: "server tag keys",
    inputs: { ...policy, tags: { "cpln/managed": "yes" } },
    property: "tags.cpln/managed",
    reason: /set by the server/,
  },
  {
    kind: "Location",
    rule: "tag count",
    inputs: { name: "aws-us-east-1", tags: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`t${i}`, "v"])) },
    property: "tags",
    reason: /at most 50/,
  },
  {
    kind: "VolumeSet",
    rule: "unknown property",
    inputs: { ...volumeSet, capacity: 20 },
    property: "capacity",
    reason: /unknown property "capacity"/,
  },
  {
    kind: "VolumeSet",
    rule: "adopt is a boolean",
    inputs: { ...volumeSet, adopt: "yes" },
    property: "adopt",
    reason: /boolean/,
  },
  // volume set capacity, classes and file systems
  {
    kind: "VolumeSet",
    rule: "capacity minimum",
    inputs: { ...volumeSet, initialCapacity: 5 },
    property: "initialCapacity",
    reason: /at least 10/,
  },
  {
    kind: "VolumeSet",
    rule: "capacity maximum",
    inputs: { ...volumeSet, initialCapacity: 70000 },
    property: "initialCapacity",
    reason: /at most 65536/,
  },
  {
    kind: "VolumeSet",
    rule: "capacity per class",
    inputs: { ...volumeSet, performanceClass: "high-throughput-ssd", initialCapacity: 100 },
    property: "initialCapacity",
    reason: /at least 200 GB for performanceClass 'high-throughput-ssd'/,
  },
  {
    kind: "VolumeSet",
    rule: "capacity within maxCapacity",
    inputs: { ...volumeSet, initialCapacity: 50, autoscaling: { maxCapacity: 40 } },
    property: "initialCapacity",
    reason: /must not exceed autoscaling.maxCapacity/,
  },
  {
    kind: "VolumeSet",
    rule: "performance class enum",
    inputs: { ...volumeSet, performanceClass: "turbo" },
    property: "performanceClass",
    reason: /.+/,
  },
  {
    kind: "VolumeSet",
    rule: "performance class required for ext4",
    inputs: { gvc: "default", initialCapacity: 20, fileSystemType: "xfs" },
    property: "performanceClass",
    reason: /required unless fileSystemType is 'shared'/,
  },
  {
    kind: "VolumeSet",
    rule: "shared class needs the shared file system",
    inputs: { ...volumeSet, performanceClass: "shared", fileSystemType: "ext4" },
    property: "fileSystemType",
    reason: /must be 'shared'/,
  },
  {
    kind: "VolumeSet",
    rule: "storage class suffix",
    inputs: { ...volumeSet, storageClassSuffix: "9x" },
    property: "storageClassSuffix",
    reason: /must match/,
  },
  {
    kind: "VolumeSet",
    rule: "custom encryption regions",
    inputs: { ...volumeSet, customEncryption: { regions: { "gcp-us-east1": { keyId: "k" } } } },
    property: "customEncryption.regions.gcp-us-east1",
    reason: /key/i,
  },
  // autoscaling and predictive ranges
  {
    kind: "VolumeSet",
    rule: "maxCapacity minimum",
    inputs: { ...volumeSet, initialCapacity: 10, autoscaling: { maxCapacity: 5 } },
    property: "autoscaling.maxCapacity",
    reason: /at least 10/,
  },
  {
    kind: "VolumeSet",
    rule: "minFreePercentage range",
    inputs: { ...volumeSet, autoscaling: { minFreePercentage: 0 } },
    property: "autoscaling.minFreePercentage",
    reason: /.+/,
  },
  {
    kind: "VolumeSet",
    rule: "scalingFactor minimum",
    inputs: { ...volumeSet, autoscaling: { scalingFactor: 1.05 } },
    property: "autoscaling.scalingFactor",
    reason: /.+/,
  },
  {
    kind: "VolumeSet",
    rule: "lookbackHours range",
    inputs: { ...volumeSet, autoscaling: { predictive: { lookbackHours: 169 } } },
    property: "autoscaling.predictive.lookbackHours",
    reason: /.+/,
  },
  {
    kind: "VolumeSet",
    rule: "projectionHours range",
    inputs: { ...volumeSet, autoscaling: { predictive: { projectionHours: 73 } } },
    property: "autoscaling.predictive.projectionHours",
    reason: /.+/,
  },
  {
    kind: "VolumeSet",
    rule: "minDataPoints range",
    inputs: { ...volumeSet, autoscaling: { predictive: { minDataPoints: 1 } } },
    property: "autoscaling.predictive.minDataPoints",
    reason: /.+/,
  },
  {
    kind: "VolumeSet",
    rule: "predictive needs minFreePercentage",
    inputs: { ...volumeSet, autoscaling: { scalingFactor: 1.5, predictive: { enabled: true } } },
    property: "autoscaling.minFreePercentage",
    reason: /required when autoscaling.predictive.enabled/,
  },
  // snapshots and mount options
  {
    kind: "VolumeSet",
    rule: "retentionDuration format",
    inputs: { ...volumeSet, snapshots: { retentionDuration: "7 days" } },
    property: "snapshots.retentionDuration",
    reason: /number followed by d, h or m/,
  },
  {
    kind: "VolumeSet",
    rule: "schedule at most hourly",
    inputs: { ...volumeSet, snapshots: { schedule: "*/5 * * * *" } },
    property: "snapshots.schedule",
    reason: /minute field must be a single number/,
  },
  {
    kind: "VolumeSet",
    rule: "schedule has five fields",
    inputs: { ...volumeSet, snapshots: { schedule: "0 * * *" } },
    property: "snapshots.schedule",
    reason: /5 fields/,
  },
  {
    kind: "VolumeSet",
    rule: "mount resource length",
    inputs: { ...volumeSet, mountOptions: { resources: { maxCpu: "1".repeat(21) } } },
    property: "mountOptions.resources.maxCpu",
    reason: /at most 20/,
  },
  {
    kind: "VolumeSet",
    rule: "mount resource spread",
    inputs: { ...volumeSet, mountOptions: { resources: { minCpu: "500m", maxCpu: "6000m" } } },
    property: "mountOptions.resources.maxCpu",
    reason: /within 4000m/,
  },
  // policies
  {
    kind: "Policy",
    rule: "target kind",
    inputs: { ...policy, targetKind: "planet" },
    property: "targetKind",
    reason: /.+/,
  },
  {
    kind: "Policy",
    rule: "permission not in the catalog",
    inputs: { ...policy, bindings: [{ permissions: ["fly"], principalLinks: ["//group/devs"] }] },
    property: "bindings.0.permissions.0",
    reason: /'fly' is not a permission of gvc/,
  },
  {
    kind: "Policy",
    rule: "duplicate binding sets",
    inputs: {
      ...policy,
      bindings: [
        { permissions: ["view", "edit"], principalLinks: ["//group/a"] },
        { permissions: ["edit", "view"], principalLinks: ["//group/b"] },
      ],
    },
    property: "bindings.1.permissions",
    reason: /same permission set/,
  },
  {
    kind: "Policy",
    rule: "binding without permissions",
    inputs: { ...policy, bindings: [{ permissions: [], principalLinks: ["//group/a"] }] },
    property: "bindings.0.permissions",
    reason: /at least one permission/,
  },
  {
    kind: "Policy",
    rule: "principal link form",
    inputs: { ...policy, bindings: [{ permissions: ["view"], principalLinks: ["devs"] }] },
    property: "bindings.0.principalLinks.0",
    reason: /must be a link to a group/,
  },
  {
    kind: "Policy",
    rule: "duplicate principal",
    inputs: { ...policy, bindings: [{ permissions: ["view"], principalLinks: ["//group/a", "//group/a"] }] },
    property: "bindings.0.principalLinks.1",
    reason: /duplicate principal/,
  },
  {
    kind: "Policy",
    rule: "target links of the target kind",
    inputs: { targetKind: "gvc", targetLinks: ["//policy/p"] },
    property: "targetLinks.0",
    reason: /link to .*gvc/,
  },
  {
    kind: "Policy",
    rule: "targetQuery =~ is RE2 (no look-around)",
    inputs: { ...policy, targetQuery: { spec: { terms: [{ op: "=~", property: "name", value: "a(?=b)" }] } } },
    property: "targetQuery.spec.terms.0.value",
    reason: /look-ahead or look-behind, which RE2 .* does not support/,
  },
  {
    kind: "Policy",
    rule: "targetQuery =~ syntax",
    inputs: { ...policy, targetQuery: { spec: { terms: [{ op: "=~", property: "name", value: "a(" }] } } },
    property: "targetQuery.spec.terms.0.value",
    reason: /^invalid regular expression: .*missing closing \)/,
  },
  {
    kind: "Policy",
    rule: "bindings count",
    inputs: {
      ...policy,
      bindings: Array.from({ length: 51 }, (_, i) => ({ permissions: ["view"], principalLinks: [`//group/g${i}`] })),
    },
    property: "bindings",
    reason: /at most 50/,
  },
];

describe("check failures", () => {
  it.each(cases)("$kind: $rule → failure at $property", async ({ kind, inputs, property, reason }) => {
    const result = await check(kind, inputs);
    const failure = result.failures.find((f) => f.property === property);
    expect(failure, JSON.stringify(result.failures)).toBeDefined();
    expect(failure?.reason).toMatch(reason);
  });

  it("reports every problem of the args at once, each at its own property", async () => {
    const result = await check("VolumeSet", {
      ...volumeSet,
      name: "Bad_Name",
      description: "d".repeat(300),
      snapshots: { retentionDuration: "forever", schedule: "* * * * *" },
      autoscaling: { minFreePercentage: 101, predictive: { lookbackHours: 0 } },
      extra: true,
    });
    expect(result.failures.map((f) => f.property).sort()).toEqual(
      [
        "autoscaling.minFreePercentage",
        "autoscaling.predictive.lookbackHours",
        "description",
        "extra",
        "name",
        "snapshots.retentionDuration",
        "snapshots.schedule",
      ].sort(),
    );
  });

  it("valid args pass, completed with the generated name, description, file system and org", async () => {
    const result = await check("VolumeSet", volumeSet);
    expect(result.failures).toEqual([]);
    expect(result.inputs).toMatchObject({
      ...volumeSet,
      name: expect.stringMatching(/^x-[0-9a-f]{7}$/),
      description: result.inputs.name,
      fileSystemType: "ext4",
      org: env.server.org,
      __nameGenerated: true,
    });
    // A shared file system takes snapshots and customEncryption, as the real API does (terraform-provider-cpln's
    // acceptance test sets both on a shared volume set).
    const shared = await check("VolumeSet", {
      gvc: "default",
      initialCapacity: 20,
      fileSystemType: "shared",
      snapshots: { retentionDuration: "1d" },
      customEncryption: { regions: { "aws-us-west-2": { keyId: "arn:aws:kms:us-west-2:1:key/k" } } },
    });
    expect(shared.failures).toEqual([]);
    const named = await check("Policy", { ...policy, name: "mine", bindings: [binding] });
    expect(named.failures).toEqual([]);
    expect(named.inputs).toMatchObject({
      name: "mine",
      __nameGenerated: false,
      bindings: [{ permissions: ["view"], principalLinks: [`/org/${env.server.org}/group/devs`] }],
    });
  });
});

describe("preview: unknown values", () => {
  it("unknown values anywhere are accepted", async () => {
    const volume = await check("VolumeSet", {
      gvc: UNKNOWN,
      initialCapacity: UNKNOWN,
      performanceClass: "high-throughput-ssd",
      autoscaling: { maxCapacity: UNKNOWN, predictive: UNKNOWN },
      tags: UNKNOWN,
      name: UNKNOWN,
    });
    expect(volume.failures).toEqual([]);
    expect(volume.inputs).toMatchObject({ initialCapacity: UNKNOWN, name: UNKNOWN });
    const pol = await check("Policy", {
      targetKind: "gvc",
      targetLinks: [UNKNOWN],
      bindings: [{ permissions: ["view"], principalLinks: [UNKNOWN, "//group/devs"] }],
    });
    expect(pol.failures).toEqual([]);
  });

  it("known problems are still reported next to unknown values", async () => {
    const result = await check("VolumeSet", {
      ...volumeSet,
      initialCapacity: UNKNOWN,
      snapshots: { retentionDuration: "soon" },
    });
    expect(result.failures.map((f) => f.property)).toEqual(["snapshots.retentionDuration"]);
  });
});

describe("preview: diff with unknown values", () => {
  it("an unknown mutable value is a change, an unknown immutable one a replace; diff sends nothing", async () => {
    const urn = harness.urnFor("pulumi-nodejs:dynamic/cpln:VolumeSet", "x");
    const { inputs } = await check("VolumeSet", { ...volumeSet, name: "fixed" });
    const outputs = { ...inputs, tags: {}, selfLink: "/org/o/gvc/default/volumeset/fixed", version: 1 };
    const diff = (news: PropertyMap) => env.host.diff("/org/o/gvc/default/volumeset/fixed", urn, outputs, news);
    expect(await diff(inputs)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    expect(await diff({ ...inputs, initialCapacity: UNKNOWN })).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(await diff({ ...inputs, gvc: UNKNOWN })).toEqual({
      changes: true,
      replaces: ["gvc"],
      deleteBeforeReplace: true,
    });
  });
});

describe("org resolution", () => {
  it("without an org input, cpln:org or CPLN_ORG, check fails at `org` and sends nothing", async () => {
    const host = await harness.startHost({ env: { CPLN_ORG: undefined } });
    try {
      await host.configure({ "cpln:token": env.server.adminKey, "cpln:endpoint": env.server.url }, ["cpln:token"]);
      const result = await check("VolumeSet", volumeSet, host);
      expect(result.failures).toEqual([
        { property: "org", reason: expect.stringMatching(/set the org input, the cpln:org stack config or CPLN_ORG/) },
      ]);
      const withOrg = await check("VolumeSet", { ...volumeSet, org: "acme" }, host);
      expect(withOrg.failures).toEqual([]);
      expect(withOrg.inputs.org).toBe("acme");
    } finally {
      await host.stop();
    }
  });
});

describe("requests", () => {
  it("no check above sent a single request to the server", () => {
    expect(env.server.requests()).toEqual([]);
  });
});

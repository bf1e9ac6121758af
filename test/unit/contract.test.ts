import { describe, expect, it } from "vitest";
import { z } from "zod";
import { apiError, errorCodes, errorStatus, issuesFromZod, validate, type Issue } from "../../api/errors.js";
import { impliedBy, impliedMap, isKind, kindNames, kinds, permissionNames, grantedBy } from "../../api/kinds/index.js";
import { lazy } from "../../api/lazy.js";
import { collectionPath, link, normalizeLink, parseLink, selfLink } from "../../api/links.js";
import {
  accessReport,
  cronProblem,
  gvcPatch,
  listResponse,
  location,
  locationCreate,
  locationPatch,
  mk8sCreate,
  mk8sJoinRequest,
  mk8sProviderName,
  permissionSchema,
  policy,
  policyCreate,
  policyIssues,
  policyPatch,
  queryDocument,
  queryResult,
  queryTerm,
  quota,
  serviceAccountPatch,
  volumeSet,
  volumeSetCreate,
  volumeSetPatch,
  volumeSetSpec,
  volumeSetSpecDefaults,
  volumeSetSpecIssues,
  type VolumeSetSpec,
} from "../../api/schemas/index.js";
import { valueAt, withPaths } from "../support/examples.js";

/** Issues of parsing `input`, or [] when it is valid. */
function issuesOf(schema: z.ZodType, input: unknown): Issue[] {
  const result = validate(schema, input);
  return result.ok ? [] : result.issues;
}

function paths(schema: z.ZodType, input: unknown): string[] {
  return issuesOf(schema, input).map((i) => i.path);
}

const uuid = "0b9c5e4e-6f5d-4e8a-9c1b-2a3d4e5f6a7b";
const when = "2026-11-22T02:00:00.000Z";
const base = (kind: string, name: string) => ({
  kind,
  id: uuid,
  name,
  description: name,
  version: 1,
  tags: {},
  created: when,
  lastModified: when,
  links: [{ rel: "self", href: `/org/acme/${kind}/${name}` }],
});

function spec(overrides: Partial<VolumeSetSpec> = {}): VolumeSetSpec {
  return { initialCapacity: 10, performanceClass: "general-purpose-ssd", ...overrides };
}

describe("lazy", () => {
  it("builds once and returns the same value on every call", () => {
    let builds = 0;
    const get = lazy(() => ({ built: ++builds }));
    expect(builds).toBe(0);
    const first = get();
    expect(get()).toBe(first);
    expect(builds).toBe(1);
  });
});

describe("errors", () => {
  it("maps every code to its HTTP status", () => {
    expect(errorStatus.BadRequest).toBe(400);
    expect(errorStatus.Unauthorized).toBe(401);
    expect(errorStatus.Forbidden).toBe(403);
    expect(errorStatus.NotFound).toBe(404);
    expect(errorStatus.MethodNotAllowed).toBe(405);
    expect([errorStatus.AlreadyExists, errorStatus.VersionConflict, errorStatus.InUse, errorStatus.Conflict]).toEqual([
      409, 409, 409, 409,
    ]);
    // The API document: "Join script requested for a provider that does not support it | 400".
    expect(errorStatus.Unsupported).toBe(400);
    expect(errorStatus.PayloadTooLarge).toBe(413);
    expect(errorStatus.UnsupportedMediaType).toBe(415);
    expect([errorStatus.QuotaExceeded, errorStatus.TooManyRequests]).toEqual([429, 429]);
    expect(errorCodes).toHaveLength(14);
  });

  it("apiError accepts the error shape with issues and rejects a body without id", () => {
    const body = {
      status: 400,
      message: "invalid body",
      code: "BadRequest",
      details: { issues: [{ path: "spec.initialCapacity", message: "must be at least 10 GB" }] },
      id: "req-1",
    };
    expect(apiError().parse(body)).toEqual(body);
    expect(paths(apiError(), { status: 404, message: "not found", code: "NotFound" })).toEqual(["id"]);
  });

  it("reports an unknown field at the field's own path", () => {
    const error = z.strictObject({ spec: z.strictObject({ a: z.number() }) }).safeParse({ spec: { a: 1, b: 2, c: 3 } })
      .error as z.ZodError;
    expect(issuesFromZod(error, ["body"])).toEqual([
      { path: "body.spec.b", message: 'Unknown field "b"' },
      { path: "body.spec.c", message: 'Unknown field "c"' },
    ]);
  });
});

describe("kinds", () => {
  it("registers each kind under its own name, with a scope; isKind knows exactly the registered ones", () => {
    expect(Object.keys(kinds).sort()).toEqual([...kindNames].sort());
    for (const kind of kindNames) {
      expect(kinds[kind].kind, kind).toBe(kind);
      expect(["org", "gvc"], kind).toContain(kinds[kind].scope);
      expect(isKind(kind)).toBe(true);
    }
    expect(isKind("no-such-kind")).toBe(false);
    expect(isKind(3)).toBe(false);
  });

  it("every kind declares example bodies its own schemas accept: a create exactly when it is created through the API", () => {
    for (const kind of kindNames) {
      const { examples, schemas } = kinds[kind];
      expect(examples, `${kind} declares no examples`).toBeDefined();
      expect(examples.create === undefined, `${kind}: a create example iff a create schema`).toBe(
        schemas.create === undefined,
      );
      if (examples.create && schemas.create) {
        const parsed = schemas.create().safeParse(examples.create("example-name"));
        expect(parsed.error?.issues ?? [], `${kind} create example`).toEqual([]);
      }
      const patched = schemas.patch().safeParse(examples.patch("m1"));
      expect(patched.error?.issues ?? [], `${kind} patch example`).toEqual([]);
    }
  });

  it("every kind with immutable fields gives another valid value of each (examples.immutableChange), and only then", () => {
    for (const kind of kindNames) {
      const { immutable = [], examples, schemas } = kinds[kind];
      const changes = examples.immutableChange ?? {};
      expect(
        Object.keys(changes).sort(),
        `${kind}: examples.immutableChange names exactly its immutable fields`,
      ).toEqual([...immutable].sort());
      if (immutable.length === 0) continue;
      expect(examples.create && schemas.create, `${kind}: immutable fields are fields of a create body`).toBeTruthy();
      const created = examples.create!("example-name");
      const changed = withPaths(created, changes);
      for (const path of immutable)
        expect(valueAt(changed, path), `${kind}: ${path}`).not.toEqual(valueAt(created, path));
      expect(schemas.create!().safeParse(changed).error?.issues ?? [], `${kind}: the changed create body`).toEqual([]);
    }
  });

  it("makes manage imply every permission of every kind, itself included", () => {
    for (const kind of kindNames) {
      const manage = kinds[kind].permissions.find((p) => p.name === "manage");
      expect(manage, kind).toBeDefined();
      expect([...(manage?.implies ?? [])].sort(), kind).toEqual(permissionNames(kind).sort());
    }
  });

  it("lists permissions in API (alphabetical) order with no duplicates", () => {
    for (const kind of kindNames) {
      const names = permissionNames(kind);
      expect(names, kind).toEqual([...names].sort());
      expect(new Set(names).size, kind).toBe(names.length);
      for (const p of kinds[kind].permissions) {
        for (const implied of p.implies) expect(names, `${kind}.${p.name} → ${implied}`).toContain(implied);
      }
    }
  });

  it("matches the documented catalogs", () => {
    expect(permissionNames("cloudaccount")).toEqual(["browse", "create", "delete", "edit", "manage", "view"]);
    expect(kinds.cloudaccount.permissions.find((p) => p.name === "edit")?.implies).toEqual(["view", "browse"]);
    expect(permissionNames("location")).toEqual(["create", "delete", "edit", "manage", "use", "view"]);
    expect(kinds.location.permissions.find((p) => p.name === "delete")?.description).toBe("Delete byok locations");
    expect(permissionNames("serviceaccount")).toEqual(["addKey", "create", "delete", "edit", "manage", "view"]);
    expect(permissionNames("quota")).toEqual(["create", "edit", "manage", "view"]);
    expect(permissionNames("volumeset")).toEqual([
      "create",
      "delete",
      "edit",
      "exec",
      "exec.createVolumeSnapshot",
      "exec.deleteVolume",
      "exec.deleteVolumeSnapshot",
      "exec.expandVolume",
      "exec.restoreVolume",
      "exec.shrinkVolume",
      "manage",
      "view",
    ]);
    expect(permissionNames("org")).toEqual([
      "edit",
      "exec",
      "exec.echo",
      "grafanaAdmin",
      "manage",
      "readLogs",
      "readMetrics",
      "readUsage",
      "view",
      "viewAccessReport",
    ]);
    expect(permissionNames("mk8s")).toEqual(["create", "delete", "edit", "join", "manage", "view"]);
    expect(permissionNames("gvc")).toEqual(["configureLoadBalancer", "create", "delete", "edit", "manage", "view"]);
    expect(permissionNames("user")).toEqual(["delete", "edit", "impersonate", "invite", "manage", "view"]);
    expect(permissionNames("workload")).toContain("exec.stopReplica");
  });

  it("gives auditctx no delete permission", () => {
    expect(permissionNames("auditctx")).toEqual(["create", "edit", "manage", "readAudit", "view", "writeAudit"]);
    expect(impliedBy("auditctx", "delete")).toEqual([]);
  });

  it("impliedBy lists the permissions that grant one, itself included, transitively", () => {
    expect(impliedBy("cloudaccount", "view")).toEqual(["browse", "edit", "manage", "view"]);
    expect(impliedBy("cloudaccount", "browse")).toEqual(["browse", "edit", "manage"]);
    expect(impliedBy("cloudaccount", "create")).toEqual(["create", "manage"]);
    expect(impliedBy("volumeset", "exec.expandVolume")).toEqual(["exec", "exec.expandVolume", "manage"]);
    expect(impliedBy("location", "use")).toEqual(["manage", "use"]);
    expect(impliedBy("policy", "nonsense")).toEqual([]);
    expect(grantedBy("auditctx", "readAudit")).toEqual(["readAudit", "view"]);
  });

  it("impliedMap lists only the permissions that imply others", () => {
    expect(impliedMap("group")).toEqual({
      edit: ["view"],
      manage: ["create", "delete", "edit", "manage", "view"],
    });
  });
});

describe("links", () => {
  it("builds self links and collection paths for org-, gvc-scoped kinds and the org", () => {
    expect(selfLink("acme", "policy", "p1")).toBe("/org/acme/policy/p1");
    expect(selfLink("acme", "volumeset", "data", "main")).toBe("/org/acme/gvc/main/volumeset/data");
    expect(selfLink("acme", "gvc", "main")).toBe("/org/acme/gvc/main");
    expect(selfLink("acme", "org", "acme")).toBe("/org/acme");
    expect(collectionPath("acme", "group")).toBe("/org/acme/group");
    expect(collectionPath("acme", "volumeset", "main")).toBe("/org/acme/gvc/main/volumeset");
    expect(() => selfLink("acme", "volumeset", "data")).toThrow(/gvc name is required/);
    expect(link("self", "/org/acme")).toEqual({ rel: "self", href: "/org/acme" });
  });

  it("round-trips every kind through selfLink and parseLink", () => {
    for (const kind of kindNames) {
      const gvc = kinds[kind].scope === "gvc" ? "main" : undefined;
      const name = kind === "org" ? "acme" : "thing-1";
      const parsed = parseLink(selfLink("acme", kind, name, gvc));
      expect(parsed, kind).toEqual(gvc ? { org: "acme", kind, name, gvc } : { org: "acme", kind, name });
    }
    expect(parseLink("/org/acme/user/me@example.com")).toEqual({ org: "acme", kind: "user", name: "me@example.com" });
    expect(parseLink("/org/acme/user/me%40example.com")).toEqual({ org: "acme", kind: "user", name: "me@example.com" });
  });

  it("parses collection links and rejects malformed ones", () => {
    expect(parseLink("/org/acme/policy")).toEqual({ org: "acme", kind: "policy" });
    expect(parseLink("/org/acme/gvc/main/volumeset")).toEqual({ org: "acme", kind: "volumeset", gvc: "main" });
    expect(parseLink("//group/admins")).toBeUndefined();
    expect(parseLink("/org/acme/workload/w")).toBeUndefined();
    expect(parseLink("/org/acme/volumeset/v")).toBeUndefined();
    expect(parseLink("/org/acme/gvc/main/policy/p")).toBeUndefined();
    expect(parseLink("/org/acme/policy/p/extra")).toBeUndefined();
    expect(parseLink("/other/acme")).toBeUndefined();
  });

  it("normalizes relative links and leaves full links alone", () => {
    expect(normalizeLink("acme", "//group/admins")).toBe("/org/acme/group/admins");
    expect(normalizeLink("acme", "//gvc/main/volumeset/data")).toBe("/org/acme/gvc/main/volumeset/data");
    expect(normalizeLink("acme", "/org/other/group/admins")).toBe("/org/other/group/admins");
  });
});

describe("common limits", () => {
  const create = (name: string, extra: Record<string, unknown> = {}) =>
    issuesOf(volumeSetCreate(), { name, spec: spec(), ...extra });

  it("accepts a 64-character name and rejects 65 characters, naming the path", () => {
    expect(create(`a${"b".repeat(63)}`)).toEqual([]);
    expect(create(`a${"b".repeat(64)}`)).toEqual([{ path: "name", message: "must be at most 64 characters" }]);
  });

  it("rejects names that break the pattern", () => {
    for (const bad of ["a", "1abc", "Abc", "ab-", "a_b", "-ab"])
      expect(
        create(bad).map((i) => i.path),
        bad,
      ).toEqual(["name"]);
    for (const good of ["ab", "a-1", "data-volume"]) expect(create(good), good).toEqual([]);
  });

  it("accepts a 250-character description and rejects 251", () => {
    expect(create("ab", { description: "d".repeat(250) })).toEqual([]);
    expect(create("ab", { description: "d".repeat(251) })).toEqual([
      { path: "description", message: "must be at most 250 characters" },
    ]);
  });

  it("accepts 50 tags of every value type and rejects 51", () => {
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i % 2 ? "s" : i]));
    expect(create("ab", { tags: { ...fifty, k1: true, k3: null } })).toEqual([]);
    expect(create("ab", { tags: { ...fifty, extra: "x" } })).toEqual([
      { path: "tags", message: "at most 50 tags are allowed" },
    ]);
    expect(issuesOf(volumeSetCreate(), { name: "ab", spec: spec(), tags: { k: { nested: 1 } } })).toEqual([
      { path: "tags.k", message: "must be a string, number, boolean or null" },
    ]);
  });

  it("rejects unknown fields in create bodies with the field's path", () => {
    expect(issuesOf(volumeSetCreate(), { name: "ab", spec: { ...spec(), sise: 3 }, gvc: "main" })).toEqual([
      { path: "spec.sise", message: 'Unknown field "sise"' },
      { path: "gvc", message: 'Unknown field "gvc"' },
    ]);
  });
});

describe("volume set spec limits", () => {
  const at = (input: Record<string, unknown>) => paths(volumeSetSpec(), { initialCapacity: 10, ...input });

  it("bounds initialCapacity to whole GB within 10-65536", () => {
    expect(at({ initialCapacity: 10 })).toEqual([]);
    expect(at({ initialCapacity: 65536 })).toEqual([]);
    expect(at({ initialCapacity: 9 })).toEqual(["initialCapacity"]);
    expect(at({ initialCapacity: 65537 })).toEqual(["initialCapacity"]);
    expect(at({ initialCapacity: 10.5 })).toEqual(["initialCapacity"]);
    expect(paths(volumeSetSpec(), {})).toEqual(["initialCapacity"]);
  });

  it("names the rule a bad customEncryption region key breaks", () => {
    expect(
      issuesOf(volumeSetSpec(), { initialCapacity: 10, customEncryption: { regions: { "gcp-x": { keyId: "k" } } } }),
    ).toEqual([
      {
        path: "customEncryption.regions.gcp-x",
        message: 'Key "gcp-x" must be an AWS location name such as aws-us-east-1',
      },
    ]);
  });

  it("accepts only the documented enums", () => {
    for (const c of ["general-purpose-ssd", "high-throughput-ssd", "shared"])
      expect(at({ performanceClass: c })).toEqual([]);
    expect(at({ performanceClass: "premium-low-latency-ssd" })).toEqual(["performanceClass"]);
    for (const f of ["ext4", "xfs", "shared"]) expect(at({ fileSystemType: f })).toEqual([]);
    expect(at({ fileSystemType: "btrfs" })).toEqual(["fileSystemType"]);
  });

  it("checks storageClassSuffix, retentionDuration and customEncryption regions", () => {
    expect(at({ storageClassSuffix: "fast_1-a" })).toEqual([]);
    expect(at({ storageClassSuffix: "1fast" })).toEqual(["storageClassSuffix"]);
    for (const r of ["7d", "12h", "30m", "1.5d"]) expect(at({ snapshots: { retentionDuration: r } }), r).toEqual([]);
    for (const r of ["7", "d", "7w", "1.d", "-1d"]) {
      expect(at({ snapshots: { retentionDuration: r } }), r).toEqual(["snapshots.retentionDuration"]);
    }
    expect(at({ customEncryption: { regions: { "aws-us-east-1": { keyId: "arn:k" } } } })).toEqual([]);
    expect(at({ customEncryption: { regions: { "gcp-us-east1": { keyId: "k" } } } })).toEqual([
      "customEncryption.regions.gcp-us-east1",
    ]);
  });

  it("accepts hourly-or-rarer cron schedules and rejects the rest", () => {
    for (const s of ["0 * * * *", "15 2 * * 1-5", "0 */6 1,15 JAN-MAR SUN"]) expect(cronProblem(s), s).toBeUndefined();
    expect(cronProblem("*/5 * * * *")).toMatch(/minute field must be a single number/);
    expect(cronProblem("60 * * * *")).toMatch(/minute field/);
    expect(cronProblem("0 * * *")).toBe("must be a cron expression with 5 fields (got 4)");
    expect(cronProblem("0 24 * * *")).toMatch(/hour field/);
    expect(cronProblem("0 1 * * 1/0")).toMatch(/invalid step/);
    expect(at({ snapshots: { schedule: "*/5 * * * *" } })).toEqual(["snapshots.schedule"]);
  });

  it("bounds autoscaling and predictive fields at their documented edges", () => {
    const auto = (a: Record<string, unknown>) => at({ autoscaling: a });
    expect(auto({ maxCapacity: 10, minFreePercentage: 1, scalingFactor: 1.1 })).toEqual([]);
    expect(auto({ minFreePercentage: 100 })).toEqual([]);
    expect(auto({ maxCapacity: 9 })).toEqual(["autoscaling.maxCapacity"]);
    expect(auto({ minFreePercentage: 0 })).toEqual(["autoscaling.minFreePercentage"]);
    expect(auto({ minFreePercentage: 101 })).toEqual(["autoscaling.minFreePercentage"]);
    expect(auto({ scalingFactor: 1.09 })).toEqual(["autoscaling.scalingFactor"]);
    const pred = (p: Record<string, unknown>) => auto({ predictive: p });
    expect(
      pred({
        enabled: true,
        lookbackHours: 168,
        projectionHours: 72,
        minDataPoints: 100,
        minGrowthRateGBPerHour: 0,
        scalingFactor: 1.1,
      }),
    ).toEqual([]);
    expect(pred({ lookbackHours: 1, projectionHours: 1, minDataPoints: 2 })).toEqual([]);
    expect(pred({ lookbackHours: 169 })).toEqual(["autoscaling.predictive.lookbackHours"]);
    expect(pred({ lookbackHours: 0 })).toEqual(["autoscaling.predictive.lookbackHours"]);
    expect(pred({ projectionHours: 73 })).toEqual(["autoscaling.predictive.projectionHours"]);
    expect(pred({ minDataPoints: 1 })).toEqual(["autoscaling.predictive.minDataPoints"]);
    expect(pred({ minDataPoints: 101 })).toEqual(["autoscaling.predictive.minDataPoints"]);
    expect(pred({ minGrowthRateGBPerHour: -0.01 })).toEqual(["autoscaling.predictive.minGrowthRateGBPerHour"]);
    expect(pred({ scalingFactor: 1 })).toEqual(["autoscaling.predictive.scalingFactor"]);
  });

  it("limits mount resource strings to 20 characters and to quantities", () => {
    const res = (r: Record<string, unknown>) => at({ mountOptions: { resources: r } });
    expect(res({ minCpu: "500m", maxCpu: "2", minMemory: "1Gi", maxMemory: "2048Mi" })).toEqual([]);
    expect(res({ maxCpu: `${"1".repeat(19)}m` })).toEqual([]);
    expect(res({ maxCpu: `${"1".repeat(20)}m` })).toEqual(["mountOptions.resources.maxCpu"]);
    expect(res({ minMemory: "1GB" })).toEqual(["mountOptions.resources.minMemory"]);
  });
});

describe("volumeSetSpecIssues", () => {
  it("accepts a minimal general-purpose spec and a shared file system without a class", () => {
    expect(volumeSetSpecIssues(spec())).toEqual([]);
    expect(volumeSetSpecIssues({ initialCapacity: 10, fileSystemType: "shared" })).toEqual([]);
    expect(volumeSetSpecIssues({ initialCapacity: 10, performanceClass: "shared" })).toEqual([]);
  });

  it("requires a class unless the file system is shared", () => {
    expect(volumeSetSpecIssues({ initialCapacity: 10 })).toEqual([
      { path: "spec.performanceClass", message: "is required unless fileSystemType is 'shared'" },
    ]);
  });

  it("rejects mismatched class and file-system combinations", () => {
    expect(volumeSetSpecIssues(spec({ fileSystemType: "shared" }))).toEqual([
      { path: "spec.performanceClass", message: "must be 'shared' when fileSystemType is 'shared'" },
    ]);
    expect(volumeSetSpecIssues({ initialCapacity: 10, performanceClass: "shared", fileSystemType: "xfs" })).toEqual([
      { path: "spec.fileSystemType", message: "must be 'shared' when performanceClass is 'shared'" },
    ]);
  });

  it("applies the per-class capacity floor (200 GB for high-throughput-ssd)", () => {
    expect(volumeSetSpecIssues(spec({ performanceClass: "high-throughput-ssd", initialCapacity: 200 }))).toEqual([]);
    expect(volumeSetSpecIssues(spec({ performanceClass: "high-throughput-ssd", initialCapacity: 199 }))).toEqual([
      { path: "spec.initialCapacity", message: "must be at least 200 GB for performanceClass 'high-throughput-ssd'" },
    ]);
  });

  it("keeps initialCapacity within autoscaling.maxCapacity", () => {
    expect(volumeSetSpecIssues(spec({ initialCapacity: 50, autoscaling: { maxCapacity: 50 } }))).toEqual([]);
    expect(volumeSetSpecIssues(spec({ initialCapacity: 51, autoscaling: { maxCapacity: 50 } }))).toEqual([
      { path: "spec.initialCapacity", message: "must not exceed autoscaling.maxCapacity (50 GB)" },
    ]);
  });

  it("requires minFreePercentage and scalingFactor when predictive scaling is enabled", () => {
    expect(volumeSetSpecIssues(spec({ autoscaling: { predictive: { enabled: false } } }))).toEqual([]);
    expect(
      volumeSetSpecIssues(
        spec({ autoscaling: { minFreePercentage: 10, scalingFactor: 1.5, predictive: { enabled: true } } }),
      ),
    ).toEqual([]);
    expect(volumeSetSpecIssues(spec({ autoscaling: { predictive: { enabled: true } } }), "")).toEqual([
      { path: "autoscaling.minFreePercentage", message: "is required when autoscaling.predictive.enabled is true" },
      { path: "autoscaling.scalingFactor", message: "is required when autoscaling.predictive.enabled is true" },
    ]);
  });

  it("takes snapshots and custom encryption on a shared file system (the real API does)", () => {
    expect(
      volumeSetSpecIssues({
        initialCapacity: 10,
        fileSystemType: "shared",
        snapshots: { retentionDuration: "7d" },
        customEncryption: { regions: {} },
      }),
    ).toEqual([]);
  });

  it("checks mount resource ranges: max ≥ min, spread ≤ 4000m/4096Mi, min ≥ max/4", () => {
    const res = (r: Record<string, string>) => volumeSetSpecIssues(spec({ mountOptions: { resources: r } }));
    expect(res({ minCpu: "500m", maxCpu: "2000m", minMemory: "1Gi", maxMemory: "2Gi" })).toEqual([]);
    expect(res({ minCpu: "2", maxCpu: "1" })).toEqual([
      { path: "spec.mountOptions.resources.maxCpu", message: "must not be less than minCpu (2)" },
    ]);
    expect(res({ minCpu: "2000m", maxCpu: "6001m" })).toEqual([
      { path: "spec.mountOptions.resources.maxCpu", message: "must be within 4000m of minCpu (2000m)" },
    ]);
    expect(res({ minMemory: "256Mi", maxMemory: "2Gi" })).toEqual([
      { path: "spec.mountOptions.resources.maxMemory", message: "must be at most 4 times minMemory (256Mi)" },
    ]);
  });

  it("fills the file-system and class defaults", () => {
    expect(volumeSetSpecDefaults({ initialCapacity: 10, performanceClass: "general-purpose-ssd" }).fileSystemType).toBe(
      "ext4",
    );
    expect(volumeSetSpecDefaults({ initialCapacity: 10, fileSystemType: "shared" }).performanceClass).toBe("shared");
    expect(volumeSetSpecDefaults({ initialCapacity: 10, performanceClass: "shared" }).fileSystemType).toBe("shared");
  });
});

describe("volume set records and patches", () => {
  it("parses a server record and keeps unknown fields", () => {
    const record = {
      ...base("volumeset", "data"),
      gvc: {},
      spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd", fileSystemType: "ext4", future: 1 },
      status: { parentId: uuid, locations: [{ name: "aws-us-east-1", volumes: [{ index: 0, lifecycle: "bound" }] }] },
      extra: true,
    };
    const parsed = volumeSet().parse(record) as Record<string, unknown>;
    expect(parsed["extra"]).toBe(true);
    expect((parsed["spec"] as Record<string, unknown>)["future"]).toBe(1);
    expect(paths(volumeSet(), { ...record, version: "1" })).toEqual(["version"]);
  });

  it("accepts merge fields and directives, with limits applied inside them", () => {
    expect(
      issuesOf(volumeSetPatch(), {
        version: 3,
        name: "data",
        description: null,
        tags: { a: null, b: "x" },
        "$replace/tags": { c: 1 },
        $drop: ["description"],
        spec: { initialCapacity: 20, autoscaling: { $drop: ["predictive"], maxCapacity: 100 }, snapshots: null },
      }),
    ).toEqual([]);
    expect(
      issuesOf(volumeSetPatch(), { "$replace/spec": { initialCapacity: 20, performanceClass: "shared" } }),
    ).toEqual([]);
    expect(paths(volumeSetPatch(), { spec: { autoscaling: { predictive: { lookbackHours: 169 } } } })).toEqual([
      "spec.autoscaling.predictive.lookbackHours",
    ]);
    expect(paths(volumeSetPatch(), { $drop: ["nonsense"] })).toEqual(["$drop.0"]);
    expect(paths(volumeSetPatch(), { "$append/spec": [1] })).toEqual(["$append/spec"]);
    expect(paths(volumeSetPatch(), { "$replace/spec": { performanceClass: "shared" } })).toEqual([
      "$replace/spec.initialCapacity",
    ]);
  });
});

describe("location", () => {
  const record = {
    ...base("location", "aws-eu-central-1"),
    origin: "builtin",
    provider: "aws",
    region: "eu-central-1",
    spec: { enabled: true },
    status: { geo: { lat: 50.1, lon: 8.6, country: "Germany", city: "Frankfurt", continent: "Europe" }, ipRanges: [] },
  };

  it("parses a builtin location and rejects unknown providers and origins", () => {
    expect(location().parse(record)).toMatchObject({ provider: "aws", spec: { enabled: true } });
    expect(paths(location(), { ...record, provider: "ibm", origin: "other" })).toEqual(["origin", "provider"]);
  });

  it("creates only BYOK locations", () => {
    expect(issuesOf(locationCreate(), { name: "my-cluster", provider: "byok", spec: { enabled: true } })).toEqual([]);
    expect(paths(locationCreate(), { name: "my-cluster", provider: "aws" })).toEqual(["provider"]);
  });

  it("patches enabled, description and tags with every directive, tolerating read-only fields", () => {
    expect(
      issuesOf(locationPatch(), {
        ...record,
        status: undefined,
        spec: { enabled: false, $drop: ["enabled"], "$replace/enabled": true },
        "$replace/tags": { team: "a" },
        "$replace/description": "d",
        "$replace/spec": { enabled: true },
        $drop: ["tags", "description", "spec"],
      }),
    ).toEqual([]);
    expect(paths(locationPatch(), { spec: { enabled: "no" } })).toEqual(["spec.enabled"]);
    expect(paths(locationPatch(), { spec: { region: "x" } })).toEqual(["spec.region"]);
    expect(paths(locationPatch(), { provider: "ibm" })).toEqual(["provider"]);
  });
});

describe("policy", () => {
  const binding = { permissions: ["view"], principalLinks: ["//group/viewers"] };
  const create = (extra: Record<string, unknown>) =>
    issuesOf(policyCreate(), { name: "p1", targetKind: "group", ...extra });

  it("accepts every target form and principal link form", () => {
    expect(
      create({
        target: "all",
        targetLinks: ["//group/a", "/org/acme/group/b"],
        targetQuery: { spec: { terms: [{ property: "name", value: "a" }] } },
        bindings: [
          {
            permissions: ["edit", "view"],
            principalLinks: [
              "//group/a",
              "/org/acme/user/me@example.com",
              "//serviceaccount/s",
              "//gvc/main/identity/i",
            ],
          },
        ],
      }),
    ).toEqual([]);
  });

  it("bounds bindings at 50, principals at 1-200 and target links at 200", () => {
    const principals = (n: number) => Array.from({ length: n }, (_, i) => `//group/g${i}`);
    expect(create({ bindings: Array.from({ length: 50 }, () => binding) })).toEqual([]);
    expect(create({ bindings: Array.from({ length: 51 }, () => binding) })).toEqual([
      { path: "bindings", message: "at most 50 bindings" },
    ]);
    expect(create({ bindings: [{ permissions: ["view"], principalLinks: principals(200) }] })).toEqual([]);
    expect(create({ bindings: [{ permissions: ["view"], principalLinks: principals(201) }] })).toEqual([
      { path: "bindings.0.principalLinks", message: "at most 200 principals per binding" },
    ]);
    expect(create({ bindings: [{ permissions: ["view"], principalLinks: [] }] })).toEqual([
      { path: "bindings.0.principalLinks", message: "a binding needs at least one principal" },
    ]);
    expect(create({ bindings: [{ permissions: [], principalLinks: ["//group/a"] }] })).toEqual([
      { path: "bindings.0.permissions", message: "a binding needs at least one permission" },
    ]);
    const links = (n: number) => Array.from({ length: n }, (_, i) => `//group/g${i}`);
    expect(create({ targetLinks: links(200) })).toEqual([]);
    expect(create({ targetLinks: links(201) })).toEqual([{ path: "targetLinks", message: "at most 200 target links" }]);
  });

  it("rejects an unknown targetKind, target other than 'all', and bad principal links", () => {
    expect(paths(policyCreate(), { name: "p1", targetKind: "workload" })).toEqual([]);
    expect(paths(policyCreate(), { name: "p1", targetKind: "widget" })).toEqual(["targetKind"]);
    expect(create({ target: "some" }).map((i) => i.path)).toEqual(["target"]);
    expect(create({ bindings: [{ permissions: ["view"], principalLinks: ["viewers"] }] }).map((i) => i.path)).toEqual([
      "bindings.0.principalLinks.0",
    ]);
    expect(
      create({ bindings: [{ permissions: ["view"], principalLinks: ["//policy/x"] }] }).map((i) => i.path),
    ).toEqual(["bindings.0.principalLinks.0"]);
  });

  it("parses a policy record", () => {
    const record = {
      ...base("policy", "p1"),
      origin: "default",
      targetKind: "group",
      target: "all",
      bindings: [binding],
    };
    expect(policy().parse(record)).toMatchObject({ targetKind: "group", bindings: [binding] });
    expect(paths(policy(), { ...record, origin: "custom" })).toEqual(["origin"]);
  });

  it("accepts every directive of the policy patch document", () => {
    expect(
      issuesOf(policyPatch(), {
        version: 2,
        targetKind: "group",
        description: "d",
        $drop: ["targetQuery", "target"],
        "$replace/tags": {},
        "$replace/targetLinks": ["//group/a"],
        "$append/targetLinks": ["//group/b"],
        "$drop/targetLinks": ["//group/c"],
        "$retain/targetLinks": ["//group/a"],
        "$append/bindings": [binding],
        "$drop/bindings": ["edit,view"],
        "$retain/bindings": ["view"],
        "$patch/bindings": [
          {
            permissions: ["view"],
            $drop: ["principalLinks"],
            "$append/permissions": ["edit"],
            "$drop/permissions": ["view"],
            "$retain/permissions": ["edit"],
            principalLinks: ["//group/a"],
            "$append/principalLinks": ["//user/u@example.com"],
            "$drop/principalLinks": ["//group/b"],
            "$retain/principalLinks": ["//group/a"],
          },
        ],
        targetQuery: {
          $drop: ["kind"],
          fetch: "items",
          spec: {
            $drop: ["match"],
            sort: { $drop: ["by"], order: "desc" },
            "$append/terms": [{ op: "=", tag: "env", value: "prod" }],
            "$drop/terms": ["property:name"],
            "$retain/terms": ["tag:env"],
            "$patch/terms": [{ property: "name", op: "~", "$replace/value": "web" }],
          },
        },
      }),
    ).toEqual([]);
  });

  it("rejects misplaced or malformed directives with their paths", () => {
    expect(paths(policyPatch(), { "$append/description": ["x"] })).toEqual(["$append/description"]);
    expect(paths(policyPatch(), { "$drop/bindings": "view" })).toEqual(["$drop/bindings"]);
    expect(paths(policyPatch(), { "$patch/bindings": [{ permissions: ["view"], nonsense: 1 }] })).toEqual([
      "$patch/bindings.0.nonsense",
    ]);
    expect(paths(policyPatch(), { targetQuery: { spec: { "$drop/terms": ["name"] } } })).toEqual([
      "targetQuery.spec.$drop/terms.0",
    ]);
    expect(paths(policyPatch(), { targetQuery: { spec: { "$patch/terms": [{ op: "=" }] } } })).toEqual([
      "targetQuery.spec.$patch/terms.0",
    ]);
    expect(paths(policyPatch(), { "$append/bindings": [{ permissions: ["view"] }] })).toEqual([
      "$append/bindings.0.principalLinks",
    ]);
  });
});

describe("policyIssues", () => {
  const principals = ["//group/a"];

  it("accepts permissions from the target kind's catalog", () => {
    expect(
      policyIssues({
        targetKind: "cloudaccount",
        targetLinks: ["//cloudaccount/aws-prod", "/org/acme/cloudaccount/gcp"],
        bindings: [
          { permissions: ["browse", "view"], principalLinks: principals },
          { permissions: ["manage"], principalLinks: principals },
        ],
      }),
    ).toEqual([]);
  });

  it("names each permission missing from the catalog", () => {
    expect(
      policyIssues({
        targetKind: "auditctx",
        bindings: [{ permissions: ["view", "delete"], principalLinks: principals }],
      }),
    ).toEqual([
      {
        path: "bindings.0.permissions.1",
        message: "'delete' is not a permission of auditctx (create, edit, manage, readAudit, view, writeAudit)",
      },
    ]);
  });

  it("rejects two bindings with the same permission set in any order", () => {
    expect(
      policyIssues({
        targetKind: "group",
        bindings: [
          { permissions: ["edit", "view"], principalLinks: principals },
          { permissions: ["view"], principalLinks: principals },
          { permissions: ["view", "edit"], principalLinks: ["//group/b"] },
        ],
      }),
    ).toEqual([
      {
        path: "bindings.2.permissions",
        message: "bindings 0 and 2 hold the same permission set (edit,view); merge their principals",
      },
    ]);
  });

  it("rejects duplicates inside lists, target links of another kind and a mismatched query kind", () => {
    expect(
      policyIssues({
        targetKind: "volumeset",
        targetLinks: ["//gvc/main/volumeset/data", "//volumeset/data", "//gvc/main/volumeset/data"],
        targetQuery: { kind: "group" },
        bindings: [{ permissions: ["view", "view"], principalLinks: ["//group/a", "//group/a"] }],
      }),
    ).toEqual([
      {
        path: "targetLinks.1",
        message: "must be a link to an object of kind volumeset, e.g. //gvc/<gvc>/volumeset/<name>",
      },
      { path: "targetLinks.2", message: "duplicate target link '//gvc/main/volumeset/data'" },
      { path: "targetQuery.kind", message: "must be the policy's targetKind 'volumeset'" },
      { path: "bindings.0.permissions.1", message: "duplicate permission 'view'" },
      { path: "bindings.0.principalLinks.1", message: "duplicate principal '//group/a'" },
    ]);
  });

  it("rejects an unknown target kind", () => {
    expect(policyIssues({ targetKind: "widget" })).toEqual([
      {
        path: "targetKind",
        message: expect.stringMatching(/^unknown kind 'widget' \(kinds: org, cloudaccount, .*, volumeset\)$/),
      },
    ]);
    expect(policyIssues({ targetKind: "workload" })).toEqual([]);
  });
});

describe("query document", () => {
  it("accepts every op and requires exactly one selector", () => {
    for (const op of ["=", "!=", ">", ">=", "<", "<=", "~", "=~", "contains"]) {
      expect(issuesOf(queryTerm(), { op, property: "name", value: "x" }), op).toEqual([]);
    }
    expect(issuesOf(queryTerm(), { op: "exists", tag: "env" })).toEqual([]);
    expect(issuesOf(queryTerm(), { op: "!exists", rel: "gvc" })).toEqual([]);
    expect(paths(queryTerm(), { op: "like", property: "name", value: "x" })).toEqual(["op"]);
    expect(issuesOf(queryTerm(), { property: "name", tag: "env", value: "x" })).toEqual([
      { path: "tag", message: "a term must set exactly one of property, rel or tag (property and tag are set)" },
    ]);
    expect(issuesOf(queryTerm(), { value: "x" })).toEqual([
      { path: "", message: "a term must set exactly one of property, rel or tag (none is set)" },
    ]);
    expect(issuesOf(queryTerm(), { property: "name" })).toEqual([{ path: "value", message: "op '=' needs a value" }]);
    expect(issuesOf(queryTerm(), { property: "name", value: { a: 1 } })).toEqual([
      { path: "value", message: "must be a string, number or boolean" },
    ]);
  });

  it("accepts the full document and rejects bad enums with their paths", () => {
    expect(
      issuesOf(queryDocument(), {
        kind: "cloudaccount",
        context: { gvc: "main" },
        fetch: "links",
        spec: { match: "none", terms: [{ property: "provider", value: "aws" }], sort: { by: "name", order: "desc" } },
      }),
    ).toEqual([]);
    expect(issuesOf(queryDocument(), {})).toEqual([]);
    expect(paths(queryDocument(), { fetch: "all", spec: { match: "some", sort: { order: "up" } } })).toEqual([
      "fetch",
      "spec.match",
      "spec.sort.by",
      "spec.sort.order",
    ]);
  });
});

describe("other records and bodies", () => {
  it("parses quotas, permission schemas, access reports, lists and query results", () => {
    const q = {
      ...base("quota", "agents"),
      unit: "count",
      dimensions: {},
      max: 10,
      current: 4,
      origin: "builtin",
    };
    expect(quota().parse(q)).toMatchObject({ max: 10, current: 4 });
    expect(paths(quota(), { ...q, origin: "custom" })).toEqual(["origin"]);
    expect(
      permissionSchema().parse({
        kind: "permissions",
        targetKind: "group",
        items: kinds.group.permissions.map(({ name, description }) => ({ name, description })),
        implied: impliedMap("group"),
        links: [],
      }),
    ).toMatchObject({ targetKind: "group" });
    const report = {
      kind: "accessreport",
      permissions: [
        {
          name: "view",
          description: "Read-only view",
          bindings: [
            {
              principalLink: "/org/acme/group/viewers",
              grantingPolicyLink: "/org/acme/policy/viewers-group",
              grantedPermissions: ["view"],
              match: "all",
            },
          ],
        },
      ],
      created: when,
      links: [],
    };
    expect(accessReport().parse(report)).toEqual(report);
    const bad = structuredClone(report);
    (bad.permissions[0]?.bindings[0] as { match: string }).match = "group";
    expect(paths(accessReport(), bad)).toEqual(["permissions.0.bindings.0.match"]);
    expect(listResponse(quota()).parse({ kind: "list", itemKind: "quota", items: [q], links: [] }).items).toHaveLength(
      1,
    );
    expect(
      queryResult(quota()).parse({
        kind: "queryresult",
        itemKind: "quota",
        items: ["/org/acme/quota/x"],
        links: [],
        query: { kind: "quota", fetch: "links", spec: { match: "all", terms: [] } },
      }).items,
    ).toEqual(["/org/acme/quota/x"]);
  });

  it("requires mk8s spec.provider to have exactly one key", () => {
    const body = (provider: unknown) => ({ name: "c1", spec: { version: "1.28.4", provider } });
    expect(
      issuesOf(mk8sCreate(), body({ generic: { location: "aws-eu-central-1", nodePools: [{ name: "general" }] } })),
    ).toEqual([]);
    expect(paths(mk8sCreate(), body({ generic: {}, hetzner: {} }))).toEqual(["spec.provider"]);
    expect(paths(mk8sCreate(), body({}))).toEqual(["spec.provider"]);
    expect(paths(mk8sCreate(), body({ ibm: {} }))).toEqual(["spec.provider.ibm"]);
    expect(mk8sProviderName({ provider: { hetzner: {} } })).toBe("hetzner");
    expect(mk8sProviderName({ provider: {} })).toBeUndefined();
    expect(issuesOf(mk8sJoinRequest(), { nodePoolName: "general", extra: 1 })).toEqual([]);
    expect(paths(mk8sJoinRequest(), { nested: { a: 1 } })).toEqual(["nested"]);
  });

  it("revokes service-account keys with $drop/keys and keys gvc env by name", () => {
    expect(issuesOf(serviceAccountPatch(), { "$drop/keys": ["k1"] })).toEqual([]);
    expect(paths(serviceAccountPatch(), { "$append/keys": [{ name: "k" }] })).toEqual(["$append/keys"]);
    expect(issuesOf(gvcPatch(), { spec: { "$patch/env": [{ name: "A", value: "1" }], "$drop/env": ["B"] } })).toEqual(
      [],
    );
  });

  it("provides a record, patch and (except org, quota and image) create schema per kind, all convertible to JSON Schema", () => {
    for (const kind of kindNames) {
      const schemas = kinds[kind].schemas;
      // Images are created by a push to the org's registry, never through the API.
      expect(schemas.create === undefined, kind).toBe(kind === "org" || kind === "quota" || kind === "image");
      for (const get of [schemas.record, schemas.patch, ...(schemas.create ? [schemas.create] : [])]) {
        const json = z.toJSONSchema(get(), { io: "input" }) as { description?: string };
        expect(typeof json.description, kind).toBe("string");
      }
      const shape = (schemas.record() as z.ZodObject).shape as Record<string, z.ZodType>;
      expect((shape["kind"] as z.ZodLiteral).value, kind).toBe(kind);
    }
  });
});

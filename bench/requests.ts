/**
 * Benchmark 1 — HTTP requests per operation, counted from cpln-local's own request log. Each resource (VolumeSet,
 * Policy, Location) goes through a lifecycle on Pulumi's real dynamic-provider host, each step made of the engine's
 * calls (Check, Diff, Create/Update/Read/Delete). These counts are the one thing `--quick` enforces.
 */
import { startServer } from "../server/index.js";
import type { DynamicProviderHost, PropertyMap } from "../tools/providerhost/host.js";
import { create, destroy, preview, refresh, startHost, update, urnOf, type Deployed } from "./lib/engine.js";
import { Http } from "./lib/http.js";
import { providerText, typeToken, type ResourceKind } from "./lib/providers.js";
import type { Report } from "./lib/report.js";
import type { BenchContext } from "./context.js";

type Step = "create" | "noop-preview" | "update-field" | "update-binding" | "read" | "delete";

/** Targets: at most `max`, and — except for create, whose target is "≤ 2" — exactly `max`. */
const targets: Record<Step, { max: number; exact: boolean }> = {
  create: { max: 2, exact: false },
  "noop-preview": { max: 0, exact: true },
  "update-field": { max: 1, exact: true },
  "update-binding": { max: 1, exact: true },
  read: { max: 1, exact: true },
  delete: { max: 1, exact: true },
};

interface Plan {
  kind: ResourceKind;
  initial: PropertyMap;
  /** One changed field (and, for Policy, one changed binding). */
  changes: Partial<Record<"update-field" | "update-binding", (inputs: PropertyMap) => PropertyMap>>;
}

function plans(org: string): Plan[] {
  return [
    {
      kind: "VolumeSet",
      initial: {
        name: "req-vs",
        gvc: "req",
        initialCapacity: 10,
        performanceClass: "general-purpose-ssd",
        fileSystemType: "ext4",
        description: "before",
        tags: { env: "bench" },
      },
      changes: { "update-field": (i) => ({ ...i, description: "after" }) },
    },
    {
      kind: "Policy",
      initial: {
        name: "req-policy",
        description: "before",
        targetKind: "volumeset",
        targetLinks: [`/org/${org}/gvc/req/volumeset/anything`],
        bindings: [
          { permissions: ["view"], principalLinks: [`/org/${org}/group/viewers`] },
          { permissions: ["edit", "view"], principalLinks: [`/org/${org}/group/superusers`] },
        ],
      },
      changes: {
        "update-field": (i) => ({ ...i, description: "after" }),
        "update-binding": (i) => ({
          ...i,
          bindings: [
            {
              permissions: ["view"],
              principalLinks: [`/org/${org}/group/viewers`, `/org/${org}/serviceaccount/controlplane`],
            },
            { permissions: ["edit", "view"], principalLinks: [`/org/${org}/group/superusers`] },
          ],
        }),
      },
    },
    {
      kind: "Location",
      initial: {
        name: "aws-eu-central-1",
        enabled: true,
        description: "adopted by the bench",
        tags: { team: "bench" },
      },
      changes: { "update-field": (i) => ({ ...i, enabled: false }) },
    },
  ];
}

export async function requestsPerOperation(ctx: BenchContext, report: Report): Promise<{ countsOk: boolean }> {
  const server = await startServer({
    host: "127.0.0.1",
    port: 0,
    org: ctx.org,
    adminKey: ctx.adminKey,
    recordRequests: true,
    logger: false,
  });
  let host: DynamicProviderHost | undefined;
  let countsOk = true;
  try {
    const admin = new Http(server.url, ctx.adminKey, 1);
    await admin.expect(201, "POST", `/org/${ctx.org}/gvc`, { name: "req" });
    await admin.close();
    host = await startHost({ org: ctx.org, endpoint: server.url, token: ctx.adminKey });
    for (const plan of plans(ctx.org)) {
      const text = await providerText(plan.kind);
      const withProvider = (inputs: PropertyMap): PropertyMap => ({ ...inputs, __provider: text });
      const urn = urnOf(typeToken(plan.kind), `bench-${plan.kind.toLowerCase()}`);
      const measure = async <T>(step: Step, run: () => Promise<T>): Promise<T> => {
        server.clearRequests();
        const t0 = performance.now();
        const result = await run();
        const ms = performance.now() - t0;
        const requests = server.requests().map((r) => `${r.method} ${r.path} ${r.status}`);
        const target = targets[step];
        const met = target.exact ? requests.length === target.max : requests.length <= target.max;
        if (!met) countsOk = false;
        report.add({
          name: `requests.${plan.kind.toLowerCase()}.${step}`,
          value: requests.length,
          unit: "requests",
          n: 1,
          target: `${target.exact ? "=" : "<="} ${target.max}`,
          met,
          requests,
          ms: Math.round(ms * 10) / 10,
        });
        return result;
      };
      let state: Deployed = await measure("create", () => create(host!, urn, withProvider(plan.initial)));
      const noop = await measure("noop-preview", () => preview(host!, state, withProvider(plan.initial)));
      if (noop.changes !== false)
        report.note(`requests: the no-op preview of ${plan.kind} reported changes=${String(noop.changes)}`);
      let current = plan.initial;
      for (const step of ["update-field", "update-binding"] as const) {
        const change = plan.changes[step];
        if (!change) continue;
        const next = change(current);
        state = await measure(step, () => update(host!, state, withProvider(next)));
        current = next;
      }
      state = await measure("read", () => refresh(host!, state));
      await measure("delete", () => destroy(host!, state));
    }
  } finally {
    await host?.stop();
    await server.close();
  }
  return { countsOk };
}

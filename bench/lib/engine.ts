/**
 * The engine's side of a deployment step, over Pulumi's real dynamic-provider host (`tools/providerhost/host.ts`): each
 * method makes the calls `pulumi up`/`preview`/`refresh`/`destroy` make for one resource, in the same order, with
 * stored outputs as `olds`. The `__provider` text comes from constructing the SDK class under `setMocks`, exactly as a
 * program would.
 */
import { DynamicProviderHost, type PropertyMap } from "../../tools/providerhost/host.js";
import path from "node:path";
import { distDir, repoRoot } from "./procs.js";

export interface Deployed {
  urn: string;
  id: string;
  /** Checked inputs as stored in the state (with `__provider`). */
  inputs: PropertyMap;
  outputs: PropertyMap;
}

export function urnOf(type: string, name: string): string {
  return `urn:pulumi:bench::bench::${type}::${name}`;
}

export async function startHost(
  config: { org: string; endpoint: string; token: string },
  profileDir?: string,
): Promise<DynamicProviderHost> {
  // The host is profiled through a preload (`--cpu-prof` is not allowed in NODE_OPTIONS).
  const env = profileDir
    ? {
        NODE_OPTIONS: `--require ${path.join(distDir, "bench", "servers", "profile-preload.js")}`,
        BENCH_PROFILE_DIR: profileDir,
      }
    : {};
  const host = await DynamicProviderHost.start({ cwd: repoRoot, project: "bench", env });
  await host.configure({ "cpln:org": config.org, "cpln:endpoint": config.endpoint, "cpln:token": config.token }, [
    "cpln:token",
  ]);
  return host;
}

function failIfAny(failures: { property: string; reason: string }[], urn: string): void {
  if (failures.length) {
    throw new Error(`check of ${urn} failed: ${failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`);
  }
}

/** `pulumi up` for a new resource: Check (no olds), then Create. */
export async function create(host: DynamicProviderHost, urn: string, news: PropertyMap): Promise<Deployed> {
  const checked = await host.check(urn, {}, news);
  failIfAny(checked.failures, urn);
  const created = await host.create(urn, checked.inputs);
  return { urn, id: created.id, inputs: checked.inputs, outputs: created.outputs };
}

/** `pulumi preview` of an existing resource: Check against the stored inputs, then Diff. Returns whether it changes. */
export async function preview(
  host: DynamicProviderHost,
  state: Deployed,
  news: PropertyMap,
): Promise<{ changes: boolean | undefined; checked: PropertyMap; replaces: string[] }> {
  const checked = await host.check(state.urn, state.inputs, news);
  failIfAny(checked.failures, state.urn);
  const diff = await host.diff(state.id, state.urn, state.outputs, checked.inputs, state.inputs);
  return { changes: diff.changes, checked: checked.inputs, replaces: diff.replaces };
}

/** `pulumi up` of an existing resource: Check, Diff, and Update when the diff says so (a replace is an error here). */
export async function update(host: DynamicProviderHost, state: Deployed, news: PropertyMap): Promise<Deployed> {
  const planned = await preview(host, state, news);
  if (planned.replaces.length) throw new Error(`${state.urn}: unexpected replace of ${planned.replaces.join(", ")}`);
  if (planned.changes === false) return { ...state, inputs: planned.checked };
  const outputs = await host.update(state.id, state.urn, state.outputs, planned.checked, state.inputs);
  return { ...state, inputs: planned.checked, outputs };
}

/** `pulumi refresh`: Read with the stored outputs and inputs. */
export async function refresh(host: DynamicProviderHost, state: Deployed): Promise<Deployed> {
  const read = await host.read(state.id, state.urn, state.outputs, state.inputs);
  if (read.id === "") throw new Error(`${state.urn}: read reports it gone`);
  return { ...state, outputs: read.props, inputs: read.inputs ?? state.inputs };
}

/** `pulumi destroy`: Delete with the stored outputs. */
export async function destroy(host: DynamicProviderHost, state: Deployed): Promise<void> {
  await host.delete(state.id, state.urn, state.outputs, state.inputs);
}

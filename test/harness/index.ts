// Helpers for tests that exercise Pulumi's real machinery without the CLI. Load this module from tsc's dist/
// (vitest's transform breaks closure serialization): `createRequire(import.meta.url)("../../dist/test/harness/index.js")`.
import { createRequire } from "node:module";
import * as path from "node:path";
import type * as pulumiTypes from "@pulumi/pulumi";
import { DynamicProviderHost, type HostStartOptions } from "../../tools/providerhost/host.js";
import { toPropertyMap, type PropertyMap } from "../../tools/providerhost/values.js";

export { DynamicProviderHost, ProviderHostError } from "../../tools/providerhost/host.js";
export type { CheckResult, CreateResult, DiffResult, HostCall, ReadResult } from "../../tools/providerhost/host.js";
export { requireTypeScript } from "../../tools/automation/tshook.js";
export * from "../../tools/providerhost/values.js";

/** The repository root (where `node_modules/cpln-pulumi` links back to the package). */
export const repoRoot = path.resolve(__dirname, "..", "..", "..");

export interface Registration {
  type: string;
  name: string;
  /** Inputs exactly as the program sends them: `__provider` text included, secrets sig-wrapped. */
  inputs: PropertyMap;
}

interface SettingsInternals {
  waitForRPCs(): Promise<void>;
}

/**
 * Runs `construct` under `pulumi.runtime.setMocks` in this process and returns every resource it registered, as a
 * program would produce them (real closure serialization of dynamic providers). Construct resources from code
 * loaded through `require` (tsc output or the TypeScript hook), never through vitest's transform.
 */
export async function captureDynamicRegistrations(
  construct: () => void,
  options: { project?: string; stack?: string; preview?: boolean } = {},
): Promise<Registration[]> {
  // Loaded natively (never through a test transform), like the code under test.
  const load = createRequire(__filename);
  const pulumi = load("@pulumi/pulumi") as typeof pulumiTypes;
  const settings = load("@pulumi/pulumi/runtime/settings") as SettingsInternals;
  const registrations: Registration[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource: async (args) => {
        const inputs = toPropertyMap(args.inputs, `${args.name} inputs`, pulumi.isUnknown);
        registrations.push({ type: args.type, name: args.name, inputs });
        return { id: options.preview ? undefined : `${args.name}-id`, state: args.inputs };
      },
      call: async (args) => {
        throw new Error(`captureDynamicRegistrations: unexpected invoke ${args.token}`);
      },
    },
    options.project ?? "project",
    options.stack ?? "stack",
    options.preview ?? false,
  );
  construct();
  await settings.waitForRPCs();
  return registrations;
}

/** Like `captureDynamicRegistrations`, for code that registers exactly one dynamic resource. */
export async function captureDynamicRegistration(
  construct: () => void,
  options: { project?: string; stack?: string; preview?: boolean } = {},
): Promise<Registration> {
  const all = (await captureDynamicRegistrations(construct, options)).filter((r) =>
    r.type.startsWith("pulumi-nodejs:dynamic"),
  );
  if (all.length !== 1) {
    throw new Error(`expected exactly one dynamic resource registration, got ${all.length}: ${all.map((r) => r.name)}`);
  }
  return all[0] as Registration;
}

/** Starts the real dynamic-provider host; by default in the repo root so `cpln-pulumi/dist/...` requires resolve. */
export function startHost(options: Partial<HostStartOptions> = {}): Promise<DynamicProviderHost> {
  return DynamicProviderHost.start({ cwd: repoRoot, ...options });
}

/** Runs `body` with a started (and, when `config` is given, configured) host, and always stops the host. */
export async function withHost<T>(
  body: (host: DynamicProviderHost) => Promise<T>,
  options: Partial<HostStartOptions> & { config?: Record<string, string>; secretKeys?: string[] } = {},
): Promise<T> {
  const { config, secretKeys, ...start } = options;
  const host = await startHost(start);
  try {
    if (config) await host.configure(config, secretKeys ?? []);
    return await body(host);
  } finally {
    await host.stop();
  }
}

/** A URN as the engine builds it for a resource at the root of a stack. */
export function urnFor(type: string, name: string, project = "project", stack = "stack"): string {
  return `urn:pulumi:${stack}::${project}::${type}::${name}`;
}

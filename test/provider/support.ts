// Shared by the provider tests: loads the compiled package from dist/ (vitest's transform breaks closure
// serialization), starts cpln-local and the real dynamic-provider host, and plays the engine for one resource at a
// time, recording the HTTP requests each step made. Run `npm run build` first.
import { createRequire } from "node:module";
import { afterAll, beforeAll, expect } from "vitest";
import type * as ClientModule from "../../provider/client/index.js";
import type * as SdkModule from "../../sdk/index.js";
import type * as ServerModule from "../../server/index.js";
import type { RecordedRequest, RunningServer } from "../../server/index.js";
import type * as HarnessModule from "../harness/index.js";
import type { DiffResult, DynamicProviderHost, PropertyMap } from "../harness/index.js";

export const load = createRequire(__filename);
export const harness = load("../../dist/test/harness/index.js") as typeof HarnessModule;
export const sdk = load("../../dist/sdk/index.js") as typeof SdkModule;
export const clientModule = load("../../dist/provider/client/index.js") as typeof ClientModule;
const serverModule = load("../../dist/server/index.js") as typeof ServerModule;

export type { DynamicProviderHost, PropertyMap, RecordedRequest, RunningServer };
export const UNKNOWN = harness.unknownValue;

export interface Env {
  server: RunningServer;
  host: DynamicProviderHost;
  /** A client of the same org, for out-of-band changes and for checking server state. */
  client: ClientModule.CplnClient;
}

/** cpln-local (recording requests) plus a host configured with `cpln:token` as a secret. */
export async function startEnv(seed?: ServerModule.SeedDocument): Promise<Env> {
  const server = await serverModule.startServer({ recordRequests: true, ...(seed ? { seed } : {}) });
  const host = await harness.startHost();
  await host.configure({ "cpln:token": server.adminKey, "cpln:endpoint": server.url, "cpln:org": server.org }, [
    "cpln:token",
  ]);
  const client = new clientModule.CplnClient({ endpoint: server.url, token: server.adminKey, org: server.org });
  return { server, host, client };
}

export async function stopEnv(env: Env | undefined): Promise<void> {
  if (!env) return;
  await env.host.stop();
  await env.client.close();
  await env.server.close();
}

/**
 * The environment of a test file: started (cpln-local seeded with `seed`) before its tests and handed to `use`, and
 * stopped after them.
 */
export function withEnv(use: (env: Env) => void): void;
export function withEnv(seed: ServerModule.SeedDocument, use: (env: Env) => void): void;
export function withEnv(...args: [(env: Env) => void] | [ServerModule.SeedDocument, (env: Env) => void]): void {
  const [seed, use] = args.length === 1 ? [undefined, args[0]] : args;
  let env: Env | undefined;
  beforeAll(async () => {
    env = await startEnv(seed);
    use(env);
  });
  afterAll(async () => {
    await stopEnv(env);
  });
}

/** The inputs a program sends for one SDK resource (real `__provider` serialization, under `setMocks`). */
export async function programInputs(construct: () => void): Promise<{ type: string; inputs: PropertyMap }> {
  const registration = await harness.captureDynamicRegistration(construct);
  return { type: registration.type, inputs: registration.inputs };
}

/** The inputs a program sends for one SDK resource, which must register as `expectedType`. */
export async function inputsOf(expectedType: string, construct: () => void): Promise<PropertyMap> {
  const { type, inputs } = await programInputs(construct);
  expect(type).toBe(expectedType);
  return inputs;
}

/** The record at `link` as another client sees it (undefined when it is gone); its GET leaves no request behind. */
export async function serverRecord(env: Env, link: string): Promise<Record<string, unknown> | undefined> {
  const record = await env.client.getByLink(link);
  takeRequests(env.server);
  return record as Record<string, unknown> | undefined;
}

/**
 * The policies that grant anything on the object at `link`, from its access report (what a policy reaches on the
 * server, whatever its record says).
 */
export async function grantingPolicies(env: Env, link: string): Promise<string[]> {
  const report = await env.client.getAccessReport(link);
  takeRequests(env.server);
  return [...new Set(report.permissions.flatMap((p) => p.bindings.map((b) => b.grantingPolicyLink)))].sort();
}

/** The server's requests since the last call, then forgets them. */
export function takeRequests(server: RunningServer): RecordedRequest[] {
  const requests = server.requests().map(({ method, path, body, status }) => ({ method, path, body, status }));
  server.clearRequests();
  return requests;
}

/** A record as the test compares it: without the fields every write changes. */
export function stable(record: unknown): Record<string, unknown> {
  const { version: _version, lastModified: _lastModified, ...rest } = record as Record<string, unknown>;
  return rest;
}

export type StepOp = "create" | "same" | "update" | "replace";

export interface StepResult {
  op: StepOp;
  diff?: DiffResult;
  /** Requests the server received during the step. */
  requests: RecordedRequest[];
}

/**
 * One resource's state, driven the way the engine drives a dynamic resource: Check(old inputs, program inputs),
 * then Create, or Diff against the stored outputs and Update / Replace (re-Check with empty olds, delete first when
 * asked) / keep the old outputs on "same".
 */
export class ResourceStack {
  id = "";
  inputs: PropertyMap = {};
  outputs: PropertyMap = {};
  readonly urn: string;

  constructor(
    private readonly env: Env,
    readonly type: string,
    readonly name: string,
  ) {
    this.urn = harness.urnFor(type, name);
  }

  private get host(): DynamicProviderHost {
    return this.env.host;
  }

  private async checked(olds: PropertyMap, news: PropertyMap): Promise<PropertyMap> {
    const result = await this.host.check(this.urn, olds, news);
    if (result.failures.length > 0) {
      throw new Error(`check failed: ${result.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`);
    }
    return result.inputs;
  }

  async up(news: PropertyMap): Promise<StepResult> {
    takeRequests(this.env.server);
    if (this.id === "") {
      const inputs = await this.checked({}, news);
      const created = await this.host.create(this.urn, inputs);
      Object.assign(this, { id: created.id, inputs, outputs: created.outputs });
      return { op: "create", requests: takeRequests(this.env.server) };
    }
    const inputs = await this.checked(this.inputs, news);
    const diff = await this.host.diff(this.id, this.urn, this.outputs, inputs, this.inputs);
    if (diff.changes === false) {
      this.inputs = inputs;
      return { op: "same", diff, requests: takeRequests(this.env.server) };
    }
    if (diff.replaces.length === 0) {
      this.outputs = await this.host.update(this.id, this.urn, this.outputs, inputs, this.inputs);
      this.inputs = inputs;
      return { op: "update", diff, requests: takeRequests(this.env.server) };
    }
    const replacement = await this.checked({}, news);
    if (diff.deleteBeforeReplace) {
      await this.host.delete(this.id, this.urn, this.outputs, this.inputs);
      const created = await this.host.create(this.urn, replacement);
      Object.assign(this, { id: created.id, inputs: replacement, outputs: created.outputs });
    } else {
      const created = await this.host.create(this.urn, replacement);
      await this.host.delete(this.id, this.urn, this.outputs, this.inputs);
      Object.assign(this, { id: created.id, inputs: replacement, outputs: created.outputs });
    }
    return { op: "replace", diff, requests: takeRequests(this.env.server) };
  }

  /** Refresh: Read with the stored outputs; the read props and inputs replace the state (gone on an empty id). */
  async refresh(): Promise<{ gone: boolean; requests: RecordedRequest[] }> {
    takeRequests(this.env.server);
    const read = await this.host.read(this.id, this.urn, this.outputs, this.inputs);
    if (read.id === "") {
      Object.assign(this, { id: "", inputs: {}, outputs: {} });
      return { gone: true, requests: takeRequests(this.env.server) };
    }
    this.outputs = read.props;
    if (read.inputs) this.inputs = read.inputs;
    return { gone: false, requests: takeRequests(this.env.server) };
  }

  /** Diff only (a preview): the stored outputs against freshly checked program inputs. */
  async preview(news: PropertyMap): Promise<{ diff: DiffResult; requests: RecordedRequest[] }> {
    takeRequests(this.env.server);
    const inputs = await this.checked(this.inputs, news);
    const diff = await this.host.diff(this.id, this.urn, this.outputs, inputs, this.inputs);
    return { diff, requests: takeRequests(this.env.server) };
  }

  async destroy(): Promise<RecordedRequest[]> {
    takeRequests(this.env.server);
    await this.host.delete(this.id, this.urn, this.outputs, this.inputs);
    Object.assign(this, { id: "", inputs: {}, outputs: {} });
    return takeRequests(this.env.server);
  }
}

// Shared by the native-plugin tests: loads the compiled plugin client and cpln-local from dist/ (run `npm run build`
// first), spawns the plugin as the engine does, and plays the engine for one resource at a time, recording the HTTP
// requests each step made and every response the plugin returned (to prove the token is in none of them).
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import type * as ServerModule from "../../server/index.js";
import type { RecordedRequest, RunningServer } from "../../server/index.js";
import type * as ClientModule from "../../tools/native/client.js";
import type { DetailedDiff, NativePluginClient, Props } from "../../tools/native/client.js";

const load = createRequire(__filename);
export const nativeClient = load("../../dist/tools/native/client.js") as typeof ClientModule;
export const serverModule = load("../../dist/server/index.js") as typeof ServerModule;
export const repoRoot = path.resolve(__dirname, "..", "..");
export const executable = path.join(repoRoot, "bin", "pulumi-resource-cpln-native");
export const pluginFolder = path.join(repoRoot, "plugin");
export const SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
export const secret = (value: unknown) => ({ [SECRET_SIG_KEY]: SECRET_SIG, value });

export type { DetailedDiff, NativePluginClient, Props, RecordedRequest, RunningServer };

/** An empty working directory for the plugin (the engine runs plugins from the program's directory). */
export function scratchDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "cpln-native-"));
}

export function urnFor(type: string, name: string): string {
  return `urn:pulumi:stack::project::${type}::${name}`;
}

/** The server's requests since the last call, then forgets them. */
export function takeRequests(server: RunningServer): Pick<RecordedRequest, "method" | "path" | "body" | "status">[] {
  const requests = server.requests().map(({ method, path, body, status }) => ({ method, path, body, status }));
  server.clearRequests();
  return requests;
}

export interface StepResult {
  op: "create" | "same" | "update" | "replace";
  diff?: DetailedDiff;
  requests: ReturnType<typeof takeRequests>;
}

/** One resource's state, driven as the engine drives a resource of a provider that accepts secrets. */
export class NativeStack {
  id = "";
  inputs: Props = {};
  outputs: Props = {};
  readonly urn: string;

  constructor(
    private readonly plugin: NativePluginClient,
    private readonly server: RunningServer,
    readonly type: string,
    readonly name: string,
  ) {
    this.urn = urnFor(type, name);
  }

  async checked(olds: Props, news: Props): Promise<Props> {
    const result = await this.plugin.check(this.urn, olds, news);
    if (result.failures.length > 0) {
      throw new Error(`check failed: ${result.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`);
    }
    return result.inputs;
  }

  async up(news: Props): Promise<StepResult> {
    takeRequests(this.server);
    if (this.id === "") {
      const inputs = await this.checked({}, news);
      const created = await this.plugin.create(this.urn, inputs);
      Object.assign(this, { id: created.id, inputs, outputs: created.outputs });
      return { op: "create", requests: takeRequests(this.server) };
    }
    const inputs = await this.checked(this.inputs, news);
    const diff = await this.plugin.diff(this.id, this.urn, this.outputs, inputs, this.inputs);
    if (diff.changes === "none") {
      this.inputs = inputs;
      return { op: "same", diff, requests: takeRequests(this.server) };
    }
    if (diff.replaces.length === 0) {
      this.outputs = await this.plugin.update(this.id, this.urn, this.outputs, inputs, this.inputs);
      this.inputs = inputs;
      return { op: "update", diff, requests: takeRequests(this.server) };
    }
    const replacement = await this.checked({}, news);
    if (diff.deleteBeforeReplace) {
      await this.plugin.delete(this.id, this.urn, this.outputs, this.inputs);
      const created = await this.plugin.create(this.urn, replacement);
      Object.assign(this, { id: created.id, inputs: replacement, outputs: created.outputs });
    } else {
      const created = await this.plugin.create(this.urn, replacement);
      await this.plugin.delete(this.id, this.urn, this.outputs, this.inputs);
      Object.assign(this, { id: created.id, inputs: replacement, outputs: created.outputs });
    }
    return { op: "replace", diff, requests: takeRequests(this.server) };
  }

  async refresh(): Promise<{ requests: ReturnType<typeof takeRequests> }> {
    takeRequests(this.server);
    const read = await this.plugin.read(this.id, this.urn, this.outputs, this.inputs);
    this.outputs = read.props;
    this.inputs = read.inputs;
    return { requests: takeRequests(this.server) };
  }

  async destroy(): Promise<ReturnType<typeof takeRequests>> {
    takeRequests(this.server);
    await this.plugin.delete(this.id, this.urn, this.outputs, this.inputs);
    Object.assign(this, { id: "", inputs: {}, outputs: {} });
    return takeRequests(this.server);
  }
}

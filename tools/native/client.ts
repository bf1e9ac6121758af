// Plays the Pulumi engine against the native plugin (`pulumi-resource-cpln-native`): spawns it as the engine does
// (an executable, or a PulumiPlugin.yaml folder through the Node.js language host's run-plugin), reads the port from
// its first stdout line, and makes the ResourceProvider calls. Values travel as the engine sends them to a provider
// that accepts secrets: secrets sig-wrapped, unknowns as the unknown marker.
import * as fs from "node:fs";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { ProviderProcess } from "../providerhost/providerProcess.js";

export type Props = Record<string, unknown>;

/** One gRPC call made to the plugin: method, duration, success. */
export interface PluginCall {
  method: string;
  ms: number;
  ok: boolean;
}

export class PluginCallError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    readonly details: string,
  ) {
    super(`${method} failed (gRPC ${grpc.status[code] ?? code}): ${details}`);
    this.name = "PluginCallError";
  }
}

export interface SpawnOptions {
  /** The program and its arguments before the engine address. */
  command: string;
  args?: string[];
  cwd: string;
  env?: Record<string, string | undefined>;
  startTimeoutMs?: number;
  /** The engine address passed last (where the plugin logs diagnostics); default one nothing listens on. */
  engineAddress?: string;
}

export interface DetailedDiff {
  changes: "none" | "some" | "unknown";
  replaces: string[];
  diffs: string[];
  deleteBeforeReplace: boolean;
  hasDetailedDiff: boolean;
  /** property path → ADD | ADD_REPLACE | DELETE | DELETE_REPLACE | UPDATE | UPDATE_REPLACE */
  detailedDiff: Record<string, string>;
}

const kindNames = Object.fromEntries(Object.entries(provproto.PropertyDiff.Kind).map(([name, value]) => [value, name]));

// Undefined values are dropped, as the engine never sends them.
const toStruct = (props: Props): Struct =>
  Struct.fromJavaScript(JSON.parse(JSON.stringify(props)) as Record<string, never>);
const fromStruct = (struct: Struct | undefined): Props => (struct?.toJavaScript() ?? {}) as Props;

type Unary<Req, Res> = (
  request: Req,
  metadata: grpc.Metadata,
  options: Partial<grpc.CallOptions>,
  callback: (error: grpc.ServiceError | null, response: Res) => void,
) => grpc.ClientUnaryCall;

export class NativePluginClient {
  readonly calls: PluginCall[] = [];
  /** Spawn to port, ms. */
  startMs = 0;
  private constructor(
    private readonly process: ProviderProcess,
    private readonly client: ResourceProviderClient,
    readonly port: number,
    private readonly output: string[],
  ) {}

  /** The executable, as the engine runs a `pulumi-resource-<name>` from the plugin cache or PATH. */
  static executable(
    file: string,
    options: Omit<SpawnOptions, "command" | "args"> & { cwd: string },
  ): Promise<NativePluginClient> {
    return NativePluginClient.spawn({ ...options, command: file, args: [] });
  }

  /**
   * A source-based plugin folder: reads its PulumiPlugin.yaml (`runtime: nodejs` only) and runs it as the Node.js
   * language host does: `node <@pulumi/pulumi/cmd/run-plugin, resolved from the folder> <folder> <engine address>`.
   */
  static pluginFolder(folder: string, options: Omit<SpawnOptions, "command" | "args">): Promise<NativePluginClient> {
    const manifest = fs.readFileSync(path.join(folder, "PulumiPlugin.yaml"), "utf8");
    const runtime = /^runtime:\s*(?:name:\s*)?([A-Za-z]+)\s*$/m.exec(manifest)?.[1];
    if (runtime !== "nodejs") throw new Error(`${folder}/PulumiPlugin.yaml: runtime is "${runtime}", not nodejs`);
    const runPlugin = require.resolve("@pulumi/pulumi/cmd/run-plugin", { paths: [folder] });
    return NativePluginClient.spawn({ ...options, command: process.execPath, args: [runPlugin, folder] });
  }

  static async spawn(options: SpawnOptions): Promise<NativePluginClient> {
    const started = performance.now();
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.NODE_OPTIONS;
    for (const key of ["PULUMI_CONFIG", "PULUMI_CONFIG_SECRET_KEYS", "CPLN_TOKEN", "CPLN_ORG", "CPLN_ENDPOINT"]) {
      delete env[key];
    }
    for (const [key, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete env[key];
      else env[key] = value;
    }
    const output: string[] = [];
    const pluginProcess = await ProviderProcess.start({
      label: "the plugin",
      command: options.command,
      args: options.args ?? [],
      cwd: options.cwd,
      env,
      ...(options.startTimeoutMs !== undefined ? { startTimeoutMs: options.startTimeoutMs } : {}),
      ...(options.engineAddress !== undefined ? { engineAddress: options.engineAddress } : {}),
      onLine: (line) => output.push(line),
    });
    const port = pluginProcess.port;
    const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const plugin = new NativePluginClient(pluginProcess, client, port, output);
    plugin.startMs = performance.now() - started;
    return plugin;
  }

  /** Pid of the process spawned (the plugin, or the launcher that runs it). */
  get pid(): number | undefined {
    return this.process.pid;
  }

  /** Everything the plugin wrote to stdout (after the port) and stderr. */
  logs(): string[] {
    return [...this.output];
  }

  private async call<Req, Res>(method: string, fn: Unary<Req, Res>, request: Req): Promise<Res> {
    const started = performance.now();
    try {
      const response = await new Promise<Res>((resolve, reject) => {
        fn.call(this.client, request, new grpc.Metadata(), {}, (error, res) => (error ? reject(error) : resolve(res)));
      });
      this.calls.push({ method, ms: performance.now() - started, ok: true });
      return response;
    } catch (error) {
      this.calls.push({ method, ms: performance.now() - started, ok: false });
      const e = error as Partial<grpc.ServiceError>;
      throw new PluginCallError(method, e.code ?? grpc.status.UNKNOWN, e.details || e.message || String(error));
    }
  }

  async getPluginInfo(): Promise<string> {
    return (await this.call("getPluginInfo", this.client.getPluginInfo, new Empty())).getVersion();
  }

  async getSchema(): Promise<string> {
    return (await this.call("getSchema", this.client.getSchema, new provproto.GetSchemaRequest())).getSchema();
  }

  async checkConfig(urn: string, news: Props): Promise<{ inputs: Props; failures: { property: string }[] }> {
    const request = new provproto.CheckRequest();
    request.setUrn(urn);
    request.setOlds(toStruct({}));
    request.setNews(toStruct(news));
    const response = await this.call("checkConfig", this.client.checkConfig, request);
    return {
      inputs: fromStruct(response.getInputs()),
      failures: response.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  async diffConfig(urn: string, olds: Props, news: Props): Promise<DetailedDiff> {
    const request = new provproto.DiffRequest();
    request.setUrn(urn);
    request.setOlds(toStruct(olds));
    request.setOldInputs(toStruct(olds));
    request.setNews(toStruct(news));
    return detailed(await this.call("diffConfig", this.client.diffConfig, request));
  }

  /** Configure as the engine does for a provider: `variables` by `<pkg>:config:<key>`, `args` by key. */
  async configure(args: Props): Promise<{ acceptSecrets: boolean; supportsPreview: boolean }> {
    const request = new provproto.ConfigureRequest();
    request.setArgs(toStruct(args));
    const variables = request.getVariablesMap();
    for (const [key, value] of Object.entries(args)) {
      const plain = isSecretWire(value) ? value.value : value;
      variables.set(`cpln-native:config:${key}`, typeof plain === "string" ? plain : JSON.stringify(plain));
    }
    request.setAcceptsecrets(true);
    request.setAcceptresources(true);
    request.setSendsOldInputs(true);
    request.setSendsOldInputsToDelete(true);
    const response = await this.call("configure", this.client.configure, request);
    return { acceptSecrets: response.getAcceptsecrets(), supportsPreview: response.getSupportspreview() };
  }

  async check(urn: string, olds: Props, news: Props): Promise<{ inputs: Props; failures: CheckFailureInfo[] }> {
    const request = new provproto.CheckRequest();
    request.setUrn(urn);
    request.setOlds(toStruct(olds));
    request.setNews(toStruct(news));
    const response = await this.call("check", this.client.check, request);
    return {
      inputs: fromStruct(response.getInputs()),
      failures: response.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  async diff(id: string, urn: string, olds: Props, news: Props, oldInputs: Props = {}): Promise<DetailedDiff> {
    const request = new provproto.DiffRequest();
    request.setId(id);
    request.setUrn(urn);
    request.setOlds(toStruct(olds));
    request.setNews(toStruct(news));
    request.setOldInputs(toStruct(oldInputs));
    return detailed(await this.call("diff", this.client.diff, request));
  }

  async create(urn: string, inputs: Props, preview = false): Promise<{ id: string; outputs: Props }> {
    const request = new provproto.CreateRequest();
    request.setUrn(urn);
    request.setProperties(toStruct(inputs));
    request.setPreview(preview);
    const response = await this.call("create", this.client.create, request);
    return { id: response.getId(), outputs: fromStruct(response.getProperties()) };
  }

  async read(
    id: string,
    urn: string,
    props: Props = {},
    inputs: Props = {},
  ): Promise<{ id: string; props: Props; inputs: Props }> {
    const request = new provproto.ReadRequest();
    request.setId(id);
    request.setUrn(urn);
    request.setProperties(toStruct(props));
    request.setInputs(toStruct(inputs));
    const response = await this.call("read", this.client.read, request);
    return {
      id: response.getId(),
      props: fromStruct(response.getProperties()),
      inputs: fromStruct(response.getInputs()),
    };
  }

  async update(id: string, urn: string, olds: Props, news: Props, oldInputs: Props = {}, preview = false) {
    const request = new provproto.UpdateRequest();
    request.setId(id);
    request.setUrn(urn);
    request.setOlds(toStruct(olds));
    request.setNews(toStruct(news));
    request.setOldInputs(toStruct(oldInputs));
    request.setPreview(preview);
    return fromStruct((await this.call("update", this.client.update, request)).getProperties());
  }

  async delete(id: string, urn: string, props: Props, oldInputs: Props = {}): Promise<void> {
    const request = new provproto.DeleteRequest();
    request.setId(id);
    request.setUrn(urn);
    request.setProperties(toStruct(props));
    request.setOldInputs(toStruct(oldInputs));
    await this.call("delete", this.client.delete, request);
  }

  async invoke(token: string, args: Props): Promise<{ result: Props; failures: CheckFailureInfo[] }> {
    const request = new provproto.InvokeRequest();
    request.setTok(token);
    request.setArgs(toStruct(args));
    const response = await this.call("invoke", this.client.invoke, request);
    return {
      result: fromStruct(response.getReturn()),
      failures: response.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  async cancel(): Promise<void> {
    await this.call("cancel", this.client.cancel, new Empty());
  }

  /** Kills the plugin's process group and waits for it to exit. Safe to call twice. */
  async stop(): Promise<void> {
    this.client.close();
    await this.process.stop();
  }
}

export interface CheckFailureInfo {
  property: string;
  reason: string;
}

function isSecretWire(value: unknown): value is { value: unknown } {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<string, unknown>)["4dabf18193072939515e22adb298388d"] === "1b47061264138c4ac30d75fd1eb44270"
  );
}

function detailed(response: provproto.DiffResponse): DetailedDiff {
  const Changes = provproto.DiffResponse.DiffChanges;
  const changes = response.getChanges();
  const detailedDiff: Record<string, string> = {};
  response.getDetaileddiffMap().forEach((diff, key) => {
    detailedDiff[key] = String(kindNames[diff.getKind()]);
  });
  return {
    changes: changes === Changes.DIFF_SOME ? "some" : changes === Changes.DIFF_NONE ? "none" : "unknown",
    replaces: response.getReplacesList(),
    diffs: response.getDiffsList(),
    deleteBeforeReplace: response.getDeletebeforereplace(),
    hasDetailedDiff: response.getHasdetaileddiff(),
    detailedDiff,
  };
}

// Drives Pulumi's real dynamic-provider host (`@pulumi/pulumi/cmd/dynamic-provider`) over gRPC, making the calls
// the Pulumi engine makes: Configure first, secrets stripped from every CRUD call, stored outputs as `olds`.
import * as grpc from "@grpc/grpc-js";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { ProviderProcess } from "./providerProcess.js";
import {
  makeSecret,
  remarkSecrets as remark,
  stripSecretsMap,
  toPropertyMap,
  type PropertyMap,
  type PropertyValue,
} from "./values.js";

export { secretSig, secretSigKey, unknownValue } from "./values.js";

/**
 * A create or update that made the object but failed to finish it (the provider threw an error carrying `id`):
 * the engine records the object with these properties so it is not leaked.
 */
export interface ResourceInitFailure {
  id: string;
  properties: PropertyMap;
  reasons: string[];
}

/** An error returned by the host: the gRPC status code and the host's (i.e. the provider's) message. */
export class ProviderHostError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    readonly details: string,
    readonly urn?: string,
    readonly initFailure?: ResourceInitFailure,
  ) {
    super(`${method}${urn ? ` ${urn}` : ""} failed (gRPC ${grpc.status[code] ?? code}): ${details}`);
    this.name = "ProviderHostError";
  }
}

export interface HostStartOptions {
  /** Working directory of the host: serialized providers `require` packages from here (a program dir or repo root). */
  cwd: string;
  /** Extra environment for the host process. */
  env?: Record<string, string | undefined>;
  /** Project name the host uses to qualify un-namespaced config keys (PULUMI_NODEJS_PROJECT). */
  project?: string;
  /** How long to wait for the host to print its port (ms). */
  startTimeoutMs?: number;
  /** The engine address the host gets (where the provider logs diagnostics); default one nothing listens on. */
  engineAddress?: string;
}

export interface CheckFailure {
  property: string;
  reason: string;
}
export interface CheckResult {
  inputs: PropertyMap;
  failures: CheckFailure[];
}
export interface DiffResult {
  /** true = DIFF_SOME, false = DIFF_NONE, undefined = DIFF_UNKNOWN (the engine then compares inputs itself). */
  changes: boolean | undefined;
  replaces: string[];
  deleteBeforeReplace: boolean;
  /** Property path → ADD | DELETE | UPDATE (`_REPLACE` when it replaces), when the provider reports a detailed diff. */
  detailedDiff?: Record<string, string>;
}
export interface CreateResult {
  id: string;
  outputs: PropertyMap;
}
export interface ReadResult {
  /** Empty when the provider reports the resource as gone. */
  id: string;
  props: PropertyMap;
  inputs: PropertyMap | undefined;
}

/** One gRPC call made to the host, for tests and timing reports. */
export interface HostCall {
  method: string;
  urn?: string;
  ms: number;
  ok: boolean;
}

/** What the MiniEngine needs of a provider process: the dynamic-provider host or the native plugin. */
export interface ProviderHost {
  readonly calls: HostCall[];
  readonly startMs: number;
  logs(): string[];
  configure(config: Record<string, string>, secretKeys?: readonly string[]): Promise<{ acceptSecrets: boolean }>;
  check(urn: string, olds: PropertyMap, news: PropertyMap): Promise<CheckResult>;
  diff(
    id: string,
    urn: string,
    oldOutputs: PropertyMap,
    news: PropertyMap,
    oldInputs?: PropertyMap,
  ): Promise<DiffResult>;
  create(urn: string, inputs: PropertyMap): Promise<CreateResult>;
  read(id: string, urn: string, props: PropertyMap, inputs?: PropertyMap): Promise<ReadResult>;
  update(
    id: string,
    urn: string,
    oldOutputs: PropertyMap,
    news: PropertyMap,
    oldInputs?: PropertyMap,
  ): Promise<PropertyMap>;
  delete(id: string, urn: string, props: PropertyMap, oldInputs?: PropertyMap): Promise<void>;
  /** Outputs of a type the provider's schema marks secret (a provider without a schema has none). */
  secretOutputs?(type: string): Promise<string[]>;
  stop(): Promise<void>;
}

type Unary<Req, Res> = (
  request: Req,
  metadata: grpc.Metadata,
  options: Partial<grpc.CallOptions>,
  callback: (error: grpc.ServiceError | null, response: Res) => void,
) => grpc.ClientUnaryCall;

const toStruct = (map: PropertyMap): Struct => Struct.fromJavaScript(map);
const fromStruct = (struct: Struct | undefined): PropertyMap => toPropertyMap(struct?.toJavaScript() ?? {});

/** CRUD payloads reach the host without secret wrappers, exactly as the engine sends them (acceptSecrets=false). */
const plain = (map: PropertyMap): Struct => toStruct(stripSecretsMap(map));

export class DynamicProviderHost implements ProviderHost {
  /** Every call made, in order. */
  readonly calls: HostCall[] = [];
  /** Time from spawn to the port being printed (ms). */
  startMs = 0;
  private constructor(
    private readonly process: ProviderProcess,
    private readonly client: ResourceProviderClient,
    readonly port: number,
    private readonly output: string[],
  ) {}

  /** Spawns the real host (`node <@pulumi/pulumi/cmd/dynamic-provider> 127.0.0.1:1`) in its own process group. */
  static async start(options: HostStartOptions): Promise<DynamicProviderHost> {
    const started = performance.now();
    const entry = require.resolve("@pulumi/pulumi/cmd/dynamic-provider");
    const project = options.project ?? "project";
    const env: NodeJS.ProcessEnv = { ...process.env, PULUMI_NODEJS_PROJECT: project, PULUMI_PROJECT: project };
    delete env.NODE_OPTIONS;
    for (const [k, v] of Object.entries(options.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    // Stack config reaches the host through Configure only, and the state passphrase is none of its business.
    for (const key of ["PULUMI_CONFIG", "PULUMI_CONFIG_SECRET_KEYS", "PULUMI_CONFIG_PASSPHRASE"]) delete env[key];
    delete env.PULUMI_CONFIG_PASSPHRASE_FILE;
    const output: string[] = [];
    const providerProcess = await ProviderProcess.start({
      label: "dynamic-provider host",
      command: process.execPath,
      args: [entry],
      cwd: options.cwd,
      env,
      ...(options.startTimeoutMs !== undefined ? { startTimeoutMs: options.startTimeoutMs } : {}),
      ...(options.engineAddress !== undefined ? { engineAddress: options.engineAddress } : {}),
      onLine: (line) => {
        // The client's one-line notices (`cpln: retry ...`) are for the user, as the engine would show them.
        if (line.startsWith("cpln: ")) process.stderr.write(`${line}\n`);
        output.push(line);
        if (output.length > 200) output.shift();
      },
    });
    const port = providerProcess.port;

    const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const host = new DynamicProviderHost(providerProcess, client, port, output);
    host.startMs = performance.now() - started;
    return host;
  }

  /** The host's process id (it leads its own process group). */
  get pid(): number | undefined {
    return this.process.pid;
  }

  /** The host's recent stdout/stderr lines (provider `console.log`, stack traces). */
  logs(): string[] {
    return [...this.output];
  }

  private async call<Req, Res>(method: string, fn: Unary<Req, Res>, request: Req, urn?: string): Promise<Res> {
    const started = performance.now();
    try {
      const response = await new Promise<Res>((resolve, reject) => {
        fn.call(this.client, request, new grpc.Metadata(), {}, (error, res) => (error ? reject(error) : resolve(res)));
      });
      this.calls.push({ method, urn, ms: performance.now() - started, ok: true });
      return response;
    } catch (error) {
      this.calls.push({ method, urn, ms: performance.now() - started, ok: false });
      const e = error as Partial<grpc.ServiceError>;
      const details = e.details || e.message || String(error);
      throw new ProviderHostError(method, e.code ?? grpc.status.UNKNOWN, details, urn, initFailureOf(e.metadata));
    }
  }

  /**
   * Configure, as the engine does for the dynamic provider: `args` holds the whole stack config with namespaced
   * keys (`cpln:token`), values of `secretKeys` sig-wrapped; `acceptSecrets` is offered and the host declines it.
   */
  async configure(
    config: Record<string, string>,
    secretKeys: readonly string[] = [],
  ): Promise<{ acceptSecrets: boolean }> {
    for (const key of [...Object.keys(config), ...secretKeys]) {
      if (!/^[^:]+:.+$/.test(key)) throw new Error(`config key "${key}" must be namespaced ("<namespace>:<name>")`);
    }
    const args: PropertyMap = {};
    for (const [key, value] of Object.entries(config)) args[key] = secretKeys.includes(key) ? makeSecret(value) : value;
    const request = new provproto.ConfigureRequest();
    request.setArgs(toStruct(args));
    request.setAcceptsecrets(true);
    request.setAcceptresources(true);
    request.setSendsOldInputs(true);
    request.setSendsOldInputsToDelete(true);
    const response = await this.call("configure", this.client.configure, request);
    return { acceptSecrets: response.getAcceptsecrets() };
  }

  async check(urn: string, olds: PropertyMap, news: PropertyMap): Promise<CheckResult> {
    const request = new provproto.CheckRequest();
    request.setUrn(urn);
    request.setOlds(plain(olds));
    request.setNews(plain(news));
    const response = await this.call("check", this.client.check, request, urn);
    return {
      inputs: fromStruct(response.getInputs()),
      failures: response.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  /** `oldOutputs` are the stored outputs (the engine's `olds`), `news` the checked inputs. */
  async diff(
    id: string,
    urn: string,
    oldOutputs: PropertyMap,
    news: PropertyMap,
    oldInputs: PropertyMap = {},
  ): Promise<DiffResult> {
    const request = new provproto.DiffRequest();
    request.setId(id);
    request.setUrn(urn);
    request.setOlds(plain(oldOutputs));
    request.setNews(plain(news));
    request.setOldInputs(plain(oldInputs));
    const response = await this.call("diff", this.client.diff, request, urn);
    const Changes = provproto.DiffResponse.DiffChanges;
    const changes = response.getChanges();
    return {
      changes: changes === Changes.DIFF_SOME ? true : changes === Changes.DIFF_NONE ? false : undefined,
      replaces: response.getReplacesList(),
      deleteBeforeReplace: response.getDeletebeforereplace(),
    };
  }

  /** Never sends `preview=true`: the host would ignore it and really create (the engine never does either). */
  async create(urn: string, inputs: PropertyMap): Promise<CreateResult> {
    const request = new provproto.CreateRequest();
    request.setUrn(urn);
    request.setProperties(plain(inputs));
    const response = await this.call("create", this.client.create, request, urn);
    return { id: response.getId(), outputs: fromStruct(response.getProperties()) };
  }

  async read(id: string, urn: string, props: PropertyMap, inputs: PropertyMap = {}): Promise<ReadResult> {
    const request = new provproto.ReadRequest();
    request.setId(id);
    request.setUrn(urn);
    request.setProperties(plain(props));
    request.setInputs(plain(inputs));
    const response = await this.call("read", this.client.read, request, urn);
    const readInputs = response.getInputs();
    return {
      id: response.getId(),
      props: fromStruct(response.getProperties()),
      inputs: readInputs ? fromStruct(readInputs) : undefined,
    };
  }

  /** Returns the full new outputs. */
  async update(
    id: string,
    urn: string,
    oldOutputs: PropertyMap,
    news: PropertyMap,
    oldInputs: PropertyMap = {},
  ): Promise<PropertyMap> {
    const request = new provproto.UpdateRequest();
    request.setId(id);
    request.setUrn(urn);
    request.setOlds(plain(oldOutputs));
    request.setNews(plain(news));
    request.setOldInputs(plain(oldInputs));
    const response = await this.call("update", this.client.update, request, urn);
    return fromStruct(response.getProperties());
  }

  async delete(id: string, urn: string, props: PropertyMap, oldInputs: PropertyMap = {}): Promise<void> {
    const request = new provproto.DeleteRequest();
    request.setId(id);
    request.setUrn(urn);
    request.setProperties(plain(props));
    request.setOldInputs(plain(oldInputs));
    await this.call("delete", this.client.delete, request, urn);
  }

  /** Marks outputs secret where the same-named input was secret (the engine's re-annotation). */
  remarkSecrets(outputs: PropertyMap, secretInputKeys: readonly string[]): PropertyMap {
    return remark(outputs, secretInputKeys);
  }

  /** Kills the host's process group and waits for it to exit. Safe to call twice. */
  async stop(): Promise<void> {
    this.client.close();
    await this.process.stop();
  }
}

/** Reads the `ErrorResourceInitFailed` detail the host packs into `grpc-status-details-bin`. */
function initFailureOf(metadata: grpc.Metadata | undefined): ResourceInitFailure | undefined {
  for (const value of metadata?.get("grpc-status-details-bin") ?? []) {
    if (typeof value === "string") continue;
    for (const detail of Status.deserializeBinary(value).getDetailsList()) {
      const failed = detail.unpack(
        (bytes) => provproto.ErrorResourceInitFailed.deserializeBinary(bytes),
        "pulumirpc.ErrorResourceInitFailed",
      );
      if (failed) {
        return { id: failed.getId(), properties: fromStruct(failed.getProperties()), reasons: failed.getReasonsList() };
      }
    }
  }
  return undefined;
}

export type { PropertyMap, PropertyValue };

/**
 * The native provider plugin: Pulumi's `ResourceProvider` gRPC service, served with @grpc/grpc-js and the generated
 * stubs in `@pulumi/pulumi/proto`. It is the second thin adapter over the same core as the dynamic providers: every
 * resource operation goes to `runtime.ts` (which dispatches to the definitions in `resources/*`), every function to
 * `functions/*`. It is generic over the registries in `provider/index.ts`: a resource or function added there is served
 * here under `cpln-native:index:<Name>` with no code in this file.
 *
 * What this adapter adds over the dynamic one: provider config from Configure (`cpln-native:org|endpoint|token`,
 * `./configuration.ts`), secrets accepted (unwrapped on the way in, re-wrapped on the way out), detailed diffs
 * (`./detailedDiff.ts`), `preview` honoured, Read with only an id (`pulumi import`, self link or the Terraform short
 * forms), Invoke (`./invoke.ts`), and the old `__provider` input carried over so that a stack moved from the dynamic
 * classes to the native ones diffs clean (the resource operations: `./resources.ts`). This file holds the provider's
 * state, its answers about itself and its config, and the service table.
 *
 * The core (the runtime, the resource operations and functions: zod, the kinds, the client) is loaded after the port
 * is printed, not before: the engine waits for the port before anything else, a plugin started only for its schema
 * (the YAML language host starts one) never needs the core, and the engine's own work after CheckConfig (registering
 * the provider, a checkpoint write) runs while the core loads (see `preloadCore`).
 */
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { ResourceProviderService } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import type { StackConfig } from "../config.js";
import { ConfigError } from "../configError.js";
import { CallerCheck, guardService } from "./caller.js";
import {
  changedConfigKeys,
  configFailures,
  configOfRequest,
  type ConfigKey,
  type NativeConfig,
} from "./configuration.js";
import { NATIVE_PACKAGE, packageFile, pluginVersion, withNativeConfigKeys } from "./identity.js";
import type { ResourceOperations } from "./resources.js";
import { toStruct, unwrapProps } from "./values.js";
import { withDecodedRequests, type PropsRequest } from "./wire.js";

type Callback<T> = grpc.sendUnaryData<T>;
type Call<T> = grpc.ServerUnaryCall<T, unknown>;

/** The provider's core, loaded at its first use (`NativeProvider.core`). */
interface Core {
  runtime: typeof import("../runtime.js");
  resources: ResourceOperations;
  invoke: typeof import("./invoke.js").invoke;
}

/** The provider's state: its configuration (the token only in memory) and whether the engine asked it to stop. */
export class NativeProvider {
  private config: NativeConfig = {};
  private configured = false;
  private cancelled = false;
  private schemaText: string | undefined;

  /** The core's view of the config: the dynamic provider's `cpln:<key>` names, filled from `cpln-native:<key>`. */
  readonly stackConfig: StackConfig = {
    get: (key) => (key.startsWith("cpln:") ? this.config[key.slice("cpln:".length) as ConfigKey] : undefined),
  };

  private loaded: Core | undefined;

  /**
   * The core, loaded at the first call that needs it (synchronously: `require` of modules the bundle inlines), and
   * given the config if Configure came first.
   */
  core(): Core {
    if (this.loaded === undefined) {
      /* eslint-disable @typescript-eslint/no-require-imports -- loaded after the port is printed, not at start */
      const runtime = require("../runtime.js") as typeof import("../runtime.js");
      const { ResourceOperations } = require("./resources.js") as typeof import("./resources.js");
      const { invoke } = require("./invoke.js") as typeof import("./invoke.js");
      /* eslint-enable @typescript-eslint/no-require-imports */
      const resources = new ResourceOperations({ stackConfig: this.stackConfig, scrub: (text) => this.scrub(text) });
      this.loaded = { runtime, resources, invoke };
      if (this.configured) runtime.configure(this.stackConfig);
    }
    return this.loaded;
  }

  /**
   * Loads the core once the current call's answer is on its way: after CheckConfig the engine registers the provider
   * (and writes a checkpoint) before it configures it and sends the first Check, and the core loads meanwhile.
   */
  private preloadCore(): void {
    if (this.loaded === undefined) setImmediate(() => this.core());
  }

  /**
   * A message for this plugin's users: the core names the dynamic provider's config keys (`cpln:token`), which are
   * `cpln-native:token` here; and every occurrence of the configured token replaced (a last line of defence).
   */
  private scrub(text: string): string {
    const renamed = withNativeConfigKeys(text);
    const token = this.config.token;
    return token === undefined || token.length < 4 ? renamed : renamed.split(token).join("[secret]");
  }

  private async run<Req, Res>(call: Call<Req>, callback: Callback<Res>, body: (req: Req) => Promise<Res> | Res) {
    try {
      if (this.cancelled) throw new Error("the provider was cancelled");
      callback(null, await body(call.request));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const code = error instanceof ConfigError ? grpc.status.FAILED_PRECONDITION : grpc.status.UNKNOWN;
      callback({ code, details: this.scrub(message), name: "Error", message: this.scrub(message) }, null);
    }
  }

  // ---- identity and schema -----------------------------------------------------------------------------------------

  schema(): string {
    this.schemaText ??= packageFile("schema.json");
    return this.schemaText;
  }

  // ---- configuration -----------------------------------------------------------------------------------------------

  /** Configure: the config of the request (`./configuration.ts`), given to the core for every later operation. */
  private configure(request: provproto.ConfigureRequest): provproto.ConfigureResponse {
    // One Configure per process (the engine starts one plugin per provider): a later one could point the token at
    // another endpoint.
    if (this.configured)
      throw new ConfigError(`${NATIVE_PACKAGE} is already configured; a second Configure is refused`);
    this.config = configOfRequest(request);
    this.configured = true;
    this.loaded?.runtime.configure(this.stackConfig);
    const response = new provproto.ConfigureResponse();
    response.setAcceptsecrets(true);
    response.setSupportspreview(true);
    response.setAcceptresources(false);
    response.setAcceptoutputs(false);
    return response;
  }

  /** The service implementation for grpc-js; methods not listed here answer UNIMPLEMENTED. */
  service(): grpc.UntypedServiceImplementation {
    const unary =
      <Req, Res>(body: (req: Req) => Promise<Res> | Res) =>
      (call: Call<Req>, callback: Callback<Res>) =>
        void this.run(call, callback, body);
    const resources = (): ResourceOperations => this.core().resources;
    return {
      getPluginInfo: unary(() => {
        const info = new PluginInfo();
        info.setVersion(pluginVersion());
        return info;
      }),
      getSchema: unary((request: provproto.GetSchemaRequest) => {
        if (request.getVersion() > 0 && request.getSubpackageName() !== "") {
          throw new Error(`${NATIVE_PACKAGE} has no subpackage "${request.getSubpackageName()}"`);
        }
        const response = new provproto.GetSchemaResponse();
        response.setSchema(this.schema());
        return response;
      }),
      checkConfig: unary((request: provproto.CheckRequest) => {
        const { props } = unwrapProps(request.getNews());
        const response = new provproto.CheckResponse();
        response.setInputs(request.getNews() ?? toStruct({}));
        response.setFailuresList(configFailures(props));
        this.preloadCore();
        return response;
      }),
      diffConfig: unary((request: provproto.DiffRequest) => {
        const olds = unwrapProps(request.getOldInputs() ?? request.getOlds()).props;
        const news = unwrapProps(request.getNews()).props;
        const changed = changedConfigKeys(olds, news);
        const response = new provproto.DiffResponse();
        const Changes = provproto.DiffResponse.DiffChanges;
        // Config changes never replace resources: each resource's org is its own input.
        response.setChanges(changed.length === 0 ? Changes.DIFF_NONE : Changes.DIFF_SOME);
        response.setDiffsList([...changed]);
        return response;
      }),
      configure: unary((request: provproto.ConfigureRequest) => this.configure(request)),
      // Check, Diff, Create, Update and Delete get their requests decoded by wire.ts, and Check, Create and Update
      // answer a PropsResponse that it writes (see `withDecodedRequests`).
      check: unary((request: PropsRequest) => resources().check(request)),
      diff: unary((request: PropsRequest) => resources().diff(request)),
      create: unary((request: PropsRequest) => resources().create(request)),
      read: unary((request: provproto.ReadRequest) => resources().read(request)),
      update: unary((request: PropsRequest) => resources().update(request)),
      delete: unary((request: PropsRequest) => resources().delete(request)),
      invoke: unary((request: provproto.InvokeRequest) => this.core().invoke(request, this.stackConfig)),
      cancel: (_call: Call<Empty>, callback: Callback<Empty>) => {
        this.cancelled = true;
        callback(null, new Empty());
      },
    };
  }
}

/** Starts the plugin's gRPC server on 127.0.0.1 (port 0 unless given) and resolves with the port it got. */
export async function startNativeProvider(
  port = 0,
): Promise<{ port: number; server: grpc.Server; provider: NativeProvider }> {
  const provider = new NativeProvider();
  const server = new grpc.Server({ "grpc.max_receive_message_length": 1 << 28 });
  let bound = 0;
  // Only the engine that started this process may call it (see caller.ts for the rule and why).
  const host = "127.0.0.1";
  const callers = new CallerCheck({
    host,
    port: () => bound,
    warn: (m) => process.stderr.write(`${NATIVE_PACKAGE}: ${m}\n`),
  });
  server.addService(withDecodedRequests(ResourceProviderService), guardService(provider.service(), callers));
  bound = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (error, actual) =>
      error ? reject(error) : resolve(actual),
    );
  });
  return { port: bound, server, provider };
}

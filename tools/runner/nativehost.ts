// The native plugin (`pulumi-resource-cpln-native`) behind the MiniEngine's provider surface: spawned as the engine
// spawns a resource plugin (its executable, engine address last, port on the first stdout line), configured with the
// stack config, and driven with the values the engine sends a provider that accepts secrets (secrets stay
// sig-wrapped, so the plugin can keep them secret in its outputs). The gRPC calls are tools/native/client.ts's.
import * as path from "node:path";
import { NATIVE_PACKAGE } from "../../provider/native/identity.js";
import { NativePluginClient, PluginCallError } from "../native/client.js";
import {
  ProviderHostError,
  type CheckResult,
  type CreateResult,
  type DiffResult,
  type HostCall,
  type ProviderHost,
  type ReadResult,
} from "./host.js";
import { makeSecret, toPropertyMap, type PropertyMap } from "./values.js";

/** The plugin's package: its resource tokens are `cpln-native:index:<Type>`, its config keys `cpln-native:<key>`. */
export const nativePackage = NATIVE_PACKAGE;
/** The stack config namespace the programs (and the dynamic provider) read: `cpln:org`, `cpln:token`. */
const programNamespace = "cpln";

/** The package root (dist/tools/runner → ../../..), where bin/pulumi-resource-cpln-native lives. */
const packageRoot = path.resolve(__dirname, "..", "..", "..");

export interface NativeHostStartOptions {
  /** Working directory of the plugin (the engine runs plugins from the program's directory). */
  cwd: string;
  /** Extra environment for the plugin process (e.g. CPLN_REQUEST_LOG). */
  env?: Record<string, string | undefined>;
  /** The plugin executable; defaults to this package's bin/pulumi-resource-cpln-native. */
  executable?: string;
  startTimeoutMs?: number;
  /** The engine address the plugin gets (where it logs diagnostics); default one nothing listens on. */
  engineAddress?: string;
}

/** True for the type tokens the native plugin serves (`cpln-native:index:VolumeSet`). */
export function isNativeType(type: string): boolean {
  return type.startsWith(`${nativePackage}:`);
}

/**
 * The plugin's Configure args from the stack config: `cpln:<key>` is offered as `cpln-native:<key>` (the program's
 * config, as a user switching to the native classes would copy it), an explicit `cpln-native:<key>` wins; secret
 * keys travel sig-wrapped. Other namespaces are the program's own and not the provider's.
 */
export function nativeConfigArgs(config: Record<string, string>, secretKeys: readonly string[]): PropertyMap {
  const args: PropertyMap = {};
  const take = (namespace: string): void => {
    for (const [key, value] of Object.entries(config)) {
      const at = key.indexOf(":");
      if (key.slice(0, at) !== namespace) continue;
      args[key.slice(at + 1)] = secretKeys.includes(key) ? makeSecret(value) : value;
    }
  };
  take(programNamespace);
  take(nativePackage);
  return args;
}

/** The part of a Pulumi package schema the runner reads: which resource outputs are secret. */
interface PackageSchema {
  resources?: Record<string, { properties?: Record<string, { secret?: boolean } | undefined> } | undefined>;
}

export class NativePluginHost implements ProviderHost {
  readonly calls: HostCall[] = [];
  private schema: Promise<PackageSchema> | undefined;

  private constructor(private readonly client: NativePluginClient) {}

  static async start(options: NativeHostStartOptions): Promise<NativePluginHost> {
    const env: Record<string, string | undefined> = { ...options.env };
    // The state passphrase is none of the plugin's business; its config comes through Configure only.
    for (const key of ["PULUMI_CONFIG_PASSPHRASE", "PULUMI_CONFIG_PASSPHRASE_FILE", "PULUMI_CONFIG"])
      env[key] = undefined;
    const executable = options.executable ?? path.join(packageRoot, "bin", `pulumi-resource-${nativePackage}`);
    const client = await NativePluginClient.executable(executable, {
      cwd: options.cwd,
      env,
      startTimeoutMs: options.startTimeoutMs,
      engineAddress: options.engineAddress,
    });
    return new NativePluginHost(client);
  }

  get startMs(): number {
    return this.client.startMs;
  }

  logs(): string[] {
    return this.client.logs();
  }

  private async call<T>(method: string, urn: string | undefined, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      const result = await run();
      this.calls.push({ method, urn, ms: performance.now() - started, ok: true });
      return result;
    } catch (error) {
      this.calls.push({ method, urn, ms: performance.now() - started, ok: false });
      if (error instanceof PluginCallError) throw new ProviderHostError(method, error.code, error.details, urn);
      throw error;
    }
  }

  async configure(
    config: Record<string, string>,
    secretKeys: readonly string[] = [],
  ): Promise<{ acceptSecrets: boolean }> {
    const args = nativeConfigArgs(config, secretKeys);
    const response = await this.call("configure", undefined, () => this.client.configure(args));
    return { acceptSecrets: response.acceptSecrets };
  }

  async check(urn: string, olds: PropertyMap, news: PropertyMap): Promise<CheckResult> {
    const result = await this.call("check", urn, () => this.client.check(urn, olds, news));
    return { inputs: toPropertyMap(result.inputs), failures: result.failures };
  }

  async diff(
    id: string,
    urn: string,
    oldOutputs: PropertyMap,
    news: PropertyMap,
    oldInputs: PropertyMap = {},
  ): Promise<DiffResult> {
    const diff = await this.call("diff", urn, () => this.client.diff(id, urn, oldOutputs, news, oldInputs));
    return {
      changes: diff.changes === "some" ? true : diff.changes === "none" ? false : undefined,
      replaces: diff.replaces,
      deleteBeforeReplace: diff.deleteBeforeReplace,
      detailedDiff: diff.hasDetailedDiff ? diff.detailedDiff : undefined,
    };
  }

  async create(urn: string, inputs: PropertyMap): Promise<CreateResult> {
    const created = await this.call("create", urn, () => this.client.create(urn, inputs));
    return { id: created.id, outputs: toPropertyMap(created.outputs) };
  }

  async read(id: string, urn: string, props: PropertyMap, inputs: PropertyMap = {}): Promise<ReadResult> {
    const read = await this.call("read", urn, () => this.client.read(id, urn, props, inputs));
    return { id: read.id, props: toPropertyMap(read.props), inputs: toPropertyMap(read.inputs) };
  }

  async update(
    id: string,
    urn: string,
    oldOutputs: PropertyMap,
    news: PropertyMap,
    oldInputs: PropertyMap = {},
  ): Promise<PropertyMap> {
    return toPropertyMap(
      await this.call("update", urn, () => this.client.update(id, urn, oldOutputs, news, oldInputs)),
    );
  }

  async delete(id: string, urn: string, props: PropertyMap, oldInputs: PropertyMap = {}): Promise<void> {
    await this.call("delete", urn, () => this.client.delete(id, urn, props, oldInputs));
  }

  /** The outputs the plugin's schema (GetSchema) marks `secret: true` for `type`; the schema is fetched once. */
  async secretOutputs(type: string): Promise<string[]> {
    this.schema ??= this.call("getSchema", undefined, () => this.client.getSchema()).then(
      (text) => JSON.parse(text) as PackageSchema,
    );
    const properties = (await this.schema).resources?.[type]?.properties ?? {};
    return Object.keys(properties).filter((name) => properties[name]?.secret === true);
  }

  async stop(): Promise<void> {
    await this.client.stop();
  }
}

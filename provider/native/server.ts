/**
 * The native provider plugin: Pulumi's `ResourceProvider` gRPC service, served with @grpc/grpc-js and the generated
 * stubs in `@pulumi/pulumi/proto`. It is the second thin adapter over the same core as the dynamic providers: every
 * resource operation goes to `runtime.ts` (which dispatches to the definitions in `resources/*`), every function to
 * `functions/*`. It is generic over the registries in `provider/index.ts`: a resource or function added there is served
 * here under `cpln-native:index:<Name>` with no code in this file.
 *
 * What this adapter adds over the dynamic one: provider config from Configure (`cpln-native:org|endpoint|token`),
 * secrets accepted (unwrapped on the way in, re-wrapped on the way out), detailed diffs, `preview` honoured, Read with
 * only an id (`pulumi import`, self link or the Terraform short forms), Invoke, and the old `__provider` input carried
 * over so that a stack moved from the dynamic classes to the native ones diffs clean.
 */
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { ResourceProviderService } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import { parseLink, selfLink } from "../../api/links.js";
import { ConfigError, resolveOrg, type StackConfig } from "../config.js";
import * as functionImpls from "../functions/index.js";
import { FunctionArgsError } from "../functions/index.js";
import { declaredFunctionsByName, functions, resources, type FunctionDefinition } from "../index.js";
import { changedFields, diffOfChanged, LOGICAL_NAME, managedValue, prune } from "../resources/lifecycle.js";
import type { AnyResourceDefinition, ResourceTypeName } from "../resources/types.js";
import * as runtime from "../runtime.js";
import { CallerCheck, guardService } from "./caller.js";
import { NATIVE_PACKAGE, packageFile, pluginVersion, tokenMember, withNativeConfigKeys } from "./identity.js";
import { rewrap, toStruct, unwrapProps, type Props } from "./values.js";
import { PropsResponse, RESPONSE_PROPS_FIELDS, withDecodedRequests, type PropsRequest } from "./wire.js";

const CONFIG_KEYS = ["org", "endpoint", "token", "timeoutSeconds"] as const;
type ConfigKey = (typeof CONFIG_KEYS)[number];
/** The environment variable each key falls back to (schema.json's `defaultInfo`). */
const CONFIG_ENV: Record<ConfigKey, string> = {
  org: "CPLN_ORG",
  endpoint: "CPLN_ENDPOINT",
  token: "CPLN_TOKEN",
  timeoutSeconds: "CPLN_TIMEOUT",
};
const PROVIDER_KEY = "__provider";

type Callback<T> = grpc.sendUnaryData<T>;
type Call<T> = grpc.ServerUnaryCall<T, unknown>;

/** The provider's state: its configuration (the token only in memory) and whether the engine asked it to stop. */
export class NativeProvider {
  private config: Partial<Record<ConfigKey, string>> = {};
  private configured = false;
  private cancelled = false;
  private schemaText: string | undefined;

  /** The core's view of the config: the dynamic provider's `cpln:<key>` names, filled from `cpln-native:<key>`. */
  readonly stackConfig: StackConfig = {
    get: (key) => (key.startsWith("cpln:") ? this.config[key.slice("cpln:".length) as ConfigKey] : undefined),
  };

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

  /** Problems of a provider config (`org`, `endpoint`, `token`, `timeoutSeconds`), by key; other keys pass. */
  private configFailures(values: Props): provproto.CheckFailure[] {
    const failures: provproto.CheckFailure[] = [];
    const fail = (property: string, reason: string) => {
      const failure = new provproto.CheckFailure();
      failure.setProperty(property);
      failure.setReason(reason);
      failures.push(failure);
    };
    for (const key of CONFIG_KEYS) {
      const value = values[key];
      if (value === undefined || value === null || isUnknown(value)) continue;
      if (key === "timeoutSeconds") {
        // A typed input arrives as a number, `pulumi config set` as a string.
        const seconds = typeof value === "number" || typeof value === "string" ? Number(value) : NaN;
        if (!(Number.isFinite(seconds) && seconds > 0 && String(value).trim() !== "")) {
          fail(key, `${NATIVE_PACKAGE}:${key} must be a positive number of seconds, got ${JSON.stringify(value)}`);
        }
      } else if (typeof value !== "string") fail(key, `${NATIVE_PACKAGE}:${key} must be a string`);
    }
    const endpoint = values.endpoint;
    if (typeof endpoint === "string" && !isUnknown(endpoint) && endpoint.trim() !== "") {
      let valid: boolean;
      try {
        valid = ["http:", "https:"].includes(new URL(endpoint.trim()).protocol);
      } catch {
        valid = false;
      }
      if (!valid) fail("endpoint", `${NATIVE_PACKAGE}:endpoint must be an http(s) URL, got "${endpoint}"`);
    }
    return failures;
  }

  /** Configure: `args` holds the provider's inputs by short key; `variables` the same by `<pkg>:config:<key>`. */
  private configure(request: provproto.ConfigureRequest): provproto.ConfigureResponse {
    // One Configure per process (the engine starts one plugin per provider): a later one could point the token at
    // another endpoint.
    if (this.configured)
      throw new ConfigError(`${NATIVE_PACKAGE} is already configured; a second Configure is refused`);
    const values: Props = {};
    request.getVariablesMap().forEach((value, key) => {
      const short = key.replace(`${NATIVE_PACKAGE}:config:`, "").replace(`${NATIVE_PACKAGE}:`, "");
      values[short] = value;
    });
    const args = unwrapProps(request.getArgs()).props;
    for (const key of CONFIG_KEYS) if (args[key] !== undefined) values[key] = args[key];
    const failures = this.configFailures(values);
    if (failures.length > 0) {
      throw new ConfigError(failures.map((failure) => `${failure.getProperty()}: ${failure.getReason()}`).join("; "));
    }
    const config: Partial<Record<ConfigKey, string>> = {};
    for (const key of CONFIG_KEYS) {
      const value = typeof values[key] === "number" ? String(values[key]) : values[key];
      if (typeof value === "string" && value.trim() !== "" && !isUnknown(value)) config[key] = value;
    }
    // The environment is read here, once: after Configure the plugin never falls back to it.
    for (const key of CONFIG_KEYS) config[key] ??= envConfig(key);
    this.config = config;
    this.configured = true;
    runtime.configure(this.stackConfig);
    const response = new provproto.ConfigureResponse();
    response.setAcceptsecrets(true);
    response.setSupportspreview(true);
    response.setAcceptresources(false);
    response.setAcceptoutputs(false);
    return response;
  }

  // ---- resources -----------------------------------------------------------------------------------------------------

  private definition(urn: string, type: string): { typeName: ResourceTypeName; def: AnyResourceDefinition } {
    const token = type !== "" ? type : typeOfUrn(urn);
    const member = tokenMember(token);
    const registry: Record<string, AnyResourceDefinition> = resources;
    const def = member === undefined ? undefined : registry[member];
    if (member === undefined || def === undefined) {
      throw new Error(`${NATIVE_PACKAGE}: unknown resource type "${token}"`);
    }
    return { typeName: member as ResourceTypeName, def };
  }

  private async check(request: PropsRequest): Promise<PropsResponse<provproto.CheckResponse>> {
    const { typeName, def } = this.definition(request.urn, request.type);
    const olds = readable(request).olds.props;
    const { props: news, secretKeys } = request.news;
    if (news[LOGICAL_NAME] === undefined) news[LOGICAL_NAME] = request.name || nameOfUrn(request.urn);
    const outcome = await runtime.check(typeName, olds, news, request.urn);
    const inputs: Props = { ...outcome.inputs };
    // A stack moved from the dynamic classes keeps its `__provider` input, so the inputs it stores do not change.
    if (typeof olds[PROVIDER_KEY] === "string") inputs[PROVIDER_KEY] = olds[PROVIDER_KEY];
    const response = new provproto.CheckResponse();
    for (const { property, reason } of outcome.failures) {
      const failure = new provproto.CheckFailure();
      failure.setProperty(property);
      failure.setReason(this.scrub(reason));
      response.addFailures(failure);
    }
    // The type's secret fields are secret inputs too: an SDK generated from schema.json (Python, Go, YAML) marks them
    // secret only as outputs, and the engine stores the inputs Check returns (Secret.data was plaintext in state).
    return new PropsResponse(response, RESPONSE_PROPS_FIELDS.check, rewrap(inputs, withSecretOutputs(def, secretKeys)));
  }

  private async diff(request: PropsRequest): Promise<provproto.DiffResponse> {
    const { def } = this.definition(request.urn, request.type);
    const olds = readable(request).olds.props;
    const news = request.news.props;
    // runtime.diff's decision, from the changed fields found once (the detailed diff below lists the same fields).
    const fields = changedFields(def, olds, news);
    const outcome = diffOfChanged(def, fields, news);
    const response = new provproto.DiffResponse();
    const Changes = provproto.DiffResponse.DiffChanges;
    response.setHasdetaileddiff(true);
    if (!outcome.changes) {
      response.setChanges(Changes.DIFF_NONE);
      return response;
    }
    response.setChanges(Changes.DIFF_SOME);
    response.setDiffsList(fields);
    response.setReplacesList(outcome.replaces ?? []);
    response.setDeletebeforereplace(outcome.deleteBeforeReplace === true);
    const detailed = response.getDetaileddiffMap();
    for (const field of fields) {
      const rule = def.fields[field] ?? {};
      const replace = rule.replace === true;
      const before = prune(managedValue(rule, olds[field]));
      const after = prune(managedValue(rule, news[field]));
      const paths = propertyDiffs(field, before, after);
      // Unordered arrays: the same elements in another order count as equal, so a change shows on the whole field.
      if (paths.length === 0) paths.push([field, Kind.UPDATE]);
      for (const [property, kind] of paths) {
        const diff = new provproto.PropertyDiff();
        diff.setKind(replace ? replacing(kind) : kind);
        diff.setInputdiff(false);
        detailed.set(property, diff);
      }
    }
    return response;
  }

  private async create(request: PropsRequest): Promise<PropsResponse<provproto.CreateResponse>> {
    const { typeName, def } = this.definition(request.urn, request.type);
    const { props: inputs, secretKeys } = readable(request).properties;
    const response = new provproto.CreateResponse();
    const field = RESPONSE_PROPS_FIELDS.create;
    if (request.preview) return new PropsResponse(response, field, rewrap(withoutProvider(inputs), secretKeys));
    const { id, outs } = await runtime.create(typeName, inputs);
    response.setId(id);
    return new PropsResponse(response, field, rewrap(outs, withSecretOutputs(def, secretKeys)));
  }

  /**
   * A self link, or a Terraform import id in the configured org: the definition's own form (`importId`, tried first:
   * a domain route's `/org/o/domain/d:443:/` reads as a link too), else `gvc:name` for gvc-scoped kinds and `name`
   * otherwise.
   */
  private resolveId(def: AnyResourceDefinition, id: string): string {
    const configured = resolveOrg({ stackConfig: this.stackConfig });
    const own = configured === undefined ? undefined : def.importId?.resolve(configured, id);
    if (own !== undefined) return own;
    if (parseLink(id) !== undefined) return id;
    const org = configured;
    if (org === undefined) {
      throw new ConfigError(
        `cannot resolve the import id "${id}": no org is configured (${NATIVE_PACKAGE}:org or CPLN_ORG)`,
      );
    }
    if (def.importId !== undefined) {
      throw new Error(`${def.typeName}: "${id}" is not an id of this resource: use its id or "${def.importId.form}"`);
    }
    const parts = id.split(":");
    const scoped = parts.length === 2 && parts.every((part) => part !== "");
    try {
      if (scoped) return selfLink(org, def.kind, parts[1] as string, parts[0]);
      if (parts.length === 1 && id !== "") return selfLink(org, def.kind, id);
    } catch {
      // selfLink refuses a gvc-scoped kind without a gvc: reported below with the forms that work.
    }
    throw new Error(
      `${def.typeName}: "${id}" is not an id of this resource: use its self link or ` +
        `${scoped ? "the name alone" : '"<gvc>:<name>" (or the name alone for org-level kinds)'}`,
    );
  }

  private async read(request: provproto.ReadRequest): Promise<provproto.ReadResponse> {
    const { typeName, def } = this.definition(request.getUrn(), request.getType());
    const { props, secretKeys } = unwrapProps(request.getProperties());
    const inputSecrets = unwrapProps(request.getInputs()).secretKeys;
    const id = this.resolveId(def, request.getId());
    const result = await runtime.read(typeName, id, props);
    const response = new provproto.ReadResponse();
    if (result.id === "" || result.props === undefined) return response;
    const secrets = withSecretOutputs(def, new Set([...secretKeys, ...inputSecrets]));
    response.setId(result.id);
    response.setProperties(toStruct(rewrap(result.props, secrets)));
    response.setInputs(toStruct(rewrap(result.inputs ?? {}, secrets)));
    return response;
  }

  private async update(request: PropsRequest): Promise<PropsResponse<provproto.UpdateResponse>> {
    const { typeName, def } = this.definition(request.urn, request.type);
    const olds = readable(request).olds.props;
    const { props: news, secretKeys } = request.news;
    const response = new provproto.UpdateResponse();
    const field = RESPONSE_PROPS_FIELDS.update;
    if (request.preview) {
      return new PropsResponse(
        response,
        field,
        rewrap({ ...withoutProvider(olds), ...withoutProvider(news) }, secretKeys),
      );
    }
    const { outs } = await runtime.update(typeName, request.id, olds, news);
    return new PropsResponse(response, field, rewrap(outs, withSecretOutputs(def, secretKeys)));
  }

  private async delete(request: PropsRequest): Promise<Empty> {
    const { typeName } = this.definition(request.urn, request.type);
    await runtime.delete(typeName, request.id, readable(request).properties.props);
    return new Empty();
  }

  // ---- functions -----------------------------------------------------------------------------------------------------

  private async invoke(request: provproto.InvokeRequest): Promise<provproto.InvokeResponse> {
    const name = tokenMember(request.getTok());
    const registry: Record<string, FunctionDefinition> = functions;
    const entry = name === undefined ? undefined : registry[name];
    const impl =
      name === undefined
        ? undefined
        : (declaredFunctionsByName[name]?.run ?? (functionImpls as Record<string, unknown>)[name]);
    if (name === undefined || entry === undefined || typeof impl !== "function") {
      throw new Error(`${NATIVE_PACKAGE}: unknown function "${request.getTok()}"`);
    }
    const { props: args, secretKeys } = unwrapProps(request.getArgs());
    const response = new provproto.InvokeResponse();
    let result: Props;
    try {
      const run = impl as (args: unknown, env: functionImpls.FunctionEnv) => Promise<unknown>;
      result = JSON.parse(JSON.stringify(await run(args, { stackConfig: this.stackConfig }))) as Props;
    } catch (error) {
      if (!(error instanceof FunctionArgsError)) throw error;
      for (const issue of error.issues) {
        const failure = new provproto.CheckFailure();
        failure.setProperty(issue.path);
        failure.setReason(issue.message);
        response.addFailures(failure);
      }
      return response;
    }
    // Secret results, and everything when an argument was secret.
    const secretFields = secretKeys.size > 0 ? Object.keys(result) : (entry.secretResultFields ?? []);
    response.setReturn(toStruct(rewrap(result, secretFields)));
    return response;
  }

  /** The service implementation for grpc-js; methods not listed here answer UNIMPLEMENTED. */
  service(): grpc.UntypedServiceImplementation {
    const unary =
      <Req, Res>(body: (req: Req) => Promise<Res> | Res) =>
      (call: Call<Req>, callback: Callback<Res>) =>
        void this.run(call, callback, body);
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
        response.setFailuresList(this.configFailures(props));
        return response;
      }),
      diffConfig: unary((request: provproto.DiffRequest) => {
        const olds = unwrapProps(request.getOldInputs() ?? request.getOlds()).props;
        const news = unwrapProps(request.getNews()).props;
        const changed = CONFIG_KEYS.filter((key) => (olds[key] ?? undefined) !== (news[key] ?? undefined));
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
      check: unary((request: PropsRequest) => this.check(request)),
      diff: unary((request: PropsRequest) => this.diff(request)),
      create: unary((request: PropsRequest) => this.create(request)),
      read: unary((request: provproto.ReadRequest) => this.read(request)),
      update: unary((request: PropsRequest) => this.update(request)),
      delete: unary((request: PropsRequest) => this.delete(request)),
      invoke: unary((request: provproto.InvokeRequest) => this.invoke(request)),
      cancel: (_call: Call<Empty>, callback: Callback<Empty>) => {
        this.cancelled = true;
        callback(null, new Empty());
      },
    };
  }
}

// ---- helpers ---------------------------------------------------------------------------------------------------------

const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** `CPLN_ORG`, `CPLN_ENDPOINT`, `CPLN_TOKEN` (the documented fallbacks), when set. */
function envConfig(key: ConfigKey): string | undefined {
  const value = process.env[CONFIG_ENV[key]];
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

function isUnknown(value: unknown): boolean {
  return value === UNKNOWN;
}

/**
 * The keys to wrap as secrets in a response: the request's secret keys and the outputs the type declares secret
 * (`secretOutputs`), so that they are secret in the engine's state whatever options the program registered with.
 */
function withSecretOutputs(def: AnyResourceDefinition, keys: Iterable<string>): Set<string> {
  return new Set([...keys, ...(def.secretOutputs ?? [])]);
}

/** The request, once its property bags are known to read as `unwrapProps` reads them (which throws for a kindless Value). */
function readable(request: PropsRequest): PropsRequest {
  if (request.failure !== undefined) throw new Error(request.failure);
  return request;
}

function withoutProvider(props: Props): Props {
  const { [PROVIDER_KEY]: _provider, ...rest } = props;
  return rest;
}

/** `urn:pulumi:<stack>::<project>::<parent types $ type>::<name>` → the resource's own type. */
function typeOfUrn(urn: string): string {
  const parts = urn.split("::");
  const types = parts[2] ?? "";
  return types.split("$").pop() ?? "";
}

function nameOfUrn(urn: string): string {
  return urn.split("::").slice(3).join("::");
}

const Kind = provproto.PropertyDiff.Kind;
type DiffKind = provproto.PropertyDiff.Kind;

function replacing(kind: DiffKind): DiffKind {
  if (kind === Kind.ADD) return Kind.ADD_REPLACE;
  if (kind === Kind.DELETE) return Kind.DELETE_REPLACE;
  return Kind.UPDATE_REPLACE;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The property paths that differ between two (pruned) values, in Pulumi's path syntax (`autoscaling.maxCapacity`,
 * `bindings[1].permissions`, `tags["team.name"]`): objects are descended key by key, arrays of the same length element
 * by element; anything else is one change at its path.
 */
export function propertyDiffs(pathText: string, before: unknown, after: unknown): [string, DiffKind][] {
  if (before === undefined && after === undefined) return [];
  if (before === undefined) return [[pathText, Kind.ADD]];
  if (after === undefined) return [[pathText, Kind.DELETE]];
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => propertyDiffs(childPath(pathText, key), before[key], after[key]));
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    return before.flatMap((item, index) => propertyDiffs(`${pathText}[${index}]`, item, after[index]));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [[pathText, Kind.UPDATE]];
}

function childPath(parent: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
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

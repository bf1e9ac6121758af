// A small stand-in for the Pulumi engine's step generator and executor, for dynamic resources and the native plugin's
// (`cpln-native:*`; each type goes to the provider process of its package, started on first use). It keeps the
// stack's state in a JSON file and turns each resource registration into the provider calls `pulumi up` makes:
// check → create, or check → diff → same / update / replace; resources no longer registered are deleted at the end.
// It approximates the engine (no dependency graph, no refresh/import/protect/ignoreChanges) and says so.
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  DynamicProviderHost,
  ProviderHostError,
  type CheckFailure,
  type HostStartOptions,
  type ProviderHost,
} from "./host.js";
import { parseAdoptionNotice } from "../../provider/adoptNotice.js";
import { EngineLogServer, type Diagnostic } from "./engineLog.js";
import { isNativeType, NativePluginHost, type NativeHostStartOptions } from "./nativehost.js";
import { SecretCrypter, type SecretsProviderState } from "./secrets.js";
import {
  annotateSecrets,
  changedKeys,
  changedPaths,
  deepEqual,
  withoutEmpty,
  isPlainObject,
  isSecret,
  makeSecret,
  remarkSecrets,
  secretSig,
  secretSigKey,
  stripSecretsMap,
  type PropertyMap,
  type PropertyValue,
} from "./values.js";

/** `adopt`: a create with `adopt: true` whose object exists (the provider said so at check time): it is taken over. */
export type StepOp = "create" | "adopt" | "update" | "replace" | "same" | "delete" | "read" | "refresh";

export interface Step {
  urn: string;
  op: StepOp;
  /** The resource's id after the step (the deleted id for "delete"; undefined for planned creates in preview). */
  id: string | undefined;
  /** Properties that forced a replacement. */
  replaces?: string[];
  /** Input properties whose values changed (update and replace). */
  changedKeys?: string[];
  /** Input property paths whose values changed (update and replace): `tags.team`, `bindings[0].permissions`. */
  changedPaths?: string[];
  /** The provider's detailed diff (update and replace, native plugin): property path → ADD | DELETE | UPDATE[_REPLACE]. */
  detailedDiff?: Record<string, string>;
  /** The HTTP requests the provider sent for this step (recorded when the engine has a `requestLog`). */
  requests?: SentRequest[];
  /** What the provider logged to the engine during the step (`warning: ...`), as the engine shows under a resource. */
  diagnostics?: string[];
  /** One line for humans. */
  detail: string;
}

/** One request the provider sent to the API, as `CPLN_REQUEST_LOG` records it (no headers, so no token). */
export interface SentRequest {
  method: string;
  path: string;
  body?: unknown;
  /** HTTP status, or the client's error code when no response came. */
  status: number | string;
}

export interface RegisterResult {
  id: string | undefined;
  outputs: PropertyMap;
  step: Step;
}

export interface ResourceState {
  urn: string;
  type: string;
  id: string;
  /** Checked inputs, secrets wrapped. */
  inputs: PropertyMap;
  /** Outputs as returned by the provider, secrets re-marked. */
  outputs: PropertyMap;
  /** Outputs kept secret whatever the provider returns (the resource's `additionalSecretOutputs`, the schema's). */
  secretOutputs?: string[];
}

interface StateFileBody {
  version: 1;
  /** Tells readers what wrote this file. */
  writtenBy: string;
  project: string;
  stack: string;
  secretsProvider: SecretsProviderState;
  config: Record<string, string | { secure: string }>;
  resources: ResourceState[];
  /** Old halves of create-before-delete replacements, deleted at the end of the run. */
  pendingDeletes: ResourceState[];
}

/**
 * A registration the engine did not run because an earlier step failed: the run stops at the first failure, as
 * `pulumi up` does without `--continue-on-error`.
 */
export class SkippedError extends Error {
  constructor(
    readonly urn: string,
    readonly failedUrn: string,
  ) {
    super(`${urn}: skipped: not started, ${failedUrn} failed first`);
    this.name = "SkippedError";
  }
}

/** What a registration carries besides its inputs (the RegisterResourceRequest's options the engine applies). */
export interface RegisterOptions {
  preview?: boolean;
  /** Output names to keep secret (`additionalSecretOutputs`). */
  additionalSecretOutputs?: readonly string[];
  /** URNs this resource had before (`aliases`): a resource in state under one of them is this resource. */
  aliases?: readonly string[];
}

/** A registration rejected by the provider's check. */
export class CheckFailedError extends Error {
  constructor(
    readonly urn: string,
    readonly failures: CheckFailure[],
  ) {
    super(`${urn}: check failed:\n${failures.map((f) => `  - ${f.property}: ${f.reason}`).join("\n")}`);
    this.name = "CheckFailedError";
  }
}

export interface MiniEngineOptions {
  stateFile: string;
  project: string;
  stack: string;
  /** The whole stack config (namespaced keys), recorded in the state file; omit to use the recorded config. */
  config?: Record<string, string>;
  secretConfigKeys?: readonly string[];
  /** `config` replaces the recorded config instead of being merged into it. */
  replaceConfig?: boolean;
  /** Plan only: check and diff, never create, update or delete, never write the state file. */
  preview?: boolean;
  /** How to start the dynamic-provider host (started lazily, once, and configured with the stack config). */
  host: HostStartOptions;
  /** How to start the native plugin, which serves the `cpln-native:*` types (started lazily, once, and configured). */
  native?: NativeHostStartOptions;
  /** Which provider `warmUp` starts ahead of the first registration (default: the dynamic host). */
  warm?: "dynamic" | "native";
  /** Source of PULUMI_CONFIG_PASSPHRASE. */
  env?: NodeJS.ProcessEnv;
  /** A file the host's client appends its requests to (`CPLN_REQUEST_LOG`); each step takes the new lines. */
  requestLog?: string;
  /** Called as each step completes (progress), and as a resource step starts. */
  onStep?(step: Step): void;
  onStepStart?(urn: string): void;
}

const writtenBy = "cpln-pulumi offline runner (a stand-in for the Pulumi engine)";
const providerKey = "__provider";

export class MiniEngine {
  readonly steps: Step[] = [];
  private readonly registered: string[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  /** The provider processes, by the package they serve (dynamic host, native plugin), started on first use. */
  private readonly hosts = new Map<"dynamic" | "native", Promise<ProviderHost>>();
  private readonly startedHosts: ProviderHost[] = [];
  private finished = false;
  /** The state file's text as last read or written, so an unchanged state is not rewritten. */
  private written: string | undefined;
  /** Bytes of the request log already attributed to a step. */
  private requestLogOffset = 0;
  /** The URN of the first registration that failed: later registrations are not run. */
  private failedUrn: string | undefined;
  /** The URN whose step is running, if any. */
  private running: string | undefined;
  /** The config the state file records: the one it had, until the run succeeds and `commitConfig` records the new. */
  private storedConfig: Record<string, string> = {};
  private storedSecretKeys: string[] = [];
  /** The Engine.Log service the provider processes log to, started with the first of them. */
  private logServer: Promise<EngineLogServer> | undefined;
  /** Diagnostics not yet shown with a step, by URN ("" for those about no resource). */
  private readonly diagnostics = new Map<string, Diagnostic[]>();

  private constructor(
    private readonly options: MiniEngineOptions,
    private readonly crypter: SecretCrypter,
    private resources: ResourceState[],
    private pendingDeletes: ResourceState[],
    /** Merged stack config (plaintext, in memory only). */
    readonly config: Record<string, string>,
    readonly secretConfigKeys: string[],
  ) {}

  /** Loads (or starts) the stack state and merges the given config into it. */
  static open(options: MiniEngineOptions): MiniEngine {
    const env = options.env ?? process.env;
    const existingText = fs.existsSync(options.stateFile) ? fs.readFileSync(options.stateFile, "utf8") : undefined;
    const existing = existingText === undefined ? undefined : parseStateFile(options.stateFile, existingText);
    if (existing && (existing.project !== options.project || existing.stack !== options.stack)) {
      throw new Error(
        `${options.stateFile} holds stack ${existing.project}/${existing.stack}, not ${options.project}/${options.stack}`,
      );
    }
    const crypter =
      options.preview && !existing
        ? SecretCrypter.ephemeral()
        : SecretCrypter.open(options.stateFile, existing?.secretsProvider, env, (text) =>
            process.stderr.write(`${text}\n`),
          );
    // Given config replaces the recorded one (the whole stack config); without it, the recorded config is used.
    const config: Record<string, string> = {};
    const secretKeys = new Set<string>();
    const recorded: Record<string, string> = {};
    const recordedSecrets = new Set<string>();
    for (const [key, value] of Object.entries(existing?.config ?? {})) {
      if (typeof value === "string") recorded[key] = value;
      else {
        // Decrypting also lets an unchanged secret keep its ciphertext.
        recorded[key] = crypter.decrypt(value.secure, `config:${key}`);
        recordedSecrets.add(key);
      }
    }
    // Given config is set over the recorded one, like `pulumi config set` (or replaces it, with replaceConfig).
    if (options.config === undefined || !options.replaceConfig) {
      Object.assign(config, recorded);
      for (const key of recordedSecrets) secretKeys.add(key);
    }
    if (options.config !== undefined) {
      for (const [key, value] of Object.entries(options.config)) {
        if (!/^[^:]+:.+$/.test(key)) throw new Error(`config key "${key}" must be namespaced ("<namespace>:<name>")`);
        config[key] = value;
        // Set without --secret, a key is plain from now on (as `pulumi config set` without --secret).
        secretKeys.delete(key);
      }
      for (const key of options.secretConfigKeys ?? []) {
        if (!(key in config)) throw new Error(`secretConfigKeys names "${key}", which is not in config`);
        secretKeys.add(key);
      }
    }
    const decode = (where: string) => (r: ResourceState) => ({
      ...r,
      inputs: decryptMap(crypter, r.inputs, `${where}:${r.urn}:${r.id}:inputs`),
      outputs: decryptMap(crypter, r.outputs, `${where}:${r.urn}:${r.id}:outputs`),
    });
    const engine = new MiniEngine(
      options,
      crypter,
      (existing?.resources ?? []).map(decode("resource")),
      (existing?.pendingDeletes ?? []).map(decode("pending")),
      config,
      [...secretKeys].sort(),
    );
    // Until the run succeeds (commitConfig), the state file keeps the config it had.
    engine.storedConfig = recorded;
    engine.storedSecretKeys = [...recordedSecrets].sort();
    engine.written = existingText;
    if (!options.preview) engine.save();
    return engine;
  }

  get preview(): boolean {
    return this.options.preview ?? false;
  }

  /** The resources in state (secrets wrapped, plaintext in memory). */
  state(): ResourceState[] {
    return this.resources.map((r) => ({ ...r }));
  }

  /** The first provider process started, if any (for call logs and timings). */
  get hostProcess(): ProviderHost | undefined {
    return this.startedHosts[0];
  }

  /** Every provider process started this run, in start order. */
  get hostProcesses(): ProviderHost[] {
    return [...this.startedHosts];
  }

  /**
   * One engine step for a registration. Registrations are processed one at a time, in arrival order. After a step
   * fails, later registrations are not run (they fail with `SkippedError`), as the engine stops at the first error.
   */
  register(urn: string, type: string, inputs: PropertyMap, opts: RegisterOptions = {}): Promise<RegisterResult> {
    const run = this.queue.then(async () => {
      if (this.failedUrn !== undefined) throw new SkippedError(urn, this.failedUrn);
      this.running = urn;
      this.options.onStepStart?.(urn);
      try {
        return await this.step(urn, type, inputs, opts.preview ?? this.preview, opts);
      } catch (error) {
        this.failedUrn ??= urn;
        throw error;
      } finally {
        this.running = undefined;
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The URN of the first failed registration, if one failed. */
  get failed(): string | undefined {
    return this.failedUrn;
  }

  /** The URN whose step is running now, if any. */
  get inFlight(): string | undefined {
    return this.running;
  }

  /** Resolves when no step is running or queued. */
  async idle(): Promise<void> {
    for (;;) {
      const queue = this.queue;
      await queue;
      if (queue === this.queue) return;
    }
  }

  private async step(
    urn: string,
    type: string,
    news: PropertyMap,
    preview: boolean,
    opts: RegisterOptions,
  ): Promise<RegisterResult> {
    if (this.finished) throw new Error("the engine has finished this run");
    if (this.registered.includes(urn))
      throw new Error(`duplicate resource URN ${urn}: each resource needs a unique name`);
    this.registered.push(urn);
    const host = await this.getHost(type);
    let old = this.resources.find((r) => r.urn === urn);
    if (!old) {
      // An alias names the resource's previous URN (another name or type): the resource in state under it is this one.
      const aliased = this.resources.find((r) => opts.aliases?.includes(r.urn) && !this.registered.includes(r.urn));
      if (aliased) {
        this.registered.push(aliased.urn);
        if (!preview) {
          aliased.urn = urn;
          aliased.type = type;
        }
        old = preview ? { ...aliased, urn, type } : aliased;
      }
    }
    if (old && old.type !== type) throw new Error(`${urn} is recorded with type ${old.type}, registered as ${type}`);
    const secretOutputs = [
      ...new Set([...(opts.additionalSecretOutputs ?? []), ...((await host.secretOutputs?.(type)) ?? [])]),
    ].sort();
    const keepSecret = (outputs: PropertyMap): PropertyMap => remarkSecrets(outputs, secretOutputs);
    const withSecrets = secretOutputs.length > 0 ? { secretOutputs } : {};

    const checked = await host.check(urn, old?.inputs ?? {}, news);
    if (checked.failures.length > 0) throw new CheckFailedError(urn, checked.failures);
    const inputs = annotateSecrets(checked.inputs, news);

    if (!old) {
      // A create the provider said at check time will adopt an existing object (and what that changes).
      const adoption = this.adoptionNotice(urn);
      if (preview) {
        const planned = adoption
          ? { op: "adopt" as const, detail: `adopt (planned) of ${adoption.link}: ${adoption.detail}` }
          : { op: "create" as const, detail: "create (planned)" };
        return this.report({ urn, id: undefined, ...planned }, inputs);
      }
      const created = await this.recordingInitFailure(() => host.create(urn, inputs), {
        urn,
        type,
        inputs,
        secretOutputs,
      });
      const outputs = keepSecret(annotateSecrets(created.outputs, inputs));
      this.resources.push({ urn, type, id: created.id, inputs, outputs, ...withSecrets });
      this.save();
      const done = adoption
        ? { op: "adopt" as const, detail: `adopted ${created.id}: ${adoption.detail}` }
        : { op: "create" as const, detail: `created ${created.id}` };
      return this.report({ urn, id: created.id, ...done }, outputs);
    }

    const diff = await host.diff(old.id, urn, old.outputs, inputs, old.inputs);
    const keys = changedKeys(stripSecretsMap(old.inputs), stripSecretsMap(inputs), [providerKey]);
    const paths = changedPaths(stripSecretsMap(old.inputs), stripSecretsMap(inputs), "", [providerKey]);
    // DIFF_UNKNOWN: the engine compares old and new inputs itself (including __provider).
    const changes = diff.changes ?? !deepEqual(stripSecretsMap(old.inputs), stripSecretsMap(inputs));
    const detailed = diff.detailedDiff && changes ? { detailedDiff: diff.detailedDiff } : {};

    if (!changes) {
      const outputs = keepSecret(old.outputs);
      if (!preview && (!deepEqual(old.inputs, inputs) || !deepEqual(old.outputs, outputs))) {
        old.inputs = inputs;
        old.outputs = outputs;
        Object.assign(old, withSecrets);
        this.save();
      }
      return this.report({ urn, op: "same", id: old.id, detail: "unchanged" }, old.outputs);
    }

    if (diff.replaces.length > 0) {
      // Replacement recomputes defaults: check again without old inputs.
      const rechecked = await host.check(urn, {}, news);
      if (rechecked.failures.length > 0) throw new CheckFailedError(urn, rechecked.failures);
      const newInputs = annotateSecrets(rechecked.inputs, news);
      const base = {
        urn,
        op: "replace" as const,
        replaces: diff.replaces,
        changedKeys: keys,
        changedPaths: paths,
        ...detailed,
      };
      const order = diff.deleteBeforeReplace ? "delete-before-replace" : "create-before-delete";
      if (preview) {
        return this.report({ ...base, id: undefined, detail: `replace (planned, ${order}) of ${old.id}` }, newInputs);
      }
      if (diff.deleteBeforeReplace) {
        await host.delete(old.id, urn, old.outputs, old.inputs);
        this.resources = this.resources.filter((r) => r !== old);
        this.save();
      }
      const created = await this.recordingInitFailure(() => host.create(urn, newInputs), {
        urn,
        type,
        inputs: newInputs,
        secretOutputs,
        replacing: diff.deleteBeforeReplace ? undefined : old,
      });
      const outputs = keepSecret(annotateSecrets(created.outputs, newInputs));
      const replacement: ResourceState = { urn, type, id: created.id, inputs: newInputs, outputs, ...withSecrets };
      if (diff.deleteBeforeReplace) this.resources.push(replacement);
      else {
        const replaced = old;
        this.resources = this.resources.map((r) => (r === replaced ? replacement : r));
        this.pendingDeletes.push(old);
      }
      this.save();
      const detail = diff.deleteBeforeReplace
        ? `replaced ${old.id} by ${created.id} (deleted first)`
        : `replaced ${old.id} by ${created.id} (old one deleted at the end)`;
      return this.report({ ...base, id: created.id, detail }, outputs);
    }

    const base = { urn, op: "update" as const, id: old.id, changedKeys: keys, changedPaths: paths, ...detailed };
    const what = keys.length > 0 ? keys.join(", ") : "provider-reported change";
    if (preview) return this.report({ ...base, detail: `update (planned): ${what}` }, inputs);
    let updated: PropertyMap;
    try {
      updated = await host.update(old.id, urn, old.outputs, inputs, old.inputs);
    } catch (error) {
      // The update went through but the object did not become healthy: record what the provider reported.
      if (error instanceof ProviderHostError && error.initFailure) {
        old.inputs = inputs;
        old.outputs = keepSecret(annotateSecrets(error.initFailure.properties, inputs));
        Object.assign(old, withSecrets);
        this.save();
      }
      throw error;
    }
    old.inputs = inputs;
    old.outputs = keepSecret(annotateSecrets(updated, inputs));
    Object.assign(old, withSecrets);
    this.save();
    return this.report({ ...base, detail: `updated ${what}` }, old.outputs);
  }

  /**
   * A read of an existing object (`Resource.get(name, id)`): the provider's read with the given properties as both
   * state and inputs, as the engine's ReadStep does. The object is not managed by the stack, so never deleted.
   */
  read(urn: string, type: string, id: string, props: PropertyMap, opts: RegisterOptions = {}): Promise<RegisterResult> {
    const run = this.queue.then(async () => {
      if (this.failedUrn !== undefined) throw new SkippedError(urn, this.failedUrn);
      if (this.registered.includes(urn) || this.resources.some((r) => r.urn === urn && r.type === type)) {
        throw new Error(`${urn}: a resource read with .get() needs a name not used by a managed resource`);
      }
      this.registered.push(urn);
      const host = await this.getHost(type);
      const result = await host.read(id, urn, props, props);
      if (!result.id) throw new Error(`${urn}: the provider found no object with id ${id}`);
      const secretOutputs = [...(opts.additionalSecretOutputs ?? []), ...((await host.secretOutputs?.(type)) ?? [])];
      const outputs = remarkSecrets(annotateSecrets(result.props, props), secretOutputs);
      return this.report({ urn, op: "read", id: result.id, detail: `read ${result.id}` }, outputs);
    });
    this.queue = run.catch((error: unknown) => {
      if (!(error instanceof SkippedError)) this.failedUrn ??= urn;
    });
    return run;
  }

  /**
   * Runs a create; if the provider reports a partial failure (the object exists, with an id), records the object in
   * state before rethrowing, as the engine does, so the next run updates or deletes it instead of leaking it.
   */
  private async recordingInitFailure(
    create: () => Promise<{ id: string; outputs: PropertyMap }>,
    target: { urn: string; type: string; inputs: PropertyMap; secretOutputs: string[]; replacing?: ResourceState },
  ): Promise<{ id: string; outputs: PropertyMap }> {
    try {
      return await create();
    } catch (error) {
      if (error instanceof ProviderHostError && error.initFailure?.id) {
        const failed = error.initFailure;
        const record: ResourceState = {
          urn: target.urn,
          type: target.type,
          id: failed.id,
          inputs: target.inputs,
          outputs: remarkSecrets(annotateSecrets(failed.properties, target.inputs), target.secretOutputs),
          ...(target.secretOutputs.length > 0 ? { secretOutputs: target.secretOutputs } : {}),
        };
        // A half-made replacement takes the old object's place; the old one is still deleted at the end.
        const at = target.replacing ? this.resources.indexOf(target.replacing) : -1;
        if (at >= 0 && target.replacing) {
          this.resources[at] = record;
          this.pendingDeletes.push(target.replacing);
        } else this.resources.push(record);
        this.save();
      }
      throw error;
    }
  }

  private report(step: Step, outputs: PropertyMap): RegisterResult {
    this.push(step);
    return { id: step.id, outputs, step };
  }

  /** The adoption notice the provider logged for `urn` (during its check), if it logged one. */
  private adoptionNotice(urn: string): { link: string; detail: string } | undefined {
    for (const diagnostic of this.diagnostics.get(urn) ?? []) {
      const notice = parseAdoptionNotice(diagnostic.message);
      if (notice) return notice;
    }
    return undefined;
  }

  /** A message a provider logged: about its URN, else about the resource whose step is running. */
  private onLog(diagnostic: Diagnostic): void {
    if (diagnostic.severity === "debug") return;
    const urn = diagnostic.urn || this.running || "";
    const list = this.diagnostics.get(urn) ?? [];
    list.push({ ...diagnostic, urn });
    this.diagnostics.set(urn, list);
  }

  /**
   * Attaches what the provider logged about the step's resource. An adoption notice belongs to creates only: a
   * replacement is checked like a new resource, so the provider may log one there, but the old object is deleted or
   * renamed away first and nothing is adopted.
   */
  private withDiagnostics(step: Step): Step {
    const list = this.diagnostics.get(step.urn);
    if (list === undefined) return step;
    this.diagnostics.delete(step.urn);
    const shown = list.filter((d) => step.op === "adopt" || parseAdoptionNotice(d.message) === undefined);
    return shown.length === 0 ? step : { ...step, diagnostics: shown.map((d) => `${d.severity}: ${d.message}`) };
  }

  /** Records a completed step (with its requests and diagnostics) and reports it as progress. */
  private push(step: Step): void {
    const recorded = this.withDiagnostics(this.withRequests(step));
    this.steps.push(recorded);
    this.options.onStep?.(recorded);
  }

  /** Attaches the requests logged since the previous step (steps run one at a time). */
  private withRequests(step: Step): Step {
    const file = this.options.requestLog;
    if (file === undefined || !fs.existsSync(file)) return step;
    const text = fs.readFileSync(file);
    const fresh = text.subarray(this.requestLogOffset).toString("utf8");
    this.requestLogOffset = text.length;
    const requests = fresh
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as SentRequest);
    return { ...step, requests };
  }

  /**
   * `refresh`: reads every resource in state from the provider and records what it finds; an object the provider
   * reports gone leaves the state. Outputs that changed are reported as "refresh" steps with their paths.
   */
  async refresh(): Promise<Step[]> {
    await this.queue;
    this.finished = true;
    for (const r of [...this.resources]) {
      const host = await this.getHost(r.type);
      const result = await host.read(r.id, r.urn, r.outputs, r.inputs);
      if (!result.id) {
        if (!this.preview) {
          this.resources = this.resources.filter((p) => p !== r);
          this.save();
        }
        this.push({ urn: r.urn, op: "delete", id: r.id, detail: `gone: ${r.id} no longer exists` });
        continue;
      }
      // Outputs that were secret stay secret, as do the resource's declared secret outputs.
      const wereSecret = Object.keys(r.outputs).filter((k) => isSecret(r.outputs[k]));
      const outputs = remarkSecrets(annotateSecrets(result.props, r.inputs), [
        ...(r.secretOutputs ?? []),
        ...wereSecret,
      ]);
      const paths = changedPaths(stripSecretsMap(r.outputs), stripSecretsMap(outputs), "", [providerKey]);
      if (paths.length === 0) {
        this.push({ urn: r.urn, op: "same", id: r.id, detail: "unchanged" });
        continue;
      }
      const oldInputs = r.inputs;
      if (!this.preview) {
        r.outputs = outputs;
        if (result.inputs)
          r.inputs = annotateSecrets({ ...result.inputs, [providerKey]: r.inputs[providerKey] ?? null }, r.inputs);
        this.save();
      }
      // Drift is a changed input. Computed outputs alone (a version bumped by the stack's own PolicyBinding or key)
      // are recorded but not called a change made outside the program. Empty maps and lists count as absent.
      const drifted =
        result.inputs === undefined
          ? paths
          : changedPaths(withoutEmpty(stripSecretsMap(oldInputs)), withoutEmpty(stripSecretsMap(result.inputs)), "", [
              providerKey,
            ]);
      const detail =
        drifted.length > 0
          ? `refreshed: ${drifted.join(", ")} changed outside the program`
          : `refreshed: computed ${paths.join(", ")} (no input changed)`;
      const changed = drifted.length > 0 ? drifted : paths;
      this.push({ urn: r.urn, op: "refresh", id: r.id, changedPaths: changed, detail });
    }
    return [...this.steps];
  }

  /**
   * Ends the run: deletes the old halves of replacements and every resource in state that was not registered this
   * run (reverse order), then records the registration order. In preview, only reports the planned deletes.
   */
  async finish(options: { destroy?: boolean } = {}): Promise<Step[]> {
    await this.queue;
    this.finished = true;
    const removed = this.resources.filter((r) => !this.registered.includes(r.urn));
    const doomed = [
      ...this.pendingDeletes.map((r) => ({ r, pending: true })),
      ...removed.map((r) => ({ r, pending: false })),
    ];
    doomed.reverse();
    for (const { r, pending } of doomed) {
      const why = pending ? "replaced" : options.destroy ? "destroy" : "no longer in the program";
      if (this.preview) {
        this.push({ urn: r.urn, op: "delete", id: r.id, detail: `delete (planned) of ${r.id}: ${why}` });
        continue;
      }
      const host = await this.getHost(r.type);
      this.running = r.urn;
      try {
        await host.delete(r.id, r.urn, r.outputs, r.inputs);
      } finally {
        this.running = undefined;
      }
      if (pending) this.pendingDeletes = this.pendingDeletes.filter((p) => p !== r);
      else this.resources = this.resources.filter((p) => p !== r);
      this.save();
      this.push({ urn: r.urn, op: "delete", id: r.id, detail: `deleted ${r.id}: ${why}` });
    }
    if (!this.preview) {
      const position = (urn: string): number => this.registered.indexOf(urn);
      this.resources.sort((a, b) => position(a.urn) - position(b.urn));
      this.save();
    }
    return [...this.steps];
  }

  /** Records this run's config in the state file (the run succeeded). */
  commitConfig(): void {
    this.storedConfig = { ...this.config };
    this.storedSecretKeys = [...this.secretConfigKeys];
    this.save();
  }

  /** Starts and configures the host now (in the background), so it is ready when the first registration comes. */
  warmUp(): void {
    this.startHost(this.options.warm ?? "dynamic").catch(() => undefined);
  }

  /** Stops the provider processes that were started. */
  async close(): Promise<void> {
    const hosts = [...this.hosts.values()];
    this.hosts.clear();
    for (const host of hosts) await (await host.catch(() => undefined))?.stop();
    const log = this.logServer;
    this.logServer = undefined;
    (await log?.catch(() => undefined))?.stop();
  }

  /** The provider of a type token: the native plugin for its package's types, else the dynamic-provider host. */
  private getHost(type: string): Promise<ProviderHost> {
    return this.startHost(isNativeType(type) ? "native" : "dynamic");
  }

  private startHost(which: "dynamic" | "native"): Promise<ProviderHost> {
    let host = this.hosts.get(which);
    if (!host) {
      host = (async () => {
        this.logServer ??= EngineLogServer.start((diagnostic) => this.onLog(diagnostic));
        const engineAddress = (await this.logServer).address;
        const started: ProviderHost =
          which === "native"
            ? await NativePluginHost.start({
                ...(this.options.native ?? { cwd: this.options.host.cwd, env: this.options.host.env }),
                engineAddress,
              })
            : await DynamicProviderHost.start({ project: this.options.project, ...this.options.host, engineAddress });
        this.startedHosts.push(started);
        await started.configure(this.config, this.secretConfigKeys);
        return started;
      })();
      this.hosts.set(which, host);
    }
    return host;
  }

  /** Writes the state atomically (temp file + rename); secret values are encrypted. */
  save(): void {
    if (this.preview) return;
    const config: StateFileBody["config"] = {};
    for (const key of Object.keys(this.storedConfig).sort()) {
      const value = this.storedConfig[key] as string;
      const secure = this.storedSecretKeys.includes(key);
      config[key] = secure ? { secure: this.crypter.encrypt(value, `config:${key}`) } : value;
    }
    const encode = (where: string) => (r: ResourceState) => ({
      ...r,
      inputs: encryptMap(this.crypter, r.inputs, `${where}:${r.urn}:${r.id}:inputs`),
      outputs: encryptMap(this.crypter, r.outputs, `${where}:${r.urn}:${r.id}:outputs`),
    });
    const body: StateFileBody = {
      version: 1,
      writtenBy,
      project: this.options.project,
      stack: this.options.stack,
      secretsProvider: this.crypter.state,
      config,
      resources: this.resources.map(encode("resource")),
      pendingDeletes: this.pendingDeletes.map(encode("pending")),
    };
    const text = `${JSON.stringify(body, null, 2)}\n`;
    if (text === this.written) return;
    writeFileAtomic(this.options.stateFile, text);
    this.written = text;
  }
}

function parseStateFile(file: string, text: string): StateFileBody {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not a readable state file: ${(error as Error).message}`, { cause: error });
  }
  if (!isPlainObject(body) || body.version !== 1 || !Array.isArray(body.resources)) {
    throw new Error(`${file} is not a state file written by the offline runner (version 1)`);
  }
  return body as unknown as StateFileBody;
}

export function writeFileAtomic(file: string, text: string): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${crypto.randomUUID()}.tmp`);
  const fd = fs.openSync(temp, "w", 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, file);
}

/**
 * In the state file a secret is `{ [sig]: secretSig, ciphertext }`, as in Pulumi's deployment format. `where` names
 * the value's location, which keeps an unchanged secret's ciphertext stable across saves.
 */
function encryptValue(crypter: SecretCrypter, value: PropertyValue, where: string): PropertyValue {
  if (isSecret(value)) {
    return { [secretSigKey]: secretSig, ciphertext: crypter.encrypt(JSON.stringify(value.value), where) };
  }
  if (Array.isArray(value)) return value.map((v, i) => encryptValue(crypter, v, `${where}[${i}]`));
  if (isPlainObject(value)) return encryptMap(crypter, value as PropertyMap, where);
  return value;
}

function encryptMap(crypter: SecretCrypter, map: PropertyMap, where: string): PropertyMap {
  const out: PropertyMap = {};
  for (const [k, v] of Object.entries(map)) out[k] = encryptValue(crypter, v, `${where}.${k}`);
  return out;
}

function decryptValue(crypter: SecretCrypter, value: PropertyValue, where: string): PropertyValue {
  if (isPlainObject(value) && value[secretSigKey] === secretSig && typeof value.ciphertext === "string") {
    return makeSecret(JSON.parse(crypter.decrypt(value.ciphertext, where)) as PropertyValue);
  }
  if (Array.isArray(value)) return value.map((v, i) => decryptValue(crypter, v, `${where}[${i}]`));
  if (isPlainObject(value)) return decryptMap(crypter, value as PropertyMap, where);
  return value;
}

function decryptMap(crypter: SecretCrypter, map: PropertyMap, where: string): PropertyMap {
  const out: PropertyMap = {};
  for (const [k, v] of Object.entries(map)) out[k] = decryptValue(crypter, v, `${where}.${k}`);
  return out;
}

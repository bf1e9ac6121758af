// The program process of the offline runner: a fresh Node process per run (like the Pulumi language host), with
// TypeScript transpiled on require (like ts-node), the stack config in PULUMI_CONFIG, and `setMocks` routing every
// dynamic resource registration to the MiniEngine, which drives the real dynamic-provider host. With the `native`
// provider the program's `cpln-pulumi` is the native classes, whose registrations the MiniEngine sends to the plugin.
import { createRequire } from "node:module";
import * as path from "node:path";
import type * as pulumiTypes from "@pulumi/pulumi";
import { CheckFailedError, MiniEngine, SkippedError, type RegisterOptions } from "./engine.js";
import { ProviderHostError } from "./host.js";
import { isNativeType } from "./nativehost.js";
import {
  resourceLabel,
  type ChildMessage,
  type ChildRunOptions,
  type ChildRunResult,
  type ParentMessage,
} from "./protocol.js";
import { ProviderProcess } from "./providerProcess.js";
import { useNativeClasses } from "./nativeClasses.js";
import { readProject } from "./project.js";
import { compilerOptionsFor, loadTypeScript, registerTypeScript } from "./tshook.js";
import { toPropertyMap, type PropertyMap } from "./values.js";

type Pulumi = typeof pulumiTypes;
interface SettingsInternals {
  waitForRPCs(): Promise<void>;
  getMonitor(): MonitorInternals | undefined;
}

/** The parts of a RegisterResourceRequest the runner reads besides what the mocks pass on. */
interface AliasSpecInternals {
  getName(): string;
  getType(): string;
  getStack(): string;
  getProject(): string;
}
interface RegisterRequestInternals {
  getType(): string;
  getName(): string;
  getAdditionalsecretoutputsList(): string[];
  getAliasurnsList?(): string[];
  getAliasesList?(): { getUrn(): string; hasSpec(): boolean; getSpec(): AliasSpecInternals | undefined }[];
}
interface MonitorInternals {
  registerResource(request: RegisterRequestInternals, callback: (...args: unknown[]) => void): unknown;
}
interface ResourceModuleInternals {
  registerResource(res: object, parent: unknown, type: string, name: string, custom: boolean, ...rest: unknown[]): void;
  readResource(res: object, parent: unknown, type: string, name: string, ...rest: unknown[]): void;
}

/** How a declared resource's run went. */
type Outcome = "done" | "failed" | "skipped";

/**
 * The custom resources the program declares, with the resources each one's inputs and `dependsOn` wait for, noted
 * when the resource object is constructed (before its inputs resolve): a resource whose input comes from one that
 * failed never reaches the engine, and this is how the runner knows it was waiting and says why it was skipped.
 */
class Declarations {
  private readonly byResource = new Map<object, { urn: string; deps: Set<object> }>();
  private readonly outcomes = new Map<string, Outcome>();

  constructor(private readonly onDeclared: (urn: string, dependsOn: string[]) => void) {}

  declare(resource: object, urn: string, deps: Set<object>): void {
    this.byResource.set(resource, { urn, deps });
    const dependsOn = [...deps].map((d) => this.byResource.get(d)?.urn).filter((u): u is string => u !== undefined);
    this.onDeclared(urn, dependsOn);
  }

  settle(urn: string, outcome: Outcome): void {
    if (!this.outcomes.has(urn)) this.outcomes.set(urn, outcome);
  }

  /**
   * One line per declared resource that did not run, saying why: a dependency that failed, one that was skipped,
   * or the first failure that stopped the run.
   */
  skipped(firstFailure: string | undefined): string[] {
    const lines: string[] = [];
    for (const { urn, deps } of this.byResource.values()) {
      const outcome = this.outcomes.get(urn);
      if (outcome === "done" || outcome === "failed") continue;
      const depUrns = [...deps].map((d) => this.byResource.get(d)?.urn).filter((u): u is string => u !== undefined);
      const failedDep = depUrns.find((u) => this.outcomes.get(u) === "failed");
      const skippedDep = depUrns.find((u) => this.outcomes.get(u) !== "done");
      const why = failedDep
        ? `depends on ${resourceLabel(failedDep)}, which failed`
        : skippedDep
          ? `depends on ${resourceLabel(skippedDep)}, which was skipped`
          : firstFailure
            ? `not started: ${firstFailure} failed first`
            : "not started: the run failed first";
      lines.push(`${resourceLabel(urn)}: ${why}`);
    }
    return lines;
  }
}

/** The resources a property value waits for: those of every Output in it, and resources themselves. */
function resourcesIn(pulumi: Pulumi, value: unknown, into: Set<object>, depth = 0): void {
  if (depth > 8 || value === null || typeof value !== "object") return;
  if (pulumi.Output.isInstance(value)) {
    const internals = value as unknown as { resources?: () => Set<object> };
    for (const r of internals.resources?.() ?? []) into.add(r);
    return;
  }
  if (pulumi.Resource.isInstance(value)) {
    into.add(value);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) resourcesIn(pulumi, item, into, depth + 1);
    return;
  }
  if (Object.getPrototypeOf(value) === Object.prototype) {
    for (const item of Object.values(value)) resourcesIn(pulumi, item, into, depth + 1);
  }
}

/** The URNs a registration's aliases name (full URNs, or specs completed from the resource's own name and type). */
function aliasUrns(request: RegisterRequestInternals, project: string, stack: string): string[] {
  const urns = [...(request.getAliasurnsList?.() ?? [])];
  for (const alias of request.getAliasesList?.() ?? []) {
    const spec = alias.hasSpec() ? alias.getSpec() : undefined;
    if (!spec) {
      if (alias.getUrn()) urns.push(alias.getUrn());
      continue;
    }
    const type = spec.getType() || request.getType();
    urns.push(
      `urn:pulumi:${spec.getStack() || stack}::${spec.getProject() || project}::${type}::${spec.getName() || request.getName()}`,
    );
  }
  return urns;
}

/** Sends a progress message to the runner (dropped when the runner is gone). */
function notify(message: ChildMessage): void {
  if (process.connected) process.send?.(message);
}

const dynamicTypePrefix = "pulumi-nodejs:dynamic";

async function run(options: ChildRunOptions): Promise<ChildRunResult> {
  const project = options.programDir ? readProject(options.programDir) : undefined;
  const projectName = options.project ?? project?.name;
  if (!projectName) throw new Error("a project name is required to run without a program");
  for (const [k, v] of Object.entries(options.env)) process.env[k] = v;
  const hostEnv = options.requestLog ? { ...options.env, CPLN_REQUEST_LOG: options.requestLog } : options.env;

  const engine = MiniEngine.open({
    stateFile: options.stateFile,
    project: projectName,
    stack: options.stack,
    config: options.config,
    replaceConfig: options.replaceConfig,
    secretConfigKeys: options.secretConfigKeys,
    preview: options.preview,
    host: { cwd: options.hostCwd, env: hostEnv },
    // The engine runs plugins from the program's directory.
    native: { cwd: options.programDir ?? options.hostCwd, env: hostEnv },
    warm: options.provider,
    env: process.env,
    requestLog: options.requestLog,
    onStep: (step) => notify({ kind: "step", step }),
    onStepStart: (urn) => notify({ kind: "stepStart", urn }),
  });
  notify({ kind: "begin", project: projectName, stack: options.stack });
  const declarations = new Declarations((urn, dependsOn) => notify({ kind: "declared", urn, dependsOn }));
  // The host starts while the program loads (a start failure surfaces at the first registration).
  engine.warmUp();
  try {
    const errors = new ErrorLog();
    process.on("unhandledRejection", (reason) => errors.add(reason));
    let outputs: PropertyMap = {};
    if (options.refresh) {
      await engine.refresh();
      engine.commitConfig();
    } else {
      if (project) {
        const program = runProgram(project.main, options.programDir as string, projectName, engine, errors, {
          ...options,
          declarations,
        });
        // The program ends, or the first failure ends it: once the step in flight is done nothing else will run,
        // and no step waits for an output of a resource that failed (it would never resolve).
        const stopped = errors.stepFailed.then(() => engine.idle()).then(() => undefined);
        const ended = await Promise.race([program, stopped]);
        if (ended) outputs = ended;
      }
      if (errors.length > 0) {
        const failed = engine.failed;
        const first = errors.first;
        throw Object.assign(first instanceof Error ? first : new Error(String(first)), {
          problems: errors.problems(),
          skipped: declarations.skipped(failed ? resourceLabel(failed) : undefined),
        });
      }
      await engine.finish({ destroy: !project });
      engine.commitConfig();
    }
    return {
      project: projectName,
      stack: options.stack,
      preview: options.preview,
      steps: engine.steps,
      outputs,
      requests: engine.hostProcesses.flatMap((host) => host.calls),
      hostStartMs: engine.hostProcess?.startMs,
    };
  } catch (error) {
    throw Object.assign(error instanceof Error ? error : new Error(String(error)), {
      steps: engine.steps,
      requests: engine.hostProcesses.flatMap((host) => host.calls),
    });
  } finally {
    // The program's pending work (outputs that will never resolve) is abandoned: the process exits after replying.
    await engine.close();
  }
}

/**
 * The errors of a run: the resource steps that failed (in order) and the program's own errors (a throw, a rejected
 * data-source call). `stepFailed` resolves at the first failed step, which stops the run.
 */
class ErrorLog {
  private readonly stepErrors: unknown[] = [];
  private readonly programErrors: unknown[] = [];
  private resolveStepFailed!: () => void;
  readonly stepFailed = new Promise<void>((resolve) => (this.resolveStepFailed = resolve));

  /** A resource step failed. */
  addStep(error: unknown): void {
    this.stepErrors.push(error);
    this.resolveStepFailed();
  }

  /** The program failed outside a step; resource steps go on (the one that needs the failed value never starts). */
  add(error: unknown): void {
    // Pulumi's own echo of a failed registration (the dependents' rejected inputs): the step's error says it all.
    if (error instanceof Error && error.message.startsWith("failed to register new resource ")) return;
    this.programErrors.push(error);
  }

  get length(): number {
    return this.stepErrors.length + this.programErrors.length;
  }

  /** The error to raise: the first failed step's, else the program's first. */
  get first(): unknown {
    return this.stepErrors[0] ?? this.programErrors[0];
  }

  /** One line per problem, the failed steps' first, without repeats. */
  problems(): string[] {
    const lines = [...this.stepErrors, ...this.programErrors].flatMap((e) => problemsOf(e));
    return [...new Set(lines)];
  }
}

async function runProgram(
  main: string,
  programDir: string,
  project: string,
  engine: MiniEngine,
  errors: ErrorLog,
  options: ChildRunOptions & { declarations: Declarations },
): Promise<PropertyMap> {
  // The stack config, as the language host hands it to a program.
  process.env.PULUMI_CONFIG = JSON.stringify(engine.config);
  process.env.PULUMI_CONFIG_SECRET_KEYS = JSON.stringify(engine.secretConfigKeys);
  const ts = loadTypeScript(programDir);
  registerTypeScript(compilerOptionsFor(programDir, ts), ts);
  // The program's own copy of the SDK, as `pulumi up` would load it (the runner's copy if it has none).
  const programRequire = createRequire(path.join(programDir, "package.json"));
  const sdkRequire = resolvable(programRequire, "@pulumi/pulumi") ? programRequire : createRequire(__filename);
  const pulumi = sdkRequire("@pulumi/pulumi") as Pulumi;
  if (options.provider === "native") useNativeClasses(programRequire);
  const settings = sdkRequire("@pulumi/pulumi/runtime/settings") as SettingsInternals;
  const { declarations } = options;
  const urnOf = (type: string, name: string): string => `urn:pulumi:${options.stack}::${project}::${type}::${name}`;

  // Each custom resource is noted when constructed, with what it waits for (see Declarations).
  const resourceModule = sdkRequire("@pulumi/pulumi/runtime/resource") as ResourceModuleInternals;
  const register = resourceModule.registerResource;
  resourceModule.registerResource = function (res, parent, type, name, custom, ...rest) {
    if (custom) {
      const deps = new Set<object>();
      const [, , props, opts] = rest as [unknown, unknown, unknown, pulumiTypes.CustomResourceOptions | undefined];
      resourcesIn(pulumi, props, deps);
      resourcesIn(pulumi, opts?.dependsOn, deps);
      declarations.declare(res, urnOf(type, name), deps);
    }
    return register.call(this, res, parent, type, name, custom, ...rest);
  };

  // The options the engine applies that the mocks do not pass on, by URN (additionalSecretOutputs, aliases).
  const registerOptions = new Map<string, RegisterOptions>();
  await pulumi.runtime.setMocks(
    {
      newResource: async (args) => {
        const urn = urnOf(args.type, args.name);
        try {
          const result = await newResource(pulumi, engine, urn, args, registerOptions.get(urn) ?? {});
          declarations.settle(urn, "done");
          return result;
        } catch (error) {
          const skipped = error instanceof SkippedError;
          declarations.settle(urn, skipped ? "skipped" : "failed");
          if (!skipped) errors.addStep(error);
          throw error;
        }
      },
      call: async (args) => {
        const error = new Error(
          `offline runner: invoke ${args.token} is not supported (the runner only runs dynamic-provider resources)`,
        );
        errors.add(error);
        throw error;
      },
    },
    project,
    options.stack,
    options.preview,
  );
  const monitor = settings.getMonitor();
  if (monitor) {
    const registerResource = monitor.registerResource.bind(monitor);
    monitor.registerResource = (request, callback) => {
      registerOptions.set(urnOf(request.getType(), request.getName()), {
        additionalSecretOutputs: request.getAdditionalsecretoutputsList(),
        aliases: aliasUrns(request, project, options.stack),
      });
      return registerResource(request, callback);
    };
  }

  let exported: unknown;
  try {
    exported = programRequire(resolveEntry(programRequire, main));
  } catch (error) {
    errors.add(error);
    return {};
  }
  // `export = async () => ({...})` programs: the returned object is the stack outputs.
  if (typeof exported === "function") exported = await (exported as () => unknown)();
  exported = await exported;
  const values: Record<string, unknown> = {};
  if (typeof exported === "object" && exported !== null) {
    for (const [k, v] of Object.entries(exported)) if (typeof v !== "function") values[k] = v;
  }
  let outputs: PropertyMap = {};
  try {
    outputs = toPropertyMap(await pulumi.runtime.serializeProperties("stack outputs", values), "stack outputs");
  } catch (error) {
    errors.add(error);
  }
  await settings.waitForRPCs();
  return outputs;
}

async function newResource(
  pulumi: Pulumi,
  engine: MiniEngine,
  urn: string,
  args: pulumiTypes.runtime.MockResourceArgs,
  opts: RegisterOptions,
): Promise<{ id: string | undefined; state: Record<string, unknown> }> {
  // Component resources have no provider: nothing to do but acknowledge them.
  if (args.custom === false) return { id: undefined, state: {} };
  const dynamic = args.type.startsWith(`${dynamicTypePrefix}:`) || args.type.startsWith(`${dynamicTypePrefix}/`);
  if (!dynamic && !isNativeType(args.type)) {
    throw new Error(
      `offline runner: ${args.type} "${args.name}" is not a dynamic resource; the offline runner only runs ` +
        `dynamic-provider resources (${dynamicTypePrefix}/*) and the native plugin's (cpln-native:*) — use the ` +
        `Pulumi CLI for other providers`,
    );
  }
  const inputs = toPropertyMap(args.inputs, `${args.name} inputs`, pulumi.isUnknown);
  if (args.id) {
    // `Resource.get(name, id)`: a read of an existing object, not managed by this stack.
    const read = await engine.read(urn, args.type, args.id, inputs, opts);
    return { id: read.id, state: read.outputs };
  }
  const result = await engine.register(urn, args.type, inputs, opts);
  return { id: result.id, state: result.outputs };
}

function resolvable(req: NodeJS.Require, id: string): boolean {
  try {
    req.resolve(id);
    return true;
  } catch {
    return false;
  }
}

function resolveEntry(programRequire: NodeJS.Require, main: string): string {
  try {
    return programRequire.resolve(main);
  } catch (error) {
    throw new Error(`offline runner: cannot find the program entry ${main}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

// Provider processes lead their own process groups: the runner hears of each one so it can end it, and so does this
// process when it is told to stop or loses the runner.
ProviderProcess.onSpawn((pid) => notify({ kind: "process", pid }));
function abandon(code: number): void {
  ProviderProcess.killAll("SIGKILL");
  process.exit(code);
}
process.once("SIGTERM", () => abandon(143));
process.once("SIGINT", () => abandon(130));
process.once("disconnect", () => abandon(1));

type RunError = Error & {
  steps?: ChildRunResult["steps"];
  requests?: ChildRunResult["requests"];
  problems?: string[];
  skipped?: string[];
};

process.once("message", (message: ParentMessage) => {
  void run(message.options).then(
    (result) => send({ kind: "result", result }),
    (error: RunError) => {
      // A failed run leaves Pulumi's outputs pending; a non-zero exit code keeps its promise-leak report quiet.
      process.exitCode = 1;
      send({
        kind: "error",
        message: error instanceof Error ? error.message : String(error),
        problems: error.problems ?? problemsOf(error),
        stack: error instanceof Error ? error.stack : undefined,
        steps: error.steps ?? [],
        requests: error.requests ?? [],
        skipped: error.skipped ?? [],
      });
    },
  );
});

/** The message without stack frames, on one line. */
function oneLine(text: string): string {
  return text
    .split(/\r?\n/)
    .filter((line) => !/^\s+at\s/.test(line) && line.trim() !== "")
    .map((line) => line.trim())
    .join(" ");
}

/** One line per problem a user can act on: the resource, the property path and the rule, or the provider's message. */
export function problemsOf(error: unknown): string[] {
  if (error instanceof CheckFailedError) {
    return error.failures.map((f) => `${resourceLabel(error.urn)}: ${f.property || "(inputs)"}: ${oneLine(f.reason)}`);
  }
  if (error instanceof ProviderHostError) {
    const where = error.urn ? `${resourceLabel(error.urn)}: ` : "";
    const reasons = error.initFailure?.reasons ?? [];
    return [`${where}${oneLine(error.details)}`, ...reasons.map((r) => `${where}${oneLine(r)}`)];
  }
  if (error instanceof Error) return [oneLine(error.message)];
  return [oneLine(String(error))];
}

/** Sends the run's answer, then exits: nothing the program left pending (outputs of failed resources) is waited for. */
function send(message: ChildMessage): void {
  process.removeAllListeners("disconnect");
  if (!process.send) process.exit(process.exitCode ?? 0);
  process.send(message, () => process.exit(process.exitCode ?? 0));
}

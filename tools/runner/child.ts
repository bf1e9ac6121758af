// The program process of the offline runner: a fresh Node process per run (like the Pulumi language host), with
// TypeScript transpiled on require (like ts-node), the stack config in PULUMI_CONFIG, and `setMocks` routing every
// dynamic resource registration to the MiniEngine, which drives the real dynamic-provider host. With the `native`
// provider the program's `cpln-pulumi` is the native classes, whose registrations the MiniEngine sends to the plugin.
import Module, { createRequire } from "node:module";
import * as path from "node:path";
import type * as pulumiTypes from "@pulumi/pulumi";
import { CheckFailedError, MiniEngine } from "./engine.js";
import { ProviderHostError } from "./host.js";
import { isNativeType } from "./nativehost.js";
import type { ChildMessage, ChildRunOptions, ChildRunResult, ParentMessage } from "./protocol.js";
import { readProject } from "./project.js";
import { compilerOptionsFor, loadTypeScript, registerTypeScript } from "./tshook.js";
import { toPropertyMap, type PropertyMap } from "./values.js";

type Pulumi = typeof pulumiTypes;
interface SettingsInternals {
  waitForRPCs(): Promise<void>;
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
    secretConfigKeys: options.secretConfigKeys,
    preview: options.preview,
    host: { cwd: options.hostCwd, env: hostEnv },
    // The engine runs plugins from the program's directory.
    native: { cwd: options.programDir ?? options.hostCwd, env: hostEnv },
    warm: options.provider,
    env: process.env,
    requestLog: options.requestLog,
  });
  // The host starts while the program loads (a start failure surfaces at the first registration).
  engine.warmUp();
  try {
    const errors: unknown[] = [];
    process.on("unhandledRejection", (reason) => errors.push(reason));
    let outputs: PropertyMap = {};
    if (options.refresh) {
      await engine.refresh();
    } else {
      if (project) {
        outputs = await runProgram(project.main, options.programDir as string, projectName, engine, errors, options);
      }
      if (errors.length > 0) throw errors[0];
      await engine.finish({ destroy: !project });
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
    await engine.close();
  }
}

async function runProgram(
  main: string,
  programDir: string,
  project: string,
  engine: MiniEngine,
  errors: unknown[],
  options: ChildRunOptions,
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

  await pulumi.runtime.setMocks(
    {
      newResource: async (args) => {
        try {
          return await newResource(pulumi, engine, project, options.stack, args);
        } catch (error) {
          errors.push(error);
          throw error;
        }
      },
      call: async (args) => {
        const error = new Error(
          `offline runner: invoke ${args.token} is not supported (the runner only runs dynamic-provider resources)`,
        );
        errors.push(error);
        throw error;
      },
    },
    project,
    options.stack,
    options.preview,
  );

  let exported: unknown;
  try {
    exported = programRequire(resolveEntry(programRequire, main));
  } catch (error) {
    errors.push(error);
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
    errors.push(error);
  }
  await settings.waitForRPCs();
  return outputs;
}

async function newResource(
  pulumi: Pulumi,
  engine: MiniEngine,
  project: string,
  stack: string,
  args: pulumiTypes.runtime.MockResourceArgs,
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
  const urn = `urn:pulumi:${stack}::${project}::${args.type}::${args.name}`;
  const inputs = toPropertyMap(args.inputs, `${args.name} inputs`, pulumi.isUnknown);
  if (args.id) {
    // `Resource.get(name, id)`: a read of an existing object, not managed by this stack.
    const read = await engine.read(urn, args.type, args.id, inputs);
    return { id: read.id, state: read.outputs };
  }
  const result = await engine.register(urn, args.type, inputs);
  return { id: result.id, state: result.outputs };
}

const sdkPackage = "cpln-pulumi";

interface LoaderInternals {
  _load(request: string, parent: Module | undefined, isMain: boolean): unknown;
}

/**
 * Makes the program's `cpln-pulumi` the native classes: the program's own dynamic SDK with every export that
 * `cpln-pulumi/native` also has (the resource classes: same names, same args) replaced by the native one, so an
 * unchanged program registers `cpln-native:index:<Type>` resources. Everything else (functions, types, helpers) is
 * the dynamic SDK's.
 */
function useNativeClasses(programRequire: NodeJS.Require): void {
  const dynamicSdk = programRequire(sdkPackage) as Record<string, unknown>;
  const nativeSdk = programRequire(`${sdkPackage}/native`) as Record<string, unknown>;
  const merged: Record<string, unknown> = { __esModule: true };
  for (const key of Object.keys(dynamicSdk)) merged[key] = key in nativeSdk ? nativeSdk[key] : dynamicSdk[key];
  const loader = Module as unknown as LoaderInternals;
  const load = loader._load;
  loader._load = function (request, parent, isMain) {
    return request === sdkPackage ? merged : load.call(this, request, parent, isMain);
  };
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

process.once("message", (message: ParentMessage) => {
  void run(message.options).then(
    (result) => send({ kind: "result", result }),
    (error: Error & { steps?: ChildRunResult["steps"]; requests?: ChildRunResult["requests"] }) => {
      // A failed run leaves Pulumi's outputs pending; a non-zero exit code keeps its promise-leak report quiet.
      process.exitCode = 1;
      send({
        kind: "error",
        message: error instanceof Error ? error.message : String(error),
        problems: problemsOf(error),
        stack: error instanceof Error ? error.stack : undefined,
        steps: error.steps ?? [],
        requests: error.requests ?? [],
      });
    },
  );
});

/** `cpln:VolumeSet "data"` for `urn:pulumi:dev::proj::pulumi-nodejs:dynamic/cpln:VolumeSet::data`. */
export function resourceLabel(urn: string): string {
  const [, , type = "", name = ""] = urn.split("::");
  return `${type.replace(/^pulumi-nodejs:dynamic\/?/, "") || "dynamic resource"} "${name}"`;
}

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

function send(message: ChildMessage): void {
  process.send?.(message, () => process.disconnect());
}

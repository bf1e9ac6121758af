/**
 * Runs a TypeScript program of examples/ through the REAL Pulumi CLI with the Node SDK's Automation API, as an inline
 * program: the SDK serves the language runtime in this process, so any installed CLI serves (no
 * `pulumi-language-nodejs` needed) and one driver runs a program with either adapter. The program's `index.ts` is required inside the inline
 * program (transpiled by the TypeScript hook beside it, tshook.ts), and its exports are the stack outputs.
 *
 * It runs as a child process (`fork`) of whoever drives it, with commands over IPC, because dynamic resources
 * serialize their provider's closures and need plain compiled JavaScript (not a test runner's transformed modules).
 * One driver keeps one stack of one program: `init` once, then `config` (sets stack config, runs nothing) / `up` /
 * `preview` / `refresh` / `destroy` / `export` / `import`, each answering JSON. With `provider: "native"` the
 * program's `cpln-pulumi` is the native classes (nativeClasses.ts), served by the
 * `cpln-native` plugin installed in PULUMI_HOME.
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import {
  LocalWorkspace,
  PulumiCommand,
  StackAlreadyExistsError,
  type ConfigMap,
  type EngineEvent,
  type OutputMap,
  type Stack,
} from "@pulumi/pulumi/automation";
import { readProject } from "./project.js";
import { useNativeClasses } from "./nativeClasses.js";
import { compilerOptionsFor, loadTypeScript, registerTypeScript } from "./tshook.js";

export interface DriverInit {
  programDir: string;
  /** The Automation workspace's directory (Pulumi.<stack>.yaml goes there, not into the example). */
  workDir: string;
  /** The engine's bin directory (`pulumi` in it). */
  binDir: string;
  stackName: string;
  provider: "dynamic" | "native";
  /** Stack config: plain values, and `secret` ones set with `--secret`. */
  config: Record<string, { value: string; secret?: boolean }>;
  /** The engine's environment (PULUMI_HOME, backend, passphrase...). */
  env: Record<string, string>;
}

export interface EngineStep {
  op: string;
  type: string;
  name: string;
  id?: string;
  /** Top-level properties that differ (`diffs`). */
  diffs?: string[];
  /** Property paths of the provider's detailed diff (`detailedDiff`), with their kind. */
  detailedDiff?: Record<string, string>;
}

/** A diagnostic the engine reported: about `urn` (empty for the run's global ones), at `severity`. */
export interface EngineDiagnostic {
  urn: string;
  severity: string;
  message: string;
}

export type DriverCommand =
  | { cmd: "init"; init: DriverInit }
  | { cmd: "config"; config: Record<string, string> }
  /** `outputs: false`: the reply's outputs are not read (two CLI runs fewer). */
  | { cmd: "up"; config?: Record<string, string>; expectNoChanges?: boolean; verbose?: boolean; outputs?: boolean }
  | { cmd: "preview"; config?: Record<string, string>; expectNoChanges?: boolean }
  | { cmd: "refresh" }
  | { cmd: "destroy" }
  | { cmd: "export" }
  | { cmd: "outputs" };

export type DriverReply =
  | {
      ok: true;
      steps: EngineStep[];
      outputs: Record<string, { value: unknown; secret: boolean }>;
      stdout: string;
      stderr: string;
      /** The engine's diagnostic events of the run (a provider's logged warnings among them), in order. */
      diagnostics?: EngineDiagnostic[];
      summary?: Record<string, number>;
      deployment?: unknown;
    }
  | { ok: false; error: string; steps: EngineStep[] };

let stack: Stack | undefined;
let init: DriverInit | undefined;
/** Whether the running up reads the stack's outputs after it (see `withFewerReads`). */
let readOutputs = true;

/**
 * The SDK's `Stack.up` reads the outputs (`pulumi stack output` twice: masked, then with --show-secrets) and the last
 * history entry (`pulumi stack history`) after every up, and the history after every refresh and destroy: CLI runs of
 * ~0.4 s of CPU each, 14 of an example stack's 24. The driver reads outputs only for an up that wants them, and takes
 * the changes from the engine's own summary event instead of the history.
 */
function withFewerReads(created: Stack): Stack {
  const outputs = created.outputs.bind(created);
  created.outputs = () => (readOutputs ? outputs() : Promise.resolve({}));
  created.info = () => Promise.resolve(undefined);
  return created;
}

/** The inline program: the example's entry, loaded afresh on every run (its config differs between runs). */
function programFor(options: DriverInit): () => Promise<Record<string, unknown>> {
  const project = readProject(options.programDir);
  const ts = loadTypeScript(options.programDir);
  registerTypeScript(compilerOptionsFor(options.programDir, ts), ts);
  const programRequire = createRequire(path.join(options.programDir, "package.json"));
  if (options.provider === "native") useNativeClasses(programRequire);
  const entry = programRequire.resolve(project.main);
  return async () => {
    for (const key of Object.keys(require.cache)) {
      if (key.startsWith(options.programDir + path.sep)) delete require.cache[key];
    }
    let exported = programRequire(entry) as unknown;
    if (typeof exported === "function") exported = await (exported as () => unknown)();
    const outputs: Record<string, unknown> = {};
    if (typeof exported === "object" && exported !== null) {
      for (const [key, value] of Object.entries(exported)) if (typeof value !== "function") outputs[key] = value;
    }
    return outputs;
  };
}

const urnName = (urn: string): string => urn.slice(urn.lastIndexOf("::") + 2);
const urnType = (urn: string): string => urn.split("::")[2] ?? "";

/** What a run's engine events say: its steps, diagnostics and summary (the changes by operation). */
function collector(
  steps: EngineStep[],
  diagnostics: EngineDiagnostic[],
  summary: Record<string, number>,
): (event: EngineEvent) => void {
  return (event) => {
    Object.assign(summary, event.summaryEvent?.resourceChanges);
    const diagnostic = event.diagnosticEvent;
    if (diagnostic) {
      diagnostics.push({
        urn: diagnostic.urn ?? "",
        severity: diagnostic.severity,
        message: diagnostic.message.trim(),
      });
    }
    const metadata = event.resOutputsEvent?.metadata;
    if (!metadata) return;
    const type = urnType(metadata.urn);
    if (type.startsWith("pulumi:pulumi:Stack") || type.startsWith("pulumi:providers:")) return;
    const state = metadata.new ?? metadata.old;
    steps.push({
      op: metadata.op,
      type,
      name: urnName(metadata.urn),
      id: state?.id,
      ...(metadata.diffs && metadata.diffs.length > 0 ? { diffs: metadata.diffs } : {}),
      ...(metadata.detailedDiff
        ? {
            detailedDiff: Object.fromEntries(
              Object.entries(metadata.detailedDiff).map(([key, diff]) => [key, String(diff.diffKind)]),
            ),
          }
        : {}),
    });
  };
}

function outputsOf(map: OutputMap): Record<string, { value: unknown; secret: boolean }> {
  const result: Record<string, { value: unknown; secret: boolean }> = {};
  for (const [key, output] of Object.entries(map)) result[key] = { value: output.value, secret: output.secret };
  return result;
}

async function outputs(): Promise<Record<string, { value: unknown; secret: boolean }>> {
  return outputsOf(await stack!.outputs());
}

async function setConfig(config: Record<string, string> | undefined): Promise<void> {
  for (const [key, value] of Object.entries(config ?? {})) await stack!.setConfig(key, { value });
}

async function handle(command: DriverCommand, steps: EngineStep[]): Promise<DriverReply> {
  const diagnostics: EngineDiagnostic[] = [];
  const summary: Record<string, number> = {};
  const onEvent = collector(steps, diagnostics, summary);
  switch (command.cmd) {
    case "init": {
      init = command.init;
      const pulumiCommand = await PulumiCommand.get({ root: path.dirname(init.binDir), skipVersionCheck: false });
      const args = {
        stackName: init.stackName,
        projectName: readProject(init.programDir).name,
        program: programFor(init),
      };
      const options = { workDir: init.workDir, envVars: init.env, pulumiCommand };
      // Create first, select if it exists: one CLI run for a new stack (createOrSelectStack tries the select first).
      stack = withFewerReads(
        await LocalWorkspace.createStack(args, options).catch((error: unknown) => {
          if (error instanceof StackAlreadyExistsError) return LocalWorkspace.selectStack(args, options);
          throw error;
        }),
      );
      await stack.setAllConfig(init.config as ConfigMap);
      return { ok: true, steps, outputs: {}, stdout: "", stderr: "" };
    }
    case "up": {
      await setConfig(command.config);
      readOutputs = command.outputs !== false;
      const result = await stack!.up({
        onEvent,
        color: "never",
        expectNoChanges: command.expectNoChanges,
        ...(command.verbose ? { logVerbosity: 9, logToStdErr: true } : {}),
      });
      return {
        ok: true,
        steps,
        // What the SDK read after the up (`pulumi stack output`, masked and with --show-secrets): not read again.
        outputs: outputsOf(result.outputs),
        stdout: result.stdout,
        stderr: result.stderr,
        diagnostics,
        summary,
      };
    }
    case "preview": {
      await setConfig(command.config);
      const result = await stack!.preview({
        onEvent,
        color: "never",
        diff: true,
        expectNoChanges: command.expectNoChanges,
      });
      return {
        ok: true,
        steps,
        outputs: {},
        stdout: result.stdout,
        stderr: result.stderr,
        diagnostics,
        summary: result.changeSummary as Record<string, number>,
      };
    }
    case "refresh": {
      const result = await stack!.refresh({ onEvent, color: "never" });
      return {
        ok: true,
        steps,
        outputs: {},
        stdout: result.stdout,
        stderr: result.stderr,
        diagnostics,
        summary,
      };
    }
    case "destroy": {
      const result = await stack!.destroy({ onEvent, color: "never" });
      return {
        ok: true,
        steps,
        outputs: {},
        stdout: result.stdout,
        stderr: result.stderr,
        diagnostics,
        summary,
      };
    }
    case "config":
      await setConfig(command.config);
      return { ok: true, steps, outputs: {}, stdout: "", stderr: "" };
    case "outputs":
      return { ok: true, steps, outputs: await outputs(), stdout: "", stderr: "" };
    case "export": {
      const deployment = await stack!.exportStack();
      return { ok: true, steps, outputs: {}, stdout: "", stderr: "", deployment: deployment.deployment };
    }
  }
}

process.on("message", (command: DriverCommand) => {
  const steps: EngineStep[] = [];
  void handle(command, steps).then(
    (reply) => process.send?.(reply),
    (error: unknown) =>
      process.send?.({ ok: false, error: error instanceof Error ? error.message : String(error), steps }),
  );
});
process.on("disconnect", () => process.exit(0));

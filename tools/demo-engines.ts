/**
 * The two ways the demo (and the program tests) run a Pulumi program against cpln-local: the Pulumi CLI through the
 * Automation API, or the offline program runner (a stand-in for the engine). Both give the same `DemoRun` surface:
 * `up(extraConfig)` and `destroy()` returning the resource steps and the stack outputs.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { LocalWorkspace, PulumiCommand, type EngineEvent, type Stack } from "@pulumi/pulumi/automation";
import { runProgram, type ProviderKind } from "./runner/index.js";

export interface DemoStep {
  op: "create" | "update" | "replace" | "delete" | "same" | "read";
  /** Short type name: VolumeSet, Policy, Location. */
  type: string;
  /** The full type token: `pulumi-nodejs:dynamic/cpln:VolumeSet`, `cpln-native:index:VolumeSet`. */
  token: string;
  /** Logical name. */
  name: string;
  /** The object's id (its self link) when known. */
  id?: string;
}

export interface DemoResult {
  steps: DemoStep[];
  outputs: Record<string, unknown>;
}

export interface DemoRun {
  /** Sets `extraConfig` (fully qualified keys, plain values) on top of the base config, then runs an update. */
  up(extraConfig: Record<string, string>): Promise<DemoResult>;
  destroy(): Promise<DemoResult>;
  close(): Promise<void>;
}

export interface DemoRunOptions {
  programDir: string;
  /** Scratch folder for the state (runner) or the file backend (CLI). */
  workDir: string;
  org: string;
  endpoint: string;
  token: string;
  /** Extra stack config set once before the first update (fully qualified keys). */
  config?: Record<string, string>;
  /** Offline runner only: the program's resource classes (`native`: the native plugin's). Default `dynamic`. */
  provider?: ProviderKind;
}

/** `pulumi-nodejs:dynamic/cpln:VolumeSet` → `VolumeSet`. */
export function shortType(type: string): string {
  return type.slice(type.lastIndexOf(":") + 1);
}

/** The `pulumi` CLI on PATH or in ~/.pulumi/bin, or undefined. */
export async function findPulumiCli(): Promise<{ command: PulumiCommand; version: string } | undefined> {
  const candidates: (string | undefined)[] = [undefined, path.join(os.homedir(), ".pulumi")];
  for (const root of candidates) {
    if (root !== undefined && !fs.existsSync(path.join(root, "bin", "pulumi"))) continue;
    try {
      const command = await PulumiCommand.get(root === undefined ? {} : { root });
      return { command, version: command.version?.toString() ?? "(unknown version)" };
    } catch {
      // not usable: try the next place
    }
  }
  return undefined;
}

function stepOp(op: string): DemoStep["op"] | undefined {
  switch (op) {
    case "create":
    case "update":
    case "delete":
    case "same":
    case "read":
      return op;
    case "replace": // the engine also reports create-replacement and delete-replaced: one replace is shown
      return "replace";
    default:
      return undefined;
  }
}

const urnName = (urn: string): string => urn.slice(urn.lastIndexOf("::") + 2);

/** Runs the program with the Pulumi CLI: local file backend in `workDir`, a generated passphrase, token as a secret. */
export async function runWithAutomation(cli: { command: PulumiCommand }, options: DemoRunOptions): Promise<DemoRun> {
  const backend = path.join(options.workDir, "backend");
  fs.mkdirSync(backend, { recursive: true });
  const stack: Stack = await LocalWorkspace.createOrSelectStack(
    { stackName: "demo", workDir: options.programDir },
    {
      pulumiCommand: cli.command,
      envVars: {
        PULUMI_BACKEND_URL: `file://${backend}`,
        PULUMI_CONFIG_PASSPHRASE: randomBytes(16).toString("hex"),
        PULUMI_SKIP_UPDATE_CHECK: "true",
      },
    },
  );
  await stack.setAllConfig({
    "cpln:org": { value: options.org },
    "cpln:endpoint": { value: options.endpoint },
    "cpln:token": { value: options.token, secret: true },
    ...Object.fromEntries(Object.entries(options.config ?? {}).map(([key, value]) => [key, { value }])),
  });
  const collect = (steps: DemoStep[]) => (event: EngineEvent) => {
    const metadata = event.resOutputsEvent?.metadata;
    if (!metadata || !metadata.type.startsWith("pulumi-nodejs:dynamic")) return;
    const op = stepOp(metadata.op);
    if (!op) return;
    const state = metadata.new ?? metadata.old;
    const token = metadata.type;
    steps.push({ op, type: shortType(token), token, name: urnName(metadata.urn), id: state?.id });
  };
  const outputsOf = async (): Promise<Record<string, unknown>> =>
    Object.fromEntries(
      Object.entries(await stack.outputs()).map(([key, output]) => [
        key,
        output.secret ? { secret: true } : output.value,
      ]),
    );
  return {
    async up(extraConfig) {
      for (const [key, value] of Object.entries(extraConfig)) await stack.setConfig(key, { value });
      const steps: DemoStep[] = [];
      await stack.up({ onEvent: collect(steps), color: "never" });
      return { steps, outputs: await outputsOf() };
    },
    async destroy() {
      const steps: DemoStep[] = [];
      await stack.destroy({ onEvent: collect(steps), color: "never" });
      return { steps, outputs: {} };
    },
    async close() {
      await stack.workspace.removeStack("demo", { force: true });
      // The stack settings file (encrypted config) is written next to Pulumi.yaml; leave the example as it was.
      fs.rmSync(path.join(options.programDir, "Pulumi.demo.yaml"), { force: true });
    },
  };
}

/** Runs the program with the offline runner (tools/runner): state in `workDir/state.json`, token kept secret. */
export async function runWithRunner(options: DemoRunOptions): Promise<DemoRun> {
  const stateFile = path.join(options.workDir, "state.json");
  const config: Record<string, string> = {
    "cpln:org": options.org,
    "cpln:endpoint": options.endpoint,
    "cpln:token": options.token,
    ...options.config,
  };
  // Secrets in the runner's state file are encrypted with this passphrase, as with `pulumi stack init`.
  const env = { PULUMI_CONFIG_PASSPHRASE: randomBytes(16).toString("hex") };
  const toResult = (result: Awaited<ReturnType<typeof runProgram>>): DemoResult => ({
    steps: result.steps.flatMap((step) => {
      // urn:pulumi:<stack>::<project>::<type>::<name>
      const [, , type = "", name = ""] = step.urn.split("::");
      const op = stepOp(step.op);
      return op ? [{ op, type: shortType(type), token: type, name, id: step.id }] : [];
    }),
    outputs: result.outputs,
  });
  return {
    async up(extraConfig) {
      Object.assign(config, extraConfig);
      return toResult(
        await runProgram({
          programDir: options.programDir,
          stateFile,
          config,
          secretConfigKeys: ["cpln:token"],
          env,
          provider: options.provider,
        }),
      );
    },
    async destroy() {
      return toResult(await runProgram({ stateFile, config, secretConfigKeys: ["cpln:token"], destroy: true, env }));
    },
    async close() {
      // the runner keeps nothing running between runs
    },
  };
}

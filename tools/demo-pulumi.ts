/**
 * How the demo runs a Pulumi program against cpln-local: it finds the Pulumi CLI (the one `npm run engine` built into
 * its cache, `PATH`, `~/.pulumi/bin`), else builds it where Go is installed (scripts/engine.sh), else says how to
 * install it; then runs the program through the CLI (Automation API, the program inline). `DemoRun` is
 * `up(extraConfig)` and `destroy()` returning the resource steps and the stack outputs.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { EngineDriver, type EngineStep } from "./automation/client.js";

const repoRoot = path.resolve(__dirname, "..", "..");
const engineScript = path.join(repoRoot, "scripts", "engine.sh");

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
  /** Scratch folder for the file backend, PULUMI_HOME and the workspace. */
  workDir: string;
  org: string;
  endpoint: string;
  token: string;
  /** Extra stack config set once before the first update (fully qualified keys). */
  config?: Record<string, string>;
  /** The program's resource classes (`native`: the native plugin's, which must be installed). Default `dynamic`. */
  provider?: "dynamic" | "native";
}

/** `pulumi-nodejs:dynamic/cpln:VolumeSet` → `VolumeSet`. */
export function shortType(type: string): string {
  return type.slice(type.lastIndexOf(":") + 1);
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

/** The Pulumi CLI: its bin directory (with `pulumi` in it) and version. */
export interface PulumiCli {
  binDir: string;
  version: string;
}

function pulumiVersion(pulumi: string): string | undefined {
  const result = spawnSync(pulumi, ["version"], {
    encoding: "utf8",
    env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" },
  });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/** Where the demo looks for the CLI, in the words it prints. */
export const searched = "npm run engine's cache, PATH, ~/.pulumi/bin";

/**
 * The Pulumi CLI, looked for in this order: the one `npm run engine` (scripts/engine.sh) built into its cache (the
 * pinned version the tests run), a `pulumi` on PATH, ~/.pulumi/bin. Undefined when there is none.
 */
export function findPulumiCli(): PulumiCli | undefined {
  const candidates: string[] = [];
  const printed = spawnSync("bash", [engineScript, "--print-dir"], { encoding: "utf8" });
  if (printed.status === 0) candidates.push(printed.stdout.trim());
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) if (dir !== "") candidates.push(dir);
  candidates.push(path.join(os.homedir(), ".pulumi", "bin"));
  for (const binDir of candidates) {
    const pulumi = path.join(binDir, "pulumi");
    if (!fs.existsSync(pulumi)) continue;
    const version = pulumiVersion(pulumi);
    if (version !== undefined) return { binDir, version };
  }
  return undefined;
}

/** Whether `go` is on PATH (scripts/engine.sh builds the CLI with it). */
export function hasGo(): boolean {
  return spawnSync("go", ["version"], { stdio: "ignore" }).status === 0;
}

/**
 * Builds the pinned CLI and its language hosts from the Go module proxy (scripts/engine.sh, what `npm run engine`
 * runs): its progress lines go to stderr as they come; the bin directory it prints last is the result.
 */
export async function buildPulumiCli(): Promise<PulumiCli> {
  const child = spawn("bash", [engineScript], { stdio: ["ignore", "pipe", "inherit"] });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", resolve);
  });
  const binDir = stdout.trim().split("\n").at(-1) ?? "";
  const version = code === 0 ? pulumiVersion(path.join(binDir, "pulumi")) : undefined;
  if (version === undefined) throw new Error(`scripts/engine.sh failed (exit ${code}): see its lines above`);
  return { binDir, version };
}

/**
 * Runs the program with the real Pulumi engine: the CLI through the Automation API, the program inline in a child
 * process (tools/automation; no `pulumi-language-nodejs` needed, so any installed CLI serves), with its own PULUMI_HOME, a file backend and a
 * generated passphrase under `workDir`, the token a secret.
 */
export async function runWithPulumi(engine: PulumiCli, options: DemoRunOptions): Promise<DemoRun> {
  const home = path.join(options.workDir, "pulumi-home");
  const backend = path.join(options.workDir, "backend");
  const workspace = path.join(options.workDir, "workspace");
  for (const dir of [home, backend, workspace]) fs.mkdirSync(dir, { recursive: true });
  // The engine starts the dynamic-provider plugin in the workspace, which must resolve @pulumi/pulumi there.
  const nodeModules = path.dirname(path.dirname(path.dirname(require.resolve("@pulumi/pulumi/package.json"))));
  fs.symlinkSync(nodeModules, path.join(workspace, "node_modules"));
  const provider = options.provider ?? "dynamic";
  const namespaces = provider === "native" ? ["cpln", "cpln-native"] : ["cpln"];
  const config: Record<string, { value: string; secret?: boolean }> = {};
  for (const namespace of namespaces) {
    config[`${namespace}:org`] = { value: options.org };
    config[`${namespace}:endpoint`] = { value: options.endpoint };
    config[`${namespace}:token`] = { value: options.token, secret: true };
  }
  for (const [key, value] of Object.entries(options.config ?? {})) config[key] = { value };
  const driver = await EngineDriver.start({
    programDir: options.programDir,
    workDir: workspace,
    binDir: engine.binDir,
    stackName: "demo",
    provider,
    config,
    env: {
      PATH: `${engine.binDir}${path.delimiter}${process.env.PATH ?? ""}`,
      PULUMI_HOME: home,
      PULUMI_BACKEND_URL: `file://${backend}`,
      PULUMI_CONFIG_PASSPHRASE: randomBytes(16).toString("hex"),
      PULUMI_SKIP_UPDATE_CHECK: "true",
    },
  });
  const toResult = (reply: { steps: EngineStep[]; outputs: Record<string, { value: unknown; secret: boolean }> }) => ({
    steps: reply.steps.flatMap((step): DemoStep[] => {
      const op = stepOp(step.op);
      return op ? [{ op, type: shortType(step.type), token: step.type, name: step.name, id: step.id }] : [];
    }),
    outputs: Object.fromEntries(
      Object.entries(reply.outputs).map(([key, output]) => [key, output.secret ? { secret: true } : output.value]),
    ),
  });
  return {
    async up(extraConfig) {
      return toResult(await driver.run({ cmd: "up", config: extraConfig }));
    },
    async destroy() {
      const result = toResult(await driver.run({ cmd: "destroy" }));
      return { steps: result.steps, outputs: {} };
    },
    async close() {
      await driver.close();
    },
  };
}

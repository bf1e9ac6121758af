// Messages between `runProgram` (parent) and the program process (`child.ts`).
import type { Step } from "./engine.js";
import type { HostCall } from "./host.js";
import type { PropertyMap } from "./values.js";

export interface ChildRunOptions {
  /** Absolute program directory; undefined runs an empty program (destroy). */
  programDir: string | undefined;
  stateFile: string;
  /** Stack config to set over the recorded one (or, with `replaceConfig`, instead of it); undefined reuses it. */
  config: Record<string, string> | undefined;
  replaceConfig: boolean;
  secretConfigKeys: string[];
  preview: boolean;
  stack: string;
  /** Project name; defaults to Pulumi.yaml `name`. Required for destroy without a program. */
  project: string | undefined;
  /** Working directory of the dynamic-provider host (the package root, so `cpln-pulumi/dist/...` resolves). */
  hostCwd: string;
  /** Extra environment for the program process and the host. */
  env: Record<string, string>;
  /** Read the resources in state instead of running a program. */
  refresh: boolean;
  /** File the host's client appends its requests to (`CPLN_REQUEST_LOG`), for per-step request reports. */
  requestLog: string | undefined;
  /**
   * Which classes the program's `cpln-pulumi` resolves to: the dynamic ones, or the native ones (`cpln-pulumi/native`
   * laid over the dynamic SDK) whose `cpln-native:*` registrations go to the native plugin.
   */
  provider: ProviderKind;
}

export type ProviderKind = "dynamic" | "native";

export interface ChildRunResult {
  project: string;
  stack: string;
  preview: boolean;
  steps: Step[];
  /** Stack outputs with secrets in wire form (`{ [secretSigKey]: secretSig, value }`) and unknowns as the sentinel. */
  outputs: PropertyMap;
  requests: HostCall[];
  hostStartMs: number | undefined;
}

/** What the program process reports while it runs (progress, and what the runner must clean up). */
export type ProgressMessage =
  /** The run has begun: the stack it runs (the header a user sees first). */
  | { kind: "begin"; project: string; stack: string }
  /** The program declared a resource (it may wait for its inputs before it registers). */
  | { kind: "declared"; urn: string; dependsOn: string[] }
  /** A resource's step has started: the provider is being called for it. */
  | { kind: "stepStart"; urn: string }
  /** A step completed. */
  | { kind: "step"; step: Step }
  /** A provider process was started, leading its own process group: the runner ends it whatever happens. */
  | { kind: "process"; pid: number };

export type ChildMessage =
  | ProgressMessage
  | { kind: "result"; result: ChildRunResult }
  | {
      kind: "error";
      message: string;
      /** One line per problem a user can act on: resource, property path, rule. */
      problems: string[];
      /** The stack, for `--verbose`. */
      stack: string | undefined;
      steps: Step[];
      requests: HostCall[];
      /** The resources that were not run because of the failure, one line each: `<resource>: <why>`. */
      skipped: string[];
    };

export type ParentMessage = { kind: "run"; options: ChildRunOptions };

/** `cpln:VolumeSet "data"` for `urn:pulumi:dev::proj::pulumi-nodejs:dynamic/cpln:VolumeSet::data`. */
export function resourceLabel(urn: string): string {
  const [, , type = "", name = ""] = urn.split("::");
  return `${type.replace(/^pulumi-nodejs:dynamic\/?/, "") || "dynamic resource"} "${name}"`;
}

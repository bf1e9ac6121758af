#!/usr/bin/env node
// `cpln-pulumi-run`: runs a Pulumi TypeScript project without the Pulumi CLI, for places that have none (tests,
// air-gapped CI, this repository's demo). It is a stand-in for the Pulumi engine, not the engine; see the README
// section "Without the Pulumi CLI".
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import {
  findPulumiCli,
  formatFooter,
  formatHeader,
  formatStep,
  ProgramRunError,
  runnerLabel,
  runProgram,
  type ProgressMessage,
  type RunProgramOptions,
} from "./index.js";

const commands = ["up", "preview", "destroy", "refresh"] as const;
type Command = (typeof commands)[number];

export const usage = `usage: cpln-pulumi-run <up|preview|destroy|refresh> <projectDir> [options]

  ${runnerLabel}: runs a Pulumi TypeScript project's dynamic resources
  through @pulumi/pulumi's real dynamic-provider host, keeping the stack in a JSON state file.
  Use \`pulumi up\` where the Pulumi CLI is installed.

  up        create, update, replace and delete to match the program
  preview   show what up would do; changes nothing
  destroy   delete every resource in the state file
  refresh   read every resource in the state file and record what exists

options:
  --state <file>          the stack's state file (default: <projectDir>/.cpln-state/<stack>.json)
  --stack <name>          stack name (default: dev)
  --config <ns:key>=<v>   sets a stack config key, repeatable; the other keys recorded in the state file stay
                          (like \`pulumi config set\`); recorded only when the run succeeds
  --replace-config        the given --config/--secret keys are the whole stack config (the recorded keys go)
  --secret <ns:key>       secret stack config (encrypted in the state file), its value read from stdin (one
                          key); keep secrets off the command line, where every local user sees them
  --secret-file <ns:key>=<file>
                          a secret's value from a file (a trailing newline is dropped), repeatable
  --secret-env <ns:key>=<VAR>
                          a secret's value from the environment variable VAR, repeatable
  --secret <ns:key>=<v>   the value on the command line: works, with a warning (it shows in the process list)
  --provider <kind>       dynamic (default) or native: run the program's cpln-pulumi resources as the native
                          plugin's (cpln-native:index:*), through bin/pulumi-resource-cpln-native
  --diff                  per resource, the property paths that change (with --provider native, also the
                          plugin's detailed diff) and the requests the provider sent
  --timeout <seconds>     give up after this long (default 300); the error says what the run was waiting for
  --verbose               on failure, also print stack traces (also: PULUMI_DEBUG=1 or CPLN_DEBUG=1)
  --help                  this text`;

function parseConfig(entries: string[], flag: string, into: Record<string, string>): string[] {
  const keys: string[] = [];
  for (const entry of entries) {
    const at = entry.indexOf("=");
    if (at <= 0) throw new UsageError(`${flag} ${entry}: expected <namespace:key>=<value>`);
    const key = entry.slice(0, at);
    into[key] = entry.slice(at + 1);
    keys.push(key);
  }
  return keys;
}

class UsageError extends Error {}

function debugEnv(env: NodeJS.ProcessEnv): boolean {
  return [env.PULUMI_DEBUG, env.CPLN_DEBUG].some((v) => v !== undefined && v !== "" && v !== "0" && v !== "false");
}

/**
 * The secret config values: `--secret key` from stdin, `--secret-file key=file`, `--secret-env key=VAR`, and
 * `--secret key=value` (with a warning: the value is in the process list). Returns the secret keys.
 */
async function readSecrets(
  values: { secret: string[]; "secret-file": string[]; "secret-env": string[] },
  into: Record<string, string>,
  env: NodeJS.ProcessEnv,
  stdin: () => Promise<string>,
): Promise<string[]> {
  const keys: string[] = [];
  const fromStdin = values.secret.filter((entry) => !entry.includes("="));
  if (fromStdin.length > 1) {
    throw new UsageError(`--secret ${fromStdin.join(", ")}: only one secret can be read from stdin`);
  }
  const inline = values.secret.filter((entry) => entry.includes("="));
  keys.push(...parseConfig(inline, "--secret", into));
  if (inline.length > 0) {
    console.error(
      `warning: --secret ${inline.map((e) => e.slice(0, e.indexOf("="))).join(", ")}: a value on the command line ` +
        "is visible to every local user in the process list; use --secret <key> (stdin), --secret-file or --secret-env",
    );
  }
  for (const [key, file] of Object.entries(parsePairs(values["secret-file"], "--secret-file"))) {
    try {
      into[key] = fs.readFileSync(file, "utf8").replace(/\r?\n$/, "");
    } catch (error) {
      throw new UsageError(
        `--secret-file ${key}=${file}: cannot read the file (${(error as NodeJS.ErrnoException).code})`,
      );
    }
    keys.push(key);
  }
  for (const [key, name] of Object.entries(parsePairs(values["secret-env"], "--secret-env"))) {
    const value = env[name];
    if (value === undefined)
      throw new UsageError(`--secret-env ${key}=${name}: the environment variable ${name} is not set`);
    into[key] = value;
    keys.push(key);
  }
  for (const key of fromStdin) {
    if (!/^[^:=]+:[^=]+$/.test(key)) throw new UsageError(`--secret ${key}: expected <namespace:key>`);
    into[key] = (await stdin()).replace(/\r?\n$/, "");
    keys.push(key);
  }
  return keys;
}

function parsePairs(entries: string[], flag: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const entry of entries) {
    const at = entry.indexOf("=");
    if (at <= 0 || at === entry.length - 1) throw new UsageError(`${flag} ${entry}: expected <namespace:key>=<source>`);
    pairs[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return pairs;
}

/** Everything on stdin, as text. */
function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on("data", (chunk: Buffer) => chunks.push(chunk));
    process.stdin.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    process.stdin.once("error", reject);
  });
}

export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  stdin: () => Promise<string> = readStdin,
): Promise<number> {
  let verbose = debugEnv(env);
  let options: RunProgramOptions;
  let diff: boolean;
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        state: { type: "string" },
        stack: { type: "string" },
        config: { type: "string", multiple: true, default: [] },
        secret: { type: "string", multiple: true, default: [] },
        "secret-file": { type: "string", multiple: true, default: [] },
        "secret-env": { type: "string", multiple: true, default: [] },
        "replace-config": { type: "boolean", default: false },
        provider: { type: "string", default: "dynamic" },
        diff: { type: "boolean", default: false },
        timeout: { type: "string" },
        verbose: { type: "boolean", default: false },
        help: { type: "boolean", default: false },
      },
    });
    if (values.help) {
      console.log(usage);
      return 0;
    }
    verbose ||= values.verbose;
    diff = values.diff;
    const [command, programDir, ...rest] = positionals;
    if (!commands.includes(command as Command)) {
      throw new UsageError(command ? `unknown command "${command}"` : "a command is required");
    }
    if (!programDir) throw new UsageError(`${command} needs the project directory (the one holding Pulumi.yaml)`);
    if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(" ")}`);
    const provider = values.provider;
    if (provider !== "dynamic" && provider !== "native") {
      throw new UsageError(`--provider ${provider}: expected dynamic or native`);
    }
    const config: Record<string, string> = {};
    parseConfig(values.config, "--config", config);
    const secretConfigKeys = await readSecrets(values, config, env, stdin);
    const stack = values.stack ?? "dev";
    let timeoutMs: number | undefined;
    if (values.timeout !== undefined) {
      const seconds = Number(values.timeout);
      if (!/^\d+(\.\d+)?$/.test(values.timeout) || !(seconds > 0)) {
        throw new UsageError(`--timeout ${values.timeout}: expected a number of seconds greater than 0`);
      }
      timeoutMs = Math.round(seconds * 1000);
    }
    options = {
      programDir,
      stateFile: values.state ?? path.join(programDir, ".cpln-state", `${stack}.json`),
      // Any --config/--secret gives the whole stack config; none reuses the config recorded in the state file.
      config: Object.keys(config).length > 0 || values["replace-config"] ? config : undefined,
      replaceConfig: values["replace-config"],
      secretConfigKeys,
      preview: command === "preview",
      destroy: command === "destroy",
      refresh: command === "refresh",
      recordRequests: diff,
      provider,
      stack,
      echo: true,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    };
  } catch (error) {
    console.error(`${runnerLabel}\nerror: ${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  // The first line says what this is, before anything the program prints.
  console.log(
    `${runnerLabel} (${findPulumiCli(env) ? "a Pulumi CLI is installed: prefer `pulumi up`" : "Pulumi CLI not found"})`,
  );
  // Ctrl-C (SIGINT) or SIGTERM ends the run: the program and every provider process it started are stopped.
  const interrupt = new AbortController();
  let interruptedBy: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => () => {
    interruptedBy ??= signal;
    interrupt.abort();
  };
  const onInt = onSignal("SIGINT");
  const onTerm = onSignal("SIGTERM");
  process.once("SIGINT", onInt);
  process.once("SIGTERM", onTerm);
  // Progress: the header when the run begins, each step's line as it completes.
  let headerPrinted = false;
  const onProgress = (event: ProgressMessage): void => {
    if (event.kind === "begin") {
      headerPrinted = true;
      const { preview = false, destroy = false, refresh = false } = options;
      console.log(formatHeader({ project: event.project, stack: event.stack, preview, destroy, refresh }));
    } else if (event.kind === "step") {
      for (const line of formatStep(event.step, { diff })) console.log(line);
    }
  };
  try {
    if (!options.destroy && !options.refresh) fs.mkdirSync(path.dirname(options.stateFile), { recursive: true });
    const result = await runProgram({ ...options, onProgress, signal: interrupt.signal });
    if (!headerPrinted) {
      // No program process ran (nothing deployed): the whole run is printed now.
      console.log(formatHeader(result));
      for (const step of result.steps) for (const line of formatStep(step, { diff })) console.log(line);
    }
    for (const line of formatFooter(result)) console.log(line);
    return 0;
  } catch (error) {
    const problems = error instanceof ProgramRunError ? error.problems : [(error as Error).message.split("\n")[0]];
    if (error instanceof ProgramRunError && error.steps.length > 0) {
      console.error(
        `completed before the failure: ${error.steps.map((s) => `${s.op} ${s.urn.split("::")[3]}`).join(", ")}`,
      );
    }
    for (const problem of problems) console.error(`error: ${problem}`);
    if (error instanceof ProgramRunError) for (const line of error.skipped) console.error(`skipped: ${line}`);
    if (verbose) {
      const stack = error instanceof ProgramRunError ? error.detail : (error as Error).stack;
      if (stack) console.error(stack);
    }
    if (interruptedBy) return interruptedBy === "SIGINT" ? 130 : 143;
    return 1;
  } finally {
    process.removeListener("SIGINT", onInt);
    process.removeListener("SIGTERM", onTerm);
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}

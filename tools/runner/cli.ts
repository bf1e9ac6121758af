#!/usr/bin/env node
// `cpln-pulumi-run`: runs a Pulumi TypeScript project without the Pulumi CLI, for places that have none (tests,
// air-gapped CI, this repository's demo). It is a stand-in for the Pulumi engine, not the engine; see the README
// section "Without the Pulumi CLI".
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { findPulumiCli, formatRun, ProgramRunError, runnerLabel, runProgram, type RunProgramOptions } from "./index.js";

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
  --config <ns:key>=<v>   stack config, repeatable (replaces the config recorded in the state file)
  --secret <ns:key>=<v>   secret stack config (encrypted in the state file), repeatable
  --provider <kind>       dynamic (default) or native: run the program's cpln-pulumi resources as the native
                          plugin's (cpln-native:index:*), through bin/pulumi-resource-cpln-native
  --diff                  per resource, the property paths that change (with --provider native, also the
                          plugin's detailed diff) and the requests the provider sent
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

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
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
        provider: { type: "string", default: "dynamic" },
        diff: { type: "boolean", default: false },
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
    const secretConfigKeys = parseConfig(values.secret, "--secret", config);
    const stack = values.stack ?? "dev";
    options = {
      programDir,
      stateFile: values.state ?? path.join(programDir, ".cpln-state", `${stack}.json`),
      // Any --config/--secret gives the whole stack config; none reuses the config recorded in the state file.
      config: Object.keys(config).length > 0 ? config : undefined,
      secretConfigKeys,
      preview: command === "preview",
      destroy: command === "destroy",
      refresh: command === "refresh",
      recordRequests: diff,
      provider,
      stack,
      echo: true,
    };
  } catch (error) {
    console.error(`${runnerLabel}\nerror: ${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  // The first line says what this is, before anything the program prints.
  console.log(
    `${runnerLabel} (${findPulumiCli(env) ? "a Pulumi CLI is installed: prefer `pulumi up`" : "Pulumi CLI not found"})`,
  );
  try {
    if (!options.destroy && !options.refresh) fs.mkdirSync(path.dirname(options.stateFile), { recursive: true });
    const result = await runProgram(options);
    console.log(
      formatRun(result, { cliPath: findPulumiCli(env), diff })
        .split("\n")
        .slice(1)
        .join("\n"),
    );
    return 0;
  } catch (error) {
    const problems = error instanceof ProgramRunError ? error.problems : [(error as Error).message.split("\n")[0]];
    if (error instanceof ProgramRunError && error.steps.length > 0) {
      console.error(
        `completed before the failure: ${error.steps.map((s) => `${s.op} ${s.urn.split("::")[3]}`).join(", ")}`,
      );
    }
    for (const problem of problems) console.error(`error: ${problem}`);
    if (verbose) {
      const stack = error instanceof ProgramRunError ? error.detail : (error as Error).stack;
      if (stack) console.error(stack);
    }
    return 1;
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}

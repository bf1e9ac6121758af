#!/usr/bin/env node
// node dist/tools/runner/cli.js <programDir> --state <file.json> [--preview] [--destroy] [--stack <name>]
//      [--config <ns:key>=<value>]... [--secret <ns:key>=<value>]...
import { parseArgs } from "node:util";
import { findPulumiCli, formatRun, ProgramRunError, runnerLabel, runProgram } from "./index.js";

const usage =
  "usage: node dist/tools/runner/cli.js <programDir> --state <file.json> [--preview] [--destroy] [--stack <name>]\n" +
  "         [--config <ns:key>=<value>]... [--secret <ns:key>=<value>]...";

function parseConfig(entries: string[], flag: string, into: Record<string, string>): string[] {
  const keys: string[] = [];
  for (const entry of entries) {
    const at = entry.indexOf("=");
    if (at <= 0) throw new Error(`${flag} ${entry}: expected <namespace:key>=<value>`);
    const key = entry.slice(0, at);
    into[key] = entry.slice(at + 1);
    keys.push(key);
  }
  return keys;
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      state: { type: "string" },
      preview: { type: "boolean", default: false },
      destroy: { type: "boolean", default: false },
      stack: { type: "string" },
      config: { type: "string", multiple: true, default: [] },
      secret: { type: "string", multiple: true, default: [] },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return 0;
  }
  const programDir = positionals[0];
  if (!values.state || (!programDir && !values.destroy) || positionals.length > 1) {
    console.error(usage);
    return 2;
  }
  const config: Record<string, string> = {};
  parseConfig(values.config, "--config", config);
  const secretConfigKeys = parseConfig(values.secret, "--secret", config);
  try {
    const result = await runProgram({
      programDir,
      stateFile: values.state,
      // Any --config/--secret gives the whole stack config; none reuses the config recorded in the state file.
      config: Object.keys(config).length > 0 ? config : undefined,
      secretConfigKeys,
      preview: values.preview,
      destroy: values.destroy,
      stack: values.stack,
      echo: true,
    });
    console.log(formatRun(result, { cliPath: findPulumiCli() }));
    return 0;
  } catch (error) {
    console.error(`${runnerLabel}: the run failed`);
    if (error instanceof ProgramRunError && error.steps.length > 0) {
      console.error(`completed before the failure: ${error.steps.map((s) => `${s.op} ${s.urn}`).join("; ")}`);
    }
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
}

void main().then((code) => {
  process.exitCode = code;
});

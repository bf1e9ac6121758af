#!/usr/bin/env node
// `cpln-pulumi`: commands for people bringing an existing Control Plane org under this package. One so far:
//
//   cpln-pulumi import-file --org <org> [--endpoint <url>] [--include-builtins] [--token-file <file>] [--out <file>]
//
// writes the org's objects of the managed kinds as a `pulumi import --file` document (docs/import-file.md). The token
// comes from CPLN_TOKEN or a file, never from the command line, where process lists would show it.
import * as fs from "node:fs";
import { parseArgs } from "node:util";
import { CplnClient } from "../provider/client/index.js";
import { importDocument } from "./importFile/document.js";

const USAGE =
  "usage: cpln-pulumi import-file --org <org> [--endpoint <url>] [--include-builtins] [--token-file <file>] " +
  "[--out <file>]\n  The token is read from CPLN_TOKEN, or from --token-file.";

const HELP = `cpln-pulumi: commands for bringing an existing Control Plane org under Pulumi (docs/import-file.md).

${USAGE}

  import-file   write the org's objects of the managed kinds as a \`pulumi import --file\` document
    --org <org>            the org (or CPLN_ORG)
    --endpoint <url>       the API (or CPLN_ENDPOINT; default https://api.cpln.io)
    --include-builtins     also the objects every org starts with (named builtin_...)
    --token-file <file>    read the token from a file instead of CPLN_TOKEN
    --out <file>           write the document there instead of stdout
`;

const isHelp = (arg: string | undefined): boolean => arg === "--help" || arg === "-h" || arg === "help";

/** A problem with the command line: printed with the usage, exit code 2. */
class UsageError extends Error {}

interface ImportFileArgs {
  org: string;
  endpoint?: string;
  token: string;
  includeBuiltins: boolean;
  out?: string;
}

export function parseImportFileArgs(argv: string[], env: NodeJS.ProcessEnv): ImportFileArgs {
  if (argv.some((arg) => arg === "--token" || arg.startsWith("--token="))) {
    throw new UsageError("--token is not accepted: pass the token in CPLN_TOKEN or a file (--token-file)");
  }
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        org: { type: "string" },
        endpoint: { type: "string" },
        "include-builtins": { type: "boolean" },
        "token-file": { type: "string" },
        out: { type: "string" },
      },
    }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const org = (values.org as string | undefined) ?? env.CPLN_ORG;
  if (org === undefined || org.trim() === "") throw new UsageError("--org is required (or set CPLN_ORG)");
  const tokenFile = values["token-file"] as string | undefined;
  let token: string | undefined;
  if (tokenFile !== undefined) {
    try {
      token = fs.readFileSync(tokenFile, "utf8").trim();
    } catch (error) {
      throw new UsageError(
        `--token-file: cannot read ${tokenFile} (${(error as NodeJS.ErrnoException).code ?? "error"})`,
      );
    }
    if (token === "") throw new UsageError(`--token-file: ${tokenFile} is empty`);
  } else token = env.CPLN_TOKEN?.trim();
  if (token === undefined || token === "") throw new UsageError("no token: set CPLN_TOKEN or pass --token-file <file>");
  const endpoint = (values.endpoint as string | undefined) ?? env.CPLN_ENDPOINT;
  if (endpoint !== undefined) {
    let protocol = "";
    try {
      protocol = new URL(endpoint).protocol;
    } catch {
      // reported below
    }
    if (protocol !== "http:" && protocol !== "https:") {
      throw new UsageError(`--endpoint must be an http(s) URL, got "${endpoint}"`);
    }
  }
  return {
    org: org.trim(),
    token,
    includeBuiltins: values["include-builtins"] === true,
    ...(endpoint !== undefined ? { endpoint } : {}),
    ...(values.out !== undefined ? { out: values.out as string } : {}),
  };
}

async function importFile(argv: string[]): Promise<void> {
  const args = parseImportFileArgs(argv, process.env);
  const client = new CplnClient({
    token: args.token,
    org: args.org,
    ...(args.endpoint ? { endpoint: args.endpoint } : {}),
  });
  try {
    const { document, builtinsLeftOut } = await importDocument(client, {
      org: args.org,
      includeBuiltins: args.includeBuiltins,
    });
    const text = `${JSON.stringify(document, null, 2)}\n`;
    if (args.out !== undefined) fs.writeFileSync(args.out, text);
    else process.stdout.write(text);
    const left = builtinsLeftOut > 0 ? `; ${builtinsLeftOut} built-in objects left out (--include-builtins)` : "";
    const target = args.out ?? "<file>";
    process.stderr.write(
      `${document.resources.length} resources of org ${args.org}${left}. Next: pulumi import --file ${target}\n`,
    );
  } finally {
    await client.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (isHelp(command) || (command === "import-file" && rest.some(isHelp))) {
      process.stdout.write(HELP);
      return 0;
    }
    if (command === "import-file") {
      await importFile(rest);
      return 0;
    }
    throw new UsageError(command === undefined ? "no command given" : `unknown command "${command}"`);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`cpln-pulumi: ${error.message}\n${USAGE}\n`);
      return 2;
    }
    process.stderr.write(`cpln-pulumi: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}

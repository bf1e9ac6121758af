#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { parseFaults } from "./faults.js";
import { startServer, type ServerOptions } from "./index.js";

const HELP = `cpln-local: a self-hosted Control Plane organization API

Usage: cpln-local [options]

  --host <addr>          interface to listen on (default 127.0.0.1)
  --port <n>             port (default 8080; 0 picks a free one)
  --data <file>          SQLite file to keep data in, or :memory: (default :memory:, nothing persists)
  --org <name>           org to serve and seed on first start (default demo)
  --seed <file.json>     extra records to create: {"records": [{"kind": "...", "gvc"?: "...", ...body}]}
  --jwt-secret-file <f>  accept HS256 JWTs signed with the secret in file <f> ("-": read it from stdin); the
                         email claim names the user. Or set CPLN_LOCAL_JWT_SECRET. The secret is never taken from
                         the command line: --jwt-secret <s> is refused (the process list shows every argument)
  --jwks <file>          accept JWTs signed by a key of this JWKS file
  --jwt-issuer <iss>     required JWT issuer
  --jwt-audience <aud>   required JWT audience
  --faults <spec>        inject faults, e.g. rate=0.2,modes=503+429+delay+cut,delayMs=200,seed=1
  --log                  log one line per request: method, path, status, ms (and the body of writes)
  --log-format <f>       text (default) or json (pino's JSON lines; credentials redacted)
  --page-size <n>        items per list/query page (default 100)
  --no-console           do not serve the console (the web page at /console/)
  -h, --help             show this help

The admin key is CPLN_TOKEN when set, otherwise a new key printed at start.
Use it as "Authorization: Bearer <key>".
Secrets (the admin key, the JWT secret) come from the environment, a file or stdin, never from arguments.
`;

/** Environment variable that may carry the JWT secret (the process list shows arguments, not the environment). */
const JWT_SECRET_ENV = "CPLN_LOCAL_JWT_SECRET";

/**
 * The HS256 secret from `--jwt-secret-file <file>` (`-`: stdin) or `CPLN_LOCAL_JWT_SECRET`; one trailing newline is
 * not part of it. `--jwt-secret <s>` is refused: any local user can read a process's arguments (`ps`, /proc), so a
 * secret passed that way has leaked before the server reads it — a warning would leave it leaking.
 */
function readJwtSecret(flag: string | undefined, file: string | undefined): string | undefined {
  if (flag !== undefined) {
    throw new Error(
      `--jwt-secret puts the secret in the process list; pass it with --jwt-secret-file <file>, ` +
        `--jwt-secret-file - (stdin) or ${JWT_SECRET_ENV}`,
    );
  }
  const fromEnv = process.env[JWT_SECRET_ENV];
  if (file !== undefined && fromEnv !== undefined && fromEnv !== "") {
    throw new Error(`Use either --jwt-secret-file or ${JWT_SECRET_ENV}, not both`);
  }
  let secret: string;
  if (file !== undefined) {
    try {
      secret = readFileSync(file === "-" ? 0 : file, "utf8");
    } catch (error) {
      throw new Error(`--jwt-secret-file: cannot read ${file === "-" ? "stdin" : file}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  } else if (fromEnv !== undefined && fromEnv !== "") {
    secret = fromEnv;
  } else {
    return undefined;
  }
  secret = secret.replace(/\r?\n$/, "");
  if (secret === "") throw new Error(`--jwt-secret-file: the secret in ${file === "-" ? "stdin" : file} is empty`);
  return secret;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      host: { type: "string", default: "127.0.0.1" },
      port: { type: "string", default: "8080" },
      data: { type: "string", default: ":memory:" },
      org: { type: "string", default: "demo" },
      seed: { type: "string" },
      "jwt-secret": { type: "string" },
      "jwt-secret-file": { type: "string" },
      jwks: { type: "string" },
      "jwt-issuer": { type: "string" },
      "jwt-audience": { type: "string" },
      faults: { type: "string" },
      log: { type: "boolean", default: false },
      "log-format": { type: "string", default: "text" },
      "page-size": { type: "string" },
      "no-console": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be 0-65535 (got ${values.port})`);
  const jwtSecret = readJwtSecret(values["jwt-secret"], values["jwt-secret-file"]);
  if (jwtSecret !== undefined && values.jwks !== undefined) {
    throw new Error("Use either a JWT secret or --jwks, not both");
  }
  const logFormat = values["log-format"];
  if (logFormat !== "text" && logFormat !== "json")
    throw new Error(`--log-format must be text or json (got ${logFormat})`);
  const pageSize = values["page-size"] === undefined ? undefined : Number(values["page-size"]);
  if (pageSize !== undefined && (!Number.isInteger(pageSize) || pageSize < 1)) {
    throw new Error(`--page-size must be a positive integer (got ${values["page-size"]})`);
  }
  const options: ServerOptions = {
    logFormat,
    pageSize,
    host: values.host,
    port,
    data: values.data,
    org: values.org,
    seedFile: values.seed,
    logger: values.log,
    console: !values["no-console"],
  };
  const token = process.env["CPLN_TOKEN"];
  if (token !== undefined && token.trim() !== "") options.adminKey = token.trim();
  if (jwtSecret !== undefined || values.jwks !== undefined) {
    options.jwt = {
      secret: jwtSecret,
      jwksFile: values.jwks,
      issuer: values["jwt-issuer"],
      audience: values["jwt-audience"],
    };
  }
  if (values.faults !== undefined) options.faults = parseFaults(values.faults);

  const server = await startServer(options);
  const lines = [
    `cpln-local listening on ${server.url}`,
    `org:       ${server.org}`,
    options.adminKey !== undefined ? "admin key: $CPLN_TOKEN" : `admin key: ${server.adminKey}`,
  ];
  if (values.data === ":memory:")
    lines.push("data:      :memory: (nothing is kept after exit; use --data ./cpln.db to persist)");
  else lines.push(`data:      ${values.data}`);
  lines.push(`try:       curl -H "Authorization: Bearer <admin key>" ${server.url}/org/${server.org}/policy`);
  if (!values["no-console"]) lines.push(`console:   ${server.url}/console/`);
  lines.push(`health:    curl -fs -H "Authorization: Bearer <admin key>" ${server.url}/_cpln-local/health`);
  process.stdout.write(`${lines.join("\n")}\n`);

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    process.stdout.write(`\n${signal}: closing\n`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`error while closing: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((error: unknown) => {
  process.stderr.write(`cpln-local: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

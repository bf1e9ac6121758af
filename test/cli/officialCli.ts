/**
 * The official Control Plane CLI (`@controlplane/cli`, a pinned dev dependency) against a cpln-local of its own, for
 * the test/cli files: one server and one throwaway HOME per file (the CLI keeps profiles and caches there, so nothing
 * leaks between runs), started and stopped by the file's hooks. Its time limit guards against a hang, not load.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { startServer, type RunningServer, type ServerOptions } from "../../server/index.js";
import { runCpln, type Run } from "./cplnRun.js";

export const CLI_ORG = "demo";
export const CLI_ADMIN_KEY = "cliadmin.secret-admin-key-for-the-cli-tests";

export interface OfficialCli {
  readonly server: RunningServer;
  readonly home: string;
  /** Runs `cpln <args>` as org `demo`, gvc `default`, with the admin key. */
  cpln(...args: string[]): Promise<Run>;
  /** Runs a command that must succeed and returns its stdout. */
  ok(...args: string[]): Promise<string>;
  /** A command's `-o json` output, parsed. */
  json<T = Record<string, unknown>>(...args: string[]): Promise<T>;
  /** Writes a file into the CLI's HOME and returns its path. */
  file(name: string, text: string): string;
  /** The stored record (what the server holds), or undefined. */
  stored(kind: string, name: string, scope?: string): Promise<Record<string, unknown> | undefined>;
}

/** Registers the file's hooks; the returned object is usable inside tests. */
export function officialCli(options: Omit<ServerOptions, "org" | "adminKey"> = {}): OfficialCli {
  let server: RunningServer | undefined;
  let home = "";
  beforeAll(async () => {
    server = await startServer({ ...options, org: CLI_ORG, adminKey: CLI_ADMIN_KEY });
    home = mkdtempSync(join(tmpdir(), "cpln-home-"));
  });
  afterAll(async () => {
    await server?.close();
    if (home !== "") rmSync(home, { recursive: true, force: true });
  });
  const running = (): RunningServer => {
    if (server === undefined) throw new Error("the CLI's cpln-local is not started (use it inside a test)");
    return server;
  };
  const cli: OfficialCli = {
    get server() {
      return running();
    },
    get home() {
      return home;
    },
    cpln: (...args) => runCpln({ url: running().url, token: CLI_ADMIN_KEY, org: CLI_ORG, gvc: "default", home }, args),
    async ok(...args) {
      const run = await cli.cpln(...args);
      if (run.code !== 0) throw new Error(`cpln ${args.join(" ")} exited ${run.code}: ${run.stderr}${run.stdout}`);
      return run.stdout;
    },
    async json<T>(...args: string[]) {
      return JSON.parse(await cli.ok(...args, "-o", "json")) as T;
    },
    file(name, text) {
      const path = join(home, name);
      writeFileSync(path, text);
      return path;
    },
    async stored(kind, name, scope = "") {
      return (await running().store.get(CLI_ORG, kind, scope, name))?.doc as Record<string, unknown> | undefined;
    },
  };
  return cli;
}

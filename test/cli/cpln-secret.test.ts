// The official Control Plane CLI (`@controlplane/cli` 3.10.1) on secrets against cpln-local: its create-* commands,
// `secret reveal` (GET .../-reveal), `secret get` (no data), `secret clone` (reveal, then create) and delete.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../server/index.js";

const CPLN = join(__dirname, "..", "..", "node_modules", "@controlplane", "cli", "dist", "src", "cpln.js");
const ADMIN_KEY = "cliadmin.secret-admin-key-for-the-cli-secret-tests";

let server: RunningServer;
let home: string;

beforeAll(async () => {
  server = await startServer({ org: "demo", adminKey: ADMIN_KEY });
  // A throwaway HOME: the CLI keeps profiles and caches there, so nothing leaks between runs.
  home = mkdtempSync(join(tmpdir(), "cpln-home-"));
});
afterAll(async () => {
  await server.close();
  rmSync(home, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cpln(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CPLN, ...args],
      {
        env: {
          PATH: process.env["PATH"] ?? "",
          HOME: home,
          CPLN_ENDPOINT: server.url,
          CPLN_TOKEN: ADMIN_KEY,
          CPLN_ORG: "demo",
          CPLN_GVC: "default",
          NO_COLOR: "1",
        },
        timeout: 30_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Runs a command that must succeed and returns its stdout. */
async function ok(...args: string[]): Promise<string> {
  const run = await cpln(...args);
  if (run.code !== 0) throw new Error(`cpln ${args.join(" ")} exited ${run.code}: ${run.stderr}${run.stdout}`);
  return run.stdout;
}

async function json<T = Record<string, unknown>>(...args: string[]): Promise<T> {
  return JSON.parse(await ok(...args, "-o", "json")) as T;
}

function file(name: string, text: string): string {
  const path = join(home, name);
  writeFileSync(path, text);
  return path;
}

/** The stored record (what the server holds), or undefined. */
async function stored(kind: string, name: string, scope = ""): Promise<Record<string, unknown> | undefined> {
  return (await server.store.get("demo", kind, scope, name))?.doc as Record<string, unknown> | undefined;
}

describe("cpln secret", () => {
  it("create-opaque and create-dictionary store the data; reveal prints it; get never shows it", async () => {
    await ok("secret", "create-opaque", "--name", "token", "--file", file("token.txt", "opaque-value-1"));
    const opaque = await stored("secret", "token");
    // The CLI sends base64 by default (CreateOpaque: encoding base64 unless --encoding plain).
    expect(opaque).toMatchObject({
      type: "opaque",
      data: { payload: Buffer.from("opaque-value-1").toString("base64"), encoding: "base64" },
    });
    expect((await cpln("secret", "reveal", "token", "-o", "smart")).stdout).toContain("opaque-value-1");
    await ok("secret", "create-dictionary", "--name", "env", "--entry", "USER=app", "--entry", "PASS=dict-value-2");
    const revealed = await json<{ type: string; data: Record<string, string> }>("secret", "reveal", "env");
    expect(revealed).toMatchObject({ type: "dictionary", data: { USER: "app", PASS: "dict-value-2" } });
    const got = await ok("secret", "get", "env", "token", "-o", "json");
    expect(got).toContain('"dictionary"');
    expect(got).not.toContain("dict-value-2");
    expect(got).not.toContain(Buffer.from("opaque-value-1").toString("base64"));
  });

  it("create-userpass and create-aws keep their fields; clone copies the revealed data; delete removes", async () => {
    await ok("secret", "create-userpass", "--name", "db", "--username", "app", "--password", "pw-3");
    expect(await stored("secret", "db")).toMatchObject({
      type: "userpass",
      data: { username: "app", password: "pw-3" },
    });
    await ok("secret", "create-aws", "--name", "cloud", "--access-key", "AKIAEXAMPLE", "--secret-key", "aws-4");
    expect(await stored("secret", "cloud")).toMatchObject({
      type: "aws",
      data: { accessKey: "AKIAEXAMPLE", secretKey: "aws-4" },
    });
    await ok("secret", "clone", "db", "--name", "db-copy");
    expect(await stored("secret", "db-copy")).toMatchObject({
      type: "userpass",
      data: { username: "app", password: "pw-3" },
    });
    await ok("secret", "delete", "db-copy");
    expect(await stored("secret", "db-copy")).toBeUndefined();
  });

  it("a create the server refuses exits non-zero with the field and rule, and stores nothing", async () => {
    const refused = await cpln("secret", "create-aws", "--name", "bad", "--access-key", "XYZ", "--secret-key", "s");
    expect(refused.code).not.toBe(0);
    expect(`${refused.stdout}${refused.stderr}`).toContain("AKIA");
    expect(await stored("secret", "bad")).toBeUndefined();
  });
});

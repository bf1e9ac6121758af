/**
 * The runner CLI's stack config (issue 21 item 5, issue 18 item 12): secrets come from stdin, a file or the
 * environment (a value on the command line works, with a warning); `--config` sets keys over the recorded config like
 * `pulumi config set`, `--replace-config` replaces it, a failed run records nothing; without a passphrase the key file
 * is announced. The program is test/fixtures/file-program (records kept as JSON files; no server needed).
 */
import { spawn } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repoRoot = path.resolve(__dirname, "..", "..");
const cli = path.join(repoRoot, "dist", "tools", "runner", "cli.js");
const programDir = path.join(repoRoot, "test", "fixtures", "file-program");
const token = `tok-${crypto.randomBytes(8).toString("hex")}`;
const note = `note-${crypto.randomBytes(8).toString("hex")}`;
let dir: string;

function run(
  args: string[],
  options: { stdin?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number | null; stdout: string; stderr: string; argv: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: dir,
      env: { ...process.env, PULUMI_CONFIG_PASSPHRASE: "config-test", ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let argv = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    // What every local user sees of the runner in the process list.
    child.once("spawn", () => {
      argv = fs.readFileSync(`/proc/${child.pid}/cmdline`, "utf8").replace(/\0/g, " ");
    });
    // A runner that exits before reading its input fails this write with EPIPE: its status and output decide.
    child.stdin.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") reject(error);
    });
    child.stdin.end(options.stdin ?? "");
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr, argv }));
  });
}

interface StateConfig {
  config: Record<string, string | { secure: string }>;
}
const stateConfig = (file: string): StateConfig["config"] =>
  (JSON.parse(fs.readFileSync(file, "utf8")) as StateConfig).config;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "runner-config-"));
  fs.writeFileSync(path.join(dir, "note.txt"), `${note}\n`);
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("secrets off the command line", () => {
  it("--help says how to pass secrets from stdin, a file or the environment", async () => {
    const help = await run(["--help"]);
    expect(help.stdout).toContain(
      "--secret <ns:key>       secret stack config (encrypted in the state file), its value read from stdin",
    );
    expect(help.stdout).toContain("--secret-file <ns:key>=<file>");
    expect(help.stdout).toContain("--secret-env <ns:key>=<VAR>");
  });

  it("stdin, a file and the environment: not in the process list, encrypted in the state, used by the program", async () => {
    const state = path.join(dir, "secrets.json");
    const records = path.join(dir, "records-secrets");
    fs.mkdirSync(records);
    const up = await run(
      [
        "up",
        programDir,
        "--state",
        state,
        "--config",
        `files:dir=${records}`,
        "--secret",
        "files:token",
        "--secret-file",
        `files:secretNote=${path.join(dir, "note.txt")}`,
        "--secret-env",
        "files:greeting=GREETING_VALUE",
      ],
      { stdin: `${token}\n`, env: { GREETING_VALUE: "hello from env" } },
    );
    expect(up.stderr).toBe("");
    expect(up.code).toBe(0);
    expect(up.argv).toContain("--secret files:token");
    expect(up.argv).not.toContain(token);
    expect(up.argv).not.toContain(note);
    const text = fs.readFileSync(state, "utf8");
    // (The program reads files:greeting with `config.get`, so its value is plain in the records it makes.)
    for (const secret of [token, note]) expect(text).not.toContain(secret);
    expect(Object.keys(stateConfig(state)).sort()).toEqual([
      "files:dir",
      "files:greeting",
      "files:secretNote",
      "files:token",
    ]);
    expect(stateConfig(state)["files:token"]).toEqual({ secure: expect.stringMatching(/^v1:/) });
    // The program got the values (the trailing newlines of stdin and the file dropped).
    const noteRecord = JSON.parse(fs.readFileSync(path.join(records, "note.json"), "utf8")) as { content: string };
    expect(noteRecord.content).toBe(note);
    const greeting = JSON.parse(fs.readFileSync(path.join(records, "greeting.json"), "utf8")) as { content: string };
    expect(greeting.content).toBe("hello from env");
  });

  it("--secret key=value still works, with a warning naming the key and the safe forms", async () => {
    const state = path.join(dir, "inline.json");
    const records = path.join(dir, "records-inline");
    fs.mkdirSync(records);
    const up = await run([
      "up",
      programDir,
      "--state",
      state,
      "--config",
      `files:dir=${records}`,
      "--secret",
      `files:token=${token}`,
      "--secret",
      `files:secretNote=${note}`,
    ]);
    expect(up.code).toBe(0);
    expect(up.stderr).toBe(
      "warning: --secret files:token, files:secretNote: a value on the command line is visible to every local user " +
        "in the process list; use --secret <key> (stdin), --secret-file or --secret-env\n",
    );
    expect(fs.readFileSync(state, "utf8")).not.toContain(token);
  });

  it("a missing environment variable or file is refused before anything runs", async () => {
    const missingEnv = await run(["up", programDir, "--secret-env", "files:token=NOT_SET_ANYWHERE"], {
      env: { NOT_SET_ANYWHERE: undefined },
    });
    expect(missingEnv.code).toBe(2);
    expect(missingEnv.stderr).toContain(
      "error: --secret-env files:token=NOT_SET_ANYWHERE: the environment variable NOT_SET_ANYWHERE is not set",
    );
    const missingFile = await run(["up", programDir, "--secret-file", `files:token=${path.join(dir, "nope")}`]);
    expect(missingFile.code).toBe(2);
    expect(missingFile.stderr).toContain(
      `error: --secret-file files:token=${path.join(dir, "nope")}: cannot read the file (ENOENT)`,
    );
  });
});

describe("--config merges like `pulumi config set`", () => {
  it("sets keys over the recorded config; a failed run records nothing; --replace-config replaces", async () => {
    const state = path.join(dir, "merge.json");
    const records = path.join(dir, "records-merge");
    fs.mkdirSync(records);
    const secrets = ["--secret-env", "files:token=T", "--secret-env", "files:secretNote=N"];
    const env = { T: token, N: note };
    const first = await run(
      [
        "up",
        programDir,
        "--state",
        state,
        "--config",
        `files:dir=${records}`,
        "--config",
        "files:greeting=hi",
        ...secrets,
      ],
      { env },
    );
    expect(first.code, first.stderr).toBe(0);

    // One key set: the others stay.
    const merged = await run(["up", programDir, "--state", state, "--config", "files:greeting=hey"]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/~ {2}update {2}pulumi-nodejs:dynamic\/files:Record greeting/);
    const afterMerge = stateConfig(state);
    expect(Object.keys(afterMerge).sort()).toEqual(["files:dir", "files:greeting", "files:secretNote", "files:token"]);
    expect(afterMerge["files:greeting"]).toBe("hey");
    expect(afterMerge["files:dir"]).toBe(records);

    // A failed run (the records directory is a file): the recorded config does not change.
    const notADir = path.join(dir, "not-a-dir");
    fs.writeFileSync(notADir, "");
    const before = fs.readFileSync(state, "utf8");
    const failed = await run([
      "up",
      programDir,
      "--state",
      state,
      "--config",
      `files:dir=${notADir}`,
      "--config",
      "files:greeting=boom",
    ]);
    expect(failed.code, failed.stdout).toBe(1);
    expect(stateConfig(state)).toEqual(JSON.parse(before).config);

    // --replace-config: the given keys are the whole config.
    const replaced = await run(
      ["up", programDir, "--state", state, "--replace-config", "--config", `files:dir=${records}`, ...secrets],
      { env },
    );
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(Object.keys(stateConfig(state)).sort()).toEqual(["files:dir", "files:secretNote", "files:token"]);
  });

  it("without PULUMI_CONFIG_PASSPHRASE the new key file is announced, once", async () => {
    const state = path.join(dir, "keyfile.json");
    const records = path.join(dir, "records-keyfile");
    fs.mkdirSync(records);
    const args = ["up", programDir, "--state", state, "--config", `files:dir=${records}`];
    const secrets = ["--secret-env", "files:token=T", "--secret-env", "files:secretNote=N"];
    const env = { T: token, N: note, PULUMI_CONFIG_PASSPHRASE: undefined, PULUMI_CONFIG_PASSPHRASE_FILE: undefined };
    const first = await run([...args, ...secrets], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe(
      `offline runner: PULUMI_CONFIG_PASSPHRASE is not set: the stack's secrets are encrypted with a new random key ` +
        `kept in ${state}.key (mode 0600). Keep it with the state file; anyone with both can read the secrets. ` +
        "Set PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE) before the first run to use a passphrase.\n",
    );
    expect(fs.statSync(`${state}.key`).mode & 0o777).toBe(0o600);
    const second = await run(args, { env });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toBe("");
  });
});

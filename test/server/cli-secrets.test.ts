/**
 * Secrets never on the command line (issue 18 item 12): `cpln-local` takes its JWT secret from a file, stdin or
 * `CPLN_LOCAL_JWT_SECRET` and refuses `--jwt-secret <s>`; the running server's arguments (/proc/<pid>/cmdline, what
 * `ps` shows) hold no secret. Needs `npm run build` (runs dist/server/cli.js as `npx cpln-local` does).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { SignJWT } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { killStarted, startCplnLocalProcess } from "../support/cplnLocalProcess.js";

const SECRET = "jwt-secret-kept-off-the-command-line-0123456789";
const ADMIN = "cliadmin.cli-secrets-admin-key-0123456789";
const dirs: string[] = [];

afterEach(() => {
  killStarted();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function start(args: string[], env: Record<string, string> = {}, stdin?: string) {
  return startCplnLocalProcess(["--port", "0", "--org", "clisec", ...args], {
    env: { CPLN_TOKEN: ADMIN, ...env },
    stdin,
  });
}

async function jwt(secret: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ email: "someone@example.com" })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(new TextEncoder().encode(secret));
}

/** Status of `GET /org/clisec` with a JWT signed by `secret`: 401 when the server does not accept that secret. */
async function statusWith(url: string, secret: string): Promise<number> {
  const response = await fetch(`${url}/org/clisec`, { headers: { authorization: `Bearer ${await jwt(secret)}` } });
  await response.text();
  return response.status;
}

/** The server accepts JWTs signed with SECRET, refuses others, and its arguments do not hold SECRET. */
async function expectServesWithSecret(server: ReturnType<typeof start>): Promise<void> {
  const url = await server.url();
  expect(await statusWith(url, "another-secret-of-the-same-length-0123456789ab")).toBe(401);
  expect(await statusWith(url, SECRET)).not.toBe(401);
  const cmdline = fs.readFileSync(`/proc/${server.child.pid}/cmdline`, "utf8");
  expect(cmdline).toContain("cli.js");
  expect(cmdline).not.toContain(SECRET);
}

describe("cpln-local JWT secret", () => {
  it("--jwt-secret <s> is refused at start with one line naming the alternatives, exit 1", async () => {
    const server = start(["--jwt-secret", SECRET]);
    expect(await server.exited).toBe(1);
    expect(server.output().stdout).toBe("");
    expect(server.output().stderr).toBe(
      "cpln-local: --jwt-secret puts the secret in the process list; pass it with --jwt-secret-file <file>, " +
        "--jwt-secret-file - (stdin) or CPLN_LOCAL_JWT_SECRET\n",
    );
  });

  it("--jwt-secret-file <file>: the secret is read from the file (trailing newline dropped)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-jwt-"));
    dirs.push(dir);
    const file = path.join(dir, "secret");
    fs.writeFileSync(file, `${SECRET}\n`, { mode: 0o600 });
    await expectServesWithSecret(start(["--jwt-secret-file", file]));
  });

  it("--jwt-secret-file -: the secret is read from stdin", async () => {
    await expectServesWithSecret(start(["--jwt-secret-file", "-"], {}, `${SECRET}\n`));
  });

  it("CPLN_LOCAL_JWT_SECRET: the secret is read from the environment", async () => {
    await expectServesWithSecret(start([], { CPLN_LOCAL_JWT_SECRET: SECRET }));
  });

  it("an empty or unreadable secret file is refused with a clear message", async () => {
    const missing = start(["--jwt-secret-file", "/nonexistent/secret"]);
    expect(await missing.exited).toBe(1);
    expect(missing.output().stderr).toMatch(/^cpln-local: --jwt-secret-file: cannot read \/nonexistent\/secret: /);
    const empty = start(["--jwt-secret-file", "-"], {}, "\n");
    expect(await empty.exited).toBe(1);
    expect(empty.output().stderr).toBe("cpln-local: --jwt-secret-file: the secret in stdin is empty\n");
  });

  it("--help documents where secrets come from", async () => {
    const help = start(["--help"]);
    expect(await help.exited).toBe(0);
    expect(help.output().stdout).toContain("--jwt-secret-file <f>");
    expect(help.output().stdout).toContain("CPLN_LOCAL_JWT_SECRET");
    expect(help.output().stdout).toContain("--jwt-secret <s> is refused");
  });
});

/** The `cpln-local` command (compiled, as `npx cpln-local` runs it): start, serve, print, stop on a signal. */
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { killStarted, startCplnLocalProcess } from "../support/cplnLocalProcess.js";

afterEach(killStarted);

const run = (args: string[], env: Record<string, string> = {}) => startCplnLocalProcess(args, { env });

describe("cpln-local", () => {
  it("prints URL, org and generated admin key, notes :memory:, serves, and exits 0 on SIGTERM", async () => {
    const cli = run(["--port", "0", "--org", "clitest"]);
    const url = (await cli.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)\n/))[1] as string;
    const key = (await cli.waitFor(/admin key: (\S+)\n/))[1] as string;
    expect(cli.output().stdout).toContain("org:       clitest\n");
    expect(cli.output().stdout).toContain(":memory: (nothing is kept after exit");
    const about = await request(`${url}/about`);
    expect(await about.body.json()).toEqual({
      name: "cpln-local",
      version: expect.any(String),
      org: "clitest",
      api: "Control Plane organization API",
    });
    const policies = await request(`${url}/org/clitest/policy/superusers-gvc`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(policies.statusCode).toBe(200);
    await policies.body.dump();
    cli.child.kill("SIGTERM");
    expect(await cli.exited).toBe(0);
    expect(cli.output().stdout).toContain("SIGTERM: closing");
  });

  it("uses CPLN_TOKEN as the admin key without printing it", async () => {
    const token = "scripted.token-from-the-environment-0123";
    const cli = run(["--port", "0"], { CPLN_TOKEN: token });
    const url = (await cli.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)\n/))[1] as string;
    await cli.waitFor(/admin key: \$CPLN_TOKEN\n/);
    expect(cli.output().stdout).not.toContain(token);
    const groups = await request(`${url}/org/demo/group`, { headers: { authorization: token } });
    expect(groups.statusCode).toBe(200);
    await groups.body.dump();
    cli.child.kill("SIGINT");
    expect(await cli.exited).toBe(0);
  });

  it("--help prints the usage; a bad option exits 1 with a message", async () => {
    const help = run(["--help"]);
    expect(await help.exited).toBe(0);
    expect(help.output().stdout).toContain("Usage: cpln-local [options]");
    expect(help.output().stdout).toContain("--jwt-audience <aud>");
    const bad = run(["--port", "99999"]);
    expect(await bad.exited).toBe(1);
    expect(bad.output().stderr).toBe("cpln-local: --port must be 0-65535 (got 99999)\n");
  });
});

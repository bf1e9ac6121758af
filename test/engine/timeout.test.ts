/**
 * `cpln-native:timeoutSeconds` set with `pulumi config set`, as a user sets it, through the real CLI and the plugin
 * installed from its release archive, against cpln-local answering every request 2.5 s late (its `delay` fault): a
 * limit of 1 s ends the Create naming that limit, while the same Create without the key (the default, 60 s) completes;
 * a value that is not a positive number of seconds is refused before any request, naming the key and the rule (as
 * `cpln:timeoutSeconds` is by the dynamic provider, provider/config.ts).
 *
 * The program is a YAML project (no SDK to build): one service account whose name is a config value, so each up
 * makes a new one.
 */
import { describe, expect, it } from "vitest";
import { engineSuite, isMutating, nativeStackProject, ORG, requestLog, type Recorded } from "./harness.js";
import type { StackProject } from "./harness.js";
import { skipWithoutEngine } from "./support.js";

const PROGRAM = `name: native-timeout
runtime: yaml
config:
  accountName:
    type: string
resources:
  robot:
    type: cpln-native:index:ServiceAccount
    properties:
      name: \${accountName}
      description: made under a slow API
`;
const DELAY_MS = 2500;

describe.skipIf(skipWithoutEngine)("cpln-native:timeoutSeconds from the stack config, through the real engine", () => {
  let project: StackProject;
  let sent: () => Recorded[];
  const suite = engineSuite("native-timeout", true, async ({ server, world }) => {
    project = await nativeStackProject({ server, world }, "native-timeout", "dev", PROGRAM);
    sent = requestLog(server);
  });

  /** `pulumi up`, its exit status and output, without failing on a non-zero exit. */
  const up = async () => {
    const started = Date.now();
    const result = await suite.world.pulumi(["up", "--yes", "--skip-preview"], project.dir);
    return { ...result, output: result.stdout + result.stderr, ms: Date.now() - started };
  };
  const slowServer = () => suite.server.setFaults({ rate: 1, modes: ["delay"], delayMs: DELAY_MS });

  it("a limit of 1 s ends a Create the server answers 2.5 s late, the error naming the 1000 ms limit", async () => {
    await project.pulumi(["config", "set", "accountName", "short-limit"]);
    await project.pulumi(["config", "set", "cpln-native:timeoutSeconds", "1"]);
    slowServer();
    try {
      const result = await up();
      expect(result.status, result.output).not.toBe(0);
      expect(result.output).toContain("no complete response within the time limit of 1000 ms");
    } finally {
      suite.server.setFaults(undefined);
    }
    // The plugin sent the POST (the server committed it, then answered late): the limit ended the wait, not a refusal.
    expect(
      sent()
        .filter(isMutating)
        .map((r) => `${r.method} ${r.path}`),
    ).toEqual([`POST /org/${ORG}/serviceaccount`]);
    const exported = JSON.parse((await project.pulumi(["stack", "export"])).stdout) as {
      deployment: { resources?: { type: string }[] };
    };
    expect((exported.deployment.resources ?? []).map((r) => r.type)).not.toContain("cpln-native:index:ServiceAccount");
  });

  it("without the key (the default limit) the same slow Create completes", async () => {
    await project.pulumi(["config", "rm", "cpln-native:timeoutSeconds"]);
    await project.pulumi(["config", "set", "accountName", "default-limit"]);
    slowServer();
    let result: Awaited<ReturnType<typeof up>>;
    try {
      result = await up();
    } finally {
      suite.server.setFaults(undefined);
    }
    expect(result.status, result.output).toBe(0);
    // Each request took the delay: the up waited past the 1 s limit of the test before.
    expect(result.ms).toBeGreaterThan(DELAY_MS);
    expect(
      sent()
        .filter(isMutating)
        .map((r) => `${r.method} ${r.path} ${r.status}`),
    ).toEqual([`POST /org/${ORG}/serviceaccount 201`]);
    const exported = JSON.parse((await project.pulumi(["stack", "export"])).stdout) as {
      deployment: { resources?: { type: string; outputs?: Record<string, unknown> }[] };
    };
    const robot = (exported.deployment.resources ?? []).find((r) => r.type === "cpln-native:index:ServiceAccount");
    expect(robot?.outputs).toMatchObject({
      name: "default-limit",
      selfLink: `/org/${ORG}/serviceaccount/default-limit`,
    });
  });

  it.each(["0", "-1", "soon"])(
    "timeoutSeconds %s is refused naming cpln-native:timeoutSeconds and the rule, before any write",
    async (value) => {
      // `--`: a value such as -1 is not a flag.
      await project.pulumi(["config", "set", "--", "cpln-native:timeoutSeconds", value]);
      await project.pulumi(["config", "set", "accountName", "bad-limit"]);
      const result = await up();
      expect(result.status, result.output).not.toBe(0);
      expect(result.output).toContain(
        `cpln-native:timeoutSeconds must be a positive number of seconds, got ${JSON.stringify(value)}`,
      );
      expect(sent().filter(isMutating)).toEqual([]);
    },
  );
});

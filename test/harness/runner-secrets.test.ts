/**
 * Issue 18 item 2: the runner keeps a resource's declared secret outputs secret in its state file. The realistic
 * program (test/fixtures/chain-program) exports a service-account key; after `up` with either adapter the state file
 * holds the key only encrypted, the printed outputs hide it, and the key itself (the program's output) authenticates.
 */
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as Runner from "../../tools/runner/index.js";
import type * as Values from "../../tools/runner/values.js";

const repoRoot = path.resolve(__dirname, "..", "..");
const load = createRequire(__filename);
const runner = load(path.join(repoRoot, "dist", "tools", "runner", "index.js")) as typeof Runner;
const values = load(path.join(repoRoot, "dist", "tools", "runner", "values.js")) as typeof Values;
const { startServer } = load(
  path.join(repoRoot, "dist", "server", "index.js"),
) as typeof import("../../server/index.js");

const adminKey = `secrets-admin-${crypto.randomBytes(8).toString("hex")}`;
let server: Awaited<ReturnType<typeof startServer>>;
let work: string;

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-runner-secrets-"));
  server = await startServer({ host: "127.0.0.1", port: 0, data: ":memory:", org: "demo", adminKey });
});

afterAll(async () => {
  await server?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

function program(): string {
  const dir = fs.mkdtempSync(path.join(work, "program-"));
  for (const file of ["Pulumi.yaml", "index.ts"]) {
    fs.copyFileSync(path.join(repoRoot, "test", "fixtures", "chain-program", file), path.join(dir, file));
  }
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"), "dir");
  return dir;
}

for (const provider of ["dynamic", "native"] as const) {
  describe(`--provider ${provider}`, () => {
    it("up: the state file holds the service-account key only encrypted; the key output works", async () => {
      const programDir = program();
      const stateFile = path.join(programDir, "state.json");
      const prefix = `sec-${provider}`;
      const options = {
        programDir,
        stateFile,
        provider,
        config: {
          "cpln:org": "demo",
          "cpln:endpoint": server.url,
          "cpln:token": adminKey,
          "chain-program:prefix": prefix,
        },
        secretConfigKeys: ["cpln:token"],
        env: { PULUMI_CONFIG_PASSPHRASE: "secrets-test", CPLN_TOKEN: "", CPLN_ORG: "", CPLN_ENDPOINT: "" },
      };
      const result = await runner.runProgram(options);
      try {
        // The program's output: a secret holding the key, hidden in the printed form.
        const wrapped = result.outputsWithSecrets.ciKey as Values.PropertyValue;
        expect(values.isSecret(wrapped)).toBe(true);
        const key = values.stripSecrets(wrapped) as string;
        expect(key).toMatch(/^[0-9a-f]{16}\.\S+$/);
        expect(result.outputs.ciKey).toEqual({ secret: true });
        expect(runner.formatRun(result)).not.toContain(key);

        // The state file: no key in plaintext, anywhere; the key resource's `key` output is ciphertext.
        const text = fs.readFileSync(stateFile, "utf8");
        expect(text).not.toContain(key);
        expect(text).not.toContain(key.split(".")[1]);
        const state = JSON.parse(text) as { resources: { type: string; outputs: Record<string, unknown> }[] };
        const keyResource = state.resources.find((r) => r.type.endsWith("ServiceAccountKey"));
        expect(keyResource?.outputs.key).toEqual({
          [values.secretSigKey]: values.secretSig,
          ciphertext: expect.stringMatching(/^v1:/),
        });

        // The key authenticates (what it may see is the grants' business: not a 401, which a wrong key gets).
        const get = (bearer: string) =>
          fetch(`${server.url}/org/demo/policy/${prefix}-data-view`, {
            headers: { authorization: `Bearer ${bearer}` },
          });
        expect((await get(`${key.split(".")[0]}.wrong`)).status).toBe(401);
        expect((await get(key)).status).not.toBe(401);

        // A second up (no change) keeps it encrypted and the output still carries it.
        const again = await runner.runProgram(options);
        expect(again.summary.same).toBe(6);
        expect(values.stripSecrets(again.outputsWithSecrets.ciKey as Values.PropertyValue)).toBe(key);
        expect(fs.readFileSync(stateFile, "utf8")).not.toContain(key);
      } finally {
        await runner.runProgram({ ...options, destroy: true });
      }
    });
  });
}

/**
 * Join scripts run as root on every node that joins, so nothing a caller stores may run in them. Hostile node-pool
 * and cluster names are refused when written (400 naming the field); every value the script interpolates is
 * shell-quoted, which is checked by running the rendered script's assignments in a throwaway bash (temp dir, empty
 * environment): no marker file appears and each variable holds exactly the intended value.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { joinScript, shellQuote, type JoinValues } from "../../server/domain/mk8s.js";
import { admin, apiError, field, ORG, start } from "./helpers.js";

let server: RunningServer;
let dir: string;
let marker: string;

beforeAll(async () => {
  server = await start();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): void {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "joinscript-"));
  marker = path.join(dir, "PWNED");
}

const variables = ["CLUSTER_NAME", "NODE_POOL", "CPLN_ORG", "BOOTSTRAP_TOKEN", "TOKEN_EXPIRES"] as const;

/**
 * Runs the script up to (not including) its first command after the assignments, then prints each variable
 * NUL-terminated; returns their values. Runs in `dir` with an empty environment.
 */
function runAssignments(script: string): Record<string, string> {
  const cut = script.indexOf('if [ "$(id -u)"');
  expect(cut).toBeGreaterThan(0);
  const prologue = script.slice(0, cut);
  const probe = `${prologue}for v in ${variables.join(" ")}; do printf '%s\\0' "\${!v}"; done\n`;
  const file = path.join(dir, "join.sh");
  fs.writeFileSync(file, probe);
  const run = spawnSync("/bin/bash", [file], { cwd: dir, env: {}, encoding: "utf8", timeout: 10_000 });
  expect(run.status, run.stderr).toBe(0);
  const values = run.stdout.split("\0").slice(0, -1);
  expect(values).toHaveLength(variables.length);
  return Object.fromEntries(variables.map((name, index) => [name, values[index] as string]));
}

/** Values that would run a command (touching the marker) if they were spliced into the script unquoted. */
function hostileValues(): string[] {
  return [
    `p'; touch ${marker}; echo '`,
    `$(touch ${marker})`,
    `\`touch ${marker}\``,
    `a\ntouch ${marker}\n`,
    `x"; touch ${marker}; echo "`,
    `'"'"'$(touch ${marker})'`,
    `\\'; touch ${marker} #`,
    `\${IFS}touch\${IFS}${marker}`,
    `!!; touch ${marker} & wait`,
    "'",
    "''",
    "\\",
    "-- *",
    "",
    "nöde-pool ✓ 池",
  ];
}

describe("join script rendering (run in a throwaway bash)", () => {
  it("shellQuote: every hostile value is one word that bash expands to exactly that value, and nothing runs", () => {
    tempDir();
    for (const value of hostileValues()) {
      const assignments = variables.map((name) => `${name}=${shellQuote(value)}`);
      const script = ["#!/bin/bash", "set -euo pipefail", ...assignments, 'if [ "$(id -u)"'].join("\n");
      expect(runAssignments(script), JSON.stringify(value)).toEqual(
        Object.fromEntries(variables.map((name) => [name, value])),
      );
      expect(fs.existsSync(marker), `marker created by ${JSON.stringify(value)}`).toBe(false);
    }
  });

  it("joinScript: hostile values in every interpolated field are assigned verbatim and execute nothing", () => {
    tempDir();
    const hostile = hostileValues();
    for (const [index, value] of hostile.entries()) {
      // Each field gets a different hostile value in each round.
      const values = Object.fromEntries(
        variables.map((name, offset) => [name, hostile[(index + offset) % hostile.length] as string]),
      ) as unknown as JoinValues;
      for (const provider of ["generic", "hetzner"]) {
        const script = joinScript(provider, values);
        expect(runAssignments(script), JSON.stringify(value)).toEqual(values);
        expect(fs.existsSync(marker), `marker created by ${JSON.stringify(value)}`).toBe(false);
        // No value appears outside its own quoted assignment (the comment lines name none).
        const comments = script.split("\n").filter((line) => line.startsWith("#"));
        expect(comments.join("\n")).not.toContain(marker);
      }
    }
  });

  it("joinScript refuses a provider that has no join script", () => {
    const values = Object.fromEntries(variables.map((name) => [name, "x"])) as unknown as JoinValues;
    expect(() => joinScript("aws", values)).toThrow("no join script for provider aws");
  });
});

describe("hostile names are refused when written", () => {
  const hostilePool = "p'; touch /tmp/x; echo '";
  const poolRule =
    "must start with a lowercase letter, contain only lowercase letters, digits and '-', and end with a letter or digit (at least 2 characters)";

  it("POST mk8s with a hostile generic node-pool name: 400 naming the pool's name, nothing stored", async () => {
    const created = await admin(server).post(`/org/${ORG}/mk8s`, {
      name: "evil",
      spec: {
        version: "1.28.4",
        provider: { generic: { location: "aws-eu-central-1", nodePools: [{ name: "ok" }, { name: hostilePool }] } },
      },
    });
    expect(created.status).toBe(400);
    expect(created.body).toEqual(
      apiError(400, "BadRequest", expect.any(String), [
        { path: "spec.provider.generic.nodePools.1.name", message: poolRule },
      ]),
    );
    expect((await admin(server).get(`/org/${ORG}/mk8s/evil`)).status).toBe(404);
  });

  it("POST mk8s with a hostile hetzner dedicated-server pool name: 400 naming the field", async () => {
    const created = await admin(server).post(`/org/${ORG}/mk8s`, {
      name: "evil",
      spec: { version: "1.28.4", provider: { hetzner: { dedicatedServerNodePools: [{ name: "$(reboot)" }] } } },
    });
    expect(created.status).toBe(400);
    expect(created.body).toEqual(
      apiError(400, "BadRequest", expect.any(String), [
        { path: "spec.provider.hetzner.dedicatedServerNodePools.0.name", message: poolRule },
      ]),
    );
  });

  it("POST mk8s with a hostile cluster name: 400 naming `name`", async () => {
    const created = await admin(server).post(`/org/${ORG}/mk8s`, {
      name: "c'$(id)'",
      spec: { version: "1.28.4", provider: { generic: { location: "aws-eu-central-1", nodePools: [{ name: "ok" }] } } },
    });
    expect(created.status).toBe(400);
    expect(created.body).toEqual(
      apiError(400, "BadRequest", expect.any(String), [{ path: "name", message: poolRule }]),
    );
  });

  it("PATCH replacing or merging a provider with a hostile pool name: 400 naming the field, record unchanged", async () => {
    const before = await admin(server).get(`/org/${ORG}/mk8s/edge`);
    const merged = await admin(server).patch(`/org/${ORG}/mk8s/edge`, {
      spec: { provider: { generic: { location: "aws-eu-central-1", nodePools: [{ name: "`id`" }] } } },
    });
    expect(merged.status).toBe(400);
    expect(merged.body).toEqual(
      apiError(400, "BadRequest", expect.any(String), [
        { path: "spec.provider.generic.nodePools.0.name", message: poolRule },
      ]),
    );
    const replaced = await admin(server).patch(`/org/${ORG}/mk8s/edge`, {
      spec: {
        version: "1.29.7",
        provider: { generic: { location: "aws-eu-central-1", nodePools: [{ name: "a\nb" }] } },
      },
    });
    expect(replaced.status).toBe(400);
    expect(field(replaced.body, "details", "issues", 0, "path")).toBe("spec.provider.generic.nodePools.0.name");
    expect((await admin(server).get(`/org/${ORG}/mk8s/edge`)).body).toEqual(before.body);
  });

  it("a pool name stored before the rule existed is still quoted: -join's script assigns it verbatim, runs nothing", async () => {
    tempDir();
    const legacy = `p'; touch ${marker}; echo '`;
    const stored = await server.store.get(ORG, "mk8s", "", "edge");
    expect(stored).toBeDefined();
    const doc = structuredClone(stored!.doc);
    (
      doc["spec"] as { provider: { generic: { location: "aws-eu-central-1"; nodePools: { name: string }[] } } }
    ).provider.generic.nodePools.push({
      name: legacy,
    });
    expect(await server.store.replace({ ...stored!, doc, version: stored!.version + 1 }, stored!.version)).toBe(true);

    const joined = await admin(server).post(`/org/${ORG}/mk8s/edge/-join`, { nodePoolName: legacy });
    expect(joined.status).toBe(200);
    const values = runAssignments(field<string>(joined.body, "script"));
    expect(values).toEqual({
      CLUSTER_NAME: "edge",
      NODE_POOL: legacy,
      CPLN_ORG: ORG,
      BOOTSTRAP_TOKEN: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
      TOKEN_EXPIRES: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect(fs.existsSync(marker)).toBe(false);
  });
});

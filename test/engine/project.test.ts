/**
 * A user's own project, built from the packed package (test/support/packedProject.ts), run with the plain `pulumi`
 * command against cpln-local: up, an edit shown by `preview --diff` and applied by up (exactly one PATCH), a change
 * made by hand taken in by refresh, destroy; then its mistakes, each one line under Diagnostics naming the resource,
 * with no stack frame (wrong token, wrong org, a missing argument, an invalid enum, an unknown permission, a dead
 * endpoint with the provider's retry lines). What `cpln-pulumi-run` showed, as the real engine shows it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { packedProject, userProgram } from "../support/packedProject.js";
import { ADMIN_KEY, api, engineSuite, isMutating, ORG, requestLog, type CliResult } from "./harness.js";
import { skipWithoutEngine } from "./support.js";

const requestId = "\\[request id [0-9a-f-]{36}\\]";
/** The program without the data-source call, so the first failure is always a resource's. */
const resourcesOnly = userProgram.replace(/const quota[^\n]*\n/, "").replace(/export const quotaCount[^\n]*\n/, "");

/** The lines under `Diagnostics:` of a run, by the resource or stack they are about, empty lines dropped. */
function diagnostics(stdout: string): Record<string, string[]> {
  const section = stdout.slice(stdout.indexOf("\nDiagnostics:\n") + 1).split(/\n(?:Outputs|Resources):\n/)[0]!;
  const byHeader: Record<string, string[]> = {};
  let header = "";
  for (const line of section.split("\n").slice(1)) {
    if (/^ {2}\S.*:$/.test(line)) byHeader[(header = line.trim().slice(0, -1))] = [];
    else if (line.trim() !== "" && header) byHeader[header]!.push(line.trim());
  }
  return byHeader;
}

describe.skipIf(skipWithoutEngine)("a user's project from the packed package, run with `pulumi`", () => {
  let project = "";
  let writes: () => { method: string; path: string; body: unknown; status: number }[];
  const suite = engineSuite("project", false, async ({ server, world }) => {
    ({ project } = await packedProject(world.workDir));
    await must(["stack", "init", "dev"]);
    await configure({});
    const sent = requestLog(server);
    writes = () => sent().filter(isMutating);
  });

  async function must(args: string[]): Promise<CliResult> {
    const result = await suite.world.pulumi(args, project);
    if (result.status !== 0)
      throw new Error(`pulumi ${args.join(" ")} → ${result.status}\n${result.stdout}${result.stderr}`);
    return result;
  }
  type Key = "org" | "endpoint" | "token";
  /** Sets `keys` of the stack's config: to the value `over` gives, else the right one. */
  async function configure(over: Partial<Record<Key, string>>, keys: Key[] = ["org", "endpoint", "token"]) {
    const values = { org: ORG, endpoint: suite.server.url, token: ADMIN_KEY, ...over };
    for (const key of keys) {
      await must(["config", "set", ...(key === "token" ? ["--secret"] : []), `cpln:${key}`, values[key]]);
    }
  }
  const volumeSet = `/org/${ORG}/gvc/default/volumeset/user-data`;

  it("up creates the volume set and the policy; the outputs; a no-op up", async () => {
    const up = await must(["up", "--yes", "--skip-preview"]);
    expect(up.stdout).toMatch(/\+ 3 created/); // the two resources and the stack
    expect(writes().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `POST /org/${ORG}/gvc/default/volumeset 201`,
      `POST /org/${ORG}/policy 201`,
    ]);
    const outputs = JSON.parse((await must(["stack", "output", "--json"])).stdout) as Record<string, unknown>;
    expect(outputs).toMatchObject({ policyName: "user-readers", volumeSetLink: volumeSet });
    expect(outputs.quotaCount).toBe(
      ((await api(suite.server, "GET", `/org/${ORG}/quota`)) as { items: [] }).items.length,
    );
    expect(await api(suite.server, "GET", volumeSet)).toMatchObject({ spec: { initialCapacity: 20 } });
    await must(["up", "--yes", "--expect-no-changes"]);
    expect(writes()).toEqual([]);
  });

  it("an edit: preview --diff names the changed paths and sends nothing; up sends exactly the one PATCH", async () => {
    fs.writeFileSync(
      path.join(project, "index.ts"),
      userProgram
        .replace("?? 20;", "?? 30;")
        .replace('tags: { team: "storage" }', 'tags: { team: "storage", tier: "gold" }'),
    );
    const preview = await must(["preview", "--diff"]);
    expect(preview.stdout).toMatch(/~ initialCapacity\s*: 20 => 30/);
    expect(preview.stdout).toMatch(/\+ tier\s*: "gold"/);
    expect(preview.stdout).toMatch(/~ 1 to update/);
    expect(writes()).toEqual([]);
    await must(["up", "--yes", "--skip-preview"]);
    expect(writes().map(({ method, path: p, body, status }) => ({ method, path: p, body, status }))).toEqual([
      {
        method: "PATCH",
        path: volumeSet,
        body: { tags: { tier: "gold" }, spec: { initialCapacity: 30 } },
        status: 200,
      },
    ]);
    expect(await api(suite.server, "GET", volumeSet)).toMatchObject({
      tags: { team: "storage", tier: "gold" },
      spec: { initialCapacity: 30 },
    });
  });

  it("a change made by hand: refresh takes it in (no write); destroy deletes both", async () => {
    await api(suite.server, "PATCH", volumeSet, { description: "changed by hand" });
    writes();
    const refreshed = await must(["refresh", "--yes", "--skip-preview", "--diff"]);
    expect(refreshed.stdout).toMatch(/~ description\s*: "volumes of the user program" => "changed by hand"/);
    expect(writes()).toEqual([]);
    await must(["destroy", "--yes", "--skip-preview"]);
    expect(
      writes()
        .map((r) => `${r.method} ${r.path} ${r.status}`)
        .sort(),
    ).toEqual([`DELETE /org/${ORG}/policy/user-readers 202`, `DELETE ${volumeSet} 202`].sort());
    await expect(api(suite.server, "GET", volumeSet)).rejects.toThrow(/→ 404/);
    await expect(api(suite.server, "GET", `/org/${ORG}/policy/user-readers`)).rejects.toThrow(/→ 404/);
    fs.writeFileSync(path.join(project, "index.ts"), userProgram);
  });

  describe("mistakes: one line each under Diagnostics, no stack frames", () => {
    /**
     * `pulumi up` of `source` with the config changed by `over` (only those keys: the others hold the right values):
     * it fails, and the config is put back. `sent`: the writes the failed up made.
     */
    async function failure(
      source: string,
      over: Parameters<typeof configure>[0] = {},
    ): Promise<CliResult & { sent: ReturnType<typeof writes> }> {
      fs.writeFileSync(path.join(project, "index.ts"), source);
      const changed = Object.keys(over) as Key[];
      await configure(over, changed);
      let sent: ReturnType<typeof writes> = [];
      try {
        const result = await suite.world.pulumi(["up", "--yes", "--skip-preview"], project);
        sent = writes();
        expect(result.status, result.stdout).not.toBe(0);
        expect(`${result.stdout}${result.stderr}`).not.toMatch(/^\s+at /m);
        return { ...result, sent };
      } finally {
        fs.writeFileSync(path.join(project, "index.ts"), userProgram);
        await configure({}, changed);
        // What a failed run made (the volume set, before its policy failed) goes, so each mistake starts clean; a run
        // that created nothing left nothing in the stack to destroy.
        if (sent.some((r) => r.method === "POST" && r.status < 300)) await must(["destroy", "--yes", "--skip-preview"]);
        writes();
      }
    }
    const volumeSetErrors = (result: CliResult) =>
      diagnostics(result.stdout)["pulumi-nodejs:dynamic/cpln:VolumeSet (data)"];

    it("a wrong token: the server's message and request id", async () => {
      const result = await failure(resourcesOnly, { token: "not-the-key" });
      expect(volumeSetErrors(result)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^error: Creating VolumeSet "user-data" failed: POST /org/${ORG}/gvc/default/volumeset ` +
              `failed \\(401 Unauthorized\\): Invalid credentials ${requestId}$`,
          ),
        ),
      ]);
    });

    it("a wrong org: the server's message and request id", async () => {
      const result = await failure(resourcesOnly, { org: "nope" });
      expect(volumeSetErrors(result)).toEqual([
        expect.stringMatching(
          new RegExp(
            '^error: Creating VolumeSet "user-data" failed: POST /org/nope/gvc/default/volumeset ' +
              `failed \\(404 NotFound\\): org nope not found ${requestId}$`,
          ),
        ),
      ]);
    });

    it("a missing required argument: the TypeScript compiler names it before anything is sent", async () => {
      const result = await failure(resourcesOnly.replace('  gvc: "default",\n', ""));
      expect(diagnostics(result.stdout)["pulumi:pulumi:Stack (user-infra-dev)"]).toEqual(
        expect.arrayContaining([
          "TSError: ⨯ Unable to compile TypeScript:",
          expect.stringMatching(/^Property 'gvc' is missing in type .* but required in type 'VolumeSetArgs'\.$/),
        ]),
      );
      expect(result.sent).toEqual([]);
    });

    it("an invalid enum value names the allowed ones", async () => {
      const result = await failure(resourcesOnly.replace('"general-purpose-ssd"', '"fast-ssd" as never'));
      expect(volumeSetErrors(result)).toEqual([
        "error: pulumi-nodejs:dynamic/cpln:VolumeSet resource 'data': property performanceClass value {fast-ssd} has a problem: " +
          'Invalid option: expected one of "general-purpose-ssd"|"high-throughput-ssd"|"shared"',
      ]);
    });

    it("an unknown permission names the kind's catalog", async () => {
      const result = await failure(resourcesOnly.replace('["view"]', '["peek"]'));
      expect(diagnostics(result.stdout)["pulumi-nodejs:dynamic/cpln:Policy (readers)"]).toEqual([
        expect.stringMatching(
          /^error: pulumi-nodejs:dynamic\/cpln:Policy resource 'readers': property bindings\.0\.permissions\.0 value \{<nil>\} has a problem: 'peek' is not a permission of volumeset \(.*view\)$/,
        ),
      ]);
    });

    it("a dead endpoint: the provider's retry lines, then the error naming the endpoint and its config key", async () => {
      const result = await failure(resourcesOnly, { endpoint: "http://127.0.0.1:1" });
      expect(volumeSetErrors(result)).toEqual([
        `error: Creating VolumeSet "user-data" failed: POST /org/${ORG}/gvc/default/volumeset failed (NetworkError): cannot reach http://127.0.0.1:1 (set by cpln:endpoint): connection refused (ECONNREFUSED)`,
      ]);
      expect(diagnostics(result.stdout)["pulumi:pulumi:Stack (user-infra-dev)"]).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            new RegExp(
              `^cpln: retry 1/10 of POST /org/${ORG}/(gvc/default/volumeset|policy) in \\d+\\.\\d s: NetworkError ECONNREFUSED$`,
            ),
          ),
        ]),
      );
    });
  });
});

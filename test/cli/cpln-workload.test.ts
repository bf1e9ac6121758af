// The official Control Plane CLI (`@controlplane/cli`, pinned dev dependency) managing workloads on cpln-local:
// `workload create` (its own body), `get` (which reads the deployments to report readiness), `update --set` of one
// container's env (a keyed PATCH), `get-deployments`, `apply -f` of a manifest and `delete`; each asserting the CLI's
// exit code and what the server holds afterwards.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../server/index.js";

const CPLN = join(__dirname, "..", "..", "node_modules", "@controlplane", "cli", "dist", "src", "cpln.js");
const ADMIN_KEY = "cliadmin.secret-admin-key-for-the-cli-tests";

let server: RunningServer;
let home: string;

beforeAll(async () => {
  server = await startServer({ org: "demo", adminKey: ADMIN_KEY });
  home = mkdtempSync(join(tmpdir(), "cpln-home-"));
  // The default gvc placed in two locations: a workload gets one deployment in each.
  const placed = await server.app.inject({
    method: "PATCH",
    url: "/org/demo/gvc/default",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    payload: JSON.stringify({
      spec: { staticPlacement: { locationLinks: ["//location/aws-us-west-2", "//location/aws-eu-central-1"] } },
    }),
  });
  expect(placed.statusCode).toBe(200);
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
        timeout: 600_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

async function json<T = Record<string, unknown>>(...args: string[]): Promise<T> {
  const run = await cpln(...args, "-o", "json");
  if (run.code !== 0) throw new Error(`cpln ${args.join(" ")} exited ${run.code}: ${run.stderr}${run.stdout}`);
  return JSON.parse(run.stdout) as T;
}

type Doc = Record<string, unknown> & {
  spec: Record<string, unknown>;
  status: Record<string, unknown>;
  version: number;
};

async function stored(name: string): Promise<Doc | undefined> {
  return (await server.store.get("demo", "workload", "default", name))?.doc as Doc | undefined;
}

const containersOf = (doc: Doc | undefined) => (doc?.spec["containers"] ?? []) as Record<string, unknown>[];

describe("cpln workload", () => {
  it("create --image --port --env --public: the server holds the workload with the defaults it fills", async () => {
    const created = await json(
      "workload",
      "create",
      "--name",
      "web",
      "--image",
      "nginx:1.27",
      "--port",
      "8080",
      "--env",
      "MODE=local",
      "--env",
      "LEVEL=info",
      "--public",
    );
    expect(created["name"]).toBe("web");
    const doc = await stored("web");
    expect(doc?.spec["type"]).toBe("standard");
    expect(containersOf(doc)).toEqual([
      {
        name: "nginx",
        image: "nginx:1.27",
        cpu: "50m",
        memory: "128Mi",
        inheritEnv: false,
        ports: [{ protocol: "http", number: 8080 }],
        env: [
          { name: "MODE", value: "local" },
          { name: "LEVEL", value: "info" },
        ],
        volumes: [],
      },
    ]);
    expect(doc?.spec["firewallConfig"]).toEqual({
      external: {
        inboundAllowCIDR: ["0.0.0.0/0"],
        outboundAllowCIDR: ["0.0.0.0/0"],
        inboundBlockedCIDR: [],
        outboundAllowHostname: [],
        outboundBlockedCIDR: [],
      },
      internal: { inboundAllowType: "same-org", inboundAllowWorkload: [] },
    });
  });

  it("get reports the workload ready in every location (read from its deployments)", async () => {
    const got = await json<Doc>("workload", "get", "web");
    const alias = ((await server.store.get("demo", "gvc", "", "default"))?.doc as { alias: string }).alias;
    expect(got.status).toMatchObject({
      // The endpoint names the gvc's alias (server/domain/workloadStatus.ts).
      canonicalEndpoint: `https://web-${alias}.cpln.app`,
      ready: true,
      readyLatest: true,
    });
    const deployments = await json<{ items: { name: string; kind: string }[] }>("workload", "get-deployments", "web");
    expect(deployments.items.map((d) => [d.name, d.kind]).sort()).toEqual([
      ["aws-eu-central-1", "deployment"],
      ["aws-us-west-2", "deployment"],
    ]);
  });

  it("update --set of one container's env changes that variable and keeps the other", async () => {
    const before = await stored("web");
    const run = await cpln("workload", "update", "web", "--set", "spec.containers.nginx.env.MODE.value=remote");
    expect(run.code, run.stderr).toBe(0);
    const after = await stored("web");
    expect(containersOf(after)[0]?.["env"]).toEqual([
      { name: "MODE", value: "remote" },
      { name: "LEVEL", value: "info" },
    ]);
    expect(after?.version).toBe((before?.version ?? 0) + 1);
  });

  it("apply -f of a cron manifest creates it; delete removes both workloads", async () => {
    const manifest = join(home, "cron.yaml");
    writeFileSync(
      manifest,
      [
        "kind: workload",
        "name: nightly",
        "gvc: default",
        "spec:",
        "  type: cron",
        "  job:",
        "    schedule: '0 3 * * *'",
        "  containers:",
        "    - name: job",
        "      image: busybox",
        "",
      ].join("\n"),
    );
    const applied = await cpln("apply", "-f", manifest);
    expect(applied.code, applied.stderr).toBe(0);
    expect((await stored("nightly"))?.spec["job"]).toEqual({
      schedule: "0 3 * * *",
      concurrencyPolicy: "Forbid",
      historyLimit: 5,
      restartPolicy: "Never",
    });
    const deleted = await cpln("workload", "delete", "web", "nightly");
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(await stored("web")).toBeUndefined();
    expect(await stored("nightly")).toBeUndefined();
  });
});

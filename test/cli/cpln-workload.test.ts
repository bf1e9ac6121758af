// The official Control Plane CLI (`@controlplane/cli`, pinned dev dependency) managing workloads on cpln-local:
// `workload create` (its own body), `get` (which reads the deployments to report readiness), `update --set` of one
// container's env (a keyed PATCH), `get-deployments`, `apply -f` of a manifest and `delete`; each asserting the CLI's
// exit code and what the server holds afterwards.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI_ADMIN_KEY, officialCli } from "./officialCli.js";

type Doc = Record<string, unknown> & {
  spec: Record<string, unknown>;
  status: Record<string, unknown>;
  version: number;
};

const cli = officialCli();
const { cpln, json } = cli;

beforeAll(async () => {
  // The default gvc placed in two locations: a workload gets one deployment in each.
  const placed = await cli.server.app.inject({
    method: "PATCH",
    url: "/org/demo/gvc/default",
    headers: { authorization: `Bearer ${CLI_ADMIN_KEY}`, "content-type": "application/json" },
    payload: JSON.stringify({
      spec: { staticPlacement: { locationLinks: ["//location/aws-us-west-2", "//location/aws-eu-central-1"] } },
    }),
  });
  expect(placed.statusCode).toBe(200);
});

/** The stored workload of gvc `default`, or undefined. */
async function stored(name: string): Promise<Doc | undefined> {
  return (await cli.stored("workload", name, "default")) as Awaited<Promise<Doc | undefined>>;
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
    const alias = ((await cli.server.store.get("demo", "gvc", "", "default"))?.doc as { alias: string }).alias;
    expect(got.status).toMatchObject({
      // The endpoint names the gvc's alias (cli.server/domain/workloadStatus.ts).
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
    const manifest = join(cli.home, "cron.yaml");
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

/**
 * The concurrent edit of the "app" benchmark (bench/app.ts): one workload of two containers (`left`, `right`, each
 * with env MESSAGE), made outside Pulumi, taken over by two stacks of bench/programs/app-pair (ours: `adopt: true`;
 * pulumiverse: the `import` resource option), one after the other. Then the left stack changes `left`'s MESSAGE and the
 * right stack `right`'s, and both ups run at the same time. Kept = the server's record afterwards holds both new
 * values. The writes each up sent are reported with their bodies: a minimal PATCH names only its container, a
 * `$replace/spec` carries the whole spec as its stack last saw it.
 */
import { countByMethod, startDriver, type AppAdapter, type AppWorld } from "./lib/app-world.js";
import { Http } from "./lib/http.js";
import type { Report } from "./lib/report.js";

interface Container {
  name: string;
  env?: { name: string; value?: string }[];
}

const messageOf = (containers: Container[], name: string): string | undefined =>
  containers.find((container) => container.name === name)?.env?.find((entry) => entry.name === "MESSAGE")?.value;

export async function concurrentEdit(world: AppWorld, adapter: AppAdapter, report: Report): Promise<void> {
  const { server } = world;
  const admin = new Http(server.url, server.adminKey, 2);
  const gvc = `pair-${adapter}`;
  const workload = "shared";
  const base = `/org/${server.org}/gvc/${gvc}`;
  const drivers = [];
  try {
    await admin.expect(201, "POST", `/org/${server.org}/gvc`, {
      name: gvc,
      spec: { staticPlacement: { locationLinks: [`/org/${server.org}/location/aws-eu-central-1`] } },
    });
    await admin.expect(201, "POST", `${base}/workload`, {
      name: workload,
      spec: {
        type: "standard",
        containers: [
          {
            name: "left",
            image: "nginx:1.27",
            ports: [{ number: 8080, protocol: "http" }],
            env: [{ name: "MESSAGE", value: "left 0" }],
          },
          { name: "right", image: "busybox:1.36", env: [{ name: "MESSAGE", value: "right 0" }] },
        ],
      },
    });
    const config = { "pair:gvc": gvc, "pair:workload": workload, "pair:left": "left 0", "pair:right": "right 0" };
    const left = await startDriver(world, adapter, "pair", `pair-left-${adapter}`, config);
    drivers.push(left);
    const right = await startDriver(world, adapter, "pair", `pair-right-${adapter}`, config);
    drivers.push(right);
    // Taking over, one stack after the other.
    for (const driver of [left, right]) await driver.run({ cmd: "up" });

    await left.run({ cmd: "config", config: { "pair:left": "left 1" } });
    await right.run({ cmd: "config", config: { "pair:right": "right 1" } });
    server.clearRequests();
    const started = performance.now();
    await Promise.all([left.run({ cmd: "up" }), right.run({ cmd: "up" })]);
    const seconds = (performance.now() - started) / 1000;
    const log = server.requests();
    const record = await admin.expect(200, "GET", `${base}/workload/${workload}`);
    const containers = (record.body as { spec: { containers: Container[] } }).spec.containers;
    const final = { left: messageOf(containers, "left"), right: messageOf(containers, "right") };
    const kept = final.left === "left 1" && final.right === "right 1";
    const writes = log
      .filter((request) => request.method !== "GET")
      .map((request) => ({ method: request.method, path: request.path, body: request.body as unknown }));
    report.add({
      name: `app.${adapter}.concurrent-edit.kept-both`,
      value: kept ? 1 : 0,
      unit: "bool",
      n: 1,
      target: "1",
      met: kept,
      final,
      seconds,
      byMethod: countByMethod(log),
      writes,
    });
  } finally {
    for (const driver of drivers) await driver.close();
    await admin.close();
  }
}

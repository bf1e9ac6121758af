// The official Control Plane CLI (`@controlplane/cli`, pinned dev dependency) on gvcs and the org's settings, against
// cpln-local on 127.0.0.1: the CLI's exit code, what it prints, and the server's state after it.
import { describe, expect, it } from "vitest";
import { officialCli } from "./officialCli.js";

const cli = officialCli();
const { cpln, ok, json, file, stored } = cli;

const names = (result: { items: { name: string }[] }) => result.items.map((i) => i.name).sort();

describe("gvc and org settings through the CLI", () => {
  it("gvc create / add-location / update --set / query by alias / get as a table", async () => {
    const created = await json<{ alias: string; spec: Record<string, unknown> }>(
      "gvc",
      "create",
      "--name",
      "app",
      "--location",
      "aws-us-west-2",
      "--env",
      "MODE=prod",
    );
    expect(created.spec).toEqual({
      staticPlacement: { locationLinks: ["/org/demo/location/aws-us-west-2"] },
      env: [{ name: "MODE", value: "prod" }],
      endpointNamingFormat: "org",
    });
    await ok("gvc", "add-location", "app", "--location", "gcp-us-east1");
    await ok("gvc", "update", "app", "--set", "spec.env.LEVEL.value=debug", "--set", "spec.tracing.sampling=20");
    const spec = (await stored("gvc", "app"))?.["spec"] as Record<string, unknown>;
    expect(spec["staticPlacement"]).toEqual({
      locationLinks: ["/org/demo/location/aws-us-west-2", "/org/demo/location/gcp-us-east1"],
    });
    expect(spec["env"]).toEqual([
      { name: "MODE", value: "prod" },
      { name: "LEVEL", value: "debug" },
    ]);
    // A tracing block needs a provider only to be useful; sampling alone is what the CLI's --set sends.
    expect(spec["tracing"]).toEqual({ sampling: 20 });
    expect(names(await json("gvc", "query", "--prop", `alias=${created.alias}`))).toEqual(["app"]);
    // The table reads spec.domain and the locations of every gvc (`format/models.js`): every gvc has a spec.
    const table = await ok("gvc", "get");
    const rows = table.split("\n");
    const row = rows.findIndex((line) => line.startsWith("|app "));
    expect(rows[row]).toContain(`|${created.alias} `);
    expect(rows[row]).toContain("|aws-us-west-2 ");
    expect(rows[row + 1]).toContain("|gcp-us-east1 ");
    await ok("gvc", "delete", "app");
    expect(await stored("gvc", "app")).toBeUndefined();
  });

  it("a refused gvc update exits non-zero with the field and leaves the gvc as it was", async () => {
    await ok("gvc", "create", "--name", "strict", "--location", "aws-us-west-2");
    const before = await stored("gvc", "strict");
    const run = await cpln("gvc", "add-location", "strict", "--location", "aws-nowhere-1");
    expect(run.code).not.toBe(0);
    expect(`${run.stderr}${run.stdout}`).toContain("location 'aws-nowhere-1' does not exist in org 'demo'");
    expect(await stored("gvc", "strict")).toEqual(before);
  });

  it("org get / patch --file: the settings change and read back", async () => {
    const patch = file("org-patch.json", JSON.stringify({ spec: { observability: { logsRetentionDays: 60 } } }));
    await ok("org", "patch", "demo", "--file", patch);
    const org = await json<{ spec: Record<string, unknown>; status: Record<string, unknown> }>("org", "get", "demo");
    expect(org.spec["observability"]).toEqual({
      logsRetentionDays: 60,
      metricsRetentionDays: 30,
      tracesRetentionDays: 30,
    });
    expect(org.status["endpointPrefix"]).toEqual(expect.any(String));
  });
});

// The official Control Plane CLI (`@controlplane/cli` 3.10.1) on what spans the gvcs of an org, against cpln-local:
// `identity|workload|volumeset get --all-gvcs` (a GET of `/org/{org}/<kind>`, every page with `--max 0`), and a
// volume set's `status.usedByWorkload` as `volumeset get` prints it once `apply` made a workload mounting the set,
// gone once `workload delete` removed it.
import { describe, expect, it } from "vitest";
import { officialCli } from "./officialCli.js";

// Two objects a page: the CLI must follow `next` to see every gvc's objects.
const cli = officialCli({ pageSize: 2 });
const { ok, json, file } = cli;

type List = { items: { name: string; links: { rel: string; href: string }[] }[] };
/** Each item of a list as `<gvc>/<name>`, read from its gvc link. */
const placed = (list: List) =>
  list.items.map((i) => `${(i.links.find((l) => l.rel === "gvc")?.href ?? "").split("/")[4]}/${i.name}`);

const workload = (name: string, type: string, volumes: string) =>
  [
    "kind: workload",
    `name: ${name}`,
    "spec:",
    `  type: ${type}`,
    "  containers:",
    "    - name: main",
    "      image: nginx:1.27",
    "      ports: [{number: 8080, protocol: http}]",
    `      volumes: ${volumes}`,
  ].join("\n");

describe("cpln <kind> get --all-gvcs", () => {
  it("identity: every gvc's identities, the CLI following the pages; without the flag, the context's gvc only", async () => {
    await ok("gvc", "create", "--name", "second", "--location", "aws-us-west-2");
    await ok("identity", "create", "--name", "app");
    await ok("identity", "create", "--name", "app", "--gvc", "second");
    await ok("identity", "create", "--name", "db", "--gvc", "second");
    expect(placed(await json<List>("identity", "get", "--all-gvcs", "--max", "0"))).toEqual([
      "default/app",
      "second/app",
      "second/db",
    ]);
    expect(placed(await json<List>("identity", "get", "--max", "0"))).toEqual(["default/app"]);
    // The table's GVC column is read from each item's gvc link.
    const table = await ok("identity", "get", "--all-gvcs", "--max", "0");
    const rows = table.split("\n").filter((line) => /^\|(app|db)\s/.test(line));
    expect(rows.map((line) => line.split("|").map((cell) => cell.trim())[3])).toEqual(["default", "second", "second"]);
  });

  it("workload and volumeset: the objects of both gvcs", async () => {
    const set = "kind: volumeset\nname: data\nspec: {initialCapacity: 10, performanceClass: general-purpose-ssd}";
    for (const gvc of ["default", "second"]) {
      await ok("apply", "--file", file(`set-${gvc}.yaml`, set), "--gvc", gvc);
      await ok("apply", "--file", file(`web-${gvc}.yaml`, workload("web", "standard", "[]")), "--gvc", gvc);
    }
    for (const [kind, name] of [
      ["workload", "web"],
      ["volumeset", "data"],
    ]) {
      const list = await json<List>(kind as string, "get", "--all-gvcs", "--max", "0");
      expect(placed(list)).toEqual([`default/${name}`, `second/${name}`]);
    }
  });
});

describe("cpln volumeset get: status.usedByWorkload", () => {
  it("names the stateful workload apply made mounting the set, and is gone after workload delete", async () => {
    const mounting = workload("db", "stateful", "[{uri: 'cpln://volumeset/data', path: /data}]");
    await ok("apply", "--file", file("db.yaml", mounting));
    const used = await json<{ status: Record<string, unknown> }>("volumeset", "get", "data");
    expect(used.status).toMatchObject({
      usedByWorkload: "/org/demo/gvc/default/workload/db",
      workloadLinks: ["/org/demo/gvc/default/workload/db"],
    });
    await ok("workload", "delete", "db");
    const free = await json<{ status: Record<string, unknown> }>("volumeset", "get", "data");
    expect(Object.keys(free.status).sort()).toEqual(["parentId"]);
  });
});

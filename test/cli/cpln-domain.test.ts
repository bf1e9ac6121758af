// The official Control Plane CLI (`@controlplane/cli` 3.10.1) on domains and images against cpln-local: `domain
// create` (a name, no spec), `domain get`, `apply` of a domain manifest, `domain patch` of one route, `domain delete`;
// `image get` and `image query --prop` of an image the emulator's push made, `image tag`, `image delete`.
import { beforeAll, describe, expect, it } from "vitest";
import { CLI_ADMIN_KEY, officialCli } from "./officialCli.js";
import { ensureWorkloads } from "../server/helpers.js";

const cli = officialCli();
const { ok, file, stored, json } = cli;

beforeAll(async () => {
  await ensureWorkloads(
    async (path, body) => {
      const answer = await fetch(`${cli.server.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${CLI_ADMIN_KEY}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: answer.status };
    },
    "demo",
    "default",
    ["web", "api"],
  );
});

type Domain = {
  spec: { ports: { number: number; routes?: { prefix?: string }[] }[] };
  status: Record<string, unknown>;
};

describe("cpln domain", () => {
  it("domain create names the domain only; get prints it with the default spec and the DNS records", async () => {
    await ok("domain", "create", "--name", "cli.example.com", "--desc", "from the cli");
    const read = await json<Domain & { description: string }>("domain", "get", "cli.example.com");
    expect(read.description).toBe("from the cli");
    expect(read.spec.ports.map((p) => p.number)).toEqual([443]);
    const records = read.status["dnsConfig"] as { type: string; host: string }[];
    expect(records).toContainEqual(expect.objectContaining({ type: "TXT", host: "_cpln.example.com" }));
    expect(await stored("domain", "cli.example.com")).toEqual(expect.objectContaining({ name: "cli.example.com" }));
  });

  it("apply of a manifest sets the routes; patch of one route leaves the other; delete removes it", async () => {
    const manifest = file(
      "domain.yaml",
      [
        "kind: domain",
        "name: cli.example.com",
        "spec:",
        "  dnsMode: cname",
        "  ports:",
        "    - number: 443",
        "      protocol: http2",
        "      routes:",
        "        - prefix: /",
        "          workloadLink: //gvc/default/workload/web",
        "",
      ].join("\n"),
    );
    await ok("apply", "--file", manifest);
    const patch = file(
      "patch.json",
      JSON.stringify({
        spec: {
          "$patch/ports": [
            { number: 443, "$append/routes": [{ prefix: "/api", workloadLink: "//gvc/default/workload/api" }] },
          ],
        },
      }),
    );
    await ok("domain", "patch", "cli.example.com", "--file", patch);
    const read = await json<Domain>("domain", "get", "cli.example.com");
    expect(read.spec.ports[0]?.routes?.map((r) => r.prefix)).toEqual(["/api", "/"]);
    await ok("domain", "delete", "cli.example.com");
    expect(await stored("domain", "cli.example.com")).toBeUndefined();
  });
});

describe("cpln image", () => {
  it("get, query by repository, tag and delete an image the emulator's push made", async () => {
    const pushed = await fetch(`${cli.server.url}/_cpln-local/org/demo/image`, {
      method: "POST",
      headers: { authorization: `Bearer ${CLI_ADMIN_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "shop:v1" }),
    });
    expect(pushed.status).toBe(201);
    const image = await json<{ repository: string; tag: string; digest: string }>("image", "get", "shop:v1");
    expect([image.repository, image.tag]).toEqual(["shop", "v1"]);
    expect(image.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const found = await json<{ items: { name: string }[] }>("image", "query", "--prop", "repository=shop");
    expect(found.items.map((i) => i.name)).toEqual(["shop:v1"]);
    await ok("image", "tag", "shop:v1", "--tag", "team=shop");
    expect((await stored("image", "shop:v1"))?.["tags"]).toEqual({ team: "shop" });
    await ok("image", "delete", "shop:v1");
    expect(await stored("image", "shop:v1")).toBeUndefined();
  });
});

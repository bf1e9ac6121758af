// The official Control Plane CLI (`@controlplane/cli` 3.10.1) on identities against cpln-local: `identity create`
// (name, description, tags into the gvc of the context), `identity get`, `identity patch --file` (a network resource
// and aws access merged in), `identity update --set`, `identity query`, `apply` of what `get` printed, and delete.
import { describe, expect, it } from "vitest";
import { officialCli } from "./officialCli.js";

const cli = officialCli({
  seed: {
    records: [{ kind: "cloudaccount", name: "aws-main", provider: "aws", data: { roleArn: "arn:aws:iam::1:role/r" } }],
  },
});
const { cpln, ok, json, file } = cli;

/** The stored identity of gvc `default`, or undefined. */
async function stored(name: string): Promise<Record<string, unknown> | undefined> {
  return (await cli.stored("identity", name, "default")) as Awaited<Promise<Record<string, unknown> | undefined>>;
}

describe("cpln identity", () => {
  it("create stores name, description and tags in the context's gvc; get prints it with its status", async () => {
    await ok("identity", "create", "--name", "app", "--desc", "the app", "--tag", "team=web");
    expect(await stored("app")).toMatchObject({ name: "app", description: "the app", tags: { team: "web" } });
    const got = await json("identity", "get", "app");
    expect(got).toMatchObject({
      kind: "identity",
      name: "app",
      status: { objectName: "app" },
      links: expect.arrayContaining([{ rel: "self", href: "/org/demo/gvc/default/identity/app" }]),
    });
  });

  it("patch --file merges a network resource and aws access; the links come back in full form", async () => {
    const patch = file(
      "patch.yaml",
      [
        "aws:",
        "  cloudAccountLink: //cloudaccount/aws-main",
        "  roleName: app-role",
        "networkResources:",
        "  - name: db",
        "    FQDN: db.internal.example",
        "    ports: [5432]",
      ].join("\n"),
    );
    await ok("identity", "patch", "app", "--file", patch);
    expect(await stored("app")).toMatchObject({
      description: "the app",
      aws: { cloudAccountLink: "/org/demo/cloudaccount/aws-main", roleName: "app-role" },
      networkResources: [{ name: "db", FQDN: "db.internal.example", ports: [5432] }],
      status: { objectName: "app", aws: { usable: true } },
      version: 2,
    });
  });

  it("a patch the server refuses exits non-zero naming the field and rule, and changes nothing", async () => {
    const before = await stored("app");
    const bad = file("bad.yaml", "aws:\n  policyRefs: [p]\n");
    const refused = await cpln("identity", "patch", "app", "--file", bad);
    expect(refused.code).not.toBe(0);
    expect(`${refused.stdout}${refused.stderr}`).toContain("must set exactly one of roleName and policyRefs");
    expect(await stored("app")).toEqual(before);
  });

  it("update --set changes the description; query by name finds it; apply of get's output changes nothing", async () => {
    await ok("identity", "update", "app", "--set", "description=updated");
    expect((await stored("app"))?.["description"]).toBe("updated");
    const found = await json<{ items: { name: string }[] }>(
      "identity",
      "query",
      "--match",
      "all",
      "--prop",
      "name=app",
    );
    expect(found.items.map((i) => i.name)).toEqual(["app"]);
    const version = (await stored("app"))?.["version"];
    await ok("apply", "--file", file("app.json", await ok("identity", "get", "app", "-o", "json")));
    expect((await stored("app"))?.["version"]).toBe(version);
  });

  it("delete removes it", async () => {
    await ok("identity", "delete", "app");
    expect(await stored("app")).toBeUndefined();
  });
});

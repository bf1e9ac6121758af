// The official Control Plane CLI (`@controlplane/cli` 3.10.1) on domains and images against cpln-local: `domain
// create` (a name, no spec), `domain get`, `apply` of a domain manifest, `domain patch` of one route, `domain delete`;
// `image get` and `image query --prop` of an image the emulator's push made, `image tag`, `image delete`.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../server/index.js";
import { ensureWorkloads } from "../server/helpers.js";

const CPLN = join(__dirname, "..", "..", "node_modules", "@controlplane", "cli", "dist", "src", "cpln.js");
const ADMIN_KEY = "cliadmin.secret-admin-key-for-the-cli-domain-tests";

let server: RunningServer;
let home: string;

beforeAll(async () => {
  server = await startServer({ org: "demo", adminKey: ADMIN_KEY });
  // A throwaway HOME: the CLI keeps profiles and caches there, so nothing leaks between runs.
  home = mkdtempSync(join(tmpdir(), "cpln-home-"));
  await ensureWorkloads(
    async (path, body) => {
      const answer = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: answer.status };
    },
    "demo",
    "default",
    ["web", "api"],
  );
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
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

async function ok(...args: string[]): Promise<string> {
  const run = await cpln(...args);
  if (run.code !== 0) throw new Error(`cpln ${args.join(" ")} exited ${run.code}: ${run.stderr}${run.stdout}`);
  return run.stdout;
}

async function json<T = Record<string, unknown>>(...args: string[]): Promise<T> {
  return JSON.parse(await ok(...args, "-o", "json")) as T;
}

function file(name: string, text: string): string {
  const path = join(home, name);
  writeFileSync(path, text);
  return path;
}

async function stored(kind: string, name: string): Promise<Record<string, unknown> | undefined> {
  return (await server.store.get("demo", kind, "", name))?.doc as Record<string, unknown> | undefined;
}

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
    const pushed = await fetch(`${server.url}/_cpln-local/org/demo/image`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
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

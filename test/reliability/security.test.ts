/**
 * Security. An authorization matrix over every endpoint × principal (anonymous, bad key, expired JWT, wrong issuer,
 * wrong audience, forged signature, `alg: none`, no grants, viewer, editor, superuser, member of a group with grants):
 * each answer has the expected status, and no answer — lists, queries, reads, access reports, org lists — carries a
 * record the principal may not view. A record the principal may not view answers exactly like a missing one.
 *
 * Credentials: service-account keys are stored hashed (the SQLite file and its WAL hold neither a key nor its secret
 * part); the logs of a real `cpln-local --log` child and every error body contain no Authorization value, key, JWT or
 * join script; after a full provider lifecycle through the real host (MiniEngine with an encrypted state file) the
 * token appears in no `__provider` text, output, state file, host log or error message.
 *
 * The matrix is the same in CI and with CPLN_LONG_TESTS=1 (it is exhaustive, not sampled). Needs `npm run build`
 * (the CLI child and the provider host run from dist/).
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kindNames, kinds } from "../../api/kinds/index.js";
import { kindRules } from "../../server/domain/index.js";
import { startServer, type RunningServer } from "../../server/index.js";
import {
  answerProblem,
  GVC,
  http,
  loadProviderKit,
  report,
  exampleName,
  validCreateBody,
  validPatchBody,
  type HttpAnswer,
  type ProviderKit,
  type Props,
} from "./support.js";

const ORG = "sec";
const ADMIN_KEY = "secadmin.security-admin-key-0123456789abcdef";
const JWT_SECRET = "jwt-secret-for-the-security-tests-0123456789";
const ISSUER = "https://issuer.example.com";
const AUDIENCE = "cpln-local";
const repoRoot = path.resolve(__dirname, "..", "..");

async function jwt(
  email: string,
  options: { issuer?: string; audience?: string; expiresIn?: number; secret?: string } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ email })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .setIssuedAt(now - 3600)
    .setExpirationTime(now + (options.expiresIn ?? 3600))
    .sign(new TextEncoder().encode(options.secret ?? JWT_SECRET));
}

/** A JWT with `alg: none` and no signature, claiming `email`. */
function unsignedJwt(email: string): string {
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString("base64url");
  const now = Math.floor(Date.now() / 1000);
  return `${part({ alg: "none", typ: "JWT" })}.${part({ email, iss: ISSUER, aud: AUDIENCE, exp: now + 3600 })}.`;
}

// ---- principals and what they may do ----------------------------------------------------------------------------------

type PrincipalName =
  | "anonymous"
  | "badKey"
  | "expiredJwt"
  | "wrongIssuer"
  | "wrongAudience"
  | "forgedJwt"
  | "unsignedJwt"
  | "noGrants"
  | "viewer"
  | "editor"
  | "superuser"
  | "groupMember";

interface Principal {
  name: PrincipalName;
  authorization: string | undefined;
  /** false: the credentials are missing or invalid (401 wherever authentication is required). */
  authenticated: boolean;
}

/** The objects the matrix acts on, by kind (names; the quota by id). */
const targets: Record<string, string> = {
  gvc: GVC,
  volumeset: "shared",
  policy: "team-volumeset",
  group: "team",
  serviceaccount: "editor-sa",
  user: "member@example.com",
  cloudaccount: "ca",
  mk8s: "cluster",
  auditctx: "audit",
  workload: "app",
  // Images are never created through the API: the emulator's push makes this one (beforeAll).
  image: "sec-app:v1",
  org: ORG,
};

/**
 * What each authenticated principal holds, mirroring the grants made in `beforeAll`:
 * viewer — member of the builtin `viewers` group (view on everything);
 * editor — service account `editor-sa`, bound to `edit` on every volume set and every policy;
 * superuser — member of the builtin `superusers` group (manage on everything);
 * groupMember — member of group `team`, which policies grant `view` on volume set `shared` (by link) and on groups
 * whose name is `team` (by query);
 * noGrants — a valid JWT, no grants.
 */
function permissionsOf(principal: PrincipalName, kind: string, name: string): Set<string> {
  const all = new Set(kinds[kind as keyof typeof kinds].permissions.map((p) => p.name));
  switch (principal) {
    case "superuser":
      return all;
    case "viewer":
      return new Set(["view"]);
    case "editor":
      return kind === "volumeset" || kind === "policy" ? new Set(["edit", "view"]) : new Set();
    case "groupMember":
      return (kind === "volumeset" && name === "shared") || (kind === "group" && name === "team")
        ? new Set(["view"])
        : new Set();
    default:
      return new Set();
  }
}

const canView = (p: PrincipalName, kind: string, name: string): boolean => permissionsOf(p, kind, name).has("view");

// ---- the server -----------------------------------------------------------------------------------------------------

let server: RunningServer;
let principals: Principal[];
let editorKey: string;
let quotaId: string;
let locationName: string;
const errorBodies: string[] = [];

const adminHeaders = { authorization: `Bearer ${ADMIN_KEY}` };

async function admin(method: string, urlPath: string, body?: unknown): Promise<HttpAnswer> {
  const answer = await http(server.url, { method, path: urlPath, headers: adminHeaders, body });
  if (answer.status >= 300) throw new Error(`${method} ${urlPath} → ${answer.status} ${answer.text}`);
  return answer;
}

function base(kind: string): string {
  return kinds[kind as keyof typeof kinds].scope === "gvc" ? `/org/${ORG}/gvc/${GVC}/${kind}` : `/org/${ORG}/${kind}`;
}

function targetOf(kind: string): string {
  if (kind === "quota") return quotaId;
  if (kind === "location") return locationName;
  return targets[kind] ?? exampleName(kind, `example-${kind}`);
}

function itemPath(kind: string, name: string): string {
  return kind === "org" ? `/org/${ORG}` : `${base(kind)}/${encodeURIComponent(name)}`;
}

beforeAll(async () => {
  server = await startServer({
    org: ORG,
    adminKey: ADMIN_KEY,
    jwt: { secret: JWT_SECRET, issuer: ISSUER, audience: AUDIENCE },
  });
  for (const email of ["viewer@example.com", "root@example.com", "member@example.com", "nobody@example.com"]) {
    await admin("POST", `/org/${ORG}/user`, { email });
  }
  await admin("PATCH", `/org/${ORG}/group/viewers`, { "$append/memberLinks": ["//user/viewer@example.com"] });
  await admin("PATCH", `/org/${ORG}/group/superusers`, { "$append/memberLinks": ["//user/root@example.com"] });
  await admin("POST", `/org/${ORG}/group`, { name: "team", memberLinks: ["//user/member@example.com"] });
  await admin("POST", `/org/${ORG}/group`, { name: "other" });
  await admin("POST", `/org/${ORG}/serviceaccount`, { name: "editor-sa" });
  editorKey = (
    (await admin("POST", `/org/${ORG}/serviceaccount/editor-sa/-addKey`, { description: "editor" })).json as {
      key: string;
    }
  ).key;
  for (const kind of ["volumeset", "policy"]) {
    await admin("POST", `/org/${ORG}/policy`, {
      name: `editor-${kind}`,
      targetKind: kind,
      target: "all",
      bindings: [{ permissions: ["edit"], principalLinks: ["//serviceaccount/editor-sa"] }],
    });
  }
  await admin("POST", `${base("volumeset")}`, validCreateBody("volumeset", "shared"));
  await admin("POST", `${base("volumeset")}`, validCreateBody("volumeset", "private"));
  await admin("POST", `/org/${ORG}/policy`, {
    name: "team-volumeset",
    targetKind: "volumeset",
    targetLinks: [`//gvc/${GVC}/volumeset/shared`],
    bindings: [{ permissions: ["view"], principalLinks: ["//group/team"] }],
  });
  await admin("POST", `/org/${ORG}/policy`, {
    name: "team-groups",
    targetKind: "group",
    targetQuery: { spec: { match: "all", terms: [{ op: "=", property: "name", value: "team" }] } },
    bindings: [{ permissions: ["view"], principalLinks: ["//group/team"] }],
  });
  await admin("POST", `/org/${ORG}/cloudaccount`, validCreateBody("cloudaccount", "ca"));
  await admin("POST", `/org/${ORG}/mk8s`, validCreateBody("mk8s", "cluster"));
  await admin("POST", `/org/${ORG}/auditctx`, validCreateBody("auditctx", "audit"));
  await admin("POST", `${base("workload")}`, validCreateBody("workload", "app"));
  // Every other creatable kind gets its target from its declaration's example body.
  for (const kind of kindNames) {
    const body = validCreateBody(kind, `example-${kind}`);
    if (targets[kind] === undefined && body !== undefined) await admin("POST", base(kind), body);
  }
  await admin("POST", `/_cpln-local/org/${ORG}/image`, { name: targets["image"] });
  quotaId = ((await admin("GET", `/org/${ORG}/quota`)).json as { items: { id: string }[] }).items[0]!.id;
  locationName = ((await admin("GET", `/org/${ORG}/location`)).json as { items: { name: string }[] }).items[0]!.name;

  const bearer = (token: string): string => `Bearer ${token}`;
  principals = [
    { name: "anonymous", authorization: undefined, authenticated: false },
    { name: "badKey", authorization: bearer(`${editorKey.split(".")[0]}.not-the-secret`), authenticated: false },
    {
      name: "expiredJwt",
      authorization: bearer(await jwt("root@example.com", { expiresIn: -60 })),
      authenticated: false,
    },
    {
      name: "wrongIssuer",
      authorization: bearer(await jwt("root@example.com", { issuer: "https://evil.example.com" })),
      authenticated: false,
    },
    {
      name: "wrongAudience",
      authorization: bearer(await jwt("root@example.com", { audience: "someone-else" })),
      authenticated: false,
    },
    // A superuser's claims signed with another secret, and with `alg: none`.
    {
      name: "forgedJwt",
      authorization: bearer(await jwt("root@example.com", { secret: "not-the-secret" })),
      authenticated: false,
    },
    { name: "unsignedJwt", authorization: bearer(unsignedJwt("root@example.com")), authenticated: false },
    { name: "noGrants", authorization: bearer(await jwt("nobody@example.com")), authenticated: true },
    { name: "viewer", authorization: bearer(await jwt("viewer@example.com")), authenticated: true },
    { name: "editor", authorization: bearer(editorKey), authenticated: true },
    { name: "superuser", authorization: bearer(await jwt("root@example.com")), authenticated: true },
    { name: "groupMember", authorization: bearer(await jwt("member@example.com")), authenticated: true },
  ];
});

afterAll(async () => {
  await server?.close();
});

async function as(principal: Principal, method: string, urlPath: string, body?: unknown): Promise<HttpAnswer> {
  const headers: Record<string, string> = {};
  if (principal.authorization !== undefined) headers["authorization"] = principal.authorization;
  const answer = await http(server.url, { method, path: urlPath, headers, body });
  if (answer.status >= 400) errorBodies.push(answer.text);
  return answer;
}

/** Self links of every record embedded anywhere in a body (objects with `kind` and a `self` link). */
function embeddedRecords(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => embeddedRecords(v, found));
  else if (value !== null && typeof value === "object") {
    const object = value as Props;
    const links = object["links"];
    if (
      typeof object["kind"] === "string" &&
      (kindNames as readonly string[]).includes(object["kind"]) &&
      Array.isArray(links)
    ) {
      const self = (links as { rel: string; href: string }[]).find((l) => l.rel === "self")?.href;
      if (
        self !== undefined &&
        !self.endsWith("/-query") &&
        !self.includes("/-accessreport") &&
        object["kind"] !== "list"
      ) {
        found.push(self);
      }
    }
    Object.values(object).forEach((v) => embeddedRecords(v, found));
  }
  return found;
}

/** Kind and name of a self link (`/org/o/gvc/g/volumeset/n`, `/org/o/policy/n`, `/org/o`). */
function kindAndName(self: string): { kind: string; name: string } {
  const parts = self.split("/").filter((p) => p !== "");
  if (parts.length === 2) return { kind: "org", name: parts[1] as string };
  return { kind: parts[parts.length - 2] as string, name: decodeURIComponent(parts[parts.length - 1] as string) };
}

/** Records in an answer that the principal may not view. */
function leaks(principal: PrincipalName, body: unknown): string[] {
  return embeddedRecords(body).filter((self) => {
    const { kind, name } = kindAndName(self);
    return !canView(principal, kind, name);
  });
}

interface Cell {
  principal: PrincipalName;
  what: string;
  status: number;
  expected: number[];
  leaked: string[];
  problem: string | undefined;
}

describe("authorization matrix: every endpoint × principal", () => {
  const cells: Cell[] = [];
  const record = (principal: Principal, what: string, answer: HttpAnswer, expected: number[]): void => {
    cells.push({
      principal: principal.name,
      what,
      status: answer.status,
      expected,
      leaked: answer.status < 300 ? leaks(principal.name, answer.json) : [],
      problem: answerProblem(answer),
    });
  };
  const unauthenticated = (p: Principal): boolean => !p.authenticated;

  it("meta endpoints are public; GET /org lists only viewable orgs", async () => {
    for (const p of principals) {
      record(p, "GET /about", await as(p, "GET", "/about"), [200]);
      record(p, "GET /openapi.json", await as(p, "GET", "/openapi.json"), [200]);
      const orgs = await as(p, "GET", "/org");
      record(p, "GET /org", orgs, unauthenticated(p) ? [401] : [200]);
      if (orgs.status === 200) {
        const names = (orgs.json as { items: { name: string }[] }).items.map((o) => o.name);
        expect(names, p.name).toEqual(canView(p.name, "org", ORG) ? [ORG] : []);
      }
    }
  });

  for (const kind of kindNames) {
    it(`${kind}: list, query, get, access report, permission schema, create, patch, delete, actions`, async () => {
      const all = ((await admin("GET", kind === "org" ? "/org" : base(kind))).json as { items: Props[] }).items;
      for (const p of principals) {
        const auth = (ok: number[]): number[] => (unauthenticated(p) ? [401] : ok);
        const name = targetOf(kind);
        const mine = permissionsOf(p.name, kind, name);
        const item = itemPath(kind, name);

        if (kind !== "org") {
          // Lists and queries hold exactly the records the principal may view.
          const visible = all
            .filter((r) => canView(p.name, kind, String(r["name"])))
            .map((r) => String(r["name"]))
            .sort();
          const list = await as(p, "GET", base(kind));
          record(p, `GET ${kind} list`, list, auth([200]));
          if (list.status === 200) {
            expect(
              (list.json as { items: Props[] }).items.map((r) => String(r["name"])).sort(),
              `${p.name} list ${kind}`,
            ).toEqual(visible);
          }
          const query = await as(p, "POST", `${base(kind)}/-query`, { kind, spec: { match: "all", terms: [] } });
          record(p, `POST ${kind}/-query`, query, auth([200]));
          if (query.status === 200) {
            const items = (query.json as { items: Props[] }).items.map((r) => String(r["name"])).sort();
            expect(items, `${p.name} query ${kind}`).toEqual(visible);
          }
          record(
            p,
            `GET ${kind}/-schema/permissions`,
            await as(p, "GET", `${base(kind)}/-schema/permissions`),
            auth([200]),
          );
        } else {
          record(
            p,
            "GET org/-schema/permissions",
            await as(p, "GET", `/org/${ORG}/org/-schema/permissions`),
            auth([200]),
          );
        }

        const view = mine.has("view");
        const get = await as(p, "GET", item);
        record(p, `GET ${kind} item`, get, auth([view ? 200 : 404]));
        const accessReport = await as(p, "GET", `${item}/-accessreport`);
        record(p, `GET ${kind}/-accessreport`, accessReport, auth([view ? 200 : 404]));

        // A record the principal may not view answers exactly like a missing one.
        if (p.authenticated && !view && kind !== "org") {
          const missing = await as(p, "GET", itemPath(kind, "no-such-object"));
          expect(missing.status).toBe(404);
          const strip = (a: HttpAnswer): string =>
            String((a.json as { message?: string }).message)
              .replace(encodeURIComponent(name), "X")
              .replace(name, "X")
              .replace("no-such-object", "X");
          expect(strip(get), `${p.name} ${kind}: a hidden record and a missing one answer alike`).toBe(strip(missing));
        }

        // Patch: a new description (every kind takes it).
        // A description, or the kind's example patch where that changes none (an image's description is read-only).
        const example = validPatchBody(kind, `touched-by-${p.name.toLowerCase()}`);
        const touch = "description" in example ? { description: `touched by ${p.name}` } : example;
        const patch = await as(p, "PATCH", item, touch);
        record(p, `PATCH ${kind} item`, patch, auth([!view ? 404 : mine.has("edit") ? 200 : 403]));

        // Put: the object as it is now (a no-op replacement), so the objects other cells rely on stay as they are.
        // (The org itself has no PUT.)
        if (kind !== "org") {
          const current = (await admin("GET", item)).json as Props;
          const put = await as(p, "PUT", item, current);
          record(p, `PUT ${kind} item`, put, auth([!view ? 404 : mine.has("edit") ? 200 : 403]));
        }

        // Create: a valid body with a fresh name.
        const body = validCreateBody(kind, `new-by-${p.name.toLowerCase()}`);
        if (body !== undefined) {
          const create = await as(p, "POST", base(kind), body);
          // The permission a create needs: `create`, or the kind's own (users are invited: `invite`).
          const createStatus = mine.has(kindRules[kind].createPermission ?? "create") ? 201 : 403;
          record(
            p,
            `POST ${kind} create`,
            create,
            p.name === "anonymous" && kind === "volumeset" ? [403] : auth([createStatus]),
          );
        }

        // Delete: only principals that may not delete act on the real target; the superuser deletes a fresh object.
        // (`manage` grants delete even where the catalog lists no `delete`, as for audit contexts.) Builtin
        // locations and quotas cannot be deleted by anyone.
        const mayDelete = mine.has("delete") || mine.has("manage");
        // Audit contexts cannot be deleted by anyone either (403), as on the real API.
        const undeletable = kind === "location" || kind === "quota" || kinds[kind].deletable === false;
        if (body !== undefined && mayDelete) {
          const fresh = `del-${p.name.toLowerCase()}`;
          await admin("POST", base(kind), validCreateBody(kind, fresh));
          const freshName = exampleName(kind, fresh);
          record(p, `DELETE ${kind} item`, await as(p, "DELETE", itemPath(kind, freshName)), [
            kinds[kind].deletable === false ? 403 : 202,
          ]);
        } else if (kind === "image" && mayDelete) {
          // Images have no create body: the emulator's push makes the fresh one this principal deletes.
          const fresh = `del-${p.name.toLowerCase()}:v1`;
          await admin("POST", `/_cpln-local/org/${ORG}/image`, { name: fresh });
          record(p, `DELETE ${kind} item`, await as(p, "DELETE", itemPath(kind, fresh)), [202]);
        } else if (kind !== "org") {
          const want = !view ? 404 : mayDelete && !undeletable ? 202 : 403;
          record(p, `DELETE ${kind} item`, await as(p, "DELETE", item), auth([want]));
        }

        if (kind === "serviceaccount") {
          const addKey = await as(p, "POST", `${item}/-addKey`, { description: `by ${p.name}` });
          record(p, "POST serviceaccount/-addKey", addKey, auth([!view ? 404 : mine.has("addKey") ? 200 : 403]));
        }
        if (kind === "mk8s") {
          const join = await as(p, "POST", `${item}/-join`, { nodePoolName: "pool" });
          record(p, "POST mk8s/-join", join, auth([!view ? 404 : mine.has("join") ? 200 : 403]));
        }
      }
    });
  }

  it("every cell has its expected status, the error shape, and no record the principal may not view", () => {
    const wrong = cells
      .filter((c) => !c.expected.includes(c.status) || c.problem !== undefined || c.leaked.length > 0)
      .map(
        (c) =>
          `${c.principal} ${c.what}: ${c.status} (want ${c.expected.join("|")})${c.problem ? ` ${c.problem}` : ""}${c.leaked.length ? ` leaked ${c.leaked.join(", ")}` : ""}`,
      );
    expect(wrong).toEqual([]);
    expect(cells.length).toBeGreaterThan(principals.length * kindNames.length * 5);
    report(
      `security: authorization matrix of ${cells.length} cells (${principals.length} principals × every endpoint): all as expected, 0 leaks`,
    );
  });

  it("no error body echoes a credential", () => {
    const secrets = principals.flatMap((p) => (p.authorization ? [p.authorization, p.authorization.slice(7)] : []));
    for (const text of errorBodies) for (const secret of [...secrets, ADMIN_KEY]) expect(text).not.toContain(secret);
    expect(errorBodies.length).toBeGreaterThan(100);
  });
});

// ---- keys at rest -----------------------------------------------------------------------------------------------------

describe("service-account keys are stored hashed", () => {
  it("neither the SQLite file nor its WAL holds a key or its secret part", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cpln-keys-"));
    try {
      const file = path.join(dir, "keys.db");
      const keyed = await startServer({ org: "keys", adminKey: "keysadmin.admin-secret-part-0123456789", data: file });
      const h = { authorization: `Bearer ${keyed.adminKey}` };
      expect(
        (
          await http(keyed.url, {
            method: "POST",
            path: "/org/keys/serviceaccount",
            headers: h,
            body: { name: "robot" },
          })
        ).status,
      ).toBe(201);
      const keys: string[] = [keyed.adminKey];
      for (let i = 0; i < 3; i++) {
        const answer = await http(keyed.url, {
          method: "POST",
          path: "/org/keys/serviceaccount/robot/-addKey",
          headers: h,
          body: { description: `k${i}` },
        });
        expect(answer.status).toBe(200);
        keys.push((answer.json as { key: string }).key);
      }
      // The keys work (so they are stored in some form), and the record lists only their names.
      for (const key of keys) {
        expect(
          (
            await http(keyed.url, {
              method: "GET",
              path: "/org/keys/policy",
              headers: { authorization: `Bearer ${key}` },
            })
          ).status,
        ).toBe(200);
      }
      const robot = (await http(keyed.url, { method: "GET", path: "/org/keys/serviceaccount/robot", headers: h })).text;
      // Read the files while the server is still open (WAL not yet checkpointed) and again after close.
      const snapshots = [readDbFiles(dir)];
      await keyed.close();
      snapshots.push(readDbFiles(dir));
      let bytes = 0;
      for (const snapshot of snapshots) {
        for (const [name, content] of snapshot) {
          bytes += content.length;
          for (const key of keys) {
            const secretPart = key.slice(key.indexOf(".") + 1);
            expect(content.includes(Buffer.from(key)), `${name} holds a key`).toBe(false);
            expect(content.includes(Buffer.from(secretPart)), `${name} holds a key's secret part`).toBe(false);
            expect(robot).not.toContain(secretPart);
          }
        }
      }
      expect(snapshots[0]!.some(([name]) => name.endsWith("-wal"))).toBe(true);
      report(`security: ${keys.length} keys, ${bytes} bytes of database and WAL searched, no key or secret part found`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

function readDbFiles(dir: string): [string, Buffer][] {
  return fs.readdirSync(dir).map((name) => [name, fs.readFileSync(path.join(dir, name))] as [string, Buffer]);
}

// ---- logs -------------------------------------------------------------------------------------------------------------

describe("logs of cpln-local --log", () => {
  it.each(["text", "json"])(
    "--log-format %s: hold no Authorization value, key, JWT or join script; neither do error bodies",
    async (format) => {
      const cli = path.join(repoRoot, "dist", "server", "cli.js");
      expect(fs.existsSync(cli), "run `npm run build` first").toBe(true);
      const logAdmin = "logadmin.log-admin-secret-0123456789abcdef";
      const child = spawn(
        process.execPath,
        [
          cli,
          "--port",
          "0",
          "--org",
          "logs",
          "--log",
          "--log-format",
          format,
          "--jwt-issuer",
          ISSUER,
          "--jwt-audience",
          AUDIENCE,
        ],
        {
          env: { ...process.env, CPLN_TOKEN: logAdmin, CPLN_LOCAL_JWT_SECRET: JWT_SECRET },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      const secrets: string[] = [logAdmin, logAdmin.split(".")[1] as string];
      const bodies: string[] = [];
      try {
        const url = await new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no URL: ${output}`)), 20_000);
          const poll = setInterval(() => {
            const match = /listening on (http:\/\/\S+)/.exec(output);
            if (match) {
              clearInterval(poll);
              clearTimeout(timer);
              resolve(match[1] as string);
            }
          }, 20);
        });
        const call = async (
          method: string,
          urlPath: string,
          authorization: string | undefined,
          body?: unknown,
        ): Promise<HttpAnswer> => {
          const answer = await http(url, {
            method,
            path: urlPath,
            headers: authorization ? { authorization } : {},
            body,
          });
          if (answer.status >= 400) bodies.push(answer.text);
          return answer;
        };
        const adminAuth = `Bearer ${logAdmin}`;
        expect((await call("POST", "/org/logs/serviceaccount", adminAuth, { name: "robot" })).status).toBe(201);
        const key = (
          (await call("POST", "/org/logs/serviceaccount/robot/-addKey", adminAuth, { description: "k" })).json as {
            key: string;
          }
        ).key;
        secrets.push(key, key.split(".")[1] as string);
        const goodJwt = await jwt("someone@example.com");
        const expired = await jwt("someone@example.com", { expiresIn: -10 });
        secrets.push(goodJwt, goodJwt.split(".")[2] as string, expired, expired.split(".")[2] as string);
        const badKey = "robotx.this-is-a-wrong-secret-0123456789";
        secrets.push(badKey);

        expect((await call("POST", "/org/logs/mk8s", adminAuth, validCreateBody("mk8s", "cluster"))).status).toBe(201);
        const join = await call("POST", "/org/logs/mk8s/cluster/-join", adminAuth, { nodePoolName: "pool" });
        expect(join.status).toBe(200);
        const script = (join.json as { script: string }).script;
        const bootstrap = /BOOTSTRAP_TOKEN='([^']+)'/.exec(script)?.[1];
        expect(bootstrap).toBeDefined();
        secrets.push(script, bootstrap as string);

        // Successes and failures with every credential, in both header forms.
        for (const authorization of [
          adminAuth,
          logAdmin,
          `Bearer ${key}`,
          key,
          `Bearer ${goodJwt}`,
          `Bearer ${expired}`,
          `Bearer ${badKey}`,
          badKey,
        ]) {
          await call("GET", "/org/logs/policy", authorization);
          await call("GET", "/org/logs/policy/no-such", authorization);
          await call("POST", "/org/logs/policy", authorization, { name: "Bad Name!" });
          await call("PATCH", "/org/logs/serviceaccount/robot", authorization, { "$frobnicate/x": 1 });
          await call("POST", "/org/logs/mk8s/cluster/-join", authorization, { nodePoolName: "pool" });
          await call("GET", "/no/such/route", authorization);
        }
        expect(bodies.length).toBeGreaterThan(20);
      } finally {
        child.kill("SIGTERM");
        await exited;
      }
      // Something was logged per request (or the test would prove nothing).
      const requestLine =
        format === "json"
          ? (line: string) => line.includes('"req"')
          : (line: string) => /^(GET|POST|PATCH|PUT|DELETE) \//.test(line);
      const requestLines = output.split("\n").filter(requestLine).length;
      expect(requestLines).toBeGreaterThan(40);
      expect(output, "the capture holds request details").toContain("/org/logs/policy/no-such");
      const inLog = secrets.filter((secret) => output.includes(secret)).map((secret) => secret.slice(0, 16));
      expect(inLog, "credentials in the log").toEqual([]);
      const inBodies = secrets
        .filter((secret) => bodies.some((body) => body.includes(secret)))
        .map((s) => s.slice(0, 16));
      expect(inBodies, "credentials in error bodies").toEqual([]);
      report(
        `security: ${format} log: ${output.length} bytes of log (${requestLines} request lines) and ${bodies.length} error bodies hold none of ${secrets.length} credentials`,
      );
    },
  );
});

// ---- the provider never exposes the token ----------------------------------------------------------------------------

describe("the provider token after a full lifecycle through the real host", () => {
  it("appears in no __provider text, output, host log or error message", async () => {
    const token = ADMIN_KEY;
    const kit: ProviderKit = await loadProviderKit();
    const texts: string[] = [kit.providerText.VolumeSet, kit.providerText.Policy];
    const errors: string[] = [];
    /** What the engine keeps of each resource between runs: its id, inputs and outputs. */
    const state = new Map<string, { id: string; inputs: Props; outputs: Props }>();
    // One run as the engine makes it through the real dynamic-provider host: configure (the token a secret), then
    // check → create, or check → diff → update, per resource; a resource no longer in the program is deleted.
    const run = async (
      resources: { type: "VolumeSet" | "Policy"; name: string; args: Props }[],
      config: { token: string },
    ): Promise<void> => {
      const host = await kit.harness.startHost();
      try {
        await host.configure({ "cpln:org": ORG, "cpln:endpoint": server.url, "cpln:token": config.token }, [
          "cpln:token",
        ]);
        for (const r of resources) {
          const urn = kit.urn(r.type, r.name);
          try {
            const old = state.get(urn);
            const checked = await host.check(urn, old?.inputs ?? {}, {
              ...r.args,
              __provider: kit.providerText[r.type],
            });
            if (checked.failures.length > 0) throw new Error(JSON.stringify(checked.failures));
            if (!old) {
              const created = await host.create(urn, checked.inputs);
              state.set(urn, { id: created.id, inputs: checked.inputs, outputs: created.outputs });
              texts.push(JSON.stringify(created.outputs));
            } else if ((await host.diff(old.id, urn, old.outputs, checked.inputs, old.inputs)).changes) {
              const outputs = await host.update(old.id, urn, old.outputs, checked.inputs, old.inputs);
              state.set(urn, { id: old.id, inputs: checked.inputs, outputs });
              texts.push(JSON.stringify(outputs));
            }
          } catch (error) {
            errors.push(error instanceof Error ? `${error.message}\n${error.stack ?? ""}` : String(error));
          }
        }
        const registered = new Set(resources.map((r) => kit.urn(r.type, r.name)));
        for (const [urn, resource] of state) {
          if (registered.has(urn)) continue;
          await host.delete(resource.id, urn, resource.outputs, resource.inputs);
          state.delete(urn);
        }
        texts.push(...host.logs());
      } finally {
        await host.stop();
      }
    };
    const volumeSet = {
      type: "VolumeSet" as const,
      name: "tokenless",
      args: { gvc: GVC, name: "tokenless", initialCapacity: 10, performanceClass: "general-purpose-ssd" },
    };
    const policy = {
      type: "Policy" as const,
      name: "tokenless-policy",
      args: {
        name: "tokenless-policy",
        targetKind: "group",
        targetLinks: ["//group/team"],
        bindings: [{ permissions: ["view"], principalLinks: ["//group/viewers"] }],
      },
    };
    await run([volumeSet, policy], { token });
    expect(errors).toEqual([]);
    expect((await admin("GET", itemPath("volumeset", "tokenless"))).status).toBe(200);
    // Update both.
    await run(
      [
        { ...volumeSet, args: { ...volumeSet.args, initialCapacity: 20 } },
        { ...policy, args: { ...policy.args, targetLinks: ["//group/team", "//group/other"] } },
      ],
      { token },
    );
    expect(errors).toEqual([]);
    // Errors: a create that conflicts (the name exists), and a run with a wrong token.
    await run(
      [
        volumeSet,
        policy,
        {
          type: "VolumeSet",
          name: "clash",
          args: { gvc: GVC, name: "shared", initialCapacity: 10, performanceClass: "general-purpose-ssd" },
        },
      ],
      { token },
    );
    expect(errors.length).toBe(1);
    const wrongToken = "wrongkey.wrong-secret-token-0123456789";
    await run(
      [
        volumeSet,
        policy,
        {
          type: "VolumeSet",
          name: "denied",
          args: { gvc: GVC, name: "denied", initialCapacity: 10, performanceClass: "general-purpose-ssd" },
        },
      ],
      { token: wrongToken },
    );
    expect(errors.length).toBe(2);
    expect(errors[1]).toMatch(/401|Unauthorized|credentials/);
    // Destroy: nothing registered.
    await run([], { token });
    expect(state.size).toBe(0);
    expect(
      (await http(server.url, { method: "GET", path: itemPath("volumeset", "tokenless"), headers: adminHeaders }))
        .status,
    ).toBe(404);

    const secretParts = (t: string): string[] => [t, t.slice(t.indexOf(".") + 1)];
    for (const text of [...texts, ...errors]) {
      for (const secret of [...secretParts(token), ...secretParts(wrongToken)]) expect(text).not.toContain(secret);
    }
    // The outputs of both kinds were among the texts searched (or the search would prove nothing).
    expect(texts.filter((t) => t.includes(`"selfLink":"/org/${ORG}/`)).length).toBeGreaterThanOrEqual(4);
    report(
      `security: provider lifecycle (create, update, conflict, wrong token, destroy): token in none of ${texts.length} texts and ${errors.length} errors`,
    );
  });
});

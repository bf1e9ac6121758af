import { SignJWT } from "jose";
import { expect } from "vitest";
import { isKind, kinds } from "../../api/kinds/index.js";
import { startServer, type RunningServer, type ServerOptions } from "../../server/index.js";

export const ORG = "acme";
export const ADMIN_KEY = "acmeadmin.admin-secret-for-tests-0123456789";
export const JWT = {
  secret: "jwt-secret-for-cpln-local-tests-0123456789",
  issuer: "https://idp.example.test",
  audience: "cpln-local-tests",
};

/** Records every test org starts with besides the builtins. */
export const SEED = {
  records: [
    { kind: "cloudaccount", name: "aws-prod", provider: "aws", data: { roleArn: "arn:aws:iam::1:role/cpln" } },
    { kind: "cloudaccount", name: "gcp-dev", provider: "gcp", data: { projectId: "dev-1" }, tags: { env: "dev" } },
    {
      kind: "mk8s",
      name: "edge",
      spec: {
        version: "1.28.4",
        provider: { generic: { location: "aws-eu-central-1", nodePools: [{ name: "general" }, { name: "ingress" }] } },
      },
    },
    {
      kind: "mk8s",
      name: "metal",
      spec: { version: "1.28.4", provider: { hetzner: { dedicatedServerNodePools: [{ name: "dedicated" }] } } },
    },
    {
      kind: "mk8s",
      name: "cloud",
      spec: { version: "1.28.4", provider: { aws: { nodePools: [{ name: "workers" }] } } },
    },
    { kind: "auditctx", name: "app-events", description: "Events posted by workloads" },
  ],
};

export function start(options: ServerOptions = {}): Promise<RunningServer> {
  return startServer({ org: ORG, adminKey: ADMIN_KEY, jwt: JWT, seed: SEED, ...options });
}

export interface Answer {
  status: number;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

/** One request through `app.inject`: `auth` is the whole Authorization header value (undefined: none). */
export async function call(
  server: RunningServer,
  method: "GET" | "POST" | "PATCH" | "DELETE" | "PUT",
  url: string,
  options: { auth?: string; body?: unknown; headers?: Record<string, string>; raw?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth !== undefined) headers["authorization"] = options.auth;
  let payload: string | undefined;
  if (options.raw !== undefined) payload = options.raw;
  else if (options.body !== undefined) payload = JSON.stringify(options.body);
  if (payload !== undefined && headers["content-type"] === undefined) headers["content-type"] = "application/json";
  const response = await server.app.inject({ method, url, headers, payload });
  return {
    status: response.statusCode,
    body: response.body === "" ? undefined : JSON.parse(response.body),
    headers: response.headers as Answer["headers"],
  };
}

/** A client bound to one Authorization header. */
export function as(server: RunningServer, auth: string | undefined) {
  return {
    get: (url: string) => call(server, "GET", url, { auth }),
    post: (url: string, body?: unknown) => call(server, "POST", url, { auth, body }),
    patch: (url: string, body: unknown) => call(server, "PATCH", url, { auth, body }),
    delete: (url: string) => call(server, "DELETE", url, { auth }),
  };
}

export const bearer = (token: string) => `Bearer ${token}`;
export const admin = (server: RunningServer) => as(server, bearer(ADMIN_KEY));

export async function jwtFor(
  email: string,
  options: { audience?: string; issuer?: string; expiresIn?: string | number; secret?: string } = {},
): Promise<string> {
  const jwt = new SignJWT({ email })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuer(options.issuer ?? JWT.issuer)
    .setAudience(options.audience ?? JWT.audience)
    .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
    .setExpirationTime(options.expiresIn ?? "1h");
  return jwt.sign(new TextEncoder().encode(options.secret ?? JWT.secret));
}

/** Creates a service account (as admin) and returns a key for it. */
export async function serviceAccountWithKey(server: RunningServer, name: string): Promise<string> {
  const created = await admin(server).post(`/org/${ORG}/serviceaccount`, { name });
  expect(created.status).toBe(201);
  const key = await admin(server).post(`/org/${ORG}/serviceaccount/${name}/-addKey`, { description: "test" });
  expect(key.status).toBe(200);
  return (key.body as { key: string }).key;
}

/** Adds a member link to a group (as admin). */
export async function addMember(server: RunningServer, group: string, link: string): Promise<void> {
  const patched = await admin(server).patch(`/org/${ORG}/group/${group}`, { "$append/memberLinks": [link] });
  expect(patched.status).toBe(200);
}

export const ANY_ID = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
export const ANY_TIME = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

/** The error shape with its id (request id) left open. */
export function apiError(
  status: number,
  code: string,
  message: unknown,
  issues?: { path: string; message: unknown }[],
) {
  const body: Record<string, unknown> = { status, code, message, id: ANY_ID };
  if (issues) body["details"] = { issues };
  return body;
}

export function links(kind: string, name: string, gvc?: string) {
  const self = gvc ? `/org/${ORG}/gvc/${gvc}/${kind}/${name}` : `/org/${ORG}/${kind}/${name}`;
  const out = [
    { rel: "self", href: self },
    { rel: "org", href: `/org/${ORG}` },
  ];
  if (gvc) out.push({ rel: "gvc", href: `/org/${ORG}/gvc/${gvc}` });
  return out;
}

/** Reads a field of a JSON answer body (tests check the whole body with toEqual where it matters). */
export function field<T = string>(body: unknown, ...path: (string | number)[]): T {
  let current: unknown = body;
  for (const segment of path) current = (current as Record<string | number, unknown>)[segment];
  return current as T;
}

/**
 * Makes the workloads `names` in `gvc` from the workload kind's example body once cpln-local serves workloads (a
 * domain's routes must then name existing ones); nothing before. `post` sends as an admin.
 */
export async function ensureWorkloads(
  post: (path: string, body: unknown) => Promise<{ status: number }>,
  org: string,
  gvc: string,
  names: readonly string[],
): Promise<void> {
  const workload: string = "workload";
  if (!isKind(workload)) return;
  for (const name of names) {
    const body = kinds[workload].examples.create?.(name);
    if (body === undefined) return;
    expect((await post(`/org/${org}/gvc/${gvc}/workload`, body)).status).toBe(201);
  }
}

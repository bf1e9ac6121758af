/**
 * The console's only way to data: the HTTP API and the emulator endpoints of the server that served the page, with the
 * credentials the user signed in with (kept in sessionStorage: this tab only, gone when it closes).
 */
import { kindProblem, pathProblem } from "./links.js";

export { objectLinkProblem } from "./links.js";

export interface Session {
  org: string;
  token: string;
  /** The emulator endpoints answered: this is the admin key. */
  admin: boolean;
}

export interface ApiRecord {
  kind: string;
  name: string;
  id?: string;
  description?: string;
  origin?: string;
  version?: number;
  created?: string;
  lastModified?: string;
  tags?: Record<string, unknown>;
  links?: { rel: string; href: string }[];
  [field: string]: unknown;
}

export interface ApiList {
  items: ApiRecord[];
  links?: { rel: string; href: string }[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const STORAGE_KEY = "cpln-local-console";

export function loadSession(): Session | undefined {
  const text = sessionStorage.getItem(STORAGE_KEY);
  if (!text) return undefined;
  try {
    return JSON.parse(text) as Session;
  } catch {
    return undefined;
  }
}

export function saveSession(session: Session | undefined): void {
  if (session) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
  else sessionStorage.removeItem(STORAGE_KEY);
}

/**
 * Marks every request the console sends: the server's request log keeps the mark, and the request view leaves the
 * console's own requests out unless asked (so a program's requests stand alone).
 */
export const CONSOLE_HEADERS = { "x-cpln-local-client": "console" } as const;

/** A request without credentials to this server (its public documents: `/about`, `/openapi.json`). */
export const fetchPublic = (path: string): Promise<Response> => fetch(sameOrigin(path), { headers: CONSOLE_HEADERS });

/** `path`, or an error when it is not a path of this server (`pathProblem`): the key is never sent elsewhere. */
function sameOrigin(path: string): string {
  const problem = pathProblem(path, location.origin);
  if (problem) throw new ApiError(0, `Refused: ${problem}`);
  return path;
}

export async function call<T>(
  session: Pick<Session, "token">,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const headers: Record<string, string> = { ...CONSOLE_HEADERS, authorization: `Bearer ${session.token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const url = sameOrigin(path);
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  const parsed = text === "" ? undefined : (JSON.parse(text) as unknown);
  if (!response.ok) {
    const message = (parsed as { message?: string } | undefined)?.message ?? response.statusText;
    throw new ApiError(response.status, `${response.status}: ${message}`);
  }
  return parsed as T;
}

export const selfLink = (record: ApiRecord): string => record.links?.find((link) => link.rel === "self")?.href ?? "";

/** Every item of a list or query, following the API's `next` links (bounded: `max` items at most). */
export async function listAll(
  session: Session,
  first: { method: "GET" | "POST"; path: string; body?: unknown },
  max = 20_000,
): Promise<ApiRecord[]> {
  const items: ApiRecord[] = [];
  let page = await call<ApiList>(session, first.method, first.path, first.body);
  for (;;) {
    items.push(...page.items);
    const next = page.links?.find((link) => link.rel === "next")?.href;
    if (!next || items.length >= max) return items;
    page = await call<ApiList>(session, "GET", next); // a query's next link is a GET carrying the query
  }
}

/**
 * The kinds the API serves, read from its own OpenAPI document (the console names no kind): every kind has an
 * org-level query, `POST /org/{org}/<kind>/-query` (gvc-scoped kinds: across every gvc).
 */
export async function servedKinds(): Promise<string[]> {
  const document = (await (await fetchPublic("/openapi.json")).json()) as { paths: Record<string, unknown> };
  return Object.keys(document.paths)
    .map((path) => /^\/org\/\{org\}\/([a-z0-9]+)\/-query$/.exec(path)?.[1])
    .filter((kind): kind is string => kind !== undefined)
    .sort();
}

/** Every object of a kind the session may view, optionally filtered by a query spec. */
export function queryKind(session: Session, kind: string, spec: QuerySpec = {}, max?: number): Promise<ApiRecord[]> {
  const problem = kindProblem(kind); // the kind may come from the page's address
  if (problem) return Promise.reject(new ApiError(0, `Refused: ${problem}`));
  const path = `/org/${encodeURIComponent(session.org)}/${kind}/-query`;
  return listAll(session, { method: "POST", path, body: { kind, spec } }, max);
}

export interface QuerySpec {
  match?: "all" | "any" | "none";
  terms?: { op?: string; property?: string; tag?: string; rel?: string; value?: unknown }[];
}

/** Signs in: the credentials must read the org; the emulator's health endpoint tells an admin key apart. */
export async function signIn(org: string, token: string): Promise<Session> {
  try {
    await call(session0(token), "GET", `/org/${encodeURIComponent(org)}`);
  } catch (error) {
    // 401: the server does not accept these credentials. A principal that may not view the org (404) still signs in
    // and sees what its grants allow.
    if (!(error instanceof ApiError) || error.status === 401) throw error;
  }
  let admin = false;
  try {
    await call(session0(token), "GET", "/_cpln-local/health");
    admin = true;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
  }
  return { org, token, admin };
}

const session0 = (token: string) => ({ token });

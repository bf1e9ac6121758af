/**
 * `CplnClient`: one typed method per endpoint of the organization API, on top of the `request` primitive
 * (`./http.ts`: pools, deadline, retries, recognition of ambiguous writes). Results are parsed with the contract's
 * zod schemas; failures are `CplnApiError`.
 *
 * The token lives in a private field: it never shows in `JSON.stringify(client)`, `util.inspect(client)`, or any
 * error. Create a client where it is used (inside a provider method or a function call); never capture one in a
 * serialized closure.
 */
import { z } from "zod";
import { isKind, kinds, type Kind } from "../../api/kinds/index.js";
import { collectionPath, findLink, parseLink, selfLink } from "../../api/links.js";
import {
  accessReport,
  cloudAccount,
  group,
  listResponse,
  location,
  mk8sJoinResponse,
  permissionSchema,
  policy,
  queryResult,
  quota,
  serviceAccount,
  serviceAccountKey,
  volumeSet,
  type AccessReport,
  type CloudAccount,
  type Group,
  type Location,
  type Mk8sJoinResponse,
  type PermissionSchema,
  type Policy,
  type Quota,
  type ServiceAccount,
  type ServiceAccountKey,
  type VolumeSet,
} from "../../api/schemas/index.js";
import type {
  locationPatch,
  mk8sJoinRequest,
  policyCreate,
  policyPatch,
  queryDocument,
  volumeSetCreate,
  volumeSetPatch,
} from "../../api/schemas/index.js";
import { defaultEndpoint } from "../config.js";
import { CplnApiError, invalidResponseError } from "./errors.js";
import {
  closePool,
  defaultRetry,
  defaultTimeoutMs,
  request,
  type HttpMethod,
  type HttpResponse,
  type RetryOptions,
} from "./http.js";

export { CplnApiError, LocalErrorCode, isCplnApiError } from "./errors.js";
export type { RetryOptions } from "./http.js";

export interface CplnClientOptions {
  /** Default: env `CPLN_ENDPOINT`, else `https://api.cpln.io`. */
  endpoint?: string;
  /** Default: env `CPLN_TOKEN`. A service-account key or a JWT; sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Default org of every call. Default: env `CPLN_ORG`. */
  org?: string;
  /** Limit for one call, retries and delays included. Default 60 s. */
  timeoutMs?: number;
  retry?: RetryOptions;
}

/** Per-call override of the client's org. */
export interface CallOptions {
  org?: string;
}

/** For calls about a whole kind: gvc-scoped kinds (volumeset) also need the gvc. */
export interface KindCallOptions extends CallOptions {
  gvc?: string;
}

// ---- types of bodies and results ----

export type VolumeSetCreateBody = z.input<ReturnType<typeof volumeSetCreate>>;
export type VolumeSetPatchBody = z.input<ReturnType<typeof volumeSetPatch>>;
export type LocationPatchBody = z.input<ReturnType<typeof locationPatch>>;
export type PolicyCreateBody = z.input<ReturnType<typeof policyCreate>>;
export type PolicyPatchBody = z.input<ReturnType<typeof policyPatch>>;
export type QueryDocumentBody = z.input<ReturnType<typeof queryDocument>>;
export type JoinOptions = z.input<ReturnType<typeof mk8sJoinRequest>>;

export type { AccessReport, CloudAccount, Group, Location, PermissionSchema, Policy, Quota, ServiceAccount, VolumeSet };
export type { Mk8sJoinResponse, ServiceAccountKey };

/** Fields every record has, whatever its kind (what the link-based methods return). */
export interface ApiRecord {
  kind: string;
  id: string;
  name: string;
  version: number;
  description?: string;
  tags?: Record<string, unknown>;
  created: string;
  lastModified: string;
  links: { rel: string; href: string }[];
  [field: string]: unknown;
}

export interface QueryResult<T> {
  kind: "queryresult";
  itemKind: string;
  items: (T | string)[];
  links: { rel: string; href: string }[];
  query: Record<string, unknown>;
}

/** `GET /about`: what the service says about itself (free-form). */
export type About = Record<string, unknown>;

/** The record schema of each kind, for link-based reads: the kind's declaration (`api/kinds/<kind>.ts`). */
function recordSchema(kind: Kind): z.ZodType {
  return kinds[kind].schemas.record();
}

const maxPages = 1000;

export class CplnClient {
  readonly endpoint: string;
  readonly org: string | undefined;
  readonly timeoutMs: number;
  readonly retry: Required<RetryOptions>;
  readonly #token: string | undefined;

  constructor(options: CplnClientOptions = {}) {
    this.endpoint = (options.endpoint ?? nonEmpty(process.env.CPLN_ENDPOINT) ?? defaultEndpoint).replace(/\/+$/, "");
    this.org = options.org ?? nonEmpty(process.env.CPLN_ORG);
    this.timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
    this.retry = { ...defaultRetry, ...options.retry };
    this.#token = options.token ?? nonEmpty(process.env.CPLN_TOKEN);
    try {
      new URL(this.endpoint);
    } catch {
      throw new Error(`CplnClient: endpoint "${this.endpoint}" is not a URL`);
    }
  }

  /** Closes the connection pool of this endpoint (shared by clients of the same origin; reopened on demand). */
  close(): Promise<void> {
    return closePool(this.endpoint);
  }

  // ---- volume sets (gvc-scoped) ----

  async createVolumeSet(gvcName: string, body: VolumeSetCreateBody, options?: CallOptions): Promise<VolumeSet> {
    return this.create(collectionPath(this.orgOf(options), "volumeset", gvcName), body, volumeSet());
  }

  async getVolumeSet(gvcName: string, name: string, options?: CallOptions): Promise<VolumeSet> {
    return this.call("GET", selfLink(this.orgOf(options), "volumeset", name, gvcName), volumeSet());
  }

  async patchVolumeSet(
    gvcName: string,
    name: string,
    patch: VolumeSetPatchBody,
    options?: CallOptions,
  ): Promise<VolumeSet> {
    return this.call("PATCH", selfLink(this.orgOf(options), "volumeset", name, gvcName), volumeSet(), patch);
  }

  async deleteVolumeSet(gvcName: string, name: string, options?: CallOptions): Promise<void> {
    await this.send({ method: "DELETE", path: selfLink(this.orgOf(options), "volumeset", name, gvcName) });
  }

  async listVolumeSets(gvcName: string, options?: CallOptions): Promise<VolumeSet[]> {
    return this.list(collectionPath(this.orgOf(options), "volumeset", gvcName), volumeSet());
  }

  // ---- locations ----

  async getLocation(name: string, options?: CallOptions): Promise<Location> {
    return this.call("GET", selfLink(this.orgOf(options), "location", name), location());
  }

  async listLocations(options?: CallOptions): Promise<Location[]> {
    return this.list(collectionPath(this.orgOf(options), "location"), location());
  }

  async patchLocation(name: string, patch: LocationPatchBody, options?: CallOptions): Promise<Location> {
    return this.call("PATCH", selfLink(this.orgOf(options), "location", name), location(), patch);
  }

  // ---- policies ----

  async createPolicy(body: PolicyCreateBody, options?: CallOptions): Promise<Policy> {
    return this.create(collectionPath(this.orgOf(options), "policy"), body, policy());
  }

  async getPolicy(name: string, options?: CallOptions): Promise<Policy> {
    return this.call("GET", selfLink(this.orgOf(options), "policy", name), policy());
  }

  async listPolicies(options?: CallOptions): Promise<Policy[]> {
    return this.list(collectionPath(this.orgOf(options), "policy"), policy());
  }

  async patchPolicy(name: string, patch: PolicyPatchBody, options?: CallOptions): Promise<Policy> {
    return this.call("PATCH", selfLink(this.orgOf(options), "policy", name), policy(), patch);
  }

  async deletePolicy(name: string, options?: CallOptions): Promise<void> {
    await this.send({ method: "DELETE", path: selfLink(this.orgOf(options), "policy", name) });
  }

  // ---- cloud accounts ----

  /** `POST /org/{org}/cloudaccount/-query`; every page is fetched (`next` links followed). */
  async queryCloudAccounts(query: QueryDocumentBody, options?: CallOptions): Promise<QueryResult<CloudAccount>> {
    return this.runQuery(`${collectionPath(this.orgOf(options), "cloudaccount")}/-query`, query, cloudAccount());
  }

  async getCloudAccountPermissions(options?: CallOptions): Promise<PermissionSchema> {
    return this.getPermissions("cloudaccount", options);
  }

  /**
   * `GET <collection>/-schema/permissions`: the permission catalog of a kind (`/org/{org}/{kind}/...`; gvc-scoped
   * kinds are served under a gvc, given as `{ gvc }`).
   */
  async getPermissions(kind: Kind, options?: KindCallOptions): Promise<PermissionSchema> {
    return this.call(
      "GET",
      `${this.kindPath("getPermissions", kind, options)}/-schema/permissions`,
      permissionSchema(),
    );
  }

  // ---- mk8s ----

  /**
   * `POST /org/{org}/mk8s/{name}/-join` with flat options (`{nodePoolName: "general"}`). The script holds a
   * short-lived bootstrap token: treat it as a secret. Clusters whose provider is not `generic` or `hetzner` get a
   * 400 `Unsupported`.
   */
  async getMk8sJoinScript(
    name: string,
    joinOptions: JoinOptions = {},
    options?: CallOptions,
  ): Promise<Mk8sJoinResponse> {
    return this.call(
      "POST",
      `${selfLink(this.orgOf(options), "mk8s", name)}/-join`,
      mk8sJoinResponse(),
      joinOptions,
      true,
    );
  }

  // ---- service accounts, groups ----

  async listServiceAccounts(options?: CallOptions): Promise<ServiceAccount[]> {
    return this.list(collectionPath(this.orgOf(options), "serviceaccount"), serviceAccount());
  }

  /** Adds a key; the response is the only time the secret `key` is returned. Never retried after a cut. */
  async addServiceAccountKey(name: string, description: string, options?: CallOptions): Promise<ServiceAccountKey> {
    return this.call("POST", `${selfLink(this.orgOf(options), "serviceaccount", name)}/-addKey`, serviceAccountKey(), {
      description,
    });
  }

  async listGroups(options?: CallOptions): Promise<Group[]> {
    return this.list(collectionPath(this.orgOf(options), "group"), group());
  }

  async getGroupAccessReport(name: string, options?: CallOptions): Promise<AccessReport> {
    return this.getAccessReport(selfLink(this.orgOf(options), "group", name));
  }

  /** `GET <selfLink>/-accessreport`: who may act on the object. */
  async getAccessReport(link: string, options?: CallOptions): Promise<AccessReport> {
    return this.call("GET", `${this.fullLink(link, options)}/-accessreport`, accessReport());
  }

  // ---- audit contexts, quotas, about ----

  async deleteAuditContext(name: string, options?: CallOptions): Promise<void> {
    await this.send({ method: "DELETE", path: selfLink(this.orgOf(options), "auditctx", name) });
  }

  async listQuotas(options?: CallOptions): Promise<Quota[]> {
    return this.list(collectionPath(this.orgOf(options), "quota"), quota());
  }

  /** Quotas are addressed by id (UUID): names repeat (one `workloads-per-gvc` per gvc). */
  async getQuota(id: string, options?: CallOptions): Promise<Quota> {
    return this.call("GET", selfLink(this.orgOf(options), "quota", id), quota());
  }

  async about(): Promise<About> {
    return this.call("GET", "/about", z.record(z.string(), z.unknown()));
  }

  // ---- by link (id = self link) ----

  /** The object at a self link (`/org/o/policy/p`, or `//policy/p` relative to the org), or undefined on 404. */
  async getByLink(link: string, options?: CallOptions): Promise<ApiRecord | undefined> {
    const path = this.fullLink(link, options);
    try {
      return await this.call("GET", path, recordSchemaOf(path));
    } catch (error) {
      if (error instanceof CplnApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  /** Every object of a collection (`/org/o/policy`, `/org/o/gvc/g/volumeset`, `/org/o/gvc`), all pages. */
  async listByLink(collection: string, options?: CallOptions): Promise<ApiRecord[]> {
    const path = this.fullLink(collection, options);
    const parsed = parseLink(path);
    if (parsed === undefined || parsed.name !== undefined || parsed.kind === "org") {
      throw new Error(`"${collection}" is not a collection link (e.g. /org/<org>/policy)`);
    }
    return this.list(path, asApiRecord(recordSchema(parsed.kind)));
  }

  async patchByLink(link: string, patch: Record<string, unknown>, options?: CallOptions): Promise<ApiRecord> {
    const path = this.fullLink(link, options);
    return this.call("PATCH", path, recordSchemaOf(path), patch);
  }

  /** `POST <collection link>` (`/org/o/policy`, `/org/o/gvc/g/volumeset`): creates an object of that kind. */
  async createByLink(collection: string, body: Record<string, unknown>, options?: CallOptions): Promise<ApiRecord> {
    const path = this.fullLink(collection, options);
    const parsed = parseLink(path);
    if (parsed === undefined || parsed.name !== undefined || parsed.kind === "org") {
      throw new Error(`CplnClient.createByLink: "${collection}" is not a collection link (/org/<org>/<kind>)`);
    }
    return this.create(path, body, asApiRecord(recordSchema(parsed.kind)));
  }

  /**
   * `POST <self link>/-<action>` (`addKey`, ...): an action on one object; its JSON answer, unparsed. Not repeated
   * after a cut connection (an action is not recognisable afterwards).
   */
  async actionByLink(
    link: string,
    action: string,
    body: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<unknown> {
    return this.call("POST", `${this.fullLink(link, options)}/-${action}`, z.unknown(), body);
  }

  /** Deletes the object; true when this call deleted it, false when it was already gone (404). */
  async deleteByLink(link: string, options?: CallOptions): Promise<boolean> {
    try {
      const response = await this.send({ method: "DELETE", path: this.fullLink(link, options) });
      return !(response.recognised && response.status === 404);
    } catch (error) {
      if (error instanceof CplnApiError && error.status === 404) return false;
      throw error;
    }
  }

  /** `POST /org/{org}/{kind}/-query` for any kind; every page is fetched. */
  async query(kind: Kind, doc: QueryDocumentBody, options?: KindCallOptions): Promise<QueryResult<ApiRecord>> {
    return this.runQuery(`${this.kindPath("query", kind, options)}/-query`, doc, asApiRecord(recordSchema(kind)));
  }

  // ---- plumbing ----

  private orgOf(options: CallOptions | undefined): string {
    const org = options?.org ?? this.org;
    if (org === undefined || org === "") {
      throw new Error("CplnClient: no org: pass { org } to the call, set it on the client, or set CPLN_ORG");
    }
    return org;
  }

  /** The collection path of a kind (`/org/o/org` for the org's own catalog, as the service routes it). */
  private kindPath(method: string, kind: Kind, options: KindCallOptions | undefined): string {
    if (!isKind(kind)) throw new Error(`CplnClient.${method}: unknown kind "${String(kind)}"`);
    const org = this.orgOf(options);
    if (kind === "org") return `/org/${enc(org)}/org`;
    if (kinds[kind].scope === "gvc" && (options?.gvc === undefined || options.gvc === "")) {
      throw new Error(`CplnClient.${method}: ${kind} objects live in a gvc: pass { gvc }`);
    }
    return collectionPath(org, kind, options?.gvc);
  }

  /** A relative link (`//policy/p`) made full with the call's org; full links are used as they are. */
  private fullLink(link: string, options: CallOptions | undefined): string {
    if (link.startsWith("//")) return `/org/${enc(this.orgOf(options))}/${link.slice(2)}`;
    if (!link.startsWith("/org/")) throw new Error(`CplnClient: "${link}" is not a link (/org/<org>/<kind>/<name>)`);
    return link;
  }

  private send<T>(options: {
    method: HttpMethod;
    path: string;
    body?: unknown;
    schema?: z.ZodType<T>;
    idempotent?: boolean;
  }): Promise<HttpResponse<T>> {
    const token = this.#token;
    if (token === undefined || token === "") {
      throw new Error(
        "CplnClient: no token: pass { token }, set the stack config cpln:token, or set the environment variable CPLN_TOKEN",
      );
    }
    return request<T>({ endpoint: this.endpoint, token }, { ...options, timeoutMs: this.timeoutMs, retry: this.retry });
  }

  private async call<T>(
    method: HttpMethod,
    path: string,
    schema: z.ZodType<T>,
    body?: unknown,
    idempotent?: boolean,
  ): Promise<T> {
    return (await this.send({ method, path, schema, body, idempotent })).body;
  }

  /** POST to a collection: the 201 body when it is the record, else one GET of the `Location` header. */
  private async create<T>(path: string, body: unknown, schema: z.ZodType<T>): Promise<T> {
    const response = await this.send<unknown>({ method: "POST", path, body });
    const parsed = schema.safeParse(response.body);
    if (parsed.success) return parsed.data;
    const location = header(response.headers, "location");
    if (location === undefined) {
      throw invalidResponseError("POST", path, response.status, "no record in the body and no Location header");
    }
    const target = location.startsWith("http") ? new URL(location).pathname : location;
    return this.call("GET", target, schema);
  }

  private async list<T>(path: string, item: z.ZodType<T>): Promise<T[]> {
    const schema = listResponse(item);
    const items: T[] = [];
    let next: string | undefined = path;
    for (let page = 0; next !== undefined && page < maxPages; page++) {
      const body: z.infer<typeof schema> = await this.call("GET", next, schema);
      items.push(...(body.items as T[]));
      next = nextPage(body.links, next);
    }
    return items;
  }

  private async runQuery<T>(path: string, doc: QueryDocumentBody, item: z.ZodType<T>): Promise<QueryResult<T>> {
    const schema = queryResult(item);
    const first = await this.call("POST", path, schema, doc, true);
    const items = [...first.items] as (T | string)[];
    let next = nextPage(first.links, path);
    for (let page = 1; next !== undefined && page < maxPages; page++) {
      const body: z.infer<typeof schema> = await this.call("GET", next, schema);
      items.push(...(body.items as (T | string)[]));
      next = nextPage(body.links, next);
    }
    return { ...(first as unknown as QueryResult<T>), items };
  }

  /** Keeps the token out of `util.inspect` and logs even when private fields are shown. */
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `CplnClient { endpoint: ${JSON.stringify(this.endpoint)}, org: ${JSON.stringify(this.org)} }`;
  }

  toJSON(): { endpoint: string; org: string | undefined } {
    return { endpoint: this.endpoint, org: this.org };
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

function enc(segment: string): string {
  return encodeURIComponent(segment);
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The `next` link of a page, unless it points back at the same page. */
function nextPage(links: readonly { rel: string; href: string }[] | undefined, current: string): string | undefined {
  const href = findLink(links, "next");
  return href === undefined || href === current ? undefined : href;
}

function asApiRecord(schema: z.ZodType): z.ZodType<ApiRecord> {
  return schema as z.ZodType<ApiRecord>;
}

/** The record schema for a self link's kind; links of unknown shape are read as generic records. */
function recordSchemaOf(path: string): z.ZodType<ApiRecord> {
  const parsed = parseLink(path);
  if (parsed === undefined || parsed.name === undefined) {
    return z.looseObject({ kind: z.string(), id: z.string(), name: z.string() }) as unknown as z.ZodType<ApiRecord>;
  }
  return asApiRecord(recordSchema(parsed.kind));
}

/**
 * `CplnClient`: one typed method per endpoint of the organization API, and the generic ones by link and by kind. What
 * they are made of is beneath: `./calls.ts` (one call parsed by its schema, a create, every page of a list or query)
 * over the `request` primitive (`./http.ts`: pools, deadline, retries, recognition of ambiguous writes), and
 * `./addressing.ts` (paths, links, the record schema of a link's kind). Results are parsed with the contract's zod
 * schemas; failures are `CplnApiError`. The option and result types are in `./types.ts`.
 *
 * The token lives in a private field (of `ClientCalls`, itself in a private field here): it never shows in
 * `JSON.stringify(client)`, `util.inspect(client)`, or any error. Create a client where it is used (inside a provider
 * method or a function call); never capture one in a serialized closure.
 */
import { z } from "zod";
import type { Kind } from "../../api/kinds/index.js";
import { collectionPath, selfLink } from "../../api/links.js";
import {
  accessReport,
  cloudAccount,
  group,
  location,
  mk8sJoinResponse,
  permissionSchema,
  policy,
  quota,
  serviceAccount,
  serviceAccountKey,
  volumeSet,
} from "../../api/schemas/index.js";
import { defaultEndpoint } from "../config.js";
import { collectionKind, fullLink, kindPath, recordSchema, recordSchemaOf } from "./addressing.js";
import { ClientCalls } from "./calls.js";
import { CplnApiError } from "./errors.js";
import { closePool, defaultRetry, defaultTimeoutMs, type RetryOptions } from "./http.js";
import type {
  About,
  AccessReport,
  ApiRecord,
  CallOptions,
  CloudAccount,
  CplnClientOptions,
  Group,
  JoinOptions,
  KindCallOptions,
  Location,
  LocationPatchBody,
  Mk8sJoinResponse,
  PermissionSchema,
  Policy,
  PolicyCreateBody,
  PolicyPatchBody,
  QueryDocumentBody,
  QueryResult,
  Quota,
  ServiceAccount,
  ServiceAccountKey,
  VolumeSet,
  VolumeSetCreateBody,
  VolumeSetPatchBody,
} from "./types.js";

export { CplnApiError, LocalErrorCode, isCplnApiError } from "./errors.js";
export type {
  About,
  AccessReport,
  ApiRecord,
  CallOptions,
  CloudAccount,
  CplnClientOptions,
  Group,
  JoinOptions,
  KindCallOptions,
  Location,
  LocationPatchBody,
  Mk8sJoinResponse,
  PermissionSchema,
  Policy,
  PolicyCreateBody,
  PolicyPatchBody,
  QueryDocumentBody,
  QueryResult,
  Quota,
  RetryOptions,
  ServiceAccount,
  ServiceAccountKey,
  VolumeSet,
  VolumeSetCreateBody,
  VolumeSetPatchBody,
} from "./types.js";

export class CplnClient {
  readonly endpoint: string;
  readonly org: string | undefined;
  readonly timeoutMs: number;
  readonly retry: Required<RetryOptions>;
  readonly #calls: ClientCalls;

  constructor(options: CplnClientOptions = {}) {
    this.endpoint = (options.endpoint ?? nonEmpty(process.env.CPLN_ENDPOINT) ?? defaultEndpoint).replace(/\/+$/, "");
    this.org = options.org ?? nonEmpty(process.env.CPLN_ORG);
    this.timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
    this.retry = { ...defaultRetry, ...options.retry };
    const token = options.token ?? nonEmpty(process.env.CPLN_TOKEN);
    try {
      new URL(this.endpoint);
    } catch {
      throw new Error(`CplnClient: endpoint "${this.endpoint}" is not a URL`);
    }
    this.#calls = new ClientCalls({ endpoint: this.endpoint, token, timeoutMs: this.timeoutMs, retry: this.retry });
  }

  /** Closes the connection pool of this endpoint (shared by clients of the same origin; reopened on demand). */
  close(): Promise<void> {
    return closePool(this.endpoint);
  }

  // ---- volume sets (gvc-scoped) ----

  async createVolumeSet(gvcName: string, body: VolumeSetCreateBody, options?: CallOptions): Promise<VolumeSet> {
    return this.#calls.create(collectionPath(this.orgOf(options), "volumeset", gvcName), body, volumeSet());
  }

  async getVolumeSet(gvcName: string, name: string, options?: CallOptions): Promise<VolumeSet> {
    return this.#calls.call("GET", selfLink(this.orgOf(options), "volumeset", name, gvcName), volumeSet());
  }

  async patchVolumeSet(
    gvcName: string,
    name: string,
    patch: VolumeSetPatchBody,
    options?: CallOptions,
  ): Promise<VolumeSet> {
    return this.#calls.call("PATCH", selfLink(this.orgOf(options), "volumeset", name, gvcName), volumeSet(), patch);
  }

  async deleteVolumeSet(gvcName: string, name: string, options?: CallOptions): Promise<void> {
    await this.#calls.send({ method: "DELETE", path: selfLink(this.orgOf(options), "volumeset", name, gvcName) });
  }

  async listVolumeSets(gvcName: string, options?: CallOptions): Promise<VolumeSet[]> {
    return this.#calls.list(collectionPath(this.orgOf(options), "volumeset", gvcName), volumeSet());
  }

  // ---- locations ----

  async getLocation(name: string, options?: CallOptions): Promise<Location> {
    return this.#calls.call("GET", selfLink(this.orgOf(options), "location", name), location());
  }

  async listLocations(options?: CallOptions): Promise<Location[]> {
    return this.#calls.list(collectionPath(this.orgOf(options), "location"), location());
  }

  async patchLocation(name: string, patch: LocationPatchBody, options?: CallOptions): Promise<Location> {
    return this.#calls.call("PATCH", selfLink(this.orgOf(options), "location", name), location(), patch);
  }

  // ---- policies ----

  async createPolicy(body: PolicyCreateBody, options?: CallOptions): Promise<Policy> {
    return this.#calls.create(collectionPath(this.orgOf(options), "policy"), body, policy());
  }

  async getPolicy(name: string, options?: CallOptions): Promise<Policy> {
    return this.#calls.call("GET", selfLink(this.orgOf(options), "policy", name), policy());
  }

  async listPolicies(options?: CallOptions): Promise<Policy[]> {
    return this.#calls.list(collectionPath(this.orgOf(options), "policy"), policy());
  }

  async patchPolicy(name: string, patch: PolicyPatchBody, options?: CallOptions): Promise<Policy> {
    return this.#calls.call("PATCH", selfLink(this.orgOf(options), "policy", name), policy(), patch);
  }

  async deletePolicy(name: string, options?: CallOptions): Promise<void> {
    await this.#calls.send({ method: "DELETE", path: selfLink(this.orgOf(options), "policy", name) });
  }

  // ---- cloud accounts ----

  /** `POST /org/{org}/cloudaccount/-query`; every page is fetched (`next` links followed). */
  async queryCloudAccounts(query: QueryDocumentBody, options?: CallOptions): Promise<QueryResult<CloudAccount>> {
    return this.#calls.runQuery(`${collectionPath(this.orgOf(options), "cloudaccount")}/-query`, query, cloudAccount());
  }

  async getCloudAccountPermissions(options?: CallOptions): Promise<PermissionSchema> {
    return this.getPermissions("cloudaccount", options);
  }

  /**
   * `GET <collection>/-schema/permissions`: the permission catalog of a kind (`/org/{org}/{kind}/...`; gvc-scoped
   * kinds are served under a gvc, given as `{ gvc }`).
   */
  async getPermissions(kind: Kind, options?: KindCallOptions): Promise<PermissionSchema> {
    return this.#calls.call(
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
    return this.#calls.call(
      "POST",
      `${selfLink(this.orgOf(options), "mk8s", name)}/-join`,
      mk8sJoinResponse(),
      joinOptions,
      true,
    );
  }

  // ---- service accounts, groups ----

  async listServiceAccounts(options?: CallOptions): Promise<ServiceAccount[]> {
    return this.#calls.list(collectionPath(this.orgOf(options), "serviceaccount"), serviceAccount());
  }

  /** Adds a key; the response is the only time the secret `key` is returned. Never retried after a cut. */
  async addServiceAccountKey(name: string, description: string, options?: CallOptions): Promise<ServiceAccountKey> {
    return this.#calls.call(
      "POST",
      `${selfLink(this.orgOf(options), "serviceaccount", name)}/-addKey`,
      serviceAccountKey(),
      {
        description,
      },
    );
  }

  async listGroups(options?: CallOptions): Promise<Group[]> {
    return this.#calls.list(collectionPath(this.orgOf(options), "group"), group());
  }

  async getGroupAccessReport(name: string, options?: CallOptions): Promise<AccessReport> {
    return this.getAccessReport(selfLink(this.orgOf(options), "group", name));
  }

  /** `GET <selfLink>/-accessreport`: who may act on the object. */
  async getAccessReport(link: string, options?: CallOptions): Promise<AccessReport> {
    return this.#calls.call("GET", `${this.fullLink(link, options)}/-accessreport`, accessReport());
  }

  // ---- audit contexts, quotas, about ----

  async deleteAuditContext(name: string, options?: CallOptions): Promise<void> {
    await this.#calls.send({ method: "DELETE", path: selfLink(this.orgOf(options), "auditctx", name) });
  }

  async listQuotas(options?: CallOptions): Promise<Quota[]> {
    return this.#calls.list(collectionPath(this.orgOf(options), "quota"), quota());
  }

  /** Quotas are addressed by id (UUID): names repeat (one `workloads-per-gvc` per gvc). */
  async getQuota(id: string, options?: CallOptions): Promise<Quota> {
    return this.#calls.call("GET", selfLink(this.orgOf(options), "quota", id), quota());
  }

  async about(): Promise<About> {
    return this.#calls.call("GET", "/about", z.record(z.string(), z.unknown()));
  }

  // ---- by link (id = self link) ----

  /** The object at a self link (`/org/o/policy/p`, or `//policy/p` relative to the org), or undefined on 404. */
  async getByLink(link: string, options?: CallOptions): Promise<ApiRecord | undefined> {
    const path = this.fullLink(link, options);
    try {
      return await this.#calls.call("GET", path, recordSchemaOf(path));
    } catch (error) {
      if (error instanceof CplnApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  /** Every object of a collection (`/org/o/policy`, `/org/o/gvc/g/volumeset`, `/org/o/gvc`), all pages. */
  async listByLink(collection: string, options?: CallOptions): Promise<ApiRecord[]> {
    const path = this.fullLink(collection, options);
    const kind = collectionKind(path);
    if (kind === undefined) throw new Error(`"${collection}" is not a collection link (e.g. /org/<org>/policy)`);
    return this.#calls.list(path, recordSchema(kind));
  }

  async patchByLink(link: string, patch: Record<string, unknown>, options?: CallOptions): Promise<ApiRecord> {
    const path = this.fullLink(link, options);
    return this.#calls.call("PATCH", path, recordSchemaOf(path), patch);
  }

  /** `POST <collection link>` (`/org/o/policy`, `/org/o/gvc/g/volumeset`): creates an object of that kind. */
  async createByLink(collection: string, body: Record<string, unknown>, options?: CallOptions): Promise<ApiRecord> {
    const path = this.fullLink(collection, options);
    const kind = collectionKind(path);
    if (kind === undefined) {
      throw new Error(`CplnClient.createByLink: "${collection}" is not a collection link (/org/<org>/<kind>)`);
    }
    return this.#calls.create(path, body, recordSchema(kind));
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
    return this.#calls.call("POST", `${this.fullLink(link, options)}/-${action}`, z.unknown(), body);
  }

  /** Deletes the object; true when this call deleted it, false when it was already gone (404). */
  async deleteByLink(link: string, options?: CallOptions): Promise<boolean> {
    try {
      const response = await this.#calls.send({ method: "DELETE", path: this.fullLink(link, options) });
      return !(response.recognised && response.status === 404);
    } catch (error) {
      if (error instanceof CplnApiError && error.status === 404) return false;
      throw error;
    }
  }

  /** `POST /org/{org}/{kind}/-query` for any kind; every page is fetched. */
  async query(kind: Kind, doc: QueryDocumentBody, options?: KindCallOptions): Promise<QueryResult<ApiRecord>> {
    return this.#calls.runQuery(`${this.kindPath("query", kind, options)}/-query`, doc, recordSchema(kind));
  }

  private orgOf(options: CallOptions | undefined): string {
    const org = options?.org ?? this.org;
    if (org === undefined || org === "") {
      throw new Error("CplnClient: no org: pass { org } to the call, set it on the client, or set CPLN_ORG");
    }
    return org;
  }

  private kindPath(method: string, kind: Kind, options: KindCallOptions | undefined): string {
    return kindPath(method, kind, () => this.orgOf(options), options?.gvc);
  }

  private fullLink(link: string, options: CallOptions | undefined): string {
    return fullLink(link, () => this.orgOf(options));
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

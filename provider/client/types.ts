/**
 * The client's settings and the shapes of what its methods take and return: option bags, request bodies (the
 * contract's zod input types), and the records of a call by link or a query. Types only: `npm run gen`
 * (`tools/gen-types.ts`) expands them, through `./index.ts`, into the SDK's plain `sdk/types.ts`.
 */
import type { z } from "zod";
import type {
  AccessReport,
  CloudAccount,
  Group,
  Location,
  Mk8sJoinResponse,
  PermissionSchema,
  Policy,
  Quota,
  ServiceAccount,
  ServiceAccountKey,
  VolumeSet,
  locationPatch,
  mk8sJoinRequest,
  policyCreate,
  policyPatch,
  queryDocument,
  volumeSetCreate,
  volumeSetPatch,
} from "../../api/schemas/index.js";
import type { RetryOptions } from "./http.js";

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

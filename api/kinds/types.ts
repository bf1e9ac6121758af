import type { DocumentedRule } from "../schemas/jsonRules.js";
import type { z } from "zod";
import type { PatchRules } from "../patch/rules.js";
import type { Permission } from "./permission.js";
import type { PolicyKind } from "./catalogs.js";

/** A named body schema of an action (a component of the OpenAPI document). */
export interface NamedBody {
  readonly name: string;
  readonly schema: () => z.ZodType;
}

/** The contract of an action `POST .../{name}/-<action>` (the server's kind rules implement it). */
export interface ActionContract {
  readonly summary: string;
  readonly description?: string;
  readonly request: NamedBody;
  readonly response: NamedBody & { readonly description: string };
  /** Refusals that depend on the object acted on (`x-cpln-rules` of the operation). */
  readonly rules?: readonly DocumentedRule[];
  /**
   * Error statuses beyond those of every action (400, 401, 403, 404, 413, 415): 409 when a valid request can conflict
   * with the stored object's state (RFC 9110 §15.5.10).
   */
  readonly errors?: readonly number[];
}

/**
 * The contract of an endpoint of a kind other than its actions: `GET .../{name}/-<endpoint>` (`on: "item"`) or
 * `GET|POST <collection>/-<endpoint>[/{param}]` (`on: "collection"`). It reads or answers without changing any object
 * (eventlogs, a cluster's CA certificates, setup instructions, invitations, volume-set commands).
 */
export interface EndpointContract {
  readonly method: "GET" | "POST";
  readonly on: "item" | "collection";
  /**
   * A path parameter after the endpoint's name (`-instructions/{provider}`), with the values it takes: served as one
   * path per value (`-instructions/aws`, ...), so an unknown value is an unknown path (404).
   */
  readonly param?: {
    readonly name: string;
    readonly description: string;
    /** Absent: any value, served as one `{name}` path parameter; the endpoint answers 404 for one it does not know. */
    readonly values?: readonly string[];
    /**
     * The rule of a free value (absent: any text): the parameter's schema in the OpenAPI document, and a value that
     * breaks it is a 400 naming the parameter (an image's `-latest/{repository}`).
     */
    readonly schema?: () => z.ZodType;
  };
  /**
   * The path segment when it is not `-<name>`: a read-only sub-collection of the object (a workload's `deployment`,
   * `deployment/{location}`), which the real API serves without the dash.
   */
  readonly segment?: string;
  readonly summary: string;
  readonly description?: string;
  /** Body of a POST (required: a POST without one is a 400 naming its fields). */
  readonly request?: NamedBody;
  readonly response: NamedBody & { readonly description: string; readonly status: 200 | 201 };
  /** Refusals JSON Schema cannot state (`x-cpln-rules` of the operation). */
  readonly rules?: readonly DocumentedRule[];
  /** Error statuses beyond those of every endpoint: 409 when a valid request can conflict with stored objects. */
  readonly errors?: readonly number[];
}

/**
 * Everything the contract says about one kind, in one place: routes, the OpenAPI document, the client's tables, the
 * patch engine and authorization read these descriptors and never name a kind themselves. Schemas are getters
 * (`() => volumeSet()`): no zod object is built at module load, and a descriptor may be loaded before its schema
 * module has finished loading.
 */
export interface KindDescriptor<K extends PolicyKind = PolicyKind> {
  /** The kind's name: one of the kinds a policy may target (`policyKindNames`, the real API's kinds). */
  readonly kind: K;
  /** `gvc`: the object lives under `/org/{org}/gvc/{gvc}/`. */
  readonly scope: "org" | "gvc";
  /** The permission catalog in API order, with implied permissions. */
  readonly permissions: readonly Permission[];
  /** Properties a query term may name beyond the common ones (`commonQueryProperties`). */
  readonly queryProperties: readonly string[];
  /** Relations a query term may name (`rel`), read from the item's links. */
  readonly rels: readonly string[];
  /**
   * Top-level record fields returned only by an endpoint of the kind that needs its own permission (a secret's `data`
   * by `-reveal`): GET, lists, queries, write answers and request logs leave them out (server/domain/present.ts), and
   * a PUT that leaves one out keeps it (a record as GET returned it, sent back, changes nothing).
   */
  readonly revealOnly?: readonly string[];
  readonly schemas: {
    /** The record as the server returns it. */
    readonly record: () => z.ZodType;
    /** Body of POST to the collection; absent: the kind is not created through the API (POST is not served). */
    readonly create?: () => z.ZodType;
    /** Body of PATCH to an object (the PUT body is derived from it). */
    readonly patch: () => z.ZodType;
  };
  /** How each array of the record is keyed in patches (arrays not listed: `defaultArrayRule`). */
  readonly patchRules: PatchRules;
  /**
   * How an object is named in paths: `field` is the body field that names a new object (`name`; a user's `email`) or
   * `id` when objects are addressed by their UUID (`by: "id"`, quotas, whose names repeat per gvc).
   */
  readonly addressing: {
    readonly field: string;
    readonly by: "name" | "id";
    /** The rule of the name in paths when no create body states it (images: `<repository>:<tag>`). */
    readonly schema?: () => z.ZodType;
  };
  /** The kind has one object per org, addressed as `/org/{org}` (the org itself). */
  readonly singleton?: boolean;
  /**
   * `false`: no object of the kind can be deleted; DELETE answers only errors (403 for an object the caller can view).
   * Absent: objects are deleted by DELETE.
   */
  readonly deletable?: false;
  /** Creating one may be attempted without credentials (the API document's empty security alternative). */
  readonly anonymousCreate?: boolean;
  readonly actions?: Readonly<Record<string, ActionContract>>;
  /** Endpoints by name (the path segment after `-`); the server implements each (checked when its rules are built). */
  readonly endpoints?: Readonly<Record<string, EndpointContract>>;
  /**
   * Create-body fields fixed at create (dotted paths): the server answers a change with 409 and the provider's
   * resource replaces the object instead.
   */
  readonly immutable?: readonly string[];
  /**
   * The values the server fills in a create body that leaves them out (a pure function of the validated body): the
   * server stores them, and the provider fills them before it compares, so a program that omits them sees no change.
   */
  readonly defaults?: (body: Readonly<Record<string, unknown>>) => Record<string, unknown>;
  /** The kind as a Pulumi resource (both adapters, every SDK), when its declaration alone says how to manage it. */
  readonly resource?: ResourceDeclaration;
  /**
   * Data-source functions derived from the declaration: `get` reads one object by name (the org itself for the
   * singleton), `list` every object of the collection (of one gvc, for gvc-scoped kinds). A declared resource has
   * `get<TypeName>` unless this names another.
   */
  readonly dataSources?: { readonly get?: string; readonly list?: string };
  /**
   * Example bodies, which generic tests, fixtures and benchmarks use for this kind (never a per-kind list of their
   * own): `create` names the new object `name` (absent: the kind is not created through the API); `patch` changes
   * the object without widening anyone's access, `marker` making it unique.
   */
  readonly examples: {
    readonly create?: (name: string) => Record<string, unknown>;
    readonly patch: (marker: string) => Record<string, unknown>;
    /**
     * Another valid value of each `immutable` field, by its dotted path in the create body: the change generic tests
     * make to see the server refuse it in place (409) and the provider's resource replace the object. Required
     * exactly when `immutable` names fields.
     */
    readonly immutableChange?: Readonly<Record<string, unknown>>;
  };
}

/**
 * What a Pulumi resource needs beyond the kind's contract: its name and its paragraph. The args are the create body
 * (`spec`'s fields flat, as @pulumiverse/cpln has them), the outputs the record; `immutable` fields replace.
 */
export interface ResourceDeclaration {
  /** The type name: `cpln-native:index:<typeName>` and `pulumi-nodejs:dynamic/cpln:<typeName>`. */
  readonly typeName: string;
  /** One paragraph for the package schema, the SDK class and the docs. */
  readonly description: string;
  /** Args (and the outputs of the same name) that are Pulumi secrets in both adapters. */
  readonly secrets?: readonly string[];
  /**
   * `false`: the program always names the object (a domain's name is its DNS name); by default an omitted name is
   * `<resource name>-<7 hex>`.
   */
  readonly autoname?: false;
}

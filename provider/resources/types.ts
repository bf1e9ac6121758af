/**
 * The uniform shape of a provider resource. Every `provider/resources/<kind>.ts` exports one object that
 * `satisfies ResourceDefinition<Inputs, Outputs>`, with its sections in the same order: input schema, field rules,
 * toApi/fromApi, check, diff, create, read, update, delete. The generic code in `lifecycle.ts` (check, diff, the patch
 * update) reads these tables and never names a field.
 */
import type { z } from "zod";
import type { Kind } from "../../api/kinds/index.js";
import type { JsonObject, PatchRules } from "../../api/patch/index.js";
import type { ResourceTypeName } from "./typeNames.js";

/** Property bags as the dynamic-provider host passes them (plain JSON, `__provider` included). */
export type Props = Record<string, unknown>;

export type { ResourceTypeName } from "./typeNames.js";

export interface CheckFailure {
  /** Input property path, dotted (`autoscaling.maxCapacity`, `bindings.1.permissions`). */
  property: string;
  reason: string;
}

/** A problem found by a contract rule, at an input path. */
export interface InputIssue {
  path: string;
  message: string;
}

/** How one input field behaves. Every input field has a rule (the compiler checks it). */
export interface FieldRule {
  /** A change replaces the object (immutable in the API, or part of its identity). */
  replace?: boolean;
  /**
   * `absent` (default): an omitted input means "no value" and an update removes it.
   * `unmanaged`: an omitted input leaves the current value alone (Location's adopted fields).
   */
  whenOmitted?: "absent" | "unmanaged";
  /** Provider-side only (never sent to the API, never a reason to update), like `adopt`. */
  local?: boolean;
  /** Map keys with this prefix belong to the server: ignored by diff, never sent (tags: `cpln/`). */
  serverKeyPrefix?: string;
  /** Path of the field in the API body, for array rules and for mapping contract issues (`spec.autoscaling`). */
  apiPath?: string;
}

export type FieldRules<Inputs> = { readonly [K in keyof Required<Inputs>]: FieldRule };

/**
 * The requests the resources make (the runtime adapts `CplnClient` to it). Records come back as parsed JSON and each
 * resource validates them with its contract schema.
 */
export interface ResourceClient {
  /** POST to a collection link (`/org/o/policy`, `/org/o/gvc/g/volumeset`): the created record. */
  createIn(collection: string, body: JsonObject): Promise<unknown>;
  /** POST `<link>/-<action>` (e.g. `addKey`): the action's answer. Never repeated after a cut connection. */
  action(link: string, action: string, body: JsonObject): Promise<unknown>;
  /** The object at a self link, or undefined when it does not exist (404). */
  getByLink(link: string): Promise<unknown>;
  patchByLink(link: string, body: JsonObject): Promise<unknown>;
  /** 404 counts as deleted. */
  deleteByLink(link: string): Promise<unknown>;
}

/** What a resource operation needs: a client for the resolved endpoint and token, and the org it works in. */
export interface ResourceContext {
  client: ResourceClient;
  org: string;
  /** Tells the user something about the operation (a Pulumi warning diagnostic). */
  warn(message: string): void;
}

// Methods (not function-typed properties) so that a concrete definition is assignable to `AnyResourceDefinition`.
export interface ResourceDefinition<Inputs extends object, Outputs extends object> {
  // --- identity --------------------------------------------------------------------------------------------------
  typeName: ResourceTypeName;
  kind: Kind;
  /** One paragraph for the package schema. */
  description: string;

  // --- input schema ----------------------------------------------------------------------------------------------
  /** The flat resource args (zod, built lazily). Validates each field on its own. */
  inputs(): z.ZodType<Inputs>;
  /** The outputs: every input plus what the API computes (for the package schema). */
  outputs(): z.ZodType<Outputs>;

  // --- field rules -----------------------------------------------------------------------------------------------
  fields: FieldRules<Inputs>;
  /** How the API body's arrays are keyed (`patchRules[kind]` from `api/patch`). */
  patchRules(): PatchRules;
  /** `name` defaults to `<logical name>-<7 hex>` when omitted. */
  autoname: boolean;
  /**
   * A replacement can never collide with the object it replaces (the server names it, or it lives elsewhere), so it
   * is created before the old one is deleted even when no name was generated. Default: delete first unless the name
   * was generated.
   */
  createBeforeReplace?: boolean;
  /** Outputs that are secrets: the SDK class lists them in `additionalSecretOutputs`, the schema marks them. */
  secretOutputs?: readonly string[];

  // --- toApi / fromApi -------------------------------------------------------------------------------------------
  /** The API body the provider manages for these inputs (create body, and the target state of updates). */
  toApi(inputs: Inputs): JsonObject;
  /** Outputs from an API record; `prior` supplies the provider-side fields (`org`, `adopt`, originals). */
  fromApi(record: unknown, prior: Props): Outputs;

  // --- check -----------------------------------------------------------------------------------------------------
  /** Values the server fills in when they are omitted, so that diff compares like with like. */
  defaults(inputs: Inputs): Partial<Inputs>;
  /** Rules that span fields (the contract's cross-field checks), on inputs that passed `inputs()`. */
  contractIssues(inputs: Inputs): InputIssue[];
  /** Rewrites values into the form the server stores (relative links into full ones). */
  normalize(inputs: Inputs, org: string): Inputs;
  /**
   * Rewrites what a user migrating from `@pulumiverse/cpln` writes (short links such as `group/admins`, target names
   * with a gvc) into this package's forms, before validation; returns the fields it rewrote. Values not known yet
   * (preview) are left alone.
   */
  shortForms?(inputs: Props): Props;
  /**
   * The import id a user of `@pulumiverse/cpln` passes (`pulumi import`), when it is not the default (`<name>`, or
   * `<gvc>:<name>` for gvc-scoped kinds): `form` for messages, `resolve` to the resource id in `org` (undefined when the
   * id is not of that form).
   */
  importId?: { form: string; resolve(org: string, id: string): string | undefined };

  // --- adopt -----------------------------------------------------------------------------------------------------
  /**
   * For kinds that take `adopt: true`: where the object of these inputs lives (`link`, in the resolved org), and the
   * PATCH that makes an existing object match them (`patch`; default: `buildPatch` of the managed bodies). Create sends
   * that PATCH after a 409; check uses the same two to tell the user, before anything changes, what adopting will do.
   */
  adoption?: {
    link(org: string, inputs: Inputs): string;
    patch?(current: Props, desired: Props): JsonObject;
  };

  // --- create / read / update / delete ---------------------------------------------------------------------------
  create(ctx: ResourceContext, inputs: Inputs): Promise<{ id: string; outs: Outputs }>;
  /** Fresh outputs, or undefined when the object is gone (404). */
  read(ctx: ResourceContext, id: string, props: Props): Promise<Outputs | undefined>;
  /** The id of what a read found, when it can differ from the id read (an import id naming it another way). */
  idOf?(outs: Outputs): string;
  update(ctx: ResourceContext, id: string, olds: Outputs, news: Inputs): Promise<Outputs>;
  delete(ctx: ResourceContext, id: string, props: Outputs): Promise<void>;
}

/** The definition type with its parameters erased, for registries and the runtime's dispatch. */
export type AnyResourceDefinition = ResourceDefinition<Props, Props>;

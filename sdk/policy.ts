import * as pulumi from "@pulumi/pulumi";
import { providers } from "../provider/dynamic.js";
import { NamedResource, namedArgsProps, recordOutputProps, type NamedResourceArgs } from "./named.js";
import type { PolicyOutputs } from "../provider/resources/policy.js";
import type { PolicyOutputs as PolicyPublicOutputs, PolicyInputs as PolicyPublicInputs } from "./types.js";

/** Grants permissions to principals. */
export interface PolicyBinding {
  /** Permissions from the target kind's catalog (`view`, `edit`, `manage`, ...). No two bindings may hold the same set. */
  permissions: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * 1–200 principals: `//group/<g>`, `//user/<email>`, `//serviceaccount/<s>`, `//gvc/<g>/identity/<i>` or full
   * `/org/<org>/...` links; the short forms of @pulumiverse/cpln (`group/<g>`, ...) are accepted too.
   */
  principalLinks: pulumi.Input<pulumi.Input<string>[]>;
}

/** One condition of a query: exactly one of `property`, `rel` or `tag`, an `op` and (except for exists) a `value`. */
export interface PolicyQueryTerm {
  /** `=` (default), `!=`, `>`, `>=`, `<`, `<=`, `~`, `=~`, `contains`, `exists`, `!exists`. */
  op?: pulumi.Input<"=" | "!=" | ">" | ">=" | "<" | "<=" | "~" | "=~" | "contains" | "exists" | "!exists">;
  /** Property of the object to test (dotted paths allowed). */
  property?: pulumi.Input<string>;
  /** Relation to test, read from the object's links (e.g. `gvc`). */
  rel?: pulumi.Input<string>;
  /** Tag key to test. */
  tag?: pulumi.Input<string>;
  /** Value to compare with. */
  value?: pulumi.Input<string | number | boolean>;
}

/** Sort order of a query's result. */
export interface PolicyQuerySort {
  /** Property to sort by (dotted paths allowed). */
  by: pulumi.Input<string>;
  /** `asc` (default) or `desc`. */
  order?: pulumi.Input<"asc" | "desc">;
}

/** What a query selects and how it sorts it. */
export interface PolicyQuerySpec {
  /** `all` (default), `any` or `none` of the terms must hold. */
  match?: pulumi.Input<"all" | "any" | "none">;
  /** Conditions; an empty list matches everything. */
  terms?: pulumi.Input<pulumi.Input<PolicyQueryTerm>[]>;
  /** Sort order. */
  sort?: pulumi.Input<PolicyQuerySort>;
}

/** Objects selected by a query. */
export interface PolicyTargetQuery {
  /** Kind queried; must be the policy's `targetKind`. */
  kind?: pulumi.Input<PolicyPublicInputs["targetKind"]>;
  /** Extra context (e.g. the gvc of gvc-scoped kinds). */
  context?: pulumi.Input<Record<string, unknown>>;
  /** `items` (default) or `links`. */
  fetch?: pulumi.Input<"items" | "links">;
  /** What to select and how to sort it. */
  spec?: pulumi.Input<PolicyQuerySpec>;
}

/** Arguments of a `Policy`. */
export interface PolicyArgs extends NamedResourceArgs {
  /** Kind of the objects the policy applies to (`volumeset`, `gvc`, `secret`, ...). Changing it replaces the policy. */
  targetKind: pulumi.Input<PolicyPublicInputs["targetKind"]>;
  /**
   * Objects of `targetKind` the policy applies to (at most 200): `//<kind>/<name>` (`//gvc/<g>/<kind>/<name>` for
   * gvc-scoped kinds), full links, or (as with @pulumiverse/cpln) the name alone, in `gvc` for gvc-scoped kinds.
   */
  targetLinks?: pulumi.Input<pulumi.Input<string>[]>;
  /** The gvc of targets named by name alone, for a `targetKind` that lives in a gvc. Never sent to the API. */
  gvc?: pulumi.Input<string>;
  /** Objects the policy applies to, selected by a query. */
  targetQuery?: pulumi.Input<PolicyTargetQuery>;
  /** `all`: the policy applies to every object of `targetKind`. */
  target?: pulumi.Input<"all">;
  /** Who gets which permissions (at most 50). */
  bindings?: pulumi.Input<pulumi.Input<PolicyBinding>[]>;
  /**
   * Share the policy's bindings with `PolicyBinding` resources, other stacks and CLI edits: principals (and bindings)
   * that `bindings` does not declare are ignored (never drift, never removed), and an update appends and drops only
   * the declared principals, binding by binding. Default false: `bindings` is the policy's whole list.
   */
  ignoreUndeclaredPrincipals?: pulumi.Input<boolean>;
}

const outputProps: Record<keyof PolicyOutputs, undefined> = {
  targetKind: undefined,
  targetLinks: undefined,
  targetQuery: undefined,
  target: undefined,
  bindings: undefined,
  gvc: undefined,
  ...namedArgsProps,
  ignoreUndeclaredPrincipals: undefined,
  ...recordOutputProps,
  origin: undefined,
};

/**
 * A Control Plane policy: grants permissions on objects of one kind (all of them, listed links, or a query) to
 * groups, users, service accounts and identities.
 *
 * `targetKind`, `name` and `org` cannot change in place. An update is one PATCH that touches only the bindings and
 * links that changed, so principals another client adds to other bindings survive. The resource id is the self link
 * (`/org/<org>/policy/<name>`).
 */
export class Policy extends NamedResource {
  declare readonly targetKind: pulumi.Output<string>;
  /** Full links (`/org/<org>/...`). */
  declare readonly targetLinks: pulumi.Output<string[] | undefined>;
  declare readonly targetQuery: pulumi.Output<PolicyPublicOutputs["targetQuery"]>;
  declare readonly target: pulumi.Output<"all" | undefined>;
  /** Bindings, with full principal links. */
  declare readonly bindings: pulumi.Output<PolicyPublicOutputs["bindings"]>;
  declare readonly ignoreUndeclaredPrincipals: pulumi.Output<boolean | undefined>;
  /** `default` for policies created through the API; `builtin` ones cannot be changed. */
  declare readonly origin: pulumi.Output<"default" | "builtin">;

  /** Reads an existing policy by its self link (`/org/<org>/policy/<name>`) without managing it. */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): Policy {
    return new Policy(name, undefined, { ...opts, id });
  }

  constructor(name: string, args: PolicyArgs, opts?: pulumi.CustomResourceOptions);
  /** Reading an existing policy (`opts.id` set): no args. */
  constructor(name: string, args: undefined, opts: pulumi.CustomResourceOptions & { id: pulumi.Input<pulumi.ID> });
  constructor(name: string, args: PolicyArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    super(providers.Policy, name, { ...outputProps, ...args, __logicalName: name }, opts, "cpln", "Policy");
  }
}

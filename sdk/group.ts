import * as pulumi from "@pulumi/pulumi";
import { providers } from "../provider/dynamic.js";
import { NamedResource, namedArgsProps, recordOutputProps, type NamedResourceArgs } from "./named.js";

/** One condition of a member query: exactly one of `property`, `rel` or `tag`, an `op` and (except for exists) a `value`. */
export interface GroupQueryTerm {
  /** `=` (default), `!=`, `>`, `>=`, `<`, `<=`, `~`, `=~`, `contains`, `exists`, `!exists`. */
  op?: pulumi.Input<"=" | "!=" | ">" | ">=" | "<" | "<=" | "~" | "=~" | "contains" | "exists" | "!exists">;
  /** Property of the user to test (dotted paths allowed). */
  property?: pulumi.Input<string>;
  /** Relation to test. */
  rel?: pulumi.Input<string>;
  /** Tag key to test. */
  tag?: pulumi.Input<string>;
  /** Value to compare with. */
  value?: pulumi.Input<string | number | boolean>;
}

/** Users added to a group by query. */
export interface GroupMemberQuery {
  /** Kind queried (`user`). */
  kind?: pulumi.Input<"user">;
  /** Extra context. */
  context?: pulumi.Input<Record<string, unknown>>;
  /** `items` (default) or `links`. */
  fetch?: pulumi.Input<"items" | "links">;
  /** What to select and how to sort it. */
  spec?: pulumi.Input<{
    match?: pulumi.Input<"all" | "any" | "none">;
    terms?: pulumi.Input<pulumi.Input<GroupQueryTerm>[]>;
    sort?: pulumi.Input<{ by: pulumi.Input<string>; order?: pulumi.Input<"asc" | "desc"> }>;
  }>;
}

/** Arguments of a `Group`. */
export interface GroupArgs extends NamedResourceArgs {
  /**
   * Members: `//user/<email>`, `//serviceaccount/<name>`, full `/org/<org>/...` links, or the short forms of
   * @pulumiverse/cpln (`user/<email>`, `serviceaccount/<name>`). A set: order is ignored.
   */
  memberLinks?: pulumi.Input<pulumi.Input<string>[]>;
  /** Users added by query. */
  memberQuery?: pulumi.Input<GroupMemberQuery>;
  /** Adds users whose identity-provider claims match the expression. */
  identityMatcher?: pulumi.Input<GroupIdentityMatcher>;
}

/** Users whose identity-provider claims match an expression. */
export interface GroupIdentityMatcher {
  /** Expression evaluated against a user's claims. */
  expression: pulumi.Input<string>;
  /** `jmespath` (default) or `javascript`. */
  language?: pulumi.Input<"jmespath" | "javascript">;
}

const outputProps = {
  memberLinks: undefined,
  memberQuery: undefined,
  identityMatcher: undefined,
  ...namedArgsProps,
  ...recordOutputProps,
  origin: undefined,
};

/**
 * A Control Plane group: users and service accounts (listed in `memberLinks`, or added by `memberQuery`) that
 * policies grant permissions to at once.
 *
 * `name` and `org` cannot change in place. An update is one PATCH that appends and drops only the members that
 * changed. The resource id is the self link (`/org/<org>/group/<name>`).
 */
export class Group extends NamedResource {
  /** Members, as full links. */
  declare readonly memberLinks: pulumi.Output<string[] | undefined>;
  declare readonly memberQuery: pulumi.Output<Record<string, unknown> | undefined>;
  declare readonly identityMatcher: pulumi.Output<
    { expression: string; language?: "jmespath" | "javascript" } | undefined
  >;
  /** `default`; `builtin` groups (superusers, viewers) cannot be deleted. */
  declare readonly origin: pulumi.Output<"default" | "builtin" | "synthetic">;

  /** Reads an existing group by its self link (`/org/<org>/group/<name>`) without managing it. */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): Group {
    return new Group(name, undefined, { ...opts, id });
  }

  constructor(name: string, args?: GroupArgs, opts?: pulumi.CustomResourceOptions);
  /** Reading an existing group (`opts.id` set): no args. */
  constructor(name: string, args: undefined, opts: pulumi.CustomResourceOptions & { id: pulumi.Input<pulumi.ID> });
  constructor(name: string, args?: GroupArgs, opts?: pulumi.CustomResourceOptions) {
    super(providers.Group, name, { ...outputProps, ...args, __logicalName: name }, opts, "cpln", "Group");
  }
}

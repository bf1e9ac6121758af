import * as pulumi from "@pulumi/pulumi";
import { providers } from "../provider/dynamic.js";

/** Arguments of a `PolicyBinding`. */
export interface PolicyBindingArgs {
  /** The existing policy: its name, `//policy/<name>` or `/org/<org>/policy/<name>`. Changing it replaces the binding. */
  policy: pulumi.Input<string>;
  /** Permissions of the policy's target kind (`view`, `edit`, `manage`, ...); they name the policy's binding. Changing them replaces the binding. */
  permissions: pulumi.Input<pulumi.Input<string>[]>;
  /** 1–200 principals this resource grants the permissions to: `//group/<g>`, `//user/<email>`, `//serviceaccount/<s>`, `//gvc/<g>/identity/<i>` or full links. */
  principalLinks: pulumi.Input<pulumi.Input<string>[]>;
  /** Org of the policy; defaults to the `cpln:org` stack config, then `CPLN_ORG`. Changing it replaces the binding. */
  org?: pulumi.Input<string>;
}

const outputProps = {
  policy: undefined,
  permissions: undefined,
  principalLinks: undefined,
  org: undefined,
  bindingKey: undefined,
  markerTag: undefined,
};

/**
 * Grants one set of permissions to principals on an existing policy — created by this stack, another stack, the CLI
 * or a person — without owning the policy (non-authoritative, like GCP's IAMMember).
 *
 * It only ever appends and drops its own principals in the policy's binding of its permission set (`$patch/bindings`
 * with `$append/principalLinks` / `$drop/principalLinks`), so other PolicyBindings, a `Policy` with
 * `ignoreUndeclaredPrincipals: true` and CLI edits on the same policy survive it; a refresh sees only its own
 * principals. Destroying it drops its principals, and the binding when that leaves it empty. A principal that another
 * owner already holds in the same binding cannot be appended (the API refuses duplicates): declare it in one place.
 * The resource id is `/org/<org>/policy/<name>#<permissions, sorted, comma-joined>`.
 */
export class PolicyBinding extends pulumi.dynamic.Resource {
  /** Link of the policy, `/org/<org>/policy/<name>`. */
  declare readonly policy: pulumi.Output<string>;
  declare readonly permissions: pulumi.Output<string[]>;
  /** This resource's principals that the policy grants the permissions to (full links). */
  declare readonly principalLinks: pulumi.Output<string[]>;
  declare readonly org: pulumi.Output<string>;
  /** The binding's key: its permissions, sorted and joined with `,`. */
  declare readonly bindingKey: pulumi.Output<string>;
  /**
   * The tag this resource keeps on the policy (`cpln/pulumiPolicyBinding.<id>`), listing its principals, so that a
   * `Policy` resource on the same policy leaves them alone. Absent when read with `.get`.
   */
  declare readonly markerTag: pulumi.Output<string | undefined>;

  /** Reads a policy's binding (all of its principals) by id (`/org/<org>/policy/<name>#<permissions>`) without managing it. */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): PolicyBinding {
    return new PolicyBinding(name, undefined, { ...opts, id });
  }

  constructor(name: string, args: PolicyBindingArgs, opts?: pulumi.CustomResourceOptions);
  /** Reading an existing binding (`opts.id` set): no args. */
  constructor(name: string, args: undefined, opts: pulumi.CustomResourceOptions & { id: pulumi.Input<pulumi.ID> });
  constructor(name: string, args: PolicyBindingArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    super(
      providers.PolicyBinding,
      name,
      { ...outputProps, ...args, __logicalName: name },
      opts,
      "cpln",
      "PolicyBinding",
    );
  }
}

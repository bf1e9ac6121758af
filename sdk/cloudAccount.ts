import * as pulumi from "@pulumi/pulumi";
import { providers } from "../provider/dynamic.js";
import { NamedResource, namedArgsProps, recordOutputProps, type NamedResourceArgs } from "./named.js";

/** Arguments of a `CloudAccount`. */
export interface CloudAccountArgs extends NamedResourceArgs {
  /** `aws`, `azure`, `gcp` or `ngs`. Changing it replaces the cloud account. */
  provider: pulumi.Input<"aws" | "azure" | "gcp" | "ngs">;
  /** Provider-specific data, e.g. `{ roleArn }` for aws, `{ projectId }` for gcp, `{ secretLink }` for azure and ngs. */
  data?: pulumi.Input<Record<string, unknown>>;
}

const outputProps = {
  provider: undefined,
  data: undefined,
  ...namedArgsProps,
  ...recordOutputProps,
};

/**
 * A Control Plane cloud account: access to an account at aws, azure, gcp or ngs, described by provider-specific data.
 *
 * `provider`, `name` and `org` cannot change in place (a change replaces the cloud account); data, description and
 * tags are updated with one PATCH holding only what changed. The resource id is the self link
 * (`/org/<org>/cloudaccount/<name>`).
 */
export class CloudAccount extends NamedResource {
  declare readonly provider: pulumi.Output<"aws" | "azure" | "gcp" | "ngs">;
  declare readonly data: pulumi.Output<Record<string, unknown> | undefined>;

  /** Reads an existing cloud account by its self link (`/org/<org>/cloudaccount/<name>`) without managing it. */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): CloudAccount {
    return new CloudAccount(name, undefined, { ...opts, id });
  }

  constructor(name: string, args: CloudAccountArgs, opts?: pulumi.CustomResourceOptions);
  /** Reading an existing cloud account (`opts.id` set): no args. */
  constructor(name: string, args: undefined, opts: pulumi.CustomResourceOptions & { id: pulumi.Input<pulumi.ID> });
  constructor(name: string, args: CloudAccountArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    // `provider` is also a resource option name, but here it is an input property: Pulumi keeps them apart.
    super(providers.CloudAccount, name, { ...outputProps, ...args, __logicalName: name }, opts, "cpln", "CloudAccount");
  }
}

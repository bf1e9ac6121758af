import * as pulumi from "@pulumi/pulumi";
import { providers } from "../provider/dynamic.js";

/** Arguments of a `CloudAccount`. */
export interface CloudAccountArgs {
  /** `aws`, `azure`, `gcp` or `ngs`. Changing it replaces the cloud account. */
  provider: pulumi.Input<"aws" | "azure" | "gcp" | "ngs">;
  /** Provider-specific data, e.g. `{ roleArn }` for aws, `{ projectId }` for gcp, `{ secretLink }` for azure and ngs. */
  data?: pulumi.Input<Record<string, unknown>>;
  /** Name of the cloud account; defaults to `<resource name>-<7 hex>`. Changing it replaces the cloud account (deleting the old one first when the name is yours). */
  name?: pulumi.Input<string>;
  /** Description, at most 250 characters; defaults to the name. */
  description?: pulumi.Input<string>;
  /** Tags, at most 50. Keys under `cpln/` belong to the server and are not accepted here. */
  tags?: pulumi.Input<Record<string, pulumi.Input<string | number | boolean | null>>>;
  /** Org; defaults to the `cpln:org` stack config, then `CPLN_ORG`. Changing it replaces the cloud account. */
  org?: pulumi.Input<string>;
  /** Take over an existing cloud account of this name (updating it to these args) instead of failing with 409. */
  adopt?: pulumi.Input<boolean>;
}

const outputProps = {
  provider: undefined,
  data: undefined,
  name: undefined,
  description: undefined,
  tags: undefined,
  org: undefined,
  adopt: undefined,
  serverTags: undefined,
  cplnId: undefined,
  selfLink: undefined,
  version: undefined,
  created: undefined,
  lastModified: undefined,
};

/**
 * A Control Plane cloud account: access to an account at aws, azure, gcp or ngs, described by provider-specific data.
 *
 * `provider`, `name` and `org` cannot change in place (a change replaces the cloud account); data, description and
 * tags are updated with one PATCH holding only what changed. The resource id is the self link
 * (`/org/<org>/cloudaccount/<name>`).
 */
export class CloudAccount extends pulumi.dynamic.Resource {
  declare readonly provider: pulumi.Output<"aws" | "azure" | "gcp" | "ngs">;
  declare readonly data: pulumi.Output<Record<string, unknown> | undefined>;
  declare readonly name: pulumi.Output<string>;
  declare readonly description: pulumi.Output<string>;
  /** User tags (the server's `cpln/` tags are in `serverTags`). */
  declare readonly tags: pulumi.Output<Record<string, unknown>>;
  declare readonly org: pulumi.Output<string>;
  declare readonly adopt: pulumi.Output<boolean | undefined>;
  /** Tags set by the server (keys under `cpln/`). */
  declare readonly serverTags: pulumi.Output<Record<string, unknown> | undefined>;
  /** The API's id (UUID). */
  declare readonly cplnId: pulumi.Output<string>;
  /** `/org/<org>/cloudaccount/<name>` (also the resource id). */
  declare readonly selfLink: pulumi.Output<string>;
  declare readonly version: pulumi.Output<number>;
  declare readonly created: pulumi.Output<string>;
  declare readonly lastModified: pulumi.Output<string>;

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

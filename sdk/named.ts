/**
 * What the SDK classes of named resources (VolumeSet, Policy, Group, ServiceAccount, AuditContext, CloudAccount)
 * share: the common args, the common outputs and the `undefined` placeholders that make Pulumi report those outputs.
 * Plain TypeScript (no zod), so that the published .d.ts reaches only @pulumi/pulumi.
 */
import * as pulumi from "@pulumi/pulumi";

/** Args every named resource takes. */
export interface NamedResourceArgs {
  /** Name; defaults to `<resource name>-<7 hex>`. Changing it replaces the object (deleting the old one first when the name is yours). */
  name?: pulumi.Input<string>;
  /** Description, at most 250 characters; defaults to the name. */
  description?: pulumi.Input<string>;
  /** Tags, at most 50. Keys under `cpln/` belong to the server and are not accepted here. */
  tags?: pulumi.Input<Record<string, pulumi.Input<string | number | boolean | null>>>;
  /** Org; defaults to the `cpln:org` stack config, then `CPLN_ORG`. Changing it replaces the object. */
  org?: pulumi.Input<string>;
  /** Take over an existing object of this name (updating it to these args) instead of failing with 409. */
  adopt?: pulumi.Input<boolean>;
}

/** The args of `NamedResourceArgs`, as output placeholders (in the order the classes list them). */
export const namedArgsProps = {
  name: undefined,
  description: undefined,
  tags: undefined,
  org: undefined,
  adopt: undefined,
};

/** The outputs the server adds to every named record, as placeholders. */
export const recordOutputProps = {
  serverTags: undefined,
  cplnId: undefined,
  selfLink: undefined,
  version: undefined,
  created: undefined,
  lastModified: undefined,
};

/** The outputs every named resource has: its args, echoed, and what the server adds to every record. */
export abstract class NamedResource extends pulumi.dynamic.Resource {
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
  /** The self link, `/org/<org>/<kind>/<name>` (also the resource id). */
  declare readonly selfLink: pulumi.Output<string>;
  declare readonly version: pulumi.Output<number>;
  declare readonly created: pulumi.Output<string>;
  declare readonly lastModified: pulumi.Output<string>;
}

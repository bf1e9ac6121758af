import * as pulumi from "@pulumi/pulumi";
import { providers } from "../provider/dynamic.js";

/** Arguments of a `AuditContext`. */
export interface AuditContextArgs {
  /** Name of the audit context; defaults to `<resource name>-<7 hex>`. Changing it replaces the audit context (deleting the old one first when the name is yours). */
  name?: pulumi.Input<string>;
  /** Description, at most 250 characters; defaults to the name. */
  description?: pulumi.Input<string>;
  /** Tags, at most 50. Keys under `cpln/` belong to the server and are not accepted here. */
  tags?: pulumi.Input<Record<string, pulumi.Input<string | number | boolean | null>>>;
  /** Org; defaults to the `cpln:org` stack config, then `CPLN_ORG`. Changing it replaces the audit context. */
  org?: pulumi.Input<string>;
  /** Take over an existing audit context of this name (updating it to these args) instead of failing with 409. */
  adopt?: pulumi.Input<boolean>;
}

const outputProps = {
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
  origin: undefined,
};

/**
 * A Control Plane audit context: a stream of audit events. The builtin `cpln` context cannot be a resource (check
 * refuses it: it can be neither changed nor deleted); read it with `AuditContext.get`.
 *
 * `name` and `org` cannot change in place; description and tags are updated with one PATCH. The resource id is the
 * self link (`/org/<org>/auditctx/<name>`).
 */
export class AuditContext extends pulumi.dynamic.Resource {
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
  /** `/org/<org>/auditctx/<name>` (also the resource id). */
  declare readonly selfLink: pulumi.Output<string>;
  declare readonly version: pulumi.Output<number>;
  declare readonly created: pulumi.Output<string>;
  declare readonly lastModified: pulumi.Output<string>;
  /** `default`; `builtin` ones cannot be changed or deleted. */
  declare readonly origin: pulumi.Output<"default" | "builtin">;

  /** Reads an existing audit context by its self link (`/org/<org>/auditctx/<name>`) without managing it. */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): AuditContext {
    return new AuditContext(name, undefined, { ...opts, id });
  }

  constructor(name: string, args?: AuditContextArgs, opts?: pulumi.CustomResourceOptions);
  /** Reading an existing audit context (`opts.id` set): no args. */
  constructor(name: string, args: undefined, opts: pulumi.CustomResourceOptions & { id: pulumi.Input<pulumi.ID> });
  constructor(name: string, args?: AuditContextArgs, opts?: pulumi.CustomResourceOptions) {
    super(providers.AuditContext, name, { ...outputProps, ...args, __logicalName: name }, opts, "cpln", "AuditContext");
  }
}

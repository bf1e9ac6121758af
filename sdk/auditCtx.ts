import * as pulumi from "@pulumi/pulumi";
import { providers } from "../provider/dynamic.js";
import { NamedResource, namedArgsProps, recordOutputProps, type NamedResourceArgs } from "./named.js";

/** Arguments of a `AuditContext`. */
export type AuditContextArgs = NamedResourceArgs;

const outputProps = {
  ...namedArgsProps,
  ...recordOutputProps,
  origin: undefined,
};

/**
 * A Control Plane audit context: a stream of audit events. The builtin `cpln` context cannot be a resource (check
 * refuses it: it can be neither changed nor deleted); read it with `AuditContext.get`.
 *
 * `name` and `org` cannot change in place; description and tags are updated with one PATCH. The resource id is the
 * self link (`/org/<org>/auditctx/<name>`).
 */
export class AuditContext extends NamedResource {
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

import * as pulumi from "@pulumi/pulumi";
import { providers } from "../provider/dynamic.js";
import { NamedResource, namedArgsProps, recordOutputProps, type NamedResourceArgs } from "./named.js";

/** Arguments of a `ServiceAccount`. */
export type ServiceAccountArgs = NamedResourceArgs;

const outputProps = {
  ...namedArgsProps,
  ...recordOutputProps,
  origin: undefined,
  keyNames: undefined,
};

/**
 * A Control Plane service account: a non-human principal that authenticates with keys (see `ServiceAccountKey`).
 *
 * `name` and `org` cannot change in place; description and tags are updated with one PATCH. The resource id is the
 * self link (`/org/<org>/serviceaccount/<name>`).
 */
export class ServiceAccount extends NamedResource {
  /** `default`; `builtin` ones cannot be changed or deleted. */
  declare readonly origin: pulumi.Output<"default" | "builtin">;
  /** Names of the account's keys (the text before the first `.` of a key); the keys themselves are never read. */
  declare readonly keyNames: pulumi.Output<string[]>;

  /** Reads an existing service account by its self link (`/org/<org>/serviceaccount/<name>`) without managing it. */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): ServiceAccount {
    return new ServiceAccount(name, undefined, { ...opts, id });
  }

  constructor(name: string, args?: ServiceAccountArgs, opts?: pulumi.CustomResourceOptions);
  /** Reading an existing service account (`opts.id` set): no args. */
  constructor(name: string, args: undefined, opts: pulumi.CustomResourceOptions & { id: pulumi.Input<pulumi.ID> });
  constructor(name: string, args?: ServiceAccountArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providers.ServiceAccount,
      name,
      { ...outputProps, ...args, __logicalName: name },
      opts,
      "cpln",
      "ServiceAccount",
    );
  }
}

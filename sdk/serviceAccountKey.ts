import * as pulumi from "@pulumi/pulumi";
import { providers } from "../provider/dynamic.js";

/** Arguments of a `ServiceAccountKey`. */
export interface ServiceAccountKeyArgs {
  /** Name of the service account. Changing it replaces the key. */
  serviceAccount: pulumi.Input<string>;
  /** Description of the key (required by the API). Changing it replaces the key. */
  description: pulumi.Input<string>;
  /** Org; defaults to the `cpln:org` stack config, then `CPLN_ORG`. Changing it replaces the key. */
  org?: pulumi.Input<string>;
}

const outputProps = {
  serviceAccount: undefined,
  description: undefined,
  org: undefined,
  name: undefined,
  key: undefined,
  created: undefined,
  serviceAccountLink: undefined,
};

/** The outputs Pulumi keeps encrypted in the state and redacts in the CLI. */
const secretOutputs = ["key"];

/**
 * A key of a Control Plane service account, added with `-addKey`. The key is returned once, when it is added: it is
 * the secret output `key`, ready to hand to CI as a secret stack output (`export const ciKey = key.key`).
 *
 * Every input replaces the key when it changes; destroying the resource revokes the key. The resource id is
 * `/org/<org>/serviceaccount/<name>#<key name>`.
 */
export class ServiceAccountKey extends pulumi.dynamic.Resource {
  declare readonly serviceAccount: pulumi.Output<string>;
  declare readonly description: pulumi.Output<string>;
  declare readonly org: pulumi.Output<string>;
  /** Name of the key: the text before the first `.` of the key (what `ServiceAccount.keyNames` lists). */
  declare readonly name: pulumi.Output<string>;
  /** The key itself, a secret. Absent when read with `.get` (the API never returns a key twice). */
  declare readonly key: pulumi.Output<string | undefined>;
  declare readonly created: pulumi.Output<string>;
  /** `/org/<org>/serviceaccount/<name>`. */
  declare readonly serviceAccountLink: pulumi.Output<string>;

  /** Reads an existing key's metadata by id (`/org/<org>/serviceaccount/<name>#<key name>`) without managing it. */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): ServiceAccountKey {
    return new ServiceAccountKey(name, undefined, { ...opts, id });
  }

  constructor(name: string, args: ServiceAccountKeyArgs, opts?: pulumi.CustomResourceOptions);
  /** Reading an existing key (`opts.id` set): no args. */
  constructor(name: string, args: undefined, opts: pulumi.CustomResourceOptions & { id: pulumi.Input<pulumi.ID> });
  constructor(name: string, args: ServiceAccountKeyArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    const additionalSecretOutputs = [...(opts?.additionalSecretOutputs ?? []), ...secretOutputs];
    super(
      providers.ServiceAccountKey,
      name,
      { ...outputProps, ...args, __logicalName: name },
      { ...opts, additionalSecretOutputs },
      "cpln",
      "ServiceAccountKey",
    );
  }
}

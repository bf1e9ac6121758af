import * as pulumi from "@pulumi/pulumi";
import { providers } from "../provider/dynamic.js";
import type { LocationOutputs } from "../provider/resources/location.js";
import type { LocationOutputs as LocationPublicOutputs } from "./types.js";

/** Arguments of a `Location`. An arg left out is not managed: the location keeps its current value. */
export interface LocationArgs {
  /** Name of the existing location to manage (`aws-eu-central-1`). Changing it releases this one and adopts the other. */
  name: pulumi.Input<string>;
  /** Whether workloads may run in this location. */
  enabled?: pulumi.Input<boolean>;
  /** Description, at most 250 characters. */
  description?: pulumi.Input<string>;
  /** User tags (the location's `cpln/` tags, such as `cpln/city`, are kept and not accepted here). */
  tags?: pulumi.Input<Record<string, pulumi.Input<string | number | boolean | null>>>;
  /** Org; defaults to the `cpln:org` stack config, then `CPLN_ORG`. Changing it replaces the resource. */
  org?: pulumi.Input<string>;
}

const outputProps: Record<keyof LocationOutputs, undefined> = {
  name: undefined,
  enabled: undefined,
  description: undefined,
  tags: undefined,
  org: undefined,
  serverTags: undefined,
  cplnId: undefined,
  selfLink: undefined,
  version: undefined,
  created: undefined,
  lastModified: undefined,
  origin: undefined,
  provider: undefined,
  region: undefined,
  geo: undefined,
  ipRanges: undefined,
  original: undefined,
};

/**
 * An existing Control Plane location, adopted: create reads it and sets the given `enabled`, `description` and
 * `tags`; delete restores the values it had before (`original`). Locations are never created or deleted by this
 * resource. The resource id is the self link (`/org/<org>/location/<name>`).
 */
export class Location extends pulumi.dynamic.Resource {
  declare readonly name: pulumi.Output<string>;
  declare readonly enabled: pulumi.Output<boolean>;
  declare readonly description: pulumi.Output<string>;
  /** User tags (the server's `cpln/` tags are in `serverTags`). */
  declare readonly tags: pulumi.Output<Record<string, unknown>>;
  declare readonly org: pulumi.Output<string>;
  /** Tags set by the server: `cpln/city`, `cpln/country`, `cpln/continent`, ... */
  declare readonly serverTags: pulumi.Output<Record<string, unknown> | undefined>;
  /** The API's id (UUID). */
  declare readonly cplnId: pulumi.Output<string>;
  /** `/org/<org>/location/<name>` (also the resource id). */
  declare readonly selfLink: pulumi.Output<string>;
  declare readonly version: pulumi.Output<number>;
  declare readonly created: pulumi.Output<string>;
  declare readonly lastModified: pulumi.Output<string>;
  /** `builtin` (cloud regions), `default`, or `custom` (BYOK). */
  declare readonly origin: pulumi.Output<LocationPublicOutputs["origin"]>;
  /** Cloud provider (`aws`, `gcp`, `azure`, ...). */
  declare readonly provider: pulumi.Output<LocationPublicOutputs["provider"]>;
  /** Provider region. */
  declare readonly region: pulumi.Output<string>;
  /** Where the location is. */
  declare readonly geo: pulumi.Output<LocationPublicOutputs["geo"]>;
  /** Egress IP ranges (CIDR). */
  declare readonly ipRanges: pulumi.Output<string[] | undefined>;
  /** The values found when the location was adopted; delete restores them. */
  declare readonly original: pulumi.Output<LocationPublicOutputs["original"]>;

  /** Reads a location by its self link (`/org/<org>/location/<name>`) without managing it. */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): Location {
    return new Location(name, undefined, { ...opts, id });
  }

  constructor(name: string, args: LocationArgs, opts?: pulumi.CustomResourceOptions);
  /** Reading an existing location (`opts.id` set): no args. */
  constructor(name: string, args: undefined, opts: pulumi.CustomResourceOptions & { id: pulumi.Input<pulumi.ID> });
  constructor(name: string, args: LocationArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    super(providers.Location, name, { ...outputProps, ...args, __logicalName: name }, opts, "cpln", "Location");
  }
}

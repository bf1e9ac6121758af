/**
 * Location: adopts an existing location (`/org/{org}/location/{name}`); locations are never created or deleted
 * through this resource. Create reads the location, keeps its current `enabled`, `description` and user tags as
 * `original`, and PATCHes what the args set; delete PATCHes the originals back. An arg left out is not managed: its
 * current value stays.
 */
import { z } from "zod";
import { parseOnce } from "../../api/parseOnce.js";
import { lazy } from "../../api/lazy.js";
import { selfLink } from "../../api/links.js";
import { patchRules as allPatchRules } from "../../api/kinds/index.js";
import type { JsonObject } from "../../api/patch/index.js";
import { description, name, tags } from "../../api/schemas/common.js";
import {
  location as locationRecord,
  locationGeo,
  locationOrigins,
  locationProviders,
} from "../../api/schemas/location.js";
import { jsonObject, updatePatch } from "./lifecycle.js";
import { configureExisting, patchUpdate, readIgnoringMissing, recordMeta, restoreSettings } from "./requests.js";
import { namedRecordOutputs, orgInput } from "./common.js";
import type { FieldRules, Props, ResourceContext, ResourceDefinition } from "./types.js";

// ---- input schema ---------------------------------------------------------------------------------------------------

export const locationInputs = lazy(() =>
  z.strictObject({
    name: name().describe("Name of the existing location to manage, e.g. aws-eu-central-1."),
    enabled: z.boolean().optional().describe("Whether workloads may run in this location; left as it is when omitted."),
    description: description().optional().describe("Description of the location; left as it is when omitted."),
    tags: tags()
      .optional()
      .describe("User tags of the location (server tags under cpln/ are kept); left as they are when omitted."),
    org: orgInput("location"),
  }),
);
export type LocationInputs = z.infer<ReturnType<typeof locationInputs>>;

export const locationOriginal = lazy(() =>
  z
    .object({
      enabled: z.boolean().optional().describe("enabled before this resource managed the location."),
      description: z.string().optional().describe("Description before this resource managed the location."),
      tags: z
        .record(z.string(), z.unknown())
        .optional()
        .describe("User tags before this resource managed the location."),
    })
    .describe("The values found when the location was adopted; delete restores them."),
);

export const locationOutputs = lazy(() =>
  locationInputs().extend({
    enabled: z.boolean().describe("Whether workloads may run in this location."),
    description: z.string().describe("Description of the location."),
    tags: z.record(z.string(), z.unknown()).describe("User tags (server tags under cpln/ are in serverTags)."),
    org: z.string().describe("Org of the location."),
    serverTags: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("Tags set by the server (keys under cpln/: city, country, continent)."),
    cplnId: z.string().describe("The API's id (UUID) of the location."),
    selfLink: z.string().describe("Link of the location, /org/<org>/location/<name> (also the resource id)."),
    version: z.number().describe("Version, incremented on every change."),
    created: z.string().describe("When the location was created."),
    lastModified: z.string().describe("When the location last changed."),
    origin: z.enum(locationOrigins).describe("builtin (cloud regions), default, or custom (BYOK)."),
    provider: z.enum(locationProviders).describe("Cloud provider."),
    region: z.string().describe("Provider region."),
    geo: locationGeo().optional(),
    ipRanges: z.array(z.string()).optional().describe("Egress IP ranges (CIDR)."),
    original: locationOriginal(),
  }),
);
export type LocationOutputs = z.infer<ReturnType<typeof locationOutputs>>;
type LocationOriginal = z.infer<ReturnType<typeof locationOriginal>>;

// ---- field rules ----------------------------------------------------------------------------------------------------

const fields: FieldRules<LocationInputs> = {
  name: { replace: true },
  enabled: { whenOmitted: "unmanaged", apiPath: "spec.enabled" },
  description: { whenOmitted: "unmanaged" },
  tags: { whenOmitted: "unmanaged", serverKeyPrefix: "cpln/" },
  org: { replace: true },
};

// ---- toApi / fromApi ------------------------------------------------------------------------------------------------

function toApi(inputs: Props) {
  return jsonObject({ description: inputs.description, tags: inputs.tags, spec: { enabled: inputs.enabled } });
}

function fromApi(record: unknown, prior: Props): LocationOutputs {
  const parsed = parseOnce(locationRecord(), record);
  const meta = recordMeta(parsed, "cpln/");
  return {
    ...namedRecordOutputs(parsed, meta),
    enabled: parsed.spec.enabled ?? true,
    origin: parsed.origin,
    provider: parsed.provider,
    region: parsed.region,
    geo: parsed.status?.geo,
    ipRanges: parsed.status?.ipRanges,
    original: (prior.original as LocationOriginal | undefined) ?? {},
  } as LocationOutputs;
}

function originalOf(outs: LocationOutputs): LocationOriginal {
  return { enabled: outs.enabled, description: outs.description, tags: outs.tags };
}

// ---- the definition: check, diff (generic, from the tables above), create, read, update, delete ---------------------

export const locationDefinition = {
  typeName: "Location",
  kind: "location",
  description:
    "An existing Control Plane location, adopted: create reads it and sets the given enabled/description/tags; " +
    "delete restores the values it had before. Locations are never created or deleted by this resource.",
  inputs: locationInputs,
  outputs: locationOutputs,

  fields,
  patchRules: () => allPatchRules.location ?? { arrays: {} },
  autoname: false,

  toApi,
  fromApi,

  // check
  defaults: () => ({}),
  contractIssues: () => [],
  normalize: (inputs) => inputs,

  // create: one GET (404 names the location), then one PATCH if the args differ from what is there.
  async create(ctx: ResourceContext, inputs: LocationInputs): Promise<{ id: string; outs: LocationOutputs }> {
    const missing = `Location "${inputs.name}" does not exist in org "${ctx.org}": this resource manages existing locations only`;
    return configureExisting(
      locationDefinition,
      ctx,
      selfLink(ctx.org, "location", inputs.name),
      inputs,
      missing,
      originalOf,
    );
  },

  // read: one GET; undefined when it is gone. `original` is carried over from the state.
  async read(ctx: ResourceContext, id: string, props: Props): Promise<LocationOutputs | undefined> {
    const record = await readIgnoringMissing(ctx, id);
    return record === undefined ? undefined : fromApi(record, props);
  },

  // update: one PATCH built by buildPatch, none when nothing managed changed.
  async update(
    ctx: ResourceContext,
    id: string,
    olds: LocationOutputs,
    news: LocationInputs,
  ): Promise<LocationOutputs> {
    return patchUpdate(locationDefinition, ctx, id, olds, news);
  },

  // delete: one PATCH restoring the original values (the location itself stays); 404 counts as done.
  async delete(ctx: ResourceContext, id: string, props: LocationOutputs): Promise<void> {
    const original = props.original;
    const restored = { ...props, ...original, tags: original.tags ?? {} };
    const body: JsonObject = updatePatch(locationDefinition, props, restored);
    // enabled and description are always sent: the state may be older than the location's current values.
    const spec = typeof body.spec === "object" && body.spec !== null && !Array.isArray(body.spec) ? body.spec : {};
    if (original.enabled !== undefined) body.spec = { ...spec, enabled: original.enabled };
    if (original.description !== undefined) body.description = original.description;
    await restoreSettings(ctx, id, body);
  },
} satisfies ResourceDefinition<LocationInputs, LocationOutputs>;

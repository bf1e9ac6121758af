/**
 * Org: the settings of an existing org (`/org/{org}`), adopted like a Location — an org is never created or deleted
 * here. Create reads the org, keeps its description, user tags and spec as `original`, and PATCHes what the args set;
 * an arg left out is not managed (its current value stays). Delete PATCHes the originals back: a setting the org did
 * not have is removed (the server then fills its default, e.g. sessionTimeoutSeconds 900).
 */
import { z } from "zod";
import { patchRules as allPatchRules } from "../../api/kinds/index.js";
import { lazy } from "../../api/lazy.js";
import type { JsonObject } from "../../api/patch/index.js";
import { parseOnce } from "../../api/parseOnce.js";
import { description, tags } from "../../api/schemas/common.js";
import { org as orgRecord, orgSpec } from "../../api/schemas/org.js";
import { jsonObject, updatePatch } from "./lifecycle.js";
import { configureExisting, patchUpdate, readIgnoringMissing, recordMeta, restoreSettings } from "./requests.js";
import { namedRecordOutputs, orgInput } from "./common.js";
import type { FieldRule, FieldRules, Props, ResourceContext, ResourceDefinition } from "./types.js";

/** The spec's settings, each an arg of its own (as @pulumiverse/cpln's Org has them). */
const specShape = () => orgSpec().shape as Record<string, z.ZodType>;

export const orgInputs = lazy(() =>
  z.strictObject({
    ...orgSpec().shape,
    description: description().optional().describe("Description of the org; left as it is when omitted."),
    tags: tags()
      .optional()
      .describe("User tags of the org (server tags under cpln/ kept); left as they are when omitted."),
    org: orgInput("settings"),
  }),
);
export type OrgInputs = z.infer<ReturnType<typeof orgInputs>>;

const orgOriginal = lazy(() =>
  z
    .object({
      description: z.string().optional().describe("Description before this resource managed the org."),
      tags: z.record(z.string(), z.unknown()).optional().describe("User tags before this resource managed the org."),
      spec: z.record(z.string(), z.unknown()).optional().describe("The settings before this resource managed the org."),
    })
    .describe("The values found when the org was adopted; delete restores them."),
);
type OrgOriginal = z.infer<ReturnType<typeof orgOriginal>>;

export const orgOutputs = lazy(() =>
  orgInputs().extend({
    name: z.string().describe("Name of the org."),
    description: z.string().describe("Description of the org."),
    tags: z.record(z.string(), z.unknown()).describe("User tags (server tags under cpln/ are in serverTags)."),
    org: z.string().describe("The org."),
    serverTags: z.record(z.string(), z.unknown()).optional().describe("Tags set by the server (keys under cpln/)."),
    cplnId: z.string().describe("The API's id (UUID) of the org."),
    selfLink: z.string().describe("Link of the org, /org/<org> (also the resource id)."),
    version: z.number().describe("Version, incremented on every change."),
    created: z.string().describe("When the org was created."),
    lastModified: z.string().describe("When the org last changed."),
    status: z.record(z.string(), z.unknown()).optional().describe("Server-maintained state."),
    original: orgOriginal(),
  }),
);
export type OrgOutputs = z.infer<ReturnType<typeof orgOutputs>>;

// ---- field rules ----------------------------------------------------------------------------------------------------

let fieldTable: Record<string, FieldRule> | undefined;
function fields(): Record<string, FieldRule> {
  fieldTable ??= {
    ...Object.fromEntries(
      Object.keys(specShape()).map((field) => [field, { whenOmitted: "unmanaged", apiPath: `spec.${field}` }]),
    ),
    description: { whenOmitted: "unmanaged" },
    tags: { whenOmitted: "unmanaged", serverKeyPrefix: "cpln/" },
    org: { replace: true },
  };
  return fieldTable;
}

// ---- toApi / fromApi ------------------------------------------------------------------------------------------------

function specOf(values: Props): Props {
  return Object.fromEntries(Object.keys(specShape()).map((field) => [field, values[field]]));
}

function toApi(inputs: Props) {
  return jsonObject({ description: inputs.description, tags: inputs.tags, spec: jsonObject(specOf(inputs)) });
}

function fromApi(record: unknown, prior: Props): OrgOutputs {
  const parsed = parseOnce(orgRecord(), record);
  const meta = recordMeta(parsed, "cpln/");
  return {
    ...(parsed.spec ?? {}),
    ...namedRecordOutputs(parsed, meta),
    org: parsed.name,
    status: parsed.status,
    original: (prior.original as OrgOriginal | undefined) ?? {},
  } as OrgOutputs;
}

// ---- the definition -------------------------------------------------------------------------------------------------

export const orgDefinition = {
  typeName: "Org",
  kind: "org",
  description:
    "The settings of an existing Control Plane org, adopted: create reads the org and sets the given settings, " +
    "description and tags (observability retention, session timeout, logging, tracing, auth config, security); an " +
    "arg left out stays as it is; delete restores what the org had before. Orgs are never created or deleted here.",
  inputs: orgInputs,
  outputs: orgOutputs,

  get fields(): FieldRules<OrgInputs> {
    return fields() as FieldRules<OrgInputs>;
  },
  patchRules: () => allPatchRules.org ?? { arrays: {} },
  autoname: false,

  toApi,
  fromApi,

  defaults: () => ({}),
  contractIssues: () => [],
  normalize: (inputs) => inputs,
  // pulumiverse's (Terraform's) import id, ORG_NAME (terraform-provider-cpln v1.2.31 docs/resources/org.md): that org,
  // not the configured one (whose link the default `name` form would give whatever the name).
  importId: {
    form: "<org name>",
    resolve: (_org: string, id: string) => (/^[^/:#]+$/.test(id) ? `/org/${id}` : undefined),
  },

  // create: one GET (404 names the org), then one PATCH if the args differ from what is there.
  async create(ctx: ResourceContext, inputs: OrgInputs): Promise<{ id: string; outs: OrgOutputs }> {
    const missing = `Org "${ctx.org}" does not exist or cannot be read with this token`;
    return configureExisting(orgDefinition, ctx, `/org/${ctx.org}`, inputs, missing, (current: OrgOutputs, record) => ({
      description: current.description,
      tags: current.tags,
      spec: parseOnce(orgRecord(), record).spec ?? {},
    }));
  },

  async read(ctx: ResourceContext, id: string, props: Props): Promise<OrgOutputs | undefined> {
    const record = await readIgnoringMissing(ctx, id);
    return record === undefined ? undefined : fromApi(record, props);
  },

  async update(ctx: ResourceContext, id: string, olds: OrgOutputs, news: OrgInputs): Promise<OrgOutputs> {
    return patchUpdate(orgDefinition, ctx, id, olds, news);
  },

  // delete: one PATCH putting back the description, the user tags and every setting the stack managed (null where the
  // org had none); the org itself stays.
  async delete(ctx: ResourceContext, id: string, props: OrgOutputs): Promise<void> {
    const original = props.original;
    const managed = Object.keys(specShape()).filter((field) => (props as Props)[field] !== undefined);
    const tagsBack: JsonObject = updatePatch(orgDefinition, props, { ...props, tags: original.tags ?? {} });
    const body: JsonObject = {
      ...(tagsBack.tags !== undefined ? { tags: tagsBack.tags } : {}),
      ...(original.description !== undefined ? { description: original.description } : {}),
    };
    if (managed.length > 0) {
      body.spec = Object.fromEntries(
        managed.map((field) => [field, (original.spec?.[field] as JsonObject[string] | undefined) ?? null]),
      );
    }
    await restoreSettings(ctx, id, body);
  },
} satisfies ResourceDefinition<OrgInputs, OrgOutputs>;

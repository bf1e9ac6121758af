/**
 * What every named resource (VolumeSet, Policy, Group, ServiceAccount, AuditContext, CloudAccount) shares, written
 * once: the input and output fields (described with the kind's noun), their field rules, the common part of fromApi
 * and toApi, and the create/read/update/delete of a plain named kind. Also the `org` input every resource has.
 */

import { z } from "zod";
import type { Kind } from "../../api/kinds/index.js";
import { collectionPath, selfLink } from "../../api/links.js";
import type { JsonObject } from "../../api/patch/index.js";
import { description, name, tags } from "../../api/schemas/common.js";
import { jsonObject } from "./lifecycle.js";
import { createOrAdopt, deleteIgnoringMissing, patchUpdate, readIgnoringMissing, type RecordMeta } from "./requests.js";
import type { AnyResourceDefinition, FieldRule, Props, ResourceContext, ResourceDefinition } from "./types.js";

/** The `org` input of every resource: where the object lives; a change replaces the resource. */
export function orgInput(noun: string) {
  return z
    .string()
    .min(1)
    .optional()
    .describe(`Org of the ${noun}; defaults to the \`cpln:org\` stack config or CPLN_ORG. Changing it replaces.`);
}

/** `name`, `description`, `tags`, `org`, `adopt`. */
export function namedInputFields(noun: string) {
  return {
    name: name()
      .optional()
      .describe(`Name of the ${noun}; defaults to \`<resource name>-<7 hex>\`. Changing it replaces the ${noun}.`),
    description: description().optional(),
    tags: tags().optional(),
    org: orgInput(noun),
    adopt: z
      .boolean()
      .optional()
      .describe(`Take over an existing ${noun} of this name (updating it to these args) instead of failing.`),
  };
}

/** What the server adds to every record, as outputs; `selfLinkForm` shows the link's shape. */
export function recordOutputFields(noun: string, selfLinkForm: string) {
  return {
    name: z.string().describe(`Name of the ${noun}.`),
    org: z.string().describe(`Org of the ${noun}.`),
    description: z.string().describe("Description (the name unless set)."),
    tags: z.record(z.string(), z.unknown()).describe("User tags (server tags under cpln/ are in serverTags)."),
    serverTags: z.record(z.string(), z.unknown()).optional().describe("Tags set by the server (keys under cpln/)."),
    cplnId: z.string().describe(`The API's id (UUID) of the ${noun}.`),
    selfLink: z.string().describe(`Link of the ${noun}, ${selfLinkForm} (also the resource id).`),
    version: z.number().describe("Version, incremented on every change."),
    created: z.string().describe(`When the ${noun} was created.`),
    lastModified: z.string().describe(`When the ${noun} last changed.`),
  };
}

/** The field rules of `namedInputFields`: name and org replace, tags keep the server's `cpln/` keys, adopt is local. */
export const namedFieldRules = {
  name: { replace: true },
  description: {},
  tags: { serverKeyPrefix: "cpln/" },
  org: { replace: true },
  adopt: { local: true },
} as const satisfies Record<string, FieldRule>;

/** The parts of an API record every named kind has (`recordMeta` gives the link, org and split tags). */
export interface NamedRecord {
  id: string;
  name: string;
  description?: string | undefined;
  version: number;
  created: string;
  lastModified: string;
}

/** The outputs of `recordOutputFields`, from a parsed record and its `recordMeta`; the description defaults to the name. */
export function namedRecordOutputs(parsed: NamedRecord, meta: RecordMeta) {
  return {
    name: parsed.name,
    description: parsed.description ?? parsed.name,
    tags: meta.tags,
    serverTags: meta.serverTags,
    org: meta.org,
    cplnId: parsed.id,
    selfLink: meta.selfLink,
    version: parsed.version,
    created: parsed.created,
    lastModified: parsed.lastModified,
  };
}

/** The API body of `namedInputFields` (name, description, tags) plus the kind's own fields, `undefined`s dropped. */
export function namedApiBody(inputs: Props, own: Props = {}): JsonObject {
  return jsonObject({ name: inputs.name, description: inputs.description, tags: inputs.tags, ...own });
}

/** Where a named kind lives: its collection in the org (or in a gvc, for gvc-scoped kinds). */
export interface NamedKindScope<Inputs> {
  /** The gvc an object of a gvc-scoped kind lives in, from its inputs. */
  gvc?: (inputs: Inputs) => string;
}

/**
 * Create, read, update and delete of a plain named kind, whose resource id is its self link:
 *   create = one POST to the collection; with `adopt`, a 409 becomes a GET and (if anything differs) one PATCH;
 *   read   = one GET; undefined when it is gone;
 *   update = one PATCH built by buildPatch, none when nothing managed changed;
 *   delete = one DELETE; 404 counts as deleted.
 * `definition` is called when a request is made (the definition object holds these methods itself).
 */
export function namedKindLifecycle<Inputs extends { name?: string | undefined }, Outputs extends { selfLink: string }>(
  kind: Kind,
  definition: () => AnyResourceDefinition,
  scope: NamedKindScope<Inputs> = {},
): Pick<ResourceDefinition<Inputs, Outputs>, "adoption" | "create" | "read" | "update" | "delete"> {
  return {
    adoption: { link: (org, inputs) => selfLink(org, kind, String(inputs.name), scope.gvc?.(inputs)) },

    async create(ctx: ResourceContext, inputs: Inputs): Promise<{ id: string; outs: Outputs }> {
      const gvc = scope.gvc?.(inputs);
      const link = selfLink(ctx.org, kind, String(inputs.name), gvc);
      const record = await createOrAdopt(definition(), ctx, inputs, collectionPath(ctx.org, kind, gvc), link);
      const outs = definition().fromApi(record, inputs) as Outputs;
      return { id: outs.selfLink, outs };
    },

    async read(ctx: ResourceContext, id: string, props: Props): Promise<Outputs | undefined> {
      const record = await readIgnoringMissing(ctx, id);
      return record === undefined ? undefined : (definition().fromApi(record, props) as Outputs);
    },

    async update(ctx: ResourceContext, id: string, olds: Outputs, news: Inputs): Promise<Outputs> {
      return patchUpdate(definition(), ctx, id, olds as Outputs & Props, news);
    },

    async delete(ctx: ResourceContext, id: string): Promise<void> {
      await deleteIgnoringMissing(ctx, id);
    },
  };
}

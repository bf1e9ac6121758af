/**
 * The requests the resources share: a read or delete that counts a missing object as gone, the one PATCH of an update,
 * create with adopt (take over an existing object), configuring an object that exists outside any stack (Location,
 * Org) and restoring it, and the common fields of a record as outputs.
 */
import { findLink, parseLink, type Link } from "../../api/links.js";
import { buildPatch, describePatch, formatPatchChange, type JsonObject } from "../../api/patch/index.js";
import type { AdoptionNotice } from "../adoptNotice.js";
import { isCplnApiError } from "../client/errors.js";
import type { AnyResourceDefinition, Props, ResourceContext } from "./types.js";
import { containsUnknown, desiredInputs, isEmptyPatch, managedBody, UNKNOWN, updatePatch } from "./lifecycle.js";

function isNotFound(error: unknown): boolean {
  return isCplnApiError(error) && error.status === 404;
}

/** One GET of the object; undefined when it is gone (404). */
export async function readIgnoringMissing(ctx: ResourceContext, link: string): Promise<unknown> {
  try {
    return await ctx.client.getByLink(link);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** One DELETE; an object that is already gone counts as deleted. */
export async function deleteIgnoringMissing(ctx: ResourceContext, link: string): Promise<void> {
  try {
    await ctx.client.deleteByLink(link);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/**
 * Create of an object that exists outside any stack and is only configured by one (Location, Org): one GET (a missing
 * object fails with `missing`), then one PATCH if the args differ from what is there. The outputs carry `original`,
 * what the object had before, for `restoreSettings`.
 */
export async function configureExisting<O extends Props>(
  definition: AnyResourceDefinition,
  ctx: ResourceContext,
  link: string,
  inputs: Props,
  missing: string,
  originalOf: (current: O, record: unknown) => Props,
): Promise<{ id: string; outs: O }> {
  const record = await readIgnoringMissing(ctx, link);
  if (record === undefined) throw new Error(missing);
  const current = definition.fromApi(record, {}) as O;
  const original = originalOf(current, record);
  const patch = updatePatch(definition, current, inputs);
  const result = isEmptyPatch(patch) ? record : await ctx.client.patchByLink(link, patch);
  const outs = definition.fromApi(result, { original }) as O;
  return { id: String(outs.selfLink), outs };
}

/** Delete of such an object: one PATCH putting the originals back; the object stays (already gone counts as done). */
export async function restoreSettings(ctx: ResourceContext, link: string, body: JsonObject): Promise<void> {
  try {
    await ctx.client.patchByLink(link, body);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/**
 * After a create failed: with `adopt: true` and a 409 AlreadyExists, takes the existing object over — one GET, then
 * one PATCH to the desired state if anything managed differs. Any other failure is raised (a 409 with a hint).
 */
export async function adoptExisting(
  definition: AnyResourceDefinition,
  ctx: ResourceContext,
  error: unknown,
  inputs: Props,
  link: string,
  patchFor: (current: Props, desired: Props) => JsonObject = (current, desired) =>
    adoptionPatch(definition, current, desired),
): Promise<unknown> {
  const exists = isCplnApiError(error) && error.status === 409 && error.code === "AlreadyExists";
  if (!exists) throw error;
  if (inputs.adopt !== true) {
    throw new Error(`${error.message}. Set \`adopt: true\` to take over the existing ${definition.typeName}.`);
  }
  const existing = await ctx.client.getByLink(link);
  const current = definition.fromApi(existing, inputs);
  const patch = patchFor(current, inputs);
  return isEmptyPatch(patch) ? existing : ctx.client.patchByLink(link, patch);
}

/** The PATCH that makes an existing object (`current`, as outputs) match the inputs: the definition's, or buildPatch. */
export function adoptionPatch(definition: AnyResourceDefinition, current: Props, desired: Props): JsonObject {
  return (
    definition.adoption?.patch?.(current, desired) ??
    buildPatch(managedBody(definition, current), managedBody(definition, desired), definition.patchRules())
  );
}

/**
 * For a create with `adopt: true`: one GET of the object the inputs name. Undefined when the kind does not adopt, the
 * object does not exist (the create will make it) or its link is not known yet; otherwise the changes the adopting
 * PATCH would make (the same PATCH create sends after its 409), inputs not known yet left out.
 */
export async function planAdoption(
  definition: AnyResourceDefinition,
  ctx: ResourceContext,
  inputs: Props,
): Promise<AdoptionNotice | undefined> {
  if (inputs.adopt !== true || definition.adoption === undefined) return undefined;
  const link = definition.adoption.link(ctx.org, inputs);
  if (link.includes(UNKNOWN)) return undefined;
  const existing = await readIgnoringMissing(ctx, link);
  if (existing === undefined) return undefined;
  const current = definition.fromApi(existing, inputs) as Props;
  // An input not known yet is compared as the value the object holds: it is listed apart, not as a change.
  const unknown = Object.keys(definition.fields).filter((field) => containsUnknown(inputs[field]));
  const desired: Props = { ...inputs };
  for (const field of unknown) desired[field] = current[field];
  const changes = describePatch(adoptionPatch(definition, current, desired), definition.patchRules());
  return { link, changes: changes.map(formatPatchChange), unknown };
}

/**
 * Update = one PATCH with `buildPatch(old managed body, new managed body)`; no request when that is `{}` (the
 * outputs then echo the new inputs over the old computed values). Returns the full outputs.
 */
export async function patchUpdate<O extends Props>(
  definition: AnyResourceDefinition,
  ctx: ResourceContext,
  id: string,
  olds: O,
  news: object,
): Promise<O> {
  const patch = updatePatch(definition, { ...olds }, { ...news });
  if (isEmptyPatch(patch)) {
    const outs: Props = { ...olds };
    for (const field of Object.keys(definition.fields)) delete outs[field];
    // Outputs echo the inputs: the new ones, over the computed values the server already holds.
    return { ...outs, ...desiredInputs(definition, { ...olds }, { ...news }) } as O;
  }
  const record = await ctx.client.patchByLink(id, patch);
  return definition.fromApi(record, { ...olds, ...news }) as O;
}

export interface RecordMeta {
  selfLink: string;
  org: string;
  gvc: string | undefined;
  /** Tags without the server's keys. */
  tags: Record<string, unknown>;
  /** The server's keys only. */
  serverTags: Record<string, unknown>;
}

/** Self link, org and gvc (from the self link), and the tags split into the user's and the server's. */
export function recordMeta(
  record: { links: Link[]; tags?: Record<string, unknown> | undefined; name: string },
  serverKeyPrefix: string,
): RecordMeta {
  const selfLink = findLink(record.links, "self");
  const parsed = selfLink === undefined ? undefined : parseLink(selfLink);
  if (selfLink === undefined || parsed === undefined) {
    throw new Error(`The API returned "${record.name}" without a valid self link`);
  }
  const tags: Record<string, unknown> = {};
  const serverTags: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record.tags ?? {})) {
    if (key.startsWith(serverKeyPrefix)) serverTags[key] = value;
    else tags[key] = value;
  }
  return { selfLink, org: parsed.org, gvc: parsed.gvc, tags, serverTags };
}

/**
 * Create = one POST of the managed body to `collection`; with `adopt: true`, a 409 becomes a GET of `link` and (if
 * anything managed differs) one PATCH. Returns the record.
 */
export async function createOrAdopt(
  definition: AnyResourceDefinition,
  ctx: ResourceContext,
  inputs: Props,
  collection: string,
  link: string,
): Promise<unknown> {
  try {
    return await ctx.client.createIn(collection, managedBody(definition, inputs));
  } catch (error) {
    return adoptExisting(definition, ctx, error, inputs, link);
  }
}

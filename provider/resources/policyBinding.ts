/**
 * PolicyBinding: grants one set of permissions to a list of principals on an existing policy, without owning the
 * policy (the analogue of GCP's IAMMember). It touches only its own principals in the binding of its permission set,
 * with item directives, so several PolicyBindings, a Policy resource (with `ignoreUndeclaredPrincipals`), other
 * stacks and people with the CLI can all grant on one policy without overwriting each other:
 *   create = one PATCH `$patch/bindings: [{permissions, $append/principalLinks}]` (the server creates the binding when
 *            the policy has none for that permission set);
 *   update = one PATCH that `$append/`s and `$drop/`s exactly the principals that changed;
 *   delete = one PATCH that `$drop/`s its own principals, and a second one that drops the binding when it is left
 *            empty; read sees only its own principals.
 *
 * Every one of these PATCHes also sets (or, on delete, removes) the binding's marker: one tag on the policy,
 * `cpln/pulumiPolicyBinding.<random id>`, whose value is the binding's key and its principals
 * (`"edit /org/o/serviceaccount/ci"`). It is how a Policy resource on the same policy — which cannot see other
 * resources' state — tells the principals a PolicyBinding owns from drift: it leaves them out of its outputs and never
 * drops them (see policy.ts). The tag is under `cpln/`, the prefix every resource already treats as not the user's
 * (as terraform-provider-cpln's own `cpln/managedByTerraform` tag, internal/provider/constants/constants.go), and it
 * rides in the same PATCH, so a binding and its marker appear and disappear together. One tag per PolicyBinding (not
 * per principal) keeps a policy well under the API's 50 tags.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { parseOnce } from "../../api/parseOnce.js";
import { lazy } from "../../api/lazy.js";
import { normalizeLink, parseLink, selfLink } from "../../api/links.js";
import { valueSet, type Json, type JsonObject, type PatchRules } from "../../api/patch/index.js";
import { binding, bindingKey, policy as policyRecord } from "../../api/schemas/policy.js";
import { isCplnApiError } from "../client/errors.js";
import { readIgnoringMissing } from "./requests.js";
import { orgInput } from "./common.js";
import type { FieldRules, InputIssue, Props, ResourceContext, ResourceDefinition } from "./types.js";

// ---- input schema ---------------------------------------------------------------------------------------------------

export const policyBindingInputs = lazy(() => {
  const shape = binding().shape;
  return z.strictObject({
    policy: z
      .string()
      .min(1)
      .describe(
        "The existing policy: its name, //policy/<name> or /org/<org>/policy/<name>. Changing it replaces the binding.",
      ),
    permissions: shape.permissions.describe(
      "Permissions granted, from the policy's target kind (view, edit, manage, ...); names the policy's binding. " +
        "Changing them replaces the PolicyBinding.",
    ),
    principalLinks: shape.principalLinks.describe(
      "Principals this resource grants the permissions to (1-200): //group/<g>, //user/<email>, //serviceaccount/<s>, " +
        "//gvc/<g>/identity/<i> or full links. Other principals of the same binding are left alone.",
    ),
    org: orgInput("policy"),
  });
});
export type PolicyBindingInputs = z.infer<ReturnType<typeof policyBindingInputs>>;

export const policyBindingOutputs = lazy(() =>
  policyBindingInputs().extend({
    policy: z.string().describe("Link of the policy, /org/<org>/policy/<name>."),
    principalLinks: z
      .array(z.string())
      .describe("This resource's principals that the policy grants the permissions to (full links)."),
    org: z.string().describe("Org of the policy."),
    bindingKey: z.string().describe("The binding's key: its permissions, sorted and joined with ','."),
    markerTag: z
      .string()
      .optional()
      .describe(
        "The tag this resource keeps on the policy (cpln/pulumiPolicyBinding.<id>), listing its principals, so that " +
          "a Policy resource on the same policy leaves them alone. Absent when read with .get.",
      ),
  }),
);
export type PolicyBindingOutputs = z.infer<ReturnType<typeof policyBindingOutputs>>;

// ---- field rules ----------------------------------------------------------------------------------------------------

const fields: FieldRules<PolicyBindingInputs> = {
  policy: { replace: true },
  permissions: { replace: true },
  principalLinks: {},
  org: { replace: true },
};

/** Permissions and principals are sets: order never makes a difference. */
const rules: PatchRules = { arrays: { permissions: valueSet, principalLinks: valueSet } };

// ---- toApi / fromApi ------------------------------------------------------------------------------------------------

/** The key of a permission set: sorted, without repeats, joined with ",". */
export function permissionsKey(permissions: readonly string[]): string {
  return bindingKey([...new Set(permissions)]);
}

/** One binding's change as a `$patch/bindings` partial: drops first, as the server applies them. */
export interface BindingChange {
  permissions: readonly string[];
  append: readonly string[];
  drop: readonly string[];
}

export function bindingPartial(change: BindingChange): JsonObject {
  return {
    permissions: [...change.permissions],
    ...(change.drop.length > 0 ? { "$drop/principalLinks": [...change.drop] } : {}),
    ...(change.append.length > 0 ? { "$append/principalLinks": [...change.append] } : {}),
  };
}

// ---- the marker tag ------------------------------------------------------------------------------------------------

/** Prefix of the tags PolicyBindings keep on their policy; the rest of the key is a random id per resource. */
export const BINDING_MARKER_PREFIX = "cpln/pulumiPolicyBinding.";

function newMarkerTag(): string {
  return `${BINDING_MARKER_PREFIX}${randomBytes(6).toString("hex")}`;
}

/** A marker's value: the binding's key, then its principals, space-separated. */
function markerValue(key: string, principals: readonly string[]): string {
  return [key, ...principals].join(" ");
}

/** The principals PolicyBindings own on a policy, per binding key, from the policy's tags. */
export function markedPrincipals(tags: Readonly<Record<string, unknown>> | undefined): Map<string, Set<string>> {
  const owned = new Map<string, Set<string>>();
  for (const [tag, value] of Object.entries(tags ?? {})) {
    if (!tag.startsWith(BINDING_MARKER_PREFIX) || typeof value !== "string") continue;
    const [key, ...principals] = value.split(" ").filter((part) => part !== "");
    if (key === undefined) continue;
    const set = owned.get(key) ?? new Set<string>();
    for (const principal of principals) set.add(principal);
    owned.set(key, set);
  }
  return owned;
}

/** True for a tag key that is a PolicyBinding's marker. */
export function isBindingMarker(tag: string): boolean {
  return tag.startsWith(BINDING_MARKER_PREFIX);
}

type PolicyBindings = { permissions: string[]; principalLinks: string[] }[];

/** The policy's bindings, from a record. */
export function bindingsOf(record: unknown): PolicyBindings {
  return (parseOnce(policyRecord(), record).bindings ?? []).map((b) => ({
    permissions: b.permissions,
    principalLinks: b.principalLinks,
  }));
}

/**
 * After a PATCH that dropped principals: bindings among `keys` that the PATCH left without principals are dropped
 * with one more PATCH (a binding needs a principal). Returns the latest record.
 */
export async function dropEmptiedBindings(
  ctx: ResourceContext,
  link: string,
  record: unknown,
  keys: readonly string[],
): Promise<unknown> {
  const empty = bindingsOf(record)
    .filter((b) => b.principalLinks.length === 0 && keys.includes(permissionsKey(b.permissions)))
    .map((b) => permissionsKey(b.permissions));
  return empty.length === 0 ? record : ctx.client.patchByLink(link, { "$drop/bindings": empty });
}

/** `policy` input → the policy's full link. */
function policyLink(policy: string, org: string): string {
  return policy.includes("/") ? normalizeLink(org, policy) : selfLink(org, "policy", policy);
}

/** Outputs from the policy record: of the binding of these permissions, only the principals in `own`. */
function fromApi(record: unknown, prior: Props): PolicyBindingOutputs {
  const permissions = (prior.permissions as string[] | undefined) ?? [];
  const key = permissionsKey(permissions);
  const parsed = parseOnce(policyRecord(), record);
  const present = bindingsOf(parsed).find((b) => permissionsKey(b.permissions) === key)?.principalLinks ?? [];
  const own = prior.principalLinks as string[] | undefined;
  const link = parseLink(String(prior.policy));
  return {
    policy: String(prior.policy),
    permissions,
    principalLinks: own === undefined ? present : own.filter((p) => present.includes(p)),
    org: link?.org ?? String(prior.org),
    bindingKey: key,
    ...(typeof prior.markerTag === "string" ? { markerTag: prior.markerTag } : {}),
  };
}

/** The resource id: the policy's link and the binding's key (`/org/o/policy/p#edit,view`). */
function bindingId(link: string, key: string): string {
  return `${link}#${key}`;
}

function splitId(id: string): { link: string; key: string } {
  const at = id.lastIndexOf("#");
  const link = at < 0 ? id : id.slice(0, at);
  const parsed = parseLink(link);
  if (at < 0 || parsed?.kind !== "policy" || parsed.name === undefined) {
    throw new Error(
      `"${id}" is not a policy binding id (/org/<org>/policy/<name>#<permissions, sorted, comma-joined>)`,
    );
  }
  return { link, key: id.slice(at + 1) };
}

function issues(inputs: PolicyBindingInputs): InputIssue[] {
  const found: InputIssue[] = [];
  const parsed = parseLink(policyLink(inputs.policy, inputs.org ?? "-"));
  if (parsed?.kind !== "policy" || parsed.name === undefined) {
    found.push({ path: "policy", message: "must be a policy name, //policy/<name> or /org/<org>/policy/<name>" });
  }
  const seen = new Set<string>();
  inputs.principalLinks.forEach((principal, index) => {
    if (seen.has(principal))
      found.push({ path: `principalLinks.${index}`, message: `duplicate principal '${principal}'` });
    seen.add(principal);
  });
  return found;
}

/** Removes a marker left behind (its binding is already gone): one PATCH, only when the policy still has the tag. */
async function removeMarker(ctx: ResourceContext, link: string, markerTag: string, known?: unknown): Promise<void> {
  const current = known ?? (await readIgnoringMissing(ctx, link));
  if (current === undefined) return;
  const tags = parseOnce(policyRecord(), current).tags ?? {};
  if (!(markerTag in tags)) return;
  try {
    await ctx.client.patchByLink(link, { tags: { [markerTag]: null } });
  } catch (error) {
    if (!(isCplnApiError(error) && error.status === 404)) throw error;
  }
}

function patchFailed(error: unknown, link: string): never {
  if (isCplnApiError(error) && error.status === 404) {
    throw new Error(`Policy ${link} does not exist: a PolicyBinding grants on an existing policy`, { cause: error });
  }
  // cpln-local answers 409 (the stored binding decides); the real API's status for it is not published.
  if (isCplnApiError(error) && (error.status === 409 || error.status === 400) && /already exists/.test(error.message)) {
    throw new Error(
      `${error.message}. A principal of this PolicyBinding already holds these permissions on ${link} (granted by ` +
        "another owner of the policy): declare each grant in one place",
      { cause: error },
    );
  }
  throw error;
}

// ---- the definition: check, diff (generic, from the tables above), create, read, update, delete ---------------------

export const policyBindingDefinition = {
  typeName: "PolicyBinding",
  kind: "policy",
  description:
    "Grants one set of permissions to principals on an existing policy without owning it (non-authoritative, like " +
    "GCP's IAMMember): it appends and drops only its own principals in the binding of its permission set, so other " +
    "PolicyBindings, a Policy resource with ignoreUndeclaredPrincipals, other stacks and CLI edits on the same policy " +
    "survive. policy, permissions and org replace it when they change.",
  inputs: policyBindingInputs,
  outputs: policyBindingOutputs,

  fields,
  patchRules: () => rules,
  autoname: false,
  // A replacement has other permissions, or another policy: it never collides with the binding it replaces.
  createBeforeReplace: true,

  toApi: (inputs) => ({
    "$patch/bindings": [
      bindingPartial({
        permissions: inputs.permissions as string[],
        append: inputs.principalLinks as string[],
        drop: [],
      }),
    ] as Json,
  }),
  fromApi,

  // check
  defaults: () => ({}),
  contractIssues: issues,
  normalize: (inputs, org) => ({
    ...inputs,
    policy: policyLink(inputs.policy, org),
    principalLinks: inputs.principalLinks.map((href) => normalizeLink(org, href)),
  }),

  // create: one PATCH appending the principals (the binding is created when the policy has none for these permissions).
  async create(ctx: ResourceContext, inputs: PolicyBindingInputs): Promise<{ id: string; outs: PolicyBindingOutputs }> {
    const link = inputs.policy;
    const change = { permissions: inputs.permissions, append: inputs.principalLinks, drop: [] };
    const markerTag = newMarkerTag();
    const marker = markerValue(permissionsKey(inputs.permissions), inputs.principalLinks);
    const record = await ctx.client
      .patchByLink(link, { "$patch/bindings": [bindingPartial(change)], tags: { [markerTag]: marker } })
      .catch((error: unknown) => patchFailed(error, link));
    const outs = fromApi(record, { ...inputs, markerTag });
    return { id: bindingId(link, outs.bindingKey), outs };
  },

  // read: one GET of the policy; undefined when the policy is gone. Only this resource's principals are seen (all of
  // the binding's when the state names none, as after .get).
  async read(ctx: ResourceContext, id: string, props: Props): Promise<PolicyBindingOutputs | undefined> {
    const { link, key } = splitId(id);
    const record = await readIgnoringMissing(ctx, link);
    if (record === undefined) return undefined;
    const permissions = Array.isArray(props.permissions)
      ? (props.permissions as string[])
      : (bindingsOf(record).find((b) => permissionsKey(b.permissions) === key)?.permissions ?? key.split(","));
    return fromApi(record, { ...props, policy: link, permissions });
  },

  // update: one PATCH with `$drop/` and `$append/` of exactly the principals that changed; none when none did.
  async update(
    ctx: ResourceContext,
    id: string,
    olds: PolicyBindingOutputs,
    news: PolicyBindingInputs,
  ): Promise<PolicyBindingOutputs> {
    const { link } = splitId(id);
    const before = olds.principalLinks;
    const change: BindingChange = {
      permissions: news.permissions,
      append: news.principalLinks.filter((p) => !before.includes(p)),
      drop: before.filter((p) => !news.principalLinks.includes(p)),
    };
    if (change.append.length === 0 && change.drop.length === 0) {
      return { ...olds, principalLinks: news.principalLinks };
    }
    // A state from before markers existed gets one now.
    const markerTag = olds.markerTag ?? newMarkerTag();
    const marker = markerValue(permissionsKey(news.permissions), news.principalLinks);
    const record = await ctx.client
      .patchByLink(link, { "$patch/bindings": [bindingPartial(change)], tags: { [markerTag]: marker } })
      .catch((error: unknown) => patchFailed(error, link));
    return fromApi(record, { ...olds, ...news, policy: link, markerTag });
  },

  // delete: one PATCH dropping its own principals (plus one dropping the binding when that leaves it empty). A policy
  // that is gone, or a binding that no longer exists, counts as done.
  async delete(ctx: ResourceContext, id: string, props: PolicyBindingOutputs): Promise<void> {
    const { link, key } = splitId(id);
    const own = props.principalLinks ?? [];
    const unmark: JsonObject = props.markerTag === undefined ? {} : { tags: { [props.markerTag]: null } };
    if (own.length === 0) {
      if (props.markerTag !== undefined) await removeMarker(ctx, link, props.markerTag);
      return;
    }
    let record: unknown;
    try {
      record = await ctx.client.patchByLink(link, {
        "$patch/bindings": [bindingPartial({ permissions: props.permissions, append: [], drop: own })],
        ...unmark,
      });
    } catch (error) {
      if (isCplnApiError(error) && error.status === 404) return;
      // A `$patch/` of a binding that is gone would create one without principals, which the server refuses.
      const current = await readIgnoringMissing(ctx, link);
      const binding =
        current === undefined ? undefined : bindingsOf(current).find((b) => permissionsKey(b.permissions) === key);
      if (binding === undefined || !binding.principalLinks.some((p) => own.includes(p))) {
        if (current !== undefined && props.markerTag !== undefined) {
          await removeMarker(ctx, link, props.markerTag, current);
        }
        return;
      }
      throw error;
    }
    await dropEmptiedBindings(ctx, link, record, [key]);
  },
} satisfies ResourceDefinition<PolicyBindingInputs, PolicyBindingOutputs>;

/**
 * Policy: grants permissions on objects of one kind to principals (`/org/{org}/policy/{name}`). Updates touch only
 * the bindings that changed (`$patch/bindings` keyed by permission set) and add or remove links one by one
 * (`$append/`, `$drop/`), so principals another client adds to other bindings survive.
 *
 * A PolicyBinding resource on the same policy, in this stack or another, is part of the design, not a fight: the policy's
 * principals that PolicyBindings own (each keeps a `cpln/pulumiPolicyBinding.<id>` marker tag on the policy listing
 * them, see policyBinding.ts) are left out of the outputs — so a refresh never reports a PolicyBinding's grant as drift
 * — and updates never drop them: bindings change principal by principal (`$patch/bindings` partials), a binding is
 * dropped only once it holds no principal at all. The Policy stays authoritative for every other principal: one
 * added with the CLI is drift, and the next update after a refresh removes it. (GCP's IAMPolicy, by contrast, cannot
 * be combined with IAMMember on one resource; a marker on the shared object is what lets the two agree here, since a
 * provider never sees another resource's state.)
 *
 * `ignoreUndeclaredPrincipals: true` lets the policy share its bindings with PolicyBinding resources, other stacks
 * and CLI edits: principals (and bindings) the args do not declare are left out of the outputs (never drift) and
 * updates touch only the declared principals, binding by binding (`$patch/bindings` with `$append/`/`$drop/` of
 * principals, never `$drop/bindings` of a binding that still holds someone else's principals).
 */
import { z } from "zod";
import { parseOnce } from "../../api/parseOnce.js";
import { lazy } from "../../api/lazy.js";
import { collectionPath, fromShortLink, normalizeLink, selfLink } from "../../api/links.js";
import { isPolicyKind, linkFormOf, patchRules as allPatchRules } from "../../api/kinds/index.js";
import type { JsonObject } from "../../api/patch/index.js";
import {
  policy as policyRecord,
  policyCreate,
  policyIssues,
  policyOrigins,
  type PolicyRules,
} from "../../api/schemas/policy.js";
import { isEmptyPatch, managedBody, desiredInputs, updatePatch, UNKNOWN } from "./lifecycle.js";
import { adoptExisting, deleteIgnoringMissing, readIgnoringMissing, recordMeta } from "./requests.js";
import {
  bindingPartial,
  dropEmptiedBindings,
  isBindingMarker,
  markedPrincipals,
  permissionsKey,
  type BindingChange,
} from "./policyBinding.js";
import { namedApiBody, namedFieldRules, namedInputFields, namedRecordOutputs, recordOutputFields } from "./common.js";
import type { FieldRules, Props, ResourceContext, ResourceDefinition } from "./types.js";

// ---- input schema ---------------------------------------------------------------------------------------------------

export const policyInputs = lazy(() => {
  const body = policyCreate().shape;
  return z.strictObject({
    targetKind: body.targetKind,
    targetLinks: body.targetLinks,
    targetQuery: body.targetQuery,
    target: body.target,
    bindings: body.bindings,
    ...namedInputFields("policy"),
    gvc: z
      .string()
      .min(1)
      .optional()
      .describe(
        "The gvc of the targets, for a targetKind that lives in a gvc (volumeset, workload, identity): targetLinks " +
          "may then name objects by name alone, as with @pulumiverse/cpln. Never sent; outputs hold full links.",
      ),
    ignoreUndeclaredPrincipals: z
      .boolean()
      .optional()
      .describe(
        "Share the policy's bindings with PolicyBindings, other stacks and CLI edits: principals the bindings here " +
          "do not declare are ignored (not drift, never removed), and an update appends and drops only declared " +
          "principals. Default false: the bindings here are the policy's whole bindings.",
      ),
  });
});
export type PolicyInputs = z.infer<ReturnType<typeof policyInputs>>;

export const policyOutputs = lazy(() =>
  policyInputs().extend({
    targetKind: z.string().describe("Kind of the objects the policy applies to."),
    ...recordOutputFields("policy", "/org/<org>/policy/<name>"),
    origin: z.enum(policyOrigins).describe("default for policies created through the API; builtin ones are read-only."),
  }),
);
export type PolicyOutputs = z.infer<ReturnType<typeof policyOutputs>>;

// ---- field rules ----------------------------------------------------------------------------------------------------

const fields: FieldRules<PolicyInputs> = {
  targetKind: { replace: true },
  targetLinks: {},
  targetQuery: {},
  target: {},
  bindings: {},
  ...namedFieldRules,
  // Only a way to write targetLinks: the links it produces are what changes.
  gvc: { local: true },
  // Never sent, but a change is an update (with no request), so that the outputs hold the option in force.
  ignoreUndeclaredPrincipals: {},
};

// ---- toApi / fromApi ------------------------------------------------------------------------------------------------

function toApi(inputs: Props) {
  return namedApiBody(inputs, {
    targetKind: inputs.targetKind,
    targetLinks: inputs.targetLinks,
    targetQuery: inputs.targetQuery,
    target: inputs.target,
    bindings: inputs.bindings,
  });
}

type Bindings = NonNullable<PolicyInputs["bindings"]>;

/** With `ignoreUndeclaredPrincipals`: of each binding, only the principals `declared` holds for its permission set. */
function declaredOnly(bindings: Bindings | undefined, declared: Bindings): Bindings | undefined {
  const result: Bindings = [];
  for (const b of bindings ?? []) {
    const mine = declared.find((d) => permissionsKey(d.permissions) === permissionsKey(b.permissions));
    if (mine === undefined) continue;
    const principalLinks = b.principalLinks.filter((p) => mine.principalLinks.includes(p));
    if (principalLinks.length > 0) result.push({ ...b, principalLinks });
  }
  return bindings === undefined ? undefined : result;
}

/** The bindings without the principals PolicyBindings own (listed by their marker tags); emptied bindings go. */
function withoutMarked(bindings: Bindings | undefined, tags: Readonly<Record<string, unknown>> | undefined) {
  const marked = markedPrincipals(tags);
  if (bindings === undefined || marked.size === 0) return bindings;
  const result: Bindings = [];
  for (const b of bindings) {
    const owned = marked.get(permissionsKey(b.permissions));
    const principalLinks = owned === undefined ? b.principalLinks : b.principalLinks.filter((p) => !owned.has(p));
    if (principalLinks.length > 0) result.push({ ...b, principalLinks });
  }
  return result;
}

function ignoresUndeclared(values: Props): boolean {
  return values.ignoreUndeclaredPrincipals === true;
}

function fromApi(record: unknown, prior: Props = {}): PolicyOutputs {
  const parsed = parseOnce(policyRecord(), record);
  const own = withoutMarked(parsed.bindings as Bindings | undefined, parsed.tags);
  const bindings = ignoresUndeclared(prior) ? declaredOnly(own, (prior.bindings as Bindings | undefined) ?? []) : own;
  const recorded = recordMeta(parsed, "cpln/");
  // PolicyBindings' markers come and go with their grants: not the policy's own server tags, so never drift.
  const serverTags = Object.fromEntries(Object.entries(recorded.serverTags).filter(([tag]) => !isBindingMarker(tag)));
  const meta = { ...recorded, serverTags };
  return {
    targetKind: parsed.targetKind,
    targetLinks: parsed.targetLinks,
    targetQuery: parsed.targetQuery,
    target: parsed.target,
    bindings,
    ...namedRecordOutputs(parsed, meta),
    origin: parsed.origin,
    ignoreUndeclaredPrincipals: prior.ignoreUndeclaredPrincipals,
  } as PolicyOutputs;
}

/** The server stores full links (`/org/o/group/g`); the args may use the relative form (`//group/g`). */
function normalize(inputs: PolicyInputs, org: string): PolicyInputs {
  const full = (links: readonly string[] | undefined) => links?.map((href) => normalizeLink(org, href));
  return {
    ...inputs,
    ...(inputs.targetLinks !== undefined ? { targetLinks: full(inputs.targetLinks) } : {}),
    ...(inputs.bindings !== undefined
      ? { bindings: inputs.bindings.map((b) => ({ ...b, principalLinks: full(b.principalLinks) ?? [] })) }
      : {}),
  };
}

/** Whether objects of a target kind live in a gvc (true), in the org (false), or the kind is unknown (undefined). */
function livesInGvc(kind: string): boolean | undefined {
  // Every kind of the policy set, served by cpln-local or not (workload, identity, secret ...), has its link form.
  return isPolicyKind(kind) ? linkFormOf(kind) === "gvcItem" : undefined;
}

/** A target link written as a bare name (pulumiverse's form): the relative link of that object of `kind`. */
function targetFromName(href: unknown, kind: string, gvc: unknown): unknown {
  if (typeof href !== "string" || href === UNKNOWN) return href;
  if (href.includes("/")) return fromShortLink(href);
  const inGvc = livesInGvc(kind);
  if (href === "" || inGvc === undefined) return href;
  if (!inGvc) return `//${kind}/${href}`;
  return typeof gvc === "string" && gvc !== "" && gvc !== UNKNOWN ? `//gvc/${gvc}/${kind}/${href}` : href;
}

/**
 * What a user of @pulumiverse/cpln writes: principals as `group/NAME` (terraform-provider-cpln resource_policy.go,
 * buildPrincipalLinks), targets by name with `gvc` for gvc-scoped kinds (buildTargetLinks). Rewritten to the
 * relative forms (`//group/NAME`, `//gvc/G/volumeset/NAME`), which normalize then makes full.
 */
function shortForms(inputs: Props): Props {
  const rewritten: Props = {};
  if (Array.isArray(inputs.bindings)) {
    rewritten.bindings = inputs.bindings.map((b: unknown) => {
      if (typeof b !== "object" || b === null || !Array.isArray((b as Props).principalLinks)) return b;
      const links = (b as { principalLinks: unknown[] }).principalLinks;
      return { ...b, principalLinks: links.map((href) => (typeof href === "string" ? fromShortLink(href) : href)) };
    });
  }
  if (Array.isArray(inputs.targetLinks) && typeof inputs.targetKind === "string") {
    const kind = inputs.targetKind;
    rewritten.targetLinks = inputs.targetLinks.map((href: unknown) => targetFromName(href, kind, inputs.gvc));
  }
  return rewritten;
}

/** `gvc` names the gvc of the targets: only for a target kind that lives in one. */
function gvcIssues(inputs: PolicyInputs): { path: string; message: string }[] {
  const { gvc, targetKind } = inputs;
  if (gvc === undefined || livesInGvc(targetKind) !== false) return [];
  return [{ path: "gvc", message: `only for a targetKind that lives in a gvc; ${targetKind} objects live in the org` }];
}

/**
 * The PATCH from `olds` to `news`: the generic one for every field but `bindings`, which change principal by principal
 * (`$patch/bindings` partials with `$append/` and `$drop/` of principals; a new binding is a partial too, which the
 * server appends, or merges into a binding a PolicyBinding already created). So a PolicyBinding's principals in the
 * same binding stay, and so do others' with `ignoreUndeclaredPrincipals`. Also returns the keys of bindings that lost
 * principals: those left empty are dropped afterwards (`dropEmptiedBindings`).
 */
function policyPatch(olds: Props, news: Props): { body: JsonObject; dropped: string[] } {
  const body = updatePatch(policyDefinition, { ...olds, bindings: undefined }, { ...news, bindings: undefined });
  const before = (olds.bindings as Bindings | undefined) ?? [];
  // Switching ignoreUndeclaredPrincipals on: the old outputs may hold others' principals, which are not this
  // resource's to drop.
  const mayDrop = !ignoresUndeclared(news) || ignoresUndeclared(olds);
  const after = (news.bindings as Bindings | undefined) ?? [];
  const keys = [...new Set([...before, ...after].map((b) => permissionsKey(b.permissions)))];
  const partials: JsonObject[] = [];
  const dropped: string[] = [];
  for (const key of keys) {
    const old = before.find((b) => permissionsKey(b.permissions) === key);
    const next = after.find((b) => permissionsKey(b.permissions) === key);
    const had = old?.principalLinks ?? [];
    const wants = next?.principalLinks ?? [];
    const change: BindingChange = {
      permissions: (next ?? old)?.permissions ?? [],
      append: wants.filter((p) => !had.includes(p)),
      drop: mayDrop ? had.filter((p) => !wants.includes(p)) : [],
    };
    if (change.append.length === 0 && change.drop.length === 0) continue;
    partials.push(bindingPartial(change));
    if (change.drop.length > 0) dropped.push(key);
  }
  if (partials.length > 0) body["$patch/bindings"] = partials;
  return { body, dropped };
}

// ---- the definition: check, diff (generic, from the tables above), create, read, update, delete ---------------------

export const policyDefinition = {
  typeName: "Policy",
  kind: "policy",
  description:
    "A Control Plane policy: grants permissions on objects of one kind (all of them, listed links, or a query) to " +
    "groups, users, service accounts and identities. targetKind, name and org cannot change in place; an update is " +
    "one PATCH that touches only the bindings and links that changed.",
  inputs: policyInputs,
  outputs: policyOutputs,

  fields,
  patchRules: () => allPatchRules.policy ?? { arrays: {} },
  autoname: true,

  toApi,
  fromApi,

  // check
  defaults: (inputs) => ({ description: inputs.name }),
  contractIssues: (inputs) => [...gvcIssues(inputs), ...policyIssues(inputs as PolicyRules)],
  normalize,
  shortForms,

  // adopt: the principal-by-principal PATCH of an update, from the object found to the inputs.
  adoption: {
    link: (org, inputs) => selfLink(org, "policy", String(inputs.name)),
    patch: (current, desired) => policyPatch(current, desired).body,
  },

  // create: one POST; with `adopt`, a 409 becomes a GET and (if anything differs) one PATCH.
  async create(ctx: ResourceContext, inputs: PolicyInputs): Promise<{ id: string; outs: PolicyOutputs }> {
    let record: unknown;
    try {
      record = await ctx.client.createIn(collectionPath(ctx.org, "policy"), managedBody(policyDefinition, inputs));
    } catch (error) {
      const link = selfLink(ctx.org, "policy", String(inputs.name));
      let dropped: string[] = [];
      record = await adoptExisting(policyDefinition, ctx, error, inputs, link, (current, desired) => {
        const patch = policyPatch(current, desired);
        dropped = patch.dropped;
        return patch.body;
      });
      record = await dropEmptiedBindings(ctx, link, record, dropped);
    }
    const outs = fromApi(record, inputs);
    return { id: outs.selfLink, outs };
  },

  // read: one GET; undefined when it is gone.
  async read(ctx: ResourceContext, id: string, props: Props): Promise<PolicyOutputs | undefined> {
    const record = await readIgnoringMissing(ctx, id);
    return record === undefined ? undefined : fromApi(record, props);
  },

  // update: one PATCH (generic for the other fields, principal by principal for bindings), none when nothing managed
  // changed; plus one dropping a binding that lost its last principal.
  async update(ctx: ResourceContext, id: string, olds: PolicyOutputs, news: PolicyInputs): Promise<PolicyOutputs> {
    const { body, dropped } = policyPatch(olds, news);
    if (isEmptyPatch(body)) {
      // Outputs echo the inputs: the new ones, over the computed values the server already holds.
      const outs: Props = { ...olds };
      for (const field of Object.keys(fields)) delete outs[field];
      return { ...outs, ...desiredInputs(policyDefinition, { ...olds }, { ...news }) } as PolicyOutputs;
    }
    const patched = await ctx.client.patchByLink(id, body);
    const record = await dropEmptiedBindings(ctx, id, patched, dropped);
    return fromApi(record, { ...olds, ...news });
  },

  // delete: one DELETE; 404 counts as deleted.
  async delete(ctx: ResourceContext, id: string): Promise<void> {
    await deleteIgnoringMissing(ctx, id);
  },
} satisfies ResourceDefinition<PolicyInputs, PolicyOutputs>;

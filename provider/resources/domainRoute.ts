/**
 * DomainRoute: one route on a domain this resource does not own (non-authoritative, as PolicyBinding is for
 * policies). Every request names only its own route, by the domain's route key (prefix or regex, with a host rule):
 * create `$append`s it to its port's routes, an update `$patch`es the fields that changed, delete `$drop`s it — so
 * routes other stacks or people add to the same domain survive, and its own route is never rewritten as a whole
 * spec (terraform-provider-cpln's cpln_domain_route sends `$replace/spec` of the whole spec: fidelity/facts/domain.json).
 * The id is `<domain self link>#<port>#<route key>`.
 */
import { z } from "zod";
import { patchRules as allPatchRules } from "../../api/kinds/index.js";
import { routeKey } from "../../api/kinds/domain.js";
import { lazy } from "../../api/lazy.js";
import { normalizeLink, selfLink } from "../../api/links.js";
import { buildPatch, type JsonObject } from "../../api/patch/index.js";
import { domainName, domainRoute } from "../../api/schemas/domain.js";
import { isCplnApiError } from "../client/errors.js";
import { jsonObject, prune } from "./lifecycle.js";
import { orgInput } from "./common.js";
import type { FieldRule, FieldRules, Props, ResourceContext, ResourceDefinition } from "./types.js";

const routeShape = () => domainRoute("strict").shape as Record<string, z.ZodType>;
/** The route's key fields: a change of any of them names another route (a replace). */
const KEY_FIELDS = ["prefix", "regex", "hostPrefix", "hostRegex"];

export const domainRouteInputs = lazy(() =>
  z.strictObject({
    domain: domainName().describe("The domain's name (its DNS name). Changing it replaces the route."),
    domainPort: z
      .number()
      .int()
      .min(1)
      .max(65535)
      .optional()
      .describe("The domain's port the route is on (default 443). Changing it replaces the route."),
    ...domainRoute("strict").shape,
    org: orgInput("domain"),
  }),
);
export type DomainRouteInputs = z.infer<ReturnType<typeof domainRouteInputs>>;

export const domainRouteOutputs = lazy(() =>
  domainRouteInputs().extend({
    domainPort: z.number().describe("The domain's port the route is on."),
    org: z.string().describe("Org of the domain."),
    domainLink: z.string().describe("Link of the domain, /org/<org>/domain/<name>."),
    routeKey: z.string().describe("The route's key on its port: its prefix (or regex), with its host rule."),
  }),
);
export type DomainRouteOutputs = z.infer<ReturnType<typeof domainRouteOutputs>>;

let fieldTable: Record<string, FieldRule> | undefined;
function fields(): Record<string, FieldRule> {
  fieldTable ??= {
    domain: { replace: true },
    domainPort: { replace: true },
    ...Object.fromEntries(Object.keys(routeShape()).map((f) => [f, KEY_FIELDS.includes(f) ? { replace: true } : {}])),
    org: { replace: true },
  };
  return fieldTable;
}

/** The route as the API stores it: the program's fields, prefix `/` when neither prefix nor regex is set. */
function routeOf(values: Props, org: string): JsonObject {
  const route = jsonObject(Object.fromEntries(Object.keys(routeShape()).map((f) => [f, values[f]])));
  if (route.prefix === undefined && route.regex === undefined) route.prefix = "/";
  if (typeof route.workloadLink === "string") route.workloadLink = normalizeLink(org, route.workloadLink);
  return route;
}

function portOf(values: Props): number {
  return typeof values.domainPort === "number" ? values.domainPort : 443;
}

/** The PATCH body naming one route of one port with `directive` (`$append/routes`, `$patch/routes`, `$drop/routes`). */
function portPatch(port: number, directive: string, items: unknown[]): JsonObject {
  return { spec: { "$patch/ports": [{ number: port, [directive]: items }] } } as JsonObject;
}

function outputsOf(values: Props, org: string, route: JsonObject): DomainRouteOutputs {
  return {
    ...(values as DomainRouteInputs),
    ...route,
    domainPort: portOf(values),
    org,
    domainLink: selfLink(org, "domain", String(values.domain)),
    routeKey: routeKey(route) ?? "",
  } as DomainRouteOutputs;
}

/** The routes a domain record holds on `port`. */
function routesOn(record: unknown, port: number): JsonObject[] {
  const spec = (record as { spec?: { ports?: { number?: number; routes?: JsonObject[] }[] } }).spec;
  return (spec?.ports ?? []).find((p) => (p.number ?? 443) === port)?.routes ?? [];
}

/**
 * The route a domain record holds on `port` under `key`, or undefined. On import by a Terraform id, whose last part is
 * a prefix or a regex with no host rule (`byPath`), also the one route of the port with that prefix or regex.
 */
function storedRoute(record: unknown, port: number, key: string, byPath = false): JsonObject | undefined {
  const routes = routesOn(record, port);
  const exact = routes.find((route) => routeKey(route) === key);
  if (exact !== undefined || !byPath) return exact;
  const matching = routes.filter((route) => route.prefix === key || route.regex === key);
  return matching.length === 1 ? matching[0] : undefined;
}

/**
 * pulumiverse's (Terraform's) import id, DOMAIN_LINK:DOMAIN_PORT:[PREFIX|REGEX], DOMAIN_LINK a link or the domain's
 * name (terraform-provider-cpln v1.2.31 docs/resources/domain_route.md; resource_domain_route.go ImportState splits
 * on the first two colons). The id it resolves to carries the prefix or regex as its key; read finds the route.
 */
function fromTerraformId(org: string, id: string): string | undefined {
  const match = /^([^#:]+):(\d+):(.+)$/.exec(id);
  if (match === null) return undefined;
  const [, domain, port, path] = match as unknown as [string, string, string, string];
  const link = domain.startsWith("/org/") || domain.startsWith("//") ? normalizeLink(org, domain) : undefined;
  if (link !== undefined && !/^\/org\/[^/]+\/domain\/[^/]+$/.test(link)) return undefined;
  return `${link ?? selfLink(org, "domain", domain)}#${Number(port)}#${path}`;
}

/** What an id (`/org/<org>/domain/<name>#<port>#<route key>`) names, for a read with no state (`pulumi import`). */
function fromId(id: string): Props {
  const match = /^(\/org\/([^/]+)\/domain\/([^/#]+))#(\d+)#(.+)$/.exec(id);
  if (match === null) throw new Error(`"${id}" is not a DomainRoute id: /org/<org>/domain/<name>#<port>#<route key>`);
  const [, domainLink, org, domain, port, key] = match as unknown as [string, string, string, string, string, string];
  return { domainLink, org, domain, domainPort: Number(port), routeKey: key };
}

export const domainRouteDefinition = {
  typeName: "DomainRoute",
  kind: "domain",
  description:
    "One route on a Control Plane domain owned elsewhere (non-authoritative): create appends it to its port's " +
    "routes, an update patches only its changed fields, delete drops only it; other routes of the domain are never " +
    "touched. A change of domain, domainPort, prefix, regex or host rule replaces the route.",
  inputs: domainRouteInputs,
  outputs: domainRouteOutputs,
  get fields(): FieldRules<DomainRouteInputs> {
    return fields() as FieldRules<DomainRouteInputs>;
  },
  patchRules: () => allPatchRules.domain ?? { arrays: {} },
  autoname: false,
  // The replacement is another route (another key) or on another port/domain: it never collides with the old one.
  createBeforeReplace: true,

  toApi: (inputs) => routeOf(inputs, ""),
  fromApi: (record, prior) => prior as DomainRouteOutputs,

  // The API's defaults, filled before diff compares: port 443, prefix `/` for a route with no regex.
  defaults: (inputs) => ({
    domainPort: 443,
    ...((inputs as Props).regex === undefined ? { prefix: "/" } : {}),
  }),
  contractIssues: () => [],
  importId: { form: "<domain link or name>:<port>:<prefix or regex>", resolve: fromTerraformId },
  normalize: (inputs, org) => {
    const link = (inputs as Props).workloadLink;
    return typeof link === "string" ? { ...inputs, workloadLink: normalizeLink(org, link) } : inputs;
  },

  // create: one PATCH appending the route to its port (the API refuses a key its port already has).
  async create(ctx: ResourceContext, inputs: DomainRouteInputs): Promise<{ id: string; outs: DomainRouteOutputs }> {
    const route = routeOf(inputs, ctx.org);
    const outs = outputsOf(inputs, ctx.org, route);
    await ctx.client.patchByLink(outs.domainLink, portPatch(outs.domainPort, "$append/routes", [route]));
    return { id: `${outs.domainLink}#${outs.domainPort}#${outs.routeKey}`, outs };
  },

  // read: one GET of the domain; the route gone (or the domain) is the resource gone.
  async read(ctx: ResourceContext, id: string, props: Props): Promise<DomainRouteOutputs | undefined> {
    const imported = props.domainLink === undefined;
    const outs = (imported ? fromId(id) : props) as DomainRouteOutputs;
    const record = await ctx.client.getByLink(outs.domainLink);
    const route = record === undefined ? undefined : storedRoute(record, outs.domainPort, outs.routeKey, imported);
    if (route === undefined) return undefined;
    const fresh: Props = { ...outs };
    for (const field of Object.keys(routeShape())) fresh[field] = route[field];
    return outputsOf(fresh, outs.org, route);
  },

  // An import id may name the route by its regex alone: the id is always the found route's own key.
  idOf: (outs: DomainRouteOutputs) => `${outs.domainLink}#${outs.domainPort}#${outs.routeKey}`,

  // update: one PATCH of the route's changed fields, named by its key; none when nothing changed.
  async update(ctx: ResourceContext, _id: string, olds: DomainRouteOutputs, news: DomainRouteInputs) {
    const before = routeOf(olds, olds.org);
    const after = routeOf(news, olds.org);
    const changes = buildPatch(before, after, { arrays: {} });
    if (Object.keys(prune(changes) ?? {}).length === 0) return outputsOf(news, olds.org, after);
    const named = Object.fromEntries(KEY_FIELDS.filter((f) => after[f] !== undefined).map((f) => [f, after[f]]));
    await ctx.client.patchByLink(
      olds.domainLink,
      portPatch(olds.domainPort, "$patch/routes", [{ ...named, ...changes }]),
    );
    return outputsOf(news, olds.org, after);
  },

  // delete: one PATCH dropping the route by its key; a domain already gone counts as done.
  async delete(ctx: ResourceContext, _id: string, props: DomainRouteOutputs): Promise<void> {
    try {
      await ctx.client.patchByLink(props.domainLink, portPatch(props.domainPort, "$drop/routes", [props.routeKey]));
    } catch (error) {
      if (!(isCplnApiError(error) && error.status === 404)) throw error;
    }
  },
} satisfies ResourceDefinition<DomainRouteInputs, DomainRouteOutputs>;

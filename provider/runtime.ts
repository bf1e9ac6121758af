/**
 * What the serialized dynamic providers (`provider/dynamic.ts`) load by package path in the provider process:
 * `require("cpln-pulumi/dist/provider/runtime.js")`. It dispatches each operation to the resource's definition and
 * holds the stack configuration that `configure` delivers (org, endpoint, token, timeoutSeconds). This module is never
 * serialized, so the token lives only in this process's memory: it never reaches `__provider`, state, outputs or
 * errors.
 */
import { parseLink } from "../api/links.js";
import { formatAdoptionNotice, type AdoptionNotice } from "./adoptNotice.js";
import { CplnClient } from "./client/index.js";
import { resolveConfig, resolveOrg, type StackConfig } from "./config.js";
import { logToEngine } from "./engineLog.js";
import { resources } from "./index.js";
import {
  checkInputs,
  compact,
  diffFields,
  finishOutputs,
  inputsFromOutputs,
  LOGICAL_NAME,
  NAME_GENERATED,
  UNKNOWN,
  type CheckOutcome,
  type DiffOutcome,
} from "./resources/lifecycle.js";
import { planAdoption } from "./resources/requests.js";
import type {
  AnyResourceDefinition,
  Props,
  ResourceClient,
  ResourceContext,
  ResourceTypeName,
} from "./resources/types.js";

// ---- configuration (set by `configure`, read at call time) -----------------------------------------------------------

// Every key resolveConfig reads: a key left out here is silently ignored by every resource operation.
const configKeys = ["cpln:org", "cpln:endpoint", "cpln:token", "cpln:timeoutSeconds"] as const;
let stackValues: Record<string, string> = {};

/** Keeps the `cpln:*` stack config the engine sends to the provider (secrets arrive unwrapped). */
export function configure(config: StackConfig): void {
  const values: Record<string, string> = {};
  for (const key of configKeys) {
    const value = config.get(key);
    if (typeof value === "string") values[key] = value;
  }
  stackValues = values;
}

const stackConfig: StackConfig = { get: (key) => stackValues[key] };

// ---- clients, one per (endpoint, token) -------------------------------------------------------------------------------

const clients = new Map<string, CplnClient>();

/** The resources' view of the client. Bodies were validated against the contract by `check`. */
function resourceClient(client: CplnClient): ResourceClient {
  return {
    createIn: (collection, body) => client.createByLink(collection, body),
    action: (link, action, body) => client.actionByLink(link, action, body),
    getByLink: (link) => client.getByLink(link),
    patchByLink: (link, body) => client.patchByLink(link, body),
    deleteByLink: (link) => client.deleteByLink(link),
  };
}

function context(org: string): ResourceContext {
  const { endpoint, token, timeoutMs } = resolveConfig({ inputOrg: org, stackConfig });
  const key = `${endpoint}\n${token}\n${timeoutMs}`;
  let client = clients.get(key);
  if (client === undefined) {
    client = new CplnClient({ endpoint, token, org, timeoutMs });
    clients.set(key, client);
  }
  return { client: resourceClient(client), org, warn };
}

/** A warning for the user: a diagnostic sent to the engine (engineLog.ts), or stderr where no engine answers. */
function warn(message: string): void {
  void logToEngine("warning", message);
}

function definition(typeName: ResourceTypeName): AnyResourceDefinition {
  const found: AnyResourceDefinition | undefined = resources[typeName];
  if (found === undefined) throw new Error(`cpln-pulumi: unknown resource type "${String(typeName)}"`);
  return found;
}

/** The org of an existing object: its state, else its self link (the resource id). */
function orgOf(id: string, props: Props): string {
  if (typeof props.org === "string" && props.org !== "") return props.org;
  const parsed = parseLink(id);
  if (parsed === undefined) throw new Error(`cpln-pulumi: "${id}" is not a Control Plane link`);
  return parsed.org;
}

function label(typeName: ResourceTypeName, props: Props, id?: string): string {
  const name = typeof props.name === "string" ? props.name : id;
  return name === undefined ? typeName : `${typeName} "${name}"`;
}

/** Adds what was being done to an error (the client's errors already name the request; none holds the token). */
async function describing<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${what} failed: ${message}`, { cause: error });
  }
}

// ---- the operations the dynamic providers delegate to ------------------------------------------------------------------

/**
 * Check. For a create (no olds) with `adopt: true` whose inputs pass, also one GET of the object they name: when it
 * exists, a diagnostic says, before anything changes, that it will be adopted and what its PATCH will change
 * (adoptNotice.ts) — a warning when something changes. Logged to the engine under `urn` (the dynamic-provider host
 * passes none: the engine then shows it among the run's diagnostics). A failed GET is left to the create to report.
 */
export async function check(typeName: ResourceTypeName, olds: Props, news: Props, urn = ""): Promise<CheckOutcome> {
  const def = definition(typeName);
  const outcome = checkInputs(def, olds, news, () => resolveOrg({ stackConfig }));
  const isCreate = Object.keys(olds).filter((key) => key !== "__provider").length === 0;
  if (isCreate && outcome.failures.length === 0 && outcome.inputs.adopt === true && def.adoption !== undefined) {
    let plan: AdoptionNotice | undefined;
    try {
      plan = await planAdoption(def, context(orgOf("", outcome.inputs)), stripHidden(outcome.inputs));
    } catch {
      plan = undefined;
    }
    if (plan !== undefined) {
      await logToEngine(plan.changes.length > 0 ? "warning" : "info", formatAdoptionNotice(plan), urn);
    }
  }
  return outcome;
}

/**
 * Check for the dynamic providers: `check`, plus the object's `selfLink` among the checked inputs where they fix it.
 * Pulumi's dynamic-provider host cannot preview an update (it runs `update` for real, so it does not claim previews),
 * and for such a provider the engine takes the checked inputs as a previewed update's outputs
 * (pulumi/pulumi sdk/go/common/resource/plugin/provider_plugin.go, `Update`: `!protocol.supportsPreview` → `NewInputs`):
 * every output they lack is unknown in the preview. A policy targeting an edited volume set's `selfLink` then showed
 * `targetLinks[0] => [unknown]` and an update that `up` never made. The native plugin previews with old outputs and
 * new inputs, so it needs none of this.
 */
export async function checkWithLink(typeName: ResourceTypeName, olds: Props, news: Props): Promise<CheckOutcome> {
  const outcome = await check(typeName, olds, news);
  const def = definition(typeName);
  const org = outcome.inputs.org;
  if (outcome.failures.length > 0 || def.adoption === undefined || typeof org !== "string") return outcome;
  const link = def.adoption.link(org, outcome.inputs);
  return link.includes(UNKNOWN) ? outcome : { ...outcome, inputs: { ...outcome.inputs, selfLink: link } };
}

export async function diff(typeName: ResourceTypeName, _id: string, olds: Props, news: Props): Promise<DiffOutcome> {
  return diffFields(definition(typeName), olds, news);
}

export async function create(typeName: ResourceTypeName, inputs: Props): Promise<{ id: string; outs: Props }> {
  const def = definition(typeName);
  return describing(`Creating ${label(typeName, inputs)}`, async () => {
    const ctx = context(orgOf("", inputs));
    const { id, outs } = await def.create(ctx, stripHidden(inputs));
    return { id, outs: finishOutputs(def, outs, inputs) };
  });
}

export async function read(
  typeName: ResourceTypeName,
  id: string,
  props: Props,
): Promise<{ id: string; props?: Props; inputs?: Props }> {
  const def = definition(typeName);
  return describing(`Reading ${label(typeName, props, id)}`, async () => {
    const outs = await def.read(context(orgOf(id, props)), id, props);
    if (outs === undefined) return { id: "" };
    const finished = finishOutputs(def, outs, props);
    return { id: def.idOf?.(outs) ?? id, props: finished, inputs: inputsFromOutputs(def, finished, props) };
  });
}

/**
 * Read for the dynamic providers: `read`, with the `selfLink` that `checkWithLink` puts among the checked inputs kept
 * among the read inputs too, so a refresh leaves the inputs as the last check made them.
 */
export async function readWithLink(
  typeName: ResourceTypeName,
  id: string,
  props: Props,
): Promise<{ id: string; props?: Props; inputs?: Props }> {
  const result = await read(typeName, id, props);
  const selfLink = result.props?.selfLink;
  if (result.inputs === undefined || definition(typeName).adoption === undefined || typeof selfLink !== "string") {
    return result;
  }
  return { ...result, inputs: { ...result.inputs, selfLink } };
}

export async function update(
  typeName: ResourceTypeName,
  id: string,
  olds: Props,
  news: Props,
): Promise<{ outs: Props }> {
  const def = definition(typeName);
  return describing(`Updating ${label(typeName, news, id)}`, async () => {
    const outs = await def.update(context(orgOf(id, olds)), id, olds, stripHidden(news));
    return { outs: finishOutputs(def, outs, news) };
  });
}

export async function remove(typeName: ResourceTypeName, id: string, props: Props): Promise<void> {
  const def = definition(typeName);
  await describing(`Deleting ${label(typeName, props, id)}`, () => def.delete(context(orgOf(id, props)), id, props));
}
export { remove as delete };

function stripHidden(inputs: Props): Props {
  const { [LOGICAL_NAME]: _logical, [NAME_GENERATED]: _generated, __provider: _provider, ...rest } = inputs;
  return compact(rest);
}

/**
 * Generic lifecycle logic shared by every resource: check (validation, naming, org, defaults), diff (field by field
 * against the old outputs), the patch built for an update, and the shaping of outputs and read inputs. It reads the
 * definition's tables (`fields`, `patchRules`, `autoname`, hooks) and never names a field of a particular kind; the
 * only fields it knows are the conventions every resource shares: `name` (autonaming), `org` (where the object lives)
 * and `adopt` (take over an existing object on create).
 */
import { randomBytes } from "node:crypto";
import { issueMessage } from "../../api/errors.js";
import { buildPatch, equalUnder, type Json, type JsonObject } from "../../api/patch/index.js";
import type { AnyResourceDefinition, CheckFailure, FieldRule, InputIssue, Props } from "./types.js";

/** Pulumi's marker for a value that is not known yet (preview): `pulumi.runtime.unknownValue`. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Hidden inputs the SDK classes and `check` add. They travel in inputs and outputs but are never sent to the API. */
export const LOGICAL_NAME = "__logicalName";
export const NAME_GENERATED = "__nameGenerated";
const PROVIDER_KEY = "__provider";
const hiddenKeys: readonly string[] = [LOGICAL_NAME, NAME_GENERATED];

const NAME_MAX = 64;
const SUFFIX_LENGTH = 7;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True when the value is, or contains, the unknown marker. */
export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (isPlainObject(value)) return Object.values(value).some(containsUnknown);
  return false;
}

/**
 * Removes `undefined` (which protobuf's Struct cannot hold), `null`, empty objects and empty arrays, recursively. The
 * API treats all of them as "absent", so diff and patch compare pruned values.
 */
export function prune(value: unknown): Json | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(prune).filter((item): item is Json => item !== undefined);
    return items.length === 0 ? undefined : items;
  }
  if (isPlainObject(value)) {
    const result: JsonObject = {};
    for (const [key, item] of Object.entries(value)) {
      const pruned = prune(item);
      if (pruned !== undefined) result[key] = pruned;
    }
    return Object.keys(result).length === 0 ? undefined : result;
  }
  return value as Json;
}

/** Drops `undefined` values only (outputs keep explicit empty values the server returned). */
export function compact<T>(value: T): T {
  if (Array.isArray(value)) return value.filter((item) => item !== undefined).map(compact) as T;
  if (isPlainObject(value)) {
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) if (item !== undefined) result[key] = compact(item);
    return result as T;
  }
  return value;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === "number") current = current[segment];
    else if (isPlainObject(current) && typeof segment === "string") current = current[segment];
    else return undefined;
  }
  return current;
}

/** An issue is moot in preview when its path runs through (or ends at) a value that is not known yet. */
function pathTouchesUnknown(root: unknown, path: readonly PropertyKey[]): boolean {
  for (let i = 0; i <= path.length; i++) if (valueAt(root, path.slice(0, i)) === UNKNOWN) return true;
  return containsUnknown(valueAt(root, path));
}

/** `my_Volume` → `my-volume`: a logical name made into something the API accepts as a name prefix. */
function namePrefix(logicalName: string): string {
  const cleaned = logicalName
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^[^a-z]+/, "")
    .replace(/-+$/, "");
  return (cleaned === "" ? "resource" : cleaned).slice(0, NAME_MAX - SUFFIX_LENGTH - 1).replace(/-+$/, "");
}

export function generateName(logicalName: string): string {
  return `${namePrefix(logicalName)}-${randomBytes(4).toString("hex").slice(0, SUFFIX_LENGTH)}`;
}

const fieldRulesOf = new WeakMap<AnyResourceDefinition, readonly [string, FieldRule][]>();

/** A definition's fields with their rules, listed once per definition (every step walks them several times). */
function fieldRules(definition: AnyResourceDefinition): readonly [string, FieldRule][] {
  let rules = fieldRulesOf.get(definition);
  if (rules === undefined) {
    rules = Object.entries(definition.fields);
    fieldRulesOf.set(definition, rules);
  }
  return rules;
}

function withoutServerKeys(value: unknown, rule: FieldRule): unknown {
  if (rule.serverKeyPrefix === undefined || !isPlainObject(value)) return value;
  const prefix = rule.serverKeyPrefix;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !key.startsWith(prefix)));
}

export interface CheckOutcome {
  inputs: Props;
  failures: CheckFailure[];
}

/**
 * Validates and completes the new inputs before anything is sent: every problem becomes a failure naming its input
 * path. Values not known yet (preview) are accepted; cross-field contract rules run only once everything is known.
 *
 * Completion: `name` defaults to `<logical name>-<7 hex>` (kept from `olds` while it stays generated; the engine
 * re-checks with empty olds on replace, so a replacement gets a new one), `org` comes from the input or the resolved
 * configuration, links are normalized and server defaults filled in.
 */
export function checkInputs(
  definition: AnyResourceDefinition,
  olds: Props,
  news: Props,
  resolveOrg: () => string | undefined,
): CheckOutcome {
  const failures: CheckFailure[] = [];
  const inputs: Props = {};
  for (const [key, value] of Object.entries(news)) if (key !== PROVIDER_KEY && value !== undefined) inputs[key] = value;
  if (definition.shortForms !== undefined) Object.assign(inputs, definition.shortForms(inputs));

  if (definition.autoname) {
    if (inputs.name === undefined || inputs.name === null) {
      const logicalName = typeof inputs[LOGICAL_NAME] === "string" ? (inputs[LOGICAL_NAME] as string) : "resource";
      const previous = olds[NAME_GENERATED] === true && typeof olds.name === "string" ? olds.name : undefined;
      inputs.name = previous ?? generateName(logicalName);
      inputs[NAME_GENERATED] = true;
    } else inputs[NAME_GENERATED] = false;
  } else delete inputs[NAME_GENERATED];

  if (inputs.org === undefined || inputs.org === null) {
    const org = resolveOrg();
    if (org === undefined) {
      failures.push({
        property: "org",
        reason: "no organization is configured: set the org input, the cpln:org stack config or CPLN_ORG",
      });
    } else inputs.org = org;
  }

  // Shape and per-field rules; the hidden keys are the provider's own and not part of the args schema.
  const args: Props = {};
  for (const [key, value] of Object.entries(inputs)) if (!hiddenKeys.includes(key)) args[key] = value;
  const parsed = definition.inputs().safeParse(args);
  const issues: InputIssue[] = [];
  if (!parsed.success) {
    for (const zodIssue of parsed.error.issues) {
      if (pathTouchesUnknown(args, zodIssue.path)) continue;
      if (zodIssue.code === "unrecognized_keys") {
        for (const key of zodIssue.keys) {
          issues.push({ path: [...zodIssue.path, key].map(String).join("."), message: `unknown property "${key}"` });
        }
      } else issues.push({ path: zodIssue.path.map(String).join("."), message: issueMessage(zodIssue) });
    }
  }

  for (const [field, rule] of fieldRules(definition)) {
    const value = inputs[field];
    if (rule.serverKeyPrefix === undefined || !isPlainObject(value)) continue;
    for (const key of Object.keys(value)) {
      if (key.startsWith(rule.serverKeyPrefix)) {
        issues.push({
          path: `${field}.${key}`,
          message: `keys starting with "${rule.serverKeyPrefix}" are set by the server`,
        });
      }
    }
  }

  const org = typeof inputs.org === "string" ? inputs.org : "";
  let completed = inputs;
  if (issues.length === 0) {
    completed = org === "" ? { ...inputs } : { ...definition.normalize(inputs, org) };
    const defaults = definition.defaults(completed);
    for (const [field, value] of Object.entries(defaults)) {
      if (completed[field] === undefined && value !== undefined) completed[field] = value;
    }
    if (!containsUnknown(completed)) issues.push(...definition.contractIssues(completed));
  }

  const seen = new Set<string>();
  for (const { path, message } of issues) {
    const key = `${path}\n${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    failures.push({ property: path, reason: message });
  }
  return { inputs: compact(completed), failures };
}

/** Whether a field holds the same value in the old outputs and the new inputs, as the API sees it. */
function sameField(definition: AnyResourceDefinition, field: string, rule: FieldRule, olds: Props, news: Props) {
  const before = prune(withoutServerKeys(olds[field], rule));
  const after = prune(withoutServerKeys(news[field], rule));
  if (before === undefined || after === undefined) return before === after;
  return equalUnder(before, after, definition.patchRules(), rule.apiPath ?? field);
}

/** The input fields whose value differs between the old outputs and the new inputs, as the API sees them. */
export function changedFields(definition: AnyResourceDefinition, olds: Props, news: Props): string[] {
  const changed: string[] = [];
  for (const [field, rule] of fieldRules(definition)) {
    if (rule.local === true) continue;
    if (rule.whenOmitted === "unmanaged" && news[field] === undefined) continue;
    if (!sameField(definition, field, rule, olds, news)) changed.push(field);
  }
  return changed;
}

/** A map value without the keys the server owns (`serverKeyPrefix`), as diff compares it. */
export function managedValue(rule: FieldRule, value: unknown): unknown {
  return withoutServerKeys(value, rule);
}

export interface DiffOutcome {
  changes: boolean;
  replaces?: string[];
  deleteBeforeReplace?: boolean;
}

/**
 * Field by field against the old outputs (which echo every input): server-owned tag keys, `__provider` and
 * provider-side fields are ignored; unordered arrays compare as sets. A replace of an object whose name the user chose
 * must delete first, since the replacement would take the same name (unless the definition says replacements never
 * collide: `createBeforeReplace`).
 */
export function diffFields(definition: AnyResourceDefinition, olds: Props, news: Props): DiffOutcome {
  return diffOfChanged(definition, changedFields(definition, olds, news), news);
}

/** `diffFields` for fields already found changed (`changedFields`), for a caller that also needs the list. */
export function diffOfChanged(definition: AnyResourceDefinition, changed: readonly string[], news: Props): DiffOutcome {
  if (changed.length === 0) return { changes: false };
  const replaces = changed.filter((field) => definition.fields[field]?.replace === true);
  if (replaces.length === 0) return { changes: true };
  const deleteBeforeReplace = definition.createBeforeReplace !== true && news[NAME_GENERATED] !== true;
  return { changes: true, replaces, deleteBeforeReplace };
}

/** The inputs an update works towards: omitted `unmanaged` fields keep their current value. */
export function desiredInputs(definition: AnyResourceDefinition, olds: Props, news: Props): Props {
  const desired: Props = { ...news };
  for (const [field, rule] of fieldRules(definition)) {
    if (rule.whenOmitted === "unmanaged" && desired[field] === undefined && olds[field] !== undefined) {
      desired[field] = olds[field];
    }
  }
  return desired;
}

/** A plain JSON object from provider values (which are JSON, as the engine sends them), `undefined`s dropped. */
export function jsonObject(values: Props): JsonObject {
  return compact(values) as JsonObject;
}

function setAt(body: JsonObject, path: string, value: JsonObject): void {
  const segments = path.split(".");
  let current = body;
  for (const segment of segments.slice(0, -1)) {
    const next = current[segment];
    if (next === undefined || next === null || typeof next !== "object" || Array.isArray(next)) current[segment] = {};
    current = current[segment] as JsonObject;
  }
  const last = segments[segments.length - 1] as string;
  if (current[last] === undefined) current[last] = value;
}

/**
 * The managed API body for a set of inputs (or outputs, which echo them), pruned as the API sees it. Maps that hold
 * server keys stay present (possibly empty) so that removing the user's last key becomes `key: null`, never a
 * `null` for the whole map, which would take the server's keys with it.
 */
export function managedBody(definition: AnyResourceDefinition, values: object): JsonObject {
  const cleaned: Props = { ...values };
  for (const [field, rule] of fieldRules(definition)) cleaned[field] = withoutServerKeys(cleaned[field], rule);
  const pruned = prune(definition.toApi(cleaned));
  const body: JsonObject = pruned !== null && typeof pruned === "object" && !Array.isArray(pruned) ? pruned : {};
  for (const [field, rule] of fieldRules(definition)) {
    if (rule.serverKeyPrefix !== undefined && !rule.local) setAt(body, rule.apiPath ?? field, {});
  }
  return body;
}

/** The one PATCH body that takes the object from `olds` to `news` (`{}` when nothing managed differs). */
export function updatePatch(definition: AnyResourceDefinition, olds: Props, news: Props): JsonObject {
  const desired = desiredInputs(definition, olds, news);
  return buildPatch(managedBody(definition, olds), managedBody(definition, desired), definition.patchRules());
}

/** Outputs = what the API returned plus the provider-side inputs (hidden keys, `local` fields, `org`). */
export function finishOutputs(definition: AnyResourceDefinition, outs: Props, inputs: Props): Props {
  const result: Props = { ...outs };
  for (const key of hiddenKeys) if (inputs[key] !== undefined) result[key] = inputs[key];
  for (const [field, rule] of fieldRules(definition)) {
    if (rule.local === true && inputs[field] !== undefined) result[field] = inputs[field];
  }
  return compact(result);
}

/** The input-shaped projection of fresh outputs (for refresh), keeping provider-side fields from the old state. */
export function inputsFromOutputs(definition: AnyResourceDefinition, outs: Props, previous: Props): Props {
  const inputs: Props = {};
  for (const [field, rule] of fieldRules(definition)) {
    const value = rule.local === true ? previous[field] : outs[field];
    if (value !== undefined) inputs[field] = value;
  }
  for (const key of hiddenKeys) if (previous[key] !== undefined) inputs[key] = previous[key];
  return compact(inputs);
}

/** True when a patch body has nothing to send. */
export function isEmptyPatch(body: JsonObject): boolean {
  return Object.keys(body).length === 0;
}

/**
 * Diff's answer: whether anything changes, what replaces, and the detailed diff the engine shows, one entry per
 * changed property path (`autoscaling.maxCapacity`, `bindings[1].permissions`), marked as replacing when its field
 * replaces the object. The decision is `lifecycle.ts`'s, from the changed fields found once.
 */
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { changedFields, diffOfChanged, managedValue, prune } from "../resources/lifecycle.js";
import type { AnyResourceDefinition } from "../resources/types.js";
import type { Props } from "./values.js";

const Kind = provproto.PropertyDiff.Kind;
type DiffKind = provproto.PropertyDiff.Kind;

/** The DiffResponse of a resource's old and new inputs (runtime.diff's decision, with the detailed diff). */
export function diffResponse(def: AnyResourceDefinition, olds: Props, news: Props): provproto.DiffResponse {
  const fields = changedFields(def, olds, news);
  const outcome = diffOfChanged(def, fields, news);
  const response = new provproto.DiffResponse();
  const Changes = provproto.DiffResponse.DiffChanges;
  response.setHasdetaileddiff(true);
  if (!outcome.changes) {
    response.setChanges(Changes.DIFF_NONE);
    return response;
  }
  response.setChanges(Changes.DIFF_SOME);
  response.setDiffsList(fields);
  response.setReplacesList(outcome.replaces ?? []);
  response.setDeletebeforereplace(outcome.deleteBeforeReplace === true);
  const detailed = response.getDetaileddiffMap();
  for (const field of fields) {
    const rule = def.fields[field] ?? {};
    const replace = rule.replace === true;
    const before = prune(managedValue(rule, olds[field]));
    const after = prune(managedValue(rule, news[field]));
    const paths = propertyDiffs(field, before, after);
    // Unordered arrays: the same elements in another order count as equal, so a change shows on the whole field.
    if (paths.length === 0) paths.push([field, Kind.UPDATE]);
    for (const [property, kind] of paths) {
      const diff = new provproto.PropertyDiff();
      diff.setKind(replace ? replacing(kind) : kind);
      diff.setInputdiff(false);
      detailed.set(property, diff);
    }
  }
  return response;
}

function replacing(kind: DiffKind): DiffKind {
  if (kind === Kind.ADD) return Kind.ADD_REPLACE;
  if (kind === Kind.DELETE) return Kind.DELETE_REPLACE;
  return Kind.UPDATE_REPLACE;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The property paths that differ between two (pruned) values, in Pulumi's path syntax (`autoscaling.maxCapacity`,
 * `bindings[1].permissions`, `tags["team.name"]`): objects are descended key by key, arrays of the same length element
 * by element; anything else is one change at its path.
 */
export function propertyDiffs(pathText: string, before: unknown, after: unknown): [string, DiffKind][] {
  if (before === undefined && after === undefined) return [];
  if (before === undefined) return [[pathText, Kind.ADD]];
  if (after === undefined) return [[pathText, Kind.DELETE]];
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => propertyDiffs(childPath(pathText, key), before[key], after[key]));
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    return before.flatMap((item, index) => propertyDiffs(`${pathText}[${index}]`, item, after[index]));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [[pathText, Kind.UPDATE]];
}

function childPath(parent: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

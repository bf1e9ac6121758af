import { dump } from "js-yaml";

/**
 * YAML as `cpln get -o yaml` prints it: js-yaml with 2-space indent, no anchors, and the CLI's key order (a few
 * identifying keys first, bookkeeping keys last, the rest alphabetical). The key lists are those of
 * @controlplane/cli 3.10.1 (dist/src/util/format.js, `k8sKeySort`).
 */
const FIRST_KEYS = ["kind", "itemKind", "name", "description", "alias", "tags", "origin", "type", "provider", "data"];
const LAST_KEYS = ["version", "id", "spec", "status", "created", "lastModified", "manifest", "links"];

export function cplnKeyOrder(a: string, b: string): number {
  if (a === b) return 0;
  const firstA = FIRST_KEYS.indexOf(a);
  const firstB = FIRST_KEYS.indexOf(b);
  if (firstA >= 0 && firstB >= 0) return firstA - firstB;
  const lastA = LAST_KEYS.indexOf(a);
  const lastB = LAST_KEYS.indexOf(b);
  if (lastA >= 0 && lastB >= 0) return lastA - lastB;
  if (firstA < 0 && firstB < 0 && lastA < 0 && lastB < 0) return a < b ? -1 : 1;
  if (firstB >= 0) return 1;
  if (firstA >= 0) return -1;
  if (lastB >= 0) return -1;
  return 1;
}

export function toCplnYaml(value: unknown): string {
  return dump(value, { indent: 2, noRefs: true, skipInvalid: true, sortKeys: cplnKeyOrder });
}

export interface Change {
  path: string;
  kind: "added" | "removed" | "changed";
  before?: unknown;
  after?: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Field-level differences between two JSON documents (arrays compared item by item). */
export function jsonChanges(before: unknown, after: unknown, path = ""): Change[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => {
      const child = path === "" ? key : `${path}.${key}`;
      if (!(key in after)) return [{ path: child, kind: "removed" as const, before: before[key] }];
      if (!(key in before)) return [{ path: child, kind: "added" as const, after: after[key] }];
      return jsonChanges(before[key], after[key], child);
    });
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const changes: Change[] = [];
    for (let i = 0; i < Math.max(before.length, after.length); i++) {
      const child = `${path}[${i}]`;
      if (i >= after.length) changes.push({ path: child, kind: "removed", before: before[i] });
      else if (i >= before.length) changes.push({ path: child, kind: "added", after: after[i] });
      else changes.push(...jsonChanges(before[i], after[i], child));
    }
    return changes;
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [{ path, kind: "changed", before, after }];
}

import { isObject, join, own, pick, type Json, type JsonObject } from "./json.js";
import { arrayRule, type PatchRules } from "./rules.js";

/** One change a PATCH body makes: the path it touches (`tags.owner`, `bindings[edit].principalLinks`) and how. */
export interface PatchChange {
  path: string;
  change: "set" | "remove" | "replace" | "add" | "keep only";
  /** For `keep only`: the keys kept. */
  keys?: string[];
}

/** `tags` + `owner` → `tags.owner`; a key that is not a plain identifier is quoted: `tags["cpln/city"]`. */
function child(path: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? join(path, key) : `${path}[${JSON.stringify(key)}]`;
}

function item(path: string, key: string | undefined): string {
  return key === undefined ? path : `${path}[${key}]`;
}

/**
 * What a PATCH body will change, directive by directive, in the words of the patch grammar (DESIGN §3): a field set,
 * removed (`null`, `$drop`, `$replace/x: null`) or replaced wholesale; array items removed (`$drop/`), added
 * (`$append/`), changed (`$patch/`, descended) or all but some removed (`$retain/`). Items are named by their key under
 * the kind's array rules (a binding by its permission set). Generic: it never names a field of a kind.
 */
export function describePatch(patch: JsonObject, rules: PatchRules, path = "", rulePath = ""): PatchChange[] {
  const changes: PatchChange[] = [];
  for (const [field, value] of Object.entries(patch)) {
    const slash = field.indexOf("/");
    if (field === "$drop" && Array.isArray(value)) {
      for (const name of value) changes.push({ path: child(path, String(name)), change: "remove" });
      continue;
    }
    if (field.startsWith("$") && slash > 0) {
      const directive = field.slice(0, slash);
      const name = field.slice(slash + 1);
      const at = child(path, name);
      const ruleAt = join(rulePath, name);
      const rule = arrayRule(rules, ruleAt);
      const items: Json[] = Array.isArray(value) ? value : [];
      if (directive === "$replace") changes.push({ path: at, change: value === null ? "remove" : "replace" });
      else if (directive === "$drop")
        for (const key of items) changes.push({ path: item(at, String(key)), change: "remove" });
      else if (directive === "$retain") changes.push({ path: at, change: "keep only", keys: items.map(String) });
      else if (directive === "$append") {
        for (const added of items) changes.push({ path: item(at, rule.key(added)), change: "add" });
      } else if (directive === "$patch") {
        for (const partial of items) {
          if (!isObject(partial)) continue;
          const key = rule.key(pick(partial, rule.keyFields));
          const rest: JsonObject = {};
          for (const [k, v] of Object.entries(partial)) if (!rule.keyFields.includes(k)) rest[k] = v;
          const inner = describePatch(rest, rules, item(at, key), ruleAt);
          changes.push(...(inner.length > 0 ? inner : [{ path: item(at, key), change: "set" as const }]));
        }
      }
      continue;
    }
    const at = child(path, field);
    if (value === null) changes.push({ path: at, change: "remove" });
    else if (isObject(value)) {
      const inner = describePatch(value, rules, at, join(rulePath, field));
      changes.push(...(inner.length > 0 ? inner : [{ path: at, change: "set" as const }]));
    } else if (own(patch, field) !== undefined) changes.push({ path: at, change: "set" });
  }
  return changes;
}

/** `tags.owner (remove)`, `bindings (keep only edit, view)`: one change for people. */
export function formatPatchChange(change: PatchChange): string {
  const what = change.change === "keep only" ? `keep only ${(change.keys ?? []).join(", ")}` : change.change;
  return `${change.path} (${what})`;
}

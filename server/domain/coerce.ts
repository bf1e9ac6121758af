import type { z } from "zod";
import type { JsonObject, JsonValue } from "../store/store.js";

/** How many rounds of conversion a body gets at most (each round fixes every field its parse reported). */
const ROUNDS = 8;

interface TypeIssue {
  path: PropertyKey[];
  expected: string;
}

/** The `invalid_type` issues of a parse, including those inside union alternatives. */
function typeIssues(issues: readonly z.core.$ZodIssue[], prefix: PropertyKey[] = []): TypeIssue[] {
  const found: TypeIssue[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === "invalid_type") found.push({ path, expected: issue.expected });
    else if (issue.code === "invalid_union") for (const branch of issue.errors) found.push(...typeIssues(branch, path));
  }
  return found;
}

function converted(value: JsonValue | undefined, expected: string): JsonValue | undefined {
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  if (expected === "number" && text !== "" && Number.isFinite(Number(text))) return Number(text);
  if (expected === "boolean" && (text === "true" || text === "false")) return text === "true";
  return undefined;
}

/** A schema's parse of a body (success or the issues). */
export type BodyParse = ReturnType<z.ZodType["safeParse"]>;

/**
 * The body with string-encoded numbers and booleans converted where the schema wants a number or a boolean, as
 * the Control Plane API does: `cpln X update --set spec.initialCapacity=20` sends `"20"` for a number field and the
 * API stores 20. Anything else is left for the schema to report. `value` is a copy; `body` is not changed.
 * `parsed` is the schema's parse of `value` (the last round's), so a caller needs no second parse of the same body.
 */
export function parseCoerced(schema: z.ZodType, body: JsonObject): { value: JsonObject; parsed: BodyParse } {
  let current = body;
  for (let round = 0; round < ROUNDS; round++) {
    const parsed = schema.safeParse(current);
    if (parsed.success) return { value: current, parsed };
    let changed = false;
    for (const issue of typeIssues(parsed.error.issues)) {
      if (issue.path.length === 0) continue;
      const value = converted(valueAt(current, issue.path), issue.expected);
      if (value === undefined) continue;
      current = withValueAt(current, issue.path, value) as JsonObject;
      changed = true;
    }
    if (!changed) return { value: current, parsed };
  }
  return { value: current, parsed: schema.safeParse(current) };
}

function valueAt(root: JsonValue, path: readonly PropertyKey[]): JsonValue | undefined {
  let node: JsonValue | undefined = root;
  for (const segment of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, JsonValue>)[segment as string];
  }
  return node;
}

/** A copy of `root` with `value` at `path`: only the objects along the path are copied (bodies may nest deeply). */
function withValueAt(root: JsonValue, path: readonly PropertyKey[], value: JsonValue): JsonValue {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (Array.isArray(root)) {
    const copy = [...root];
    copy[head as number] = withValueAt(copy[head as number] as JsonValue, rest, value);
    return copy;
  }
  const copy = { ...(root as JsonObject) };
  copy[head as string] = withValueAt(copy[head as string] as JsonValue, rest, value);
  return copy;
}

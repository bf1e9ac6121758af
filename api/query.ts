import { compileRegex, globMatches, globProblem, type LinearRegex } from "./patterns.js";
import type { Issue } from "./errors.js";
import type { Kind } from "./kinds/index.js";
import { MAX_QUERY_TERMS, type QueryDocument, type QueryOp, type QuerySpec, type QueryTerm } from "./schemas/query.js";

/**
 * Query evaluation shared by the server (`POST .../-query`, policy `targetQuery`, group `memberQuery`) and any client
 * that wants to preview a query. Generic: it reads fields by path and never names a kind or a field.
 */

/** A query the server cannot evaluate (e.g. an invalid regular expression); the server answers 400 with `issues`. */
export class QueryError extends Error {
  readonly issues: Issue[];
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = "QueryError";
    this.issues = [{ path, message }];
  }
}

/**
 * What one query evaluation may cost, in units charged before each test runs: the text length (plus the pattern's)
 * for comparisons, substring `~` and `contains`; text × pattern length for `~` with wildcards; text × instructions ×
 * `REGEX_UNIT` for `=~`. So no evaluation passes the budget. Measured with Node 20 on this project's 2-core machine
 * over 200 records with 50 maximal tags each (`npx vitest run test/server/stalls.test.ts` and docs/limits.md), the
 * costliest unit is a character of a `~` substring search (≤ 18 ns, lower-casing included), then an `=~`
 * character-instruction of `(.*a){20}$` (≤ 8 ns a unit at 20 units): 50 million units is at most about one second.
 */
export const QUERY_WORK_BUDGET = 50_000_000;
/** Units charged per character per `=~` program instruction. */
export const REGEX_UNIT = 20;

/** A query that would cost more than its `WorkBudget`: the server answers 400 naming the limit. */
export class QueryBudgetError extends QueryError {
  constructor(path: string, limit: number) {
    super(
      `the query needs more work than the limit of ${limit} units (about one second): use fewer terms, shorter ` +
        "patterns, or narrower ones (an exact property instead of '*')",
      path,
    );
    this.name = "QueryBudgetError";
  }
}

/** The work left to one query evaluation (one request, or one rebuild of stored queries). */
export class WorkBudget {
  private used = 0;
  constructor(readonly limit: number = QUERY_WORK_BUDGET) {}

  /** Takes `units`, or throws `QueryBudgetError` (at `path`) without taking them when they are not left. */
  charge(units: number, path: string): void {
    if (this.used + units > this.limit) throw new QueryBudgetError(path, this.limit);
    this.used += units;
  }

  get spent(): number {
    return this.used;
  }
}

export interface NormalizedTerm {
  op: QueryOp;
  property?: string;
  rel?: string;
  tag?: string;
  value?: string | number | boolean;
}

export interface NormalizedSpec {
  match: "all" | "any" | "none";
  terms: NormalizedTerm[];
  sort?: { by: string; order: "asc" | "desc" };
}

export interface NormalizedQuery {
  kind: Kind;
  context?: Record<string, unknown>;
  fetch: "items" | "links";
  spec: NormalizedSpec;
}

function normalizeTerm(term: QueryTerm, index: number, pathPrefix: string): NormalizedTerm {
  const normalized: NormalizedTerm = { op: term.op ?? "=" };
  if (term.property !== undefined) normalized.property = term.property;
  if (term.rel !== undefined) normalized.rel = term.rel;
  if (term.tag !== undefined) normalized.tag = term.tag;
  if (term.value !== undefined) normalized.value = term.value;
  if (normalized.op === "=~") checkedRegex(normalized.value, `${pathPrefix}terms.${index}.value`);
  const problem = normalized.op === "~" ? globProblem(normalized.value) : undefined;
  if (problem !== undefined) throw new QueryError(problem, `${pathPrefix}terms.${index}.value`);
  return normalized;
}

/**
 * Fills the defaults of a spec: match `all`, op `=`, sort order `asc`. Throws `QueryError` on a bad regex, a `~`
 * pattern over `maxGlobLength` or more than `MAX_QUERY_TERMS` terms.
 */
export function normalizeSpec(spec: QuerySpec | undefined, pathPrefix = "spec."): NormalizedSpec {
  const count = spec?.terms?.length ?? 0;
  if (count > MAX_QUERY_TERMS) {
    throw new QueryError(
      `a query may have at most ${MAX_QUERY_TERMS} terms (this one has ${count})`,
      `${pathPrefix}terms`,
    );
  }
  const normalized: NormalizedSpec = {
    match: spec?.match ?? "all",
    terms: (spec?.terms ?? []).map((term, index) => normalizeTerm(term, index, pathPrefix)),
  };
  if (spec?.sort !== undefined) normalized.sort = { by: spec.sort.by, order: spec.sort.order ?? "asc" };
  return normalized;
}

/**
 * The query as the server evaluates and echoes it: `kind` from the path (it wins over the body), fetch `items`,
 * match `all`, op `=`, sort order `asc`. Throws `QueryError` when a term's regular expression is invalid.
 */
export function normalizeQuery(doc: QueryDocument | undefined, kind: Kind): NormalizedQuery {
  const normalized: NormalizedQuery = { kind, fetch: doc?.fetch ?? "items", spec: normalizeSpec(doc?.spec) };
  if (doc?.context !== undefined) normalized.context = doc.context;
  return normalized;
}

// ---- reading values ----

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads a dotted path (`spec.enabled`, `tags.env`); undefined when any step is missing. */
export function readPath(item: unknown, path: string): unknown {
  let current: unknown = item;
  for (const segment of path.split(".")) {
    if (Array.isArray(current) && /^\d+$/.test(segment)) current = current[Number(segment)];
    else if (isRecord(current) && Object.prototype.hasOwnProperty.call(current, segment)) current = current[segment];
    else return undefined;
  }
  return current;
}

function linkHrefs(item: unknown, rel: string): string[] {
  const links = isRecord(item) ? item["links"] : undefined;
  if (!Array.isArray(links)) return [];
  return links
    .filter((l) => isRecord(l) && l["rel"] === rel && typeof l["href"] === "string")
    .map((l) => l["href"] as string);
}

// ---- comparing ----

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function asNumber(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

function asDate(value: unknown): number | undefined {
  if (typeof value !== "string" || !ISO_DATE.test(value)) return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : time;
}

function asText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/** Ordering of two scalars: numerically when both are numbers (one may be a numeric string), then as dates, then as text. */
function compare(actual: unknown, expected: unknown): number | undefined {
  if (typeof actual === "number" || typeof expected === "number") {
    const a = asNumber(actual);
    const b = asNumber(expected);
    return a === undefined || b === undefined ? undefined : a - b;
  }
  const dateA = asDate(actual);
  const dateB = asDate(expected);
  if (dateA !== undefined && dateB !== undefined) return dateA - dateB;
  if (typeof actual === "string" && typeof expected === "string") {
    const a = asNumber(actual);
    const b = asNumber(expected);
    if (a !== undefined && b !== undefined) return a - b;
    return actual < expected ? -1 : actual > expected ? 1 : 0;
  }
  if (typeof actual === "boolean" && typeof expected === "boolean") return Number(actual) - Number(expected);
  return undefined;
}

function equals(actual: unknown, expected: unknown): boolean {
  if (actual === expected) return true;
  if (typeof actual === "boolean" || typeof expected === "boolean") return false;
  return compare(actual, expected) === 0;
}

function checkedRegex(value: unknown, path: string): LinearRegex {
  if (typeof value !== "string") throw new QueryError("op '=~' needs a regular expression string", path);
  const compiled = compileRegex(value);
  if ("problem" in compiled) throw new QueryError(compiled.problem, path);
  return compiled;
}

/** `~`: case-insensitive; `*` and `?` are wildcards over the whole value, otherwise a substring test. */
function matchesPattern(actual: unknown, pattern: unknown): boolean {
  const text = asText(actual);
  const wanted = asText(pattern);
  if (text === undefined || wanted === undefined) return false;
  if (!/[*?]/.test(wanted)) return text.toLowerCase().includes(wanted.toLowerCase());
  return globMatches(text, wanted);
}

/** A positive op on one actual value (negative ops are the negation over all values). */
/** Charges what testing `actual` costs: its text length, times the pattern's size for `~` globs and `=~`. */
function chargeTest(op: QueryOp, actual: unknown, expected: unknown, path: string, budget: WorkBudget): void {
  const text = typeof actual === "string" ? actual.length : Array.isArray(actual) ? actual.length : 1;
  let units = 1 + text;
  if (op === "~") {
    const wanted = asText(expected) ?? "";
    if (/[*?]/.test(wanted)) units = (text + 1) * (wanted.length + 1);
    else units += wanted.length;
  } else if (op === "=~" && typeof expected === "string") {
    const compiled = compileRegex(expected);
    if (!("problem" in compiled)) units = (text + 1) * compiled.size * REGEX_UNIT;
  } else if (typeof expected === "string") {
    units += expected.length;
  }
  budget.charge(units, path);
}

function holds(
  op: Exclude<QueryOp, "!=" | "!exists">,
  actual: unknown,
  expected: unknown,
  path: string,
  budget: WorkBudget,
): boolean {
  chargeTest(op, actual, expected, path, budget);
  switch (op) {
    case "exists":
      return actual !== undefined && actual !== null;
    case "=":
      return equals(actual, expected);
    case ">":
    case ">=":
    case "<":
    case "<=": {
      const order = compare(actual, expected);
      if (order === undefined) return false;
      return op === ">" ? order > 0 : op === ">=" ? order >= 0 : op === "<" ? order < 0 : order <= 0;
    }
    case "~":
      return matchesPattern(actual, expected);
    case "=~": {
      const text = asText(actual);
      return text !== undefined && checkedRegex(expected, path).test(text);
    }
    case "contains": {
      if (Array.isArray(actual)) return actual.some((element) => equals(element, expected));
      if (typeof actual === "string") {
        const wanted = asText(expected);
        return wanted !== undefined && actual.includes(wanted);
      }
      if (isRecord(actual)) {
        const key = asText(expected);
        return key !== undefined && Object.prototype.hasOwnProperty.call(actual, key);
      }
      return false;
    }
  }
}

/** The values a term tests, and the expected value adjusted to them. */
function termValues(term: NormalizedTerm, item: unknown): { values: unknown[]; expected: unknown } {
  if (term.tag !== undefined) {
    const tags = isRecord(item) ? item["tags"] : undefined;
    const actual = isRecord(tags) && Object.prototype.hasOwnProperty.call(tags, term.tag) ? tags[term.tag] : undefined;
    // Booleans are compared as strings on tag terms only (`value: "true"` matches a boolean tag).
    const values = [typeof actual === "boolean" ? String(actual) : actual];
    return { values, expected: typeof term.value === "boolean" ? String(term.value) : term.value };
  }
  if (term.rel !== undefined) {
    const hrefs = linkHrefs(item, term.rel);
    if (hrefs.length === 0) return { values: [undefined], expected: term.value };
    // A rel matches by the linked object's name, its full link, or its relative link (//gvc/main).
    const expected = typeof term.value === "string" && term.value.startsWith("//") ? term.value.slice(1) : term.value;
    const values = hrefs.flatMap((href) => {
      const segments = href.split("/");
      const name = segments[segments.length - 1];
      const relative = typeof expected === "string" && href.endsWith(expected) ? [expected] : [];
      return [href, name, ...relative];
    });
    return { values, expected };
  }
  const property = term.property ?? "";
  if (property === "*") {
    // Fuzzy search over the name, the description and the tags (keys and values).
    const record = isRecord(item) ? item : {};
    const tags = isRecord(record["tags"]) ? record["tags"] : {};
    const values = [record["name"], record["description"], ...Object.keys(tags), ...Object.values(tags)].filter(
      (v) => v !== undefined && v !== null,
    );
    return { values, expected: term.value };
  }
  return { values: [readPath(item, property)], expected: term.value };
}

function evaluateTerm(term: NormalizedTerm, item: unknown, path: string, budget: WorkBudget): boolean {
  const { values, expected } = termValues(term, item);
  // Arrays are tested element by element, except by `contains` and `exists`, which look at the array itself.
  const spread =
    term.op === "contains" || term.op === "exists" || term.op === "!exists"
      ? values
      : values.flatMap((v) => (Array.isArray(v) ? v : [v]));
  if (term.op === "!=") return !spread.some((v) => holds("=", v, expected, path, budget));
  if (term.op === "!exists") return !spread.some((v) => holds("exists", v, expected, path, budget));
  const op = term.op;
  return spread.some((v) => holds(op, v, expected, path, budget));
}

/**
 * Whether `item` matches `spec`: match `all` (every term holds), `any` (at least one) or `none` (no term holds).
 * A spec without terms matches everything. Throws `QueryError` for an invalid regular expression.
 */
export function evaluateQuery(
  spec: QuerySpec | NormalizedSpec | undefined,
  item: unknown,
  budget: WorkBudget = new WorkBudget(),
): boolean {
  return evaluateNormalized(normalizeSpec(spec), item, budget);
}

function evaluateNormalized(normalized: NormalizedSpec, item: unknown, budget: WorkBudget): boolean {
  if (normalized.terms.length === 0) return true;
  // Stops at the first term that decides the answer.
  const test = (term: NormalizedTerm, index: number) => evaluateTerm(term, item, `spec.terms.${index}.value`, budget);
  switch (normalized.match) {
    case "all":
      return normalized.terms.every(test);
    case "any":
      return normalized.terms.some(test);
    case "none":
      return !normalized.terms.some(test);
  }
}

/** Sort order of two property values: missing values last, then numbers, dates, text. */
export function compareForSort(a: unknown, b: unknown): number {
  const aMissing = a === undefined || a === null;
  const bMissing = b === undefined || b === null;
  if (aMissing || bMissing) return aMissing === bMissing ? 0 : aMissing ? 1 : -1;
  const order = compare(a, b);
  if (order !== undefined) return order;
  const textA = asText(a) ?? JSON.stringify(a);
  const textB = asText(b) ?? JSON.stringify(b);
  return textA < textB ? -1 : textA > textB ? 1 : 0;
}

/**
 * Filters `items` by `spec` and sorts them by `spec.sort` (stable; missing values last in either order). Throws
 * `QueryBudgetError` when the evaluation would cost more than `budget`.
 */
export function runQuery<T>(
  items: readonly T[],
  spec: QuerySpec | NormalizedSpec | undefined,
  budget: WorkBudget = new WorkBudget(),
): T[] {
  const normalized = normalizeSpec(spec);
  const matched = items.filter((item) => evaluateNormalized(normalized, item, budget));
  const sort = normalized.sort;
  if (sort === undefined) return matched;
  const direction = sort.order === "desc" ? -1 : 1;
  return matched
    .map((item) => ({ item, key: readPath(item, sort.by) }))
    .sort((x, y) => {
      const xMissing = x.key === undefined || x.key === null;
      const yMissing = y.key === undefined || y.key === null;
      if (xMissing || yMissing) return compareForSort(x.key, y.key);
      return direction * compareForSort(x.key, y.key);
    })
    .map((entry) => entry.item);
}

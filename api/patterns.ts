import type { RE2JS } from "re2js";

/**
 * Pattern matching for query terms that cannot stall a server: `~` globs are matched without a regex engine, and
 * `=~` regular expressions run on RE2 (`re2js`, a pure-JavaScript port), whose matching time is linear in the length
 * of the value whatever the pattern. JavaScript's own engine backtracks, and the server answers everyone from one
 * thread: `a*a*a*a*a*a*b` against a stored 250-character description would stop it for minutes. RE2 has no
 * back-references and no look-around (they cannot be matched in linear time), so patterns using them are refused
 * with a message saying so; so is any source longer than `maxRegexLength`, and any pattern whose compiled program
 * has more than `maxRegexProgram` instructions: RE2's time is linear in the text but proportional to the program, and
 * counted repetitions multiply it (`(a|b){500}` is 10 characters and ~1,500 instructions; measured on re2js, such a
 * program costs ~0.2 µs per character per instruction, 250 ms on 1,024 characters).
 */

export const maxRegexLength = 256;
/** Most instructions an `=~` pattern may compile to (`(.*a){40}$` is 203, `(a|b){200}` ~600). */
export const maxRegexProgram = 400;
/** Longest `~` pattern: matching costs up to (text length × pattern length) steps. */
export const maxGlobLength = 256;

/** Characters as JSON Schema's `maxLength` counts them: code points, a surrogate pair being one. */
export function characterCount(text: string): number {
  return text.length - (text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);
}

/** A compiled `=~` pattern: `test` says whether it matches anywhere in `text` (like `RegExp.prototype.test`). */
export interface LinearRegex {
  readonly source: string;
  /** Instructions of the compiled program: the cost of matching is about (text length × size). */
  readonly size: number;
  test(text: string): boolean;
}

/** Why `source` is refused before RE2 sees it (length, back-references, look-around), or undefined. */
function unsupportedReason(source: string): string | undefined {
  if (characterCount(source) > maxRegexLength) return `is longer than ${maxRegexLength} characters`;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      const next = source[i + 1] ?? "";
      if (!inClass && (/[1-9]/.test(next) || next === "k")) {
        return "uses a back-reference, which RE2 (the linear-time engine behind =~) does not support";
      }
      i += 1;
    } else if (inClass) {
      if (c === "]") inClass = false;
    } else if (c === "[") {
      inClass = true;
      if (source[i + 1] === "^") i += 1;
      if (source[i + 1] === "]") i += 1;
    } else if (c === "(" && /^\(\?(=|!|<=|<!)/.test(source.slice(i, i + 4))) {
      return "uses look-ahead or look-behind, which RE2 (the linear-time engine behind =~) does not support";
    }
  }
  return undefined;
}

let engine: typeof RE2JS | undefined;

/**
 * re2js, loaded at the first `=~` pattern: its Unicode tables are built when it loads, which every process that loads
 * the API's schemas paid for at its start (the native plugin on every command), though only cpln-local's queries and
 * a query's check use it.
 */
function linearEngine(): typeof RE2JS {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  engine ??= (require("re2js") as typeof import("re2js")).RE2JS;
  return engine;
}

/** Compiled patterns by source: a query compiles each pattern once, not once per item. Bounded. */
const cache = new Map<string, LinearRegex>();
const CACHE_MAX = 500;

/**
 * `source` compiled for `=~`, or the message saying why it cannot be: `regular expression refused: it ...` for what
 * RE2 does not support, `invalid regular expression: ...` for a syntax error.
 */
export function compileRegex(source: string): LinearRegex | { problem: string } {
  const known = cache.get(source);
  if (known !== undefined) return known;
  const unsupported = unsupportedReason(source);
  if (unsupported !== undefined) return { problem: `regular expression refused: it ${unsupported}` };
  let re2: RE2JS;
  try {
    re2 = linearEngine().compile(source);
  } catch (error) {
    return { problem: `invalid regular expression: ${(error as Error).message}` };
  }
  const size = re2.programSize();
  if (size > maxRegexProgram) {
    return {
      problem:
        `regular expression refused: it compiles to ${size} instructions, more than the limit of ${maxRegexProgram} ` +
        "(counted repetitions such as {100} multiply a pattern's size)",
    };
  }
  const compiled: LinearRegex = { source, size, test: (text) => re2.test(text) };
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(source, compiled);
  return compiled;
}

/** The message saying why `source` cannot be an `=~` pattern, or undefined when it can. */
export function regexProblem(source: string): string | undefined {
  const compiled = compileRegex(source);
  return "problem" in compiled ? compiled.problem : undefined;
}

/** Why `value` cannot be a `~` pattern (longer than `maxGlobLength`), or undefined when it can. */
export function globProblem(value: unknown): string | undefined {
  if (typeof value !== "string" || characterCount(value) <= maxGlobLength) return undefined;
  return `a '~' pattern may be at most ${maxGlobLength} characters (this one has ${characterCount(value)})`;
}

/**
 * `~` with wildcards: `*` any run of characters, `?` one character, over the whole value, case-insensitive.
 * Greedy two-pointer matching with one remembered `*`: time O(value × pattern), no backtracking explosion.
 */
export function globMatches(value: string, pattern: string): boolean {
  const text = value.toLowerCase();
  const glob = pattern.toLowerCase();
  let t = 0;
  let g = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (g < glob.length && (glob[g] === "?" || (glob[g] !== "*" && glob[g] === text[t]))) {
      t += 1;
      g += 1;
    } else if (g < glob.length && glob[g] === "*") {
      star = g;
      resume = t;
      g += 1;
    } else if (star >= 0) {
      g = star + 1;
      resume += 1;
      t = resume;
    } else {
      return false;
    }
  }
  while (g < glob.length && glob[g] === "*") g += 1;
  return g === glob.length;
}

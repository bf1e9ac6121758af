/**
 * Pattern matching for query terms that cannot stall a server: `~` globs are matched without a regex engine, and
 * `=~` regular expressions that could backtrack catastrophically (a repeated group that itself repeats or
 * alternates, back-references, very long sources) are refused when the query is validated. JavaScript's regex
 * engine backtracks and the server answers everyone from one thread, so one such pattern against a stored
 * 250-character description would stop it for minutes.
 */

export const maxRegexLength = 256;

/** Why `source` is refused as an `=~` pattern, or undefined when it is safe to run. */
export function unsafeRegexReason(source: string): string | undefined {
  if (source.length > maxRegexLength) return `is longer than ${maxRegexLength} characters`;
  if (/\\[1-9]|\\k</.test(source)) return "uses a back-reference";
  // One entry per open group: whether it holds a quantifier or an alternation.
  const groups: boolean[] = [];
  const markEnclosing = (): void => {
    if (groups.length > 0) groups[groups.length - 1] = true;
  };
  let closedGroupVaries = false; // the atom just read is a group whose content repeats or alternates
  let i = 0;
  while (i < source.length) {
    const c = source[i] as string;
    let atomIsVaryingGroup = false;
    if (c === "\\") {
      i += 2;
    } else if (c === "[") {
      i = endOfClass(source, i);
    } else if (c === "(") {
      groups.push(false);
      i += groupPrefixLength(source, i);
    } else if (c === ")") {
      const varies = groups.pop() ?? false;
      if (varies) markEnclosing();
      atomIsVaryingGroup = varies;
      i += 1;
    } else if (c === "|") {
      markEnclosing();
      i += 1;
    } else {
      const quantifier = quantifierAt(source, i);
      if (quantifier === undefined) {
        i += 1;
      } else {
        if (closedGroupVaries && quantifier.repeats) {
          return "repeats a group that itself repeats or alternates (it could backtrack for minutes)";
        }
        markEnclosing();
        i += quantifier.length;
      }
    }
    closedGroupVaries = atomIsVaryingGroup;
  }
  return undefined;
}

function endOfClass(source: string, start: number): number {
  let i = start + 1;
  if (source[i] === "^") i += 1;
  if (source[i] === "]") i += 1;
  while (i < source.length && source[i] !== "]") i += source[i] === "\\" ? 2 : 1;
  return i + 1;
}

/** `(`, `(?:`, `(?=`, `(?!`, `(?<=`, `(?<!`, `(?<name>`: the prefix is not a quantifier. */
function groupPrefixLength(source: string, start: number): number {
  if (source[start + 1] !== "?") return 1;
  const named = /^\(\?<[A-Za-z_$][\w$]*>/.exec(source.slice(start));
  if (named) return named[0].length;
  return source.startsWith("(?<", start) ? 4 : 3;
}

/** A quantifier at `i` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each optionally lazy), and whether it repeats. */
function quantifierAt(source: string, i: number): { length: number; repeats: boolean } | undefined {
  const c = source[i];
  let length: number;
  let repeats: boolean;
  if (c === "*" || c === "+") {
    length = 1;
    repeats = true;
  } else if (c === "?") {
    length = 1;
    repeats = false;
  } else if (c === "{") {
    const braces = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i));
    if (!braces) return undefined;
    length = braces[0].length;
    const min = Number(braces[1]);
    repeats = braces[2] === undefined ? min > 1 : braces[3] === "" || Number(braces[3]) > 1;
  } else {
    return undefined;
  }
  if (source[i + length] === "?") length += 1;
  return { length, repeats };
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

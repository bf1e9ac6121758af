import { describe, expect, it } from "vitest";
import { evaluateQuery, normalizeQuery, QueryError, readPath, runQuery } from "../../api/query.js";
import {
  compileRegex,
  globMatches,
  globProblem,
  maxGlobLength,
  maxRegexLength,
  regexProblem,
} from "../../api/patterns.js";
import type { QuerySpec, QueryTerm } from "../../api/schemas/query.js";

const volume = {
  kind: "volumeset",
  name: "data-main",
  description: "Primary Postgres data",
  version: 3,
  created: "2026-01-15T10:00:00.000Z",
  tags: { env: "prod", tier: 2, critical: true, owner: null },
  spec: { initialCapacity: 100, performanceClass: "general-purpose-ssd", enabled: false },
  targetLinks: ["/org/acme/group/a", "/org/acme/group/b"],
  links: [
    { rel: "self", href: "/org/acme/gvc/main/volumeset/data-main" },
    { rel: "gvc", href: "/org/acme/gvc/main" },
  ],
};

/** Whether the single term matches `volume`. */
const one = (term: QueryTerm, item: unknown = volume) => evaluateQuery({ terms: [term] }, item);

describe("normalizeQuery", () => {
  it("fills every default and takes the kind from the path", () => {
    expect(
      normalizeQuery(
        { kind: "group", spec: { terms: [{ property: "name", value: "x" }], sort: { by: "name" } } },
        "cloudaccount",
      ),
    ).toEqual({
      kind: "cloudaccount",
      fetch: "items",
      spec: { match: "all", terms: [{ op: "=", property: "name", value: "x" }], sort: { by: "name", order: "asc" } },
    });
  });

  it("normalizes an absent document and keeps explicit choices and context", () => {
    expect(normalizeQuery(undefined, "quota")).toEqual({
      kind: "quota",
      fetch: "items",
      spec: { match: "all", terms: [] },
    });
    expect(
      normalizeQuery(
        {
          fetch: "links",
          context: { gvc: "main" },
          spec: { match: "none", terms: [{ op: "exists", tag: "env" }], sort: { by: "created", order: "desc" } },
        },
        "volumeset",
      ),
    ).toEqual({
      kind: "volumeset",
      context: { gvc: "main" },
      fetch: "links",
      spec: { match: "none", terms: [{ op: "exists", tag: "env" }], sort: { by: "created", order: "desc" } },
    });
  });

  it("rejects an invalid regular expression with a QueryError naming the term's value", () => {
    let caught: unknown;
    try {
      normalizeQuery(
        {
          spec: {
            terms: [
              { property: "name", value: "a" },
              { op: "=~", property: "name", value: "(" },
            ],
          },
        },
        "group",
      );
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(QueryError);
    expect((caught as QueryError).path).toBe("spec.terms.1.value");
    expect((caught as QueryError).issues[0]?.message).toMatch(/^invalid regular expression/);
  });
});

describe("ops on properties", () => {
  it("= and != compare values, numbers numerically and dates as instants", () => {
    expect(one({ property: "name", value: "data-main" })).toBe(true);
    expect(one({ op: "=", property: "name", value: "data" })).toBe(false);
    expect(one({ property: "version", value: 3 })).toBe(true);
    expect(one({ property: "version", value: "3" })).toBe(true);
    expect(one({ property: "created", value: "2026-01-15T10:00:00Z" })).toBe(true);
    expect(one({ property: "spec.enabled", value: false })).toBe(true);
    expect(one({ property: "spec.enabled", value: "false" })).toBe(false);
    expect(one({ op: "!=", property: "name", value: "other" })).toBe(true);
    expect(one({ op: "!=", property: "name", value: "data-main" })).toBe(false);
    expect(one({ op: "!=", property: "missing", value: "x" })).toBe(true);
  });

  it("> >= < <= compare numbers, dates and strings", () => {
    expect(one({ op: ">", property: "version", value: 2 })).toBe(true);
    expect(one({ op: ">", property: "version", value: 3 })).toBe(false);
    expect(one({ op: ">=", property: "version", value: 3 })).toBe(true);
    expect(one({ op: "<", property: "spec.initialCapacity", value: 200 })).toBe(true);
    expect(one({ op: "<=", property: "spec.initialCapacity", value: 99 })).toBe(false);
    expect(one({ op: ">", property: "created", value: "2026-01-15" })).toBe(true);
    expect(one({ op: "<", property: "created", value: "2025-12-31T23:59:59Z" })).toBe(false);
    expect(one({ op: "<", property: "name", value: "e" })).toBe(true);
    expect(one({ op: ">", property: "version", value: "abc" })).toBe(false);
    expect(one({ op: ">", property: "missing", value: 1 })).toBe(false);
  });

  it("~ matches case-insensitive substrings and * ? wildcards over the whole value", () => {
    expect(one({ op: "~", property: "description", value: "postgres" })).toBe(true);
    expect(one({ op: "~", property: "name", value: "DATA-*" })).toBe(true);
    expect(one({ op: "~", property: "name", value: "data-ma?n" })).toBe(true);
    expect(one({ op: "~", property: "name", value: "main*" })).toBe(false);
    expect(one({ op: "~", property: "description", value: "mysql" })).toBe(false);
  });

  it("=~ matches a case-sensitive regular expression and throws on an invalid one", () => {
    expect(one({ op: "=~", property: "name", value: "^data-[a-z]+$" })).toBe(true);
    expect(one({ op: "=~", property: "name", value: "^DATA" })).toBe(false);
    expect(() => one({ op: "=~", property: "name", value: "[" })).toThrow(QueryError);
  });

  it("contains tests substrings of strings and membership of arrays", () => {
    expect(one({ op: "contains", property: "description", value: "Postgres" })).toBe(true);
    expect(one({ op: "contains", property: "description", value: "postgres" })).toBe(false);
    expect(one({ op: "contains", property: "targetLinks", value: "/org/acme/group/b" })).toBe(true);
    expect(one({ op: "contains", property: "targetLinks", value: "/org/acme/group" })).toBe(false);
    expect(one({ op: "contains", property: "tags", value: "env" })).toBe(true);
    expect(one({ op: "contains", property: "version", value: 3 })).toBe(false);
  });

  it("exists and !exists test presence (null counts as absent)", () => {
    expect(one({ op: "exists", property: "spec.performanceClass" })).toBe(true);
    expect(one({ op: "exists", property: "spec.snapshots" })).toBe(false);
    expect(one({ op: "!exists", property: "spec.snapshots" })).toBe(true);
    expect(one({ op: "!exists", property: "name" })).toBe(false);
    expect(one({ op: "exists", property: "tags.owner" })).toBe(false);
  });

  it("compares arrays element by element for = and !=", () => {
    expect(one({ property: "targetLinks", value: "/org/acme/group/a" })).toBe(true);
    expect(one({ op: "!=", property: "targetLinks", value: "/org/acme/group/a" })).toBe(false);
  });

  it("property * searches name, description and tags", () => {
    expect(one({ op: "~", property: "*", value: "postgres" })).toBe(true);
    expect(one({ op: "~", property: "*", value: "prod" })).toBe(true);
    expect(one({ op: "~", property: "*", value: "tier" })).toBe(true);
    expect(one({ op: "~", property: "*", value: "nothing-like-this" })).toBe(false);
  });

  it("reads dotted paths including array indexes", () => {
    expect(readPath(volume, "spec.initialCapacity")).toBe(100);
    expect(readPath(volume, "links.1.rel")).toBe("gvc");
    expect(readPath(volume, "spec.missing.deeper")).toBeUndefined();
  });
});

describe("tag and rel selectors", () => {
  it("tag terms read item.tags and compare booleans as strings", () => {
    expect(one({ tag: "env", value: "prod" })).toBe(true);
    expect(one({ tag: "env", value: "dev" })).toBe(false);
    expect(one({ tag: "tier", value: 2 })).toBe(true);
    expect(one({ op: ">", tag: "tier", value: 1 })).toBe(true);
    expect(one({ tag: "critical", value: "true" })).toBe(true);
    expect(one({ tag: "critical", value: true })).toBe(true);
    expect(one({ tag: "critical", value: "false" })).toBe(false);
    expect(one({ op: "exists", tag: "env" })).toBe(true);
    expect(one({ op: "!exists", tag: "team" })).toBe(true);
  });

  it("rel terms match the linked object's name, full link or relative link", () => {
    expect(one({ rel: "gvc", value: "main" })).toBe(true);
    expect(one({ rel: "gvc", value: "/org/acme/gvc/main" })).toBe(true);
    expect(one({ rel: "gvc", value: "//gvc/main" })).toBe(true);
    expect(one({ rel: "gvc", value: "other" })).toBe(false);
    expect(one({ op: "!=", rel: "gvc", value: "other" })).toBe(true);
    expect(one({ op: "exists", rel: "gvc" })).toBe(true);
    expect(one({ op: "exists", rel: "org" })).toBe(false);
  });
});

describe("match modes", () => {
  const yes = { property: "name", value: "data-main" };
  const no = { property: "name", value: "other" };
  const match = (m: QuerySpec["match"], terms: QueryTerm[]) => evaluateQuery({ match: m, terms }, volume);

  it("all needs every term", () => {
    expect(match("all", [yes, yes])).toBe(true);
    expect(match("all", [yes, no])).toBe(false);
    expect(match(undefined, [yes, no])).toBe(false);
  });

  it("any needs one term", () => {
    expect(match("any", [no, yes])).toBe(true);
    expect(match("any", [no, no])).toBe(false);
  });

  it("none needs no term to hold", () => {
    expect(match("none", [no, no])).toBe(true);
    expect(match("none", [no, yes])).toBe(false);
  });

  it("a spec without terms matches everything", () => {
    expect(evaluateQuery(undefined, volume)).toBe(true);
    expect(evaluateQuery({ match: "any", terms: [] }, volume)).toBe(true);
  });
});

describe("runQuery", () => {
  const items = [
    { name: "b", version: 2, created: "2026-02-01T00:00:00Z", tags: { env: "prod" } },
    { name: "a", version: 10, created: "2026-03-01T00:00:00Z", tags: { env: "dev" } },
    { name: "c", created: "2026-01-01T00:00:00Z", tags: { env: "prod" } },
    { name: "d", version: 1, created: "2025-12-01T00:00:00Z", tags: {} },
  ];
  const names = (list: { name: string }[]) => list.map((i) => i.name);

  it("filters and keeps the input order without a sort", () => {
    expect(names(runQuery(items, { terms: [{ tag: "env", value: "prod" }] }))).toEqual(["b", "c"]);
    expect(names(runQuery(items, undefined))).toEqual(["b", "a", "c", "d"]);
  });

  it("sorts ascending by default and descending on request, numbers numerically, missing values last", () => {
    expect(names(runQuery(items, { sort: { by: "version" } }))).toEqual(["d", "b", "a", "c"]);
    expect(names(runQuery(items, { sort: { by: "version", order: "desc" } }))).toEqual(["a", "b", "d", "c"]);
    expect(names(runQuery(items, { sort: { by: "name", order: "asc" } }))).toEqual(["a", "b", "c", "d"]);
    expect(names(runQuery(items, { sort: { by: "created", order: "desc" } }))).toEqual(["a", "b", "c", "d"]);
    expect(names(runQuery(items, { terms: [{ op: "exists", tag: "env" }], sort: { by: "tags.env" } }))).toEqual([
      "a",
      "b",
      "c",
    ]);
  });
});

describe("patterns that cannot stall the server", () => {
  it("refuses back-references and look-around (RE2 has neither) and long sources, saying why", () => {
    const backReference =
      "regular expression refused: it uses a back-reference, which RE2 (the linear-time engine behind =~) does not support";
    const lookAround =
      "regular expression refused: it uses look-ahead or look-behind, which RE2 (the linear-time engine behind =~) does not support";
    expect(regexProblem("(a)\\1")).toBe(backReference);
    expect(regexProblem("(?<x>a)\\k<x>")).toBe(backReference);
    expect(regexProblem("a(?=b)")).toBe(lookAround);
    expect(regexProblem("a(?!b)")).toBe(lookAround);
    expect(regexProblem("(?<=a)b")).toBe(lookAround);
    expect(regexProblem("(?<!a)b")).toBe(lookAround);
    expect(regexProblem("a".repeat(maxRegexLength + 1))).toBe(
      `regular expression refused: it is longer than ${maxRegexLength} characters`,
    );
    expect(regexProblem("a".repeat(maxRegexLength))).toBeUndefined();
    // Characters as JSON Schema's maxLength counts them: an astral character (two UTF-16 units) is one.
    expect(regexProblem("\u{1F600}".repeat(maxRegexLength))).toBeUndefined();
    expect(regexProblem("\u{1F600}".repeat(maxRegexLength + 1))).toBe(
      `regular expression refused: it is longer than ${maxRegexLength} characters`,
    );
    expect(globProblem("\u{1F600}".repeat(maxGlobLength))).toBeUndefined();
    expect(globProblem("\u{1F600}".repeat(maxGlobLength + 1))).toBe(
      `a '~' pattern may be at most ${maxGlobLength} characters (this one has ${maxGlobLength + 1})`,
    );
    expect(regexProblem("(")).toMatch(/^invalid regular expression: .*missing closing \)/);
  });

  it("accepts what only looks like a back-reference or look-around: escaped, or inside a character class", () => {
    for (const source of ["\\\\1", "\\(?=a\\)", "[(?=]a", "^(prod|stage)-db$", "(?<env>prod)-\\d{2,3}"])
      expect(regexProblem(source), source).toBeUndefined();
  });

  it("accepts the nested and adjacent quantifiers a backtracking engine stalls on, and matches them in linear time", () => {
    const value = `${"a".repeat(249)}!`;
    for (const source of [
      "a*a*a*a*a*a*b",
      "^[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*!$",
      "(a+)+b",
      "^(a|a)*$",
      "^(a|aa)+$",
      "^(.*a){12}$",
      "^(a*)*b$",
    ]) {
      const compiled = compileRegex(source);
      if ("problem" in compiled) throw new Error(`${source}: ${compiled.problem}`);
      const started = performance.now();
      expect(compiled.test(value), source).toBe(source.includes("!"));
      // Each match takes 0.1–6 ms here; a backtracking engine would not finish on 250 characters. The bound leaves room
      // for a GC pause or a CI machine stalling this process.
      expect(performance.now() - started, source).toBeLessThan(2_000);
    }
  });

  it("matches with the semantics queries had: a search anywhere in the value, case-sensitive, ^ and $ anchored", () => {
    const test = (source: string, text: string) => {
      const compiled = compileRegex(source);
      if ("problem" in compiled) throw new Error(compiled.problem);
      return compiled.test(text);
    };
    expect(test("end-[0-9]+", "backend-42")).toBe(true);
    expect(test("^end", "backend")).toBe(false);
    expect(test("^web-\\d{2}$", "web-07")).toBe(true);
    expect(test("^web-\\d{2}$", "web-007")).toBe(false);
    expect(test("WEB", "web")).toBe(false);
    expect(test("(?i)WEB", "web")).toBe(true);
    expect(test("^(?<env>prod|stage)-db$", "stage-db")).toBe(true);
  });

  it("matches globs case-insensitively over the whole value, in linear passes", () => {
    expect(globMatches("Web-Frontend-01", "web-*-0?")).toBe(true);
    expect(globMatches("web-frontend-01", "web-*-1?")).toBe(false);
    expect(globMatches("abc", "*")).toBe(true);
    expect(globMatches("", "*")).toBe(true);
    expect(globMatches("", "?")).toBe(false);
    expect(globMatches("a".repeat(250) + "!", "*a*a*a*a*a*a*a*a*a*a*b")).toBe(false);
  });

  it("a query with an unsupported =~ pattern is a QueryError naming the term's value", () => {
    expect(() =>
      normalizeQuery({ spec: { terms: [{ op: "=~", property: "name", value: "^(a)\\1$" }] } }, "group"),
    ).toThrow(QueryError);
  });
});

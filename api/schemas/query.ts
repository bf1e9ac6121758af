import { z } from "zod";
import { lazy } from "../lazy.js";
import { crossFieldRules, documentedRules, exactlyOneOf } from "./jsonRules.js";
import { globProblem, maxGlobLength, maxRegexLength, maxRegexProgram, regexProblem } from "../patterns.js";
import { policyKindNames } from "../kinds/catalogs.js";
import { links, object, patchObject, type ObjectMode } from "./common.js";

/** Most terms one query may have (each term is evaluated against every item). */
export const MAX_QUERY_TERMS = 50;

export const queryOps = ["=", "!=", ">", ">=", "<", "<=", "~", "=~", "contains", "exists", "!exists"] as const;
export type QueryOp = (typeof queryOps)[number];
export const queryMatches = ["all", "any", "none"] as const;
export const sortOrders = ["asc", "desc"] as const;
export const fetchModes = ["links", "items"] as const;
export const termSelectors = ["property", "rel", "tag"] as const;

const termFieldDescriptions = {
  op: "Operator (default '='): = != > >= < <= compare; ~ matches a case-insensitive pattern (* and ? wildcards, otherwise substring); =~ matches a regular expression; contains tests substring or array membership; exists / !exists test presence and take no value.",
  property:
    "Property of the item to test (dotted paths such as spec.enabled allowed; '*' searches name, description and tags).",
  rel: "Relation to test, read from the item's links (e.g. gvc); compared to the linked object's name or full link.",
  tag: "Tag key to test; boolean values are compared as strings.",
  value: "Value to compare with (not used by exists / !exists).",
};

function termShape() {
  return {
    op: z.enum(queryOps).optional().describe(termFieldDescriptions.op),
    property: z.string().min(1).optional().describe(termFieldDescriptions.property),
    rel: z.string().min(1).optional().describe(termFieldDescriptions.rel),
    tag: z.string().min(1).optional().describe(termFieldDescriptions.tag),
    value: z
      .union([z.string(), z.number(), z.boolean()], { error: "must be a string, number or boolean" })
      .optional()
      .describe(termFieldDescriptions.value),
  };
}

/** Exactly one selector per term; a value for every op but exists / !exists. */
function checkTerm(
  term: { op?: QueryOp; property?: string; rel?: string; tag?: string; value?: unknown },
  ctx: z.RefinementCtx,
) {
  const selectors = termSelectors.filter((s) => term[s] !== undefined);
  if (selectors.length !== 1) {
    ctx.addIssue({
      code: "custom",
      message:
        selectors.length === 0
          ? "a term must set exactly one of property, rel or tag (none is set)"
          : `a term must set exactly one of property, rel or tag (${selectors.join(" and ")} are set)`,
      path: selectors.length === 0 ? [] : [selectors[1] as string],
    });
  }
  const op = term.op ?? "=";
  if (op !== "exists" && op !== "!exists" && term.value === undefined) {
    ctx.addIssue({ code: "custom", message: `op '${op}' needs a value`, path: ["value"] });
  }
  if (op === "=~" && typeof term.value === "string") {
    const problem = regexProblem(term.value);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem, path: ["value"] });
  }
  if (op === "~") {
    const problem = globProblem(term.value);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem, path: ["value"] });
  }
}

function buildTerm(mode: ObjectMode) {
  return object(mode, termShape())
    .superRefine(checkTerm)
    .describe("One condition: exactly one of property, rel or tag, an op and (except for exists) a value.")
    .register(crossFieldRules(), {
      // The rules of checkTerm that JSON Schema can say. That a '=~' value compiles under RE2 is said by `format:
      // regex` (ECMA-262, close to RE2) and in words; the compiled-size limit only in words.
      ...exactlyOneOf(...termSelectors),
      allOf: [
        {
          if: { properties: { op: { enum: ["exists", "!exists"] } }, required: ["op"] },
          else: { properties: { value: {} }, required: ["value"] },
        },
        {
          if: { properties: { op: { const: "=~" } }, required: ["op"] },
          then: { properties: { value: { type: "string", format: "regex", maxLength: maxRegexLength } } },
        },
        {
          if: { properties: { op: { const: "~" } }, required: ["op"] },
          then: { properties: { value: { maxLength: maxGlobLength } } },
        },
      ],
      ...documentedRules([
        {
          rule: `With op '=~' the value is a regular expression (RE2 syntax: no back-references or look-around), at most ${maxRegexLength} characters and ${maxRegexProgram} compiled instructions.`,
          issue:
            /^(op '=~' needs a regular expression string|regular expression refused: .*|invalid regular expression: .*)$/,
        },
        {
          rule: `With op '~' the value is at most ${maxGlobLength} characters.`,
          issue: /^a '~' pattern may be at most \d+ characters \(this one has \d+\)$/,
        },
      ]),
    });
}

function buildSort(mode: ObjectMode) {
  return object(mode, {
    by: z.string().min(1).describe("Property to sort by (dotted paths allowed)."),
    order: z.enum(sortOrders).optional().describe("asc (default) or desc."),
  }).describe("Sort order of the result.");
}

function buildSpec(mode: ObjectMode) {
  return object(mode, {
    match: z
      .enum(queryMatches)
      .optional()
      .describe("all (default): every term holds; any: at least one; none: no term holds."),
    terms: (mode === "strict"
      ? z.array(buildTerm(mode)).max(MAX_QUERY_TERMS, `at most ${MAX_QUERY_TERMS} terms are allowed`)
      : z.array(buildTerm(mode))
    )
      .optional()
      .describe(`Conditions (at most ${MAX_QUERY_TERMS}); an empty list matches everything.`),
    sort: buildSort(mode).optional(),
  }).describe("What to select and how to sort it.");
}

function buildDocument(mode: ObjectMode) {
  return object(mode, {
    kind: (mode === "strict" ? z.enum(policyKindNames) : z.string())
      .optional()
      .describe("Kind queried; the kind in the path wins."),
    context: z.record(z.string(), z.unknown()).optional().describe("Extra context (e.g. the gvc of gvc-scoped kinds)."),
    fetch: z.enum(fetchModes).optional().describe("items (default): whole objects; links: self links only."),
    spec: buildSpec(mode).optional(),
  }).describe("A query over the objects of one kind.");
}

export const queryTerm = lazy(() => buildTerm("strict"));
export const querySort = lazy(() => buildSort("strict"));
export const querySpec = lazy(() => buildSpec("strict"));
/** Body of `POST /org/{org}/{kind}/-query`, also `targetQuery` of policies and `memberQuery` of groups. */
export const queryDocument = lazy(() => buildDocument("strict"));
/** A query as echoed by the server (extra fields tolerated). */
export const queryDocumentOutput = lazy(() => buildDocument("loose"));

export type QueryTerm = z.infer<ReturnType<typeof queryTerm>>;
export type QuerySort = z.infer<ReturnType<typeof querySort>>;
export type QuerySpec = z.infer<ReturnType<typeof querySpec>>;
export type QueryDocument = z.infer<ReturnType<typeof queryDocument>>;

/** The key a term is identified by in `$drop/terms`, `$retain/terms` and `$patch/terms`. */
export const termKeyDescription = "property:<p>, rel:<r> or tag:<t>";

export const termKeySchema = lazy(() =>
  z
    .string()
    .regex(/^(property|rel|tag):.+$/, "must be property:<name>, rel:<name> or tag:<name>")
    .describe(`Term key: ${termKeyDescription}.`),
);

/** A `$patch/terms` partial: names its term by property|rel|tag, then changes op/value. */
export const queryTermPatch = lazy(() =>
  patchObject(
    {
      op: { value: z.enum(queryOps).describe(termFieldDescriptions.op) },
      value: {
        value: z
          .union([z.string(), z.number(), z.boolean()], { error: "must be a string, number or boolean" })
          .describe(termFieldDescriptions.value),
      },
    },
    {
      property: z.string().min(1).optional().describe(termFieldDescriptions.property),
      rel: z.string().min(1).optional().describe(termFieldDescriptions.rel),
      tag: z.string().min(1).optional().describe(termFieldDescriptions.tag),
    },
  )
    .superRefine((partial, ctx) => {
      const selectors = termSelectors.filter((s) => partial[s] !== undefined);
      if (selectors.length !== 1) {
        ctx.addIssue({
          code: "custom",
          message: "a $patch/terms item must name its term with exactly one of property, rel or tag",
          path: [],
        });
      }
    })
    .describe("Partial term, identified by its property, rel or tag.")
    .register(crossFieldRules(), {
      ...exactlyOneOf(...termSelectors),
      ...documentedRules([
        {
          rule: "A $patch/terms item that matches no term is appended: it must then be a whole term (op, and a value unless op is exists or !exists).",
          issue: /^op '.*' needs a value$/,
        },
      ]),
    }),
);

function sortPatch() {
  return patchObject({
    by: { value: z.string().min(1).describe("Property to sort by.") },
    order: { value: z.enum(sortOrders).describe("asc or desc.") },
  }).describe("Changes to the sort order.");
}

export const querySpecPatch = lazy(() =>
  patchObject({
    match: { value: z.enum(queryMatches).describe("all, any or none.") },
    terms: {
      value: z.array(queryTerm()).describe("Conditions."),
      array: {
        item: queryTerm(),
        key: termKeySchema(),
        patchItem: queryTermPatch(),
        keyDescription: termKeyDescription,
      },
    },
    sort: { value: querySort(), merge: sortPatch() },
  }).describe("Changes to a query spec."),
);

/** PATCH form of a query document (`targetQuery`, `memberQuery`). */
export const queryDocumentPatch = lazy(() =>
  patchObject({
    kind: { value: z.enum(policyKindNames).describe("Kind queried.") },
    context: { value: z.record(z.string(), z.unknown()).describe("Extra context.") },
    fetch: { value: z.enum(fetchModes).describe("items or links.") },
    spec: { value: querySpec(), merge: querySpecPatch() },
  }).describe("Changes to a query."),
);

/** `{kind:'queryresult', itemKind, items, links, query}`; with fetch 'links' the items are self links. */
export function queryResult<T extends z.ZodType>(item: T) {
  return z
    .looseObject({
      kind: z.literal("queryresult").describe("Always 'queryresult'."),
      itemKind: z.string().describe("Kind of the items."),
      items: z
        .array(z.union([item, z.string()]))
        .describe("Matching objects (or their self links with fetch 'links')."),
      links: links(),
      query: queryDocumentOutput().describe("The evaluated query with defaults filled."),
    })
    .describe("Result of a query.");
}

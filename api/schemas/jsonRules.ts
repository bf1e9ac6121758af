import { z } from "zod";
import { lazy } from "../lazy.js";

/** JSON Schema keywords (`oneOf`, `if`/`then`/`else`, `minProperties`, ...) that state a schema's cross-field rules. */
export type JsonSchemaRules = Record<string, unknown>;

/**
 * The cross-field rules of a zod schema that JSON Schema can express, for documents that validate requests
 * (the OpenAPI document). A registry of its own, not `.meta()`: the Pulumi package schema is generated from the same
 * zod schemas and has no such keywords. Register last in a chain (`.describe()` returns a new schema).
 */
export const crossFieldRules = lazy(() => z.registry<JsonSchemaRules>());

/** A branch of a rule naming what it requires (`{}`: any value), so linters can tell its names from typos. */
export const requires = (...names: string[]): JsonSchemaRules => ({
  properties: Object.fromEntries(names.map((name) => [name, {}])),
  required: names,
});

/**
 * "Exactly one of `names`": at least one (`anyOf`) and no two (`not`). It says what `oneOf` says, but Schemathesis'
 * coverage phase checks every candidate case against each `oneOf` branch: POST of an identity took 91 s of CPU for
 * 686 cases with `oneOf`, 6.8 s for 689 with this (2026-11-29), and identity's `oneOf`s were most of CI's Schemathesis.
 */
export function exactlyOneOf(...names: string[]): JsonSchemaRules {
  const pairs = names.flatMap((name, i) => names.slice(i + 1).map((other) => requires(name, other)));
  return { anyOf: names.map((name) => requires(name)), not: pairs.length === 1 ? pairs[0] : { anyOf: pairs } };
}

/** `z.toJSONSchema`'s `override` hook adding the registered rules. */
export function addCrossFieldRules(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const rules = crossFieldRules().get(ctx.zodSchema as z.ZodType);
  if (rules !== undefined) Object.assign(ctx.jsonSchema, rules);
}

/**
 * Marks a request field the server sets: a client may leave it out or send back the value it read (anything else is
 * a 400). In the document it is `readOnly: true`, which JSON-Schema-driven tools leave out of requests.
 */
export function echoOnly<T extends z.ZodType>(schema: T): T {
  crossFieldRules().add(schema, { readOnly: true });
  return schema;
}

/**
 * A rule the server enforces that JSON Schema cannot state (it spans fields, or depends on stored objects): its text,
 * and the pattern of the issue message (`details.issues[].message`, or the error's message when it lists no issues)
 * a request breaking it gets. In the document: `x-cpln-rules: [{rule, issue}]` on the schema or operation it governs,
 * so a tool that builds requests from the schemas can tell such a refusal from a disagreement.
 */
export interface DocumentedRule {
  readonly rule: string;
  readonly issue: RegExp;
}

/** The `x-cpln-rules` keyword of a list of documented rules. */
export function documentedRules(rules: readonly DocumentedRule[]): JsonSchemaRules {
  return { "x-cpln-rules": rules.map((r) => ({ rule: r.rule, issue: r.issue.source })) };
}

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

/**
 * One validation per value and schema. A record the client validated against its kind's schema on arrival
 * (`provider/client`) is read by the resource's `fromApi` through the same schema; parsing it a second time checks
 * nothing new (the schemas in `api/schemas` have no transforms: what they output parses to itself) and, on the update
 * path, doubled the cost of zod per step. `parseOnce` remembers each object a schema produced, in a WeakMap (so a
 * value is forgotten with its last reference), and returns such an object as it is when the same schema is asked
 * again; anything else is parsed as usual.
 */
import type { z } from "zod";
import { lazy } from "./lazy.js";

// Built on first use, like every zod schema here (nothing at module scope for closure serialization to walk).
const producedBy = lazy(() => new WeakMap<object, z.ZodType>());

function remember<T>(schema: z.ZodType<T>, value: T): T {
  if (typeof value === "object" && value !== null) producedBy().set(value, schema);
  return value;
}

function known(schema: z.ZodType, value: unknown): boolean {
  return typeof value === "object" && value !== null && producedBy().get(value) === schema;
}

/** `schema.parse(value)`, or `value` itself when `schema` produced it. Throws zod's error as `parse` does. */
export function parseOnce<T>(schema: z.ZodType<T>, value: unknown): T {
  if (known(schema, value)) return value as T;
  return remember(schema, schema.parse(value));
}

/** `schema.safeParse(value)`, or a success holding `value` itself when `schema` produced it. */
export function safeParseOnce<T>(schema: z.ZodType<T>, value: unknown): z.ZodSafeParseResult<T> {
  if (known(schema, value)) return { success: true, data: value as T };
  const result = schema.safeParse(value);
  if (result.success) remember(schema, result.data);
  return result;
}

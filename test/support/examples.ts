/**
 * What the generic tests make of a kind's example bodies (`examples` in api/kinds/<kind>.ts): a create body with its
 * immutable fields changed, and the args of a declared resource. Pure functions over plain objects, so the tests that
 * load dist/ and those that load the sources share them.
 */
type Body = Record<string, unknown>;

const isBody = (value: unknown): value is Body => typeof value === "object" && value !== null && !Array.isArray(value);

/** The value at a dotted path (`spec.type`), or undefined. */
export function valueAt(body: Body, path: string): unknown {
  let value: unknown = body;
  for (const key of path.split(".")) value = isBody(value) ? value[key] : undefined;
  return value;
}

/** The body with each dotted path set to its value, the objects on the way copied (the input stays as it was). */
export function withPaths(body: Body, changes: Readonly<Record<string, unknown>>): Body {
  const out: Body = structuredClone(body);
  for (const [path, value] of Object.entries(changes)) {
    const keys = path.split(".");
    let at = out;
    for (const key of keys.slice(0, -1)) {
      const next = at[key];
      at = at[key] = isBody(next) ? next : {};
    }
    at[keys[keys.length - 1]!] = value;
  }
  return out;
}

/** A declared resource's args of an API body: `spec`'s fields flat, as the declared resources take them. */
export function argsOf(body: Body): Body {
  const { spec, ...top } = body;
  return { ...top, ...(isBody(spec) ? spec : {}) };
}

/** An example patch's plain fields: a directive such as `$replace/data` is no resource arg. */
export function plainFields(patch: Body): Body {
  return Object.fromEntries(Object.entries(patch).filter(([key]) => !key.startsWith("$")));
}

/**
 * Memoized getter: `build` runs on the first call only, later calls return the same value.
 *
 * Every zod schema in `api/` is created through `lazy` so that no zod object lives at module scope: Pulumi's closure
 * serialization walks module-level values it can reach, and a zod schema breaks it.
 */
export function lazy<T>(build: () => T): () => T {
  let built = false;
  let value: T | undefined;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value as T;
  };
}

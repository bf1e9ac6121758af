// Property values as the Pulumi engine moves them between the program, the state and a provider:
// JSON-like values in which a secret is the wire object `{ [secretSigKey]: secretSig, value }`
// and an unknown (preview-time computed) value is the `unknownValue` string.

/** Key that marks a special wire object (secret, asset, resource reference). */
export const secretSigKey = "4dabf18193072939515e22adb298388d";
/** Value of `secretSigKey` for a secret. */
export const secretSig = "1b47061264138c4ac30d75fd1eb44270";
/** The string the engine sends for values that are not known yet (preview). */
export const unknownValue = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export type PropertyValue = null | boolean | number | string | PropertyValue[] | PropertyMap;
export interface PropertyMap {
  [key: string]: PropertyValue;
}

export type WireSecret = {
  [secretSigKey]: typeof secretSig;
  value: PropertyValue;
};

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isSecret(value: unknown): value is WireSecret {
  return isPlainObject(value) && value[secretSigKey] === secretSig;
}

export function makeSecret(value: PropertyValue): PropertyValue {
  return isSecret(value) ? value : { [secretSigKey]: secretSig, value };
}

/** Removes every secret wrapper, at any depth (what the engine does for a provider with acceptSecrets=false). */
export function stripSecrets(value: PropertyValue): PropertyValue {
  if (isSecret(value)) return stripSecrets(value.value);
  if (Array.isArray(value)) return value.map(stripSecrets);
  if (isPlainObject(value)) {
    const out: PropertyMap = {};
    for (const [k, v] of Object.entries(value)) out[k] = stripSecrets(v);
    return out;
  }
  return value;
}

export function stripSecretsMap(map: PropertyMap): PropertyMap {
  return stripSecrets(map) as PropertyMap;
}

/** True when the value is, or contains, a secret. */
export function containsSecret(value: PropertyValue): boolean {
  if (isSecret(value)) return true;
  if (Array.isArray(value)) return value.some(containsSecret);
  if (isPlainObject(value)) return Object.values(value).some(containsSecret);
  return false;
}

/** Top-level keys whose value is or contains a secret. */
export function secretKeys(map: PropertyMap): string[] {
  return Object.keys(map).filter((k) => containsSecret(map[k] as PropertyValue));
}

/**
 * Marks as secret each output whose same-named input was secret, recursing into objects and arrays that are
 * present on both sides — the engine's `annotateSecrets` for providers that do not accept secrets.
 */
export function annotateSecrets(outputs: PropertyMap, inputs: PropertyMap): PropertyMap {
  const result: PropertyMap = { ...outputs };
  for (const [key, input] of Object.entries(inputs)) {
    if (!(key in result)) continue;
    result[key] = annotateValue(result[key] as PropertyValue, input);
  }
  return result;
}

function annotateValue(output: PropertyValue, input: PropertyValue): PropertyValue {
  if (isSecret(output)) return output;
  if (isSecret(input)) return makeSecret(output);
  if (isPlainObject(input) && isPlainObject(output)) return annotateSecrets(output as PropertyMap, input);
  if (Array.isArray(input) && Array.isArray(output) && input.length === output.length) {
    return output.map((o, i) => annotateValue(o, input[i] as PropertyValue));
  }
  return output;
}

/** Marks the named top-level outputs as secret (keys absent from `outputs` are ignored). */
export function remarkSecrets(outputs: PropertyMap, secretInputKeys: readonly string[]): PropertyMap {
  const result: PropertyMap = { ...outputs };
  for (const key of secretInputKeys) {
    if (key in result) result[key] = makeSecret(result[key] as PropertyValue);
  }
  return result;
}

/** Structural equality of two property values (key order does not matter). */
export function deepEqual(a: PropertyValue | undefined, b: PropertyValue | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => k in b && deepEqual(a[k] as PropertyValue, b[k] as PropertyValue));
  }
  return false;
}

/** Top-level keys whose values differ between two maps. */
export function changedKeys(olds: PropertyMap, news: PropertyMap, ignore: readonly string[] = []): string[] {
  const keys = new Set([...Object.keys(olds), ...Object.keys(news)]);
  return [...keys].filter((k) => !ignore.includes(k) && !deepEqual(olds[k], news[k])).sort();
}

/**
 * The property paths whose values differ (`initialCapacity`, `tags.team`, `bindings[0].permissions`), depth-first and
 * sorted; arrays of different lengths and values of different shapes are reported at their own path.
 */
export function changedPaths(
  olds: PropertyValue,
  news: PropertyValue,
  path = "",
  ignore: readonly string[] = [],
): string[] {
  if (deepEqual(olds, news)) return [];
  if (Array.isArray(olds) && Array.isArray(news) && olds.length === news.length) {
    return olds.flatMap((o, i) => changedPaths(o, news[i] as PropertyValue, `${path}[${i}]`));
  }
  if (isPlainObject(olds) && isPlainObject(news) && !isSecret(olds) && !isSecret(news)) {
    const keys = [...new Set([...Object.keys(olds), ...Object.keys(news)])].filter((k) => !ignore.includes(k)).sort();
    return keys.flatMap((k) =>
      changedPaths(olds[k] as PropertyValue, news[k] as PropertyValue, path === "" ? k : `${path}.${k}`),
    );
  }
  return [path === "" ? "(value)" : path];
}

/** The map without empty maps and lists, at any depth (the API treats them as absent). Secrets are kept whole. */
export function withoutEmpty(map: PropertyMap): PropertyMap {
  const prune = (value: PropertyValue): PropertyValue | undefined => {
    if (Array.isArray(value)) return value.length === 0 ? undefined : value.map((v) => prune(v) ?? null);
    if (!isPlainObject(value) || isSecret(value)) return value;
    const kept = Object.entries(value).flatMap(([k, v]) => {
      const p = prune(v as PropertyValue);
      return p === undefined ? [] : [[k, p] as const];
    });
    return kept.length === 0 ? undefined : Object.fromEntries(kept);
  };
  return (prune(map) as PropertyMap | undefined) ?? {};
}

/**
 * Converts a JavaScript value into a property value: drops `undefined` members (the wire has no undefined),
 * turns values `isUnknown` recognises into `unknownValue`, and rejects what the wire cannot carry.
 */
export function toPropertyValue(
  value: unknown,
  path = "value",
  isUnknown: (v: unknown) => boolean = () => false,
): PropertyValue {
  if (isUnknown(value)) return unknownValue;
  if (value === null || typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`${path}: ${value} cannot be sent to a provider`);
    return value;
  }
  if (Array.isArray(value)) {
    return value.map((v, i) => toPropertyValue(v === undefined ? null : v, `${path}[${i}]`, isUnknown));
  }
  if (isPlainObject(value)) {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      const kind = (value.constructor as { name?: string } | undefined)?.name ?? "object";
      throw new TypeError(`${path}: a ${kind} cannot be sent to a dynamic provider (only JSON-like values)`);
    }
    const out: PropertyMap = {};
    for (const [k, v] of Object.entries(value)) {
      if (v !== undefined) out[k] = toPropertyValue(v, `${path}.${k}`, isUnknown);
    }
    return out;
  }
  throw new TypeError(`${path}: a value of type ${typeof value} cannot be sent to a dynamic provider`);
}

export function toPropertyMap(
  value: unknown,
  path = "properties",
  isUnknown: (v: unknown) => boolean = () => false,
): PropertyMap {
  const converted = toPropertyValue(value ?? {}, path, isUnknown);
  if (!isPlainObject(converted)) throw new TypeError(`${path}: expected an object`);
  return converted as PropertyMap;
}

/** Replaces secret values by `{ secret: true }` (and unknowns by `{ unknown: true }`) for printing or logging. */
export function redactSecrets(value: PropertyValue): PropertyValue {
  if (isSecret(value)) return { secret: true };
  if (value === unknownValue) return { unknown: true };
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (isPlainObject(value)) {
    const out: PropertyMap = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactSecrets(v);
    return out;
  }
  return value;
}

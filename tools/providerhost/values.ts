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

/** Marks the named top-level outputs as secret (keys absent from `outputs` are ignored). */
export function remarkSecrets(outputs: PropertyMap, secretInputKeys: readonly string[]): PropertyMap {
  const result: PropertyMap = { ...outputs };
  for (const key of secretInputKeys) {
    if (key in result) result[key] = makeSecret(result[key] as PropertyValue);
  }
  return result;
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

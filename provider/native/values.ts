/**
 * Property values on the wire of a provider that accepts secrets: JSON in which a secret is the object
 * `{ [SECRET_SIG_KEY]: SECRET_SIG, value }` at any depth, and a value not known yet is the `UNKNOWN` string. The
 * resource core works on plain values, so the native adapter unwraps every secret on the way in, remembers which
 * top-level properties held one, and wraps those again on the way out (the engine does not re-mark the outputs of a
 * provider that accepts secrets).
 */
import { Struct } from "google-protobuf/google/protobuf/struct_pb";

export const SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

export type Props = Record<string, unknown>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isSecret(value: unknown): value is { value: unknown } {
  return isPlainObject(value) && value[SECRET_SIG_KEY] === SECRET_SIG;
}

export function secret(value: unknown): unknown {
  return isSecret(value) ? value : { [SECRET_SIG_KEY]: SECRET_SIG, value };
}

/** The value with every secret wrapper removed, at any depth. */
export function unwrap(value: unknown): unknown {
  if (isSecret(value)) return unwrap(value.value);
  if (Array.isArray(value)) return value.map(unwrap);
  if (isPlainObject(value)) {
    const result: Props = {};
    for (const [key, item] of Object.entries(value)) result[key] = unwrap(item);
    return result;
  }
  return value;
}

function holdsSecret(value: unknown): boolean {
  if (isSecret(value)) return true;
  if (Array.isArray(value)) return value.some(holdsSecret);
  if (isPlainObject(value)) return Object.values(value).some(holdsSecret);
  return false;
}

/** A property bag unwrapped, and the top-level keys that held a secret anywhere inside. */
export interface Unwrapped {
  props: Props;
  secretKeys: Set<string>;
}

export function unwrapProps(struct: Struct | undefined): Unwrapped {
  const raw = (struct?.toJavaScript() ?? {}) as Props;
  const secretKeys = new Set(Object.keys(raw).filter((key) => holdsSecret(raw[key])));
  return { props: unwrap(raw) as Props, secretKeys };
}

/** Wraps the values of `keys` as secrets (whole top-level values). */
export function rewrap(props: Props, keys: Iterable<string>): Props {
  const result: Props = { ...props };
  for (const key of keys) if (result[key] !== undefined) result[key] = secret(result[key]);
  return result;
}

/** A protobuf Struct from provider values (`undefined` dropped, as JSON does). */
export function toStruct(props: Props): Struct {
  return Struct.fromJavaScript(JSON.parse(JSON.stringify(props)) as Record<string, never>);
}

/**
 * Property values on the wire of a provider that accepts secrets: JSON in which a secret is the object
 * `{ [SECRET_SIG_KEY]: SECRET_SIG, value }` at any depth, and a value not known yet is the `UNKNOWN` string. The
 * resource core works on plain values, so the native adapter unwraps every secret on the way in, remembers which
 * top-level properties held one, and wraps those again on the way out (the engine does not re-mark the outputs of a
 * provider that accepts secrets).
 */
import { ListValue, NullValue, Struct, Value } from "google-protobuf/google/protobuf/struct_pb";

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

/** A property bag unwrapped, and the top-level keys that held a secret anywhere inside. */
export interface Unwrapped {
  props: Props;
  secretKeys: Set<string>;
}

/**
 * A property bag from the wire: the Struct read into plain values with every secret unwrapped, in one walk (what
 * `struct.toJavaScript()` then `unwrap` would give), and the top-level keys that held a secret anywhere inside.
 */
export function unwrapProps(struct: Struct | undefined): Unwrapped {
  const props: Props = {};
  const secretKeys = new Set<string>();
  if (struct === undefined) return { props, secretKeys };
  const found = { secret: false };
  struct.getFieldsMap().forEach((value, key) => {
    found.secret = false;
    props[key] = plainValue(value, found);
    if (found.secret) secretKeys.add(key);
  });
  return { props, secretKeys };
}

/** One protobuf Value as a plain value, secrets unwrapped; `found.secret` set when one was met. */
function plainValue(value: Value, found: { secret: boolean }): unknown {
  switch (value.getKindCase()) {
    case Value.KindCase.NULL_VALUE:
      return null;
    case Value.KindCase.NUMBER_VALUE:
      return value.getNumberValue();
    case Value.KindCase.STRING_VALUE:
      return value.getStringValue();
    case Value.KindCase.BOOL_VALUE:
      return value.getBoolValue();
    case Value.KindCase.LIST_VALUE:
      return (value.getListValue()?.getValuesList() ?? []).map((item) => plainValue(item, found));
    case Value.KindCase.STRUCT_VALUE: {
      const object: Props = {};
      value
        .getStructValue()
        ?.getFieldsMap()
        .forEach((item, key) => {
          object[key] = plainValue(item, found);
        });
      if (object[SECRET_SIG_KEY] !== SECRET_SIG) return object;
      found.secret = true;
      return object.value;
    }
    default:
      throw new Error("Unexpected struct type");
  }
}

/** Wraps the values of `keys` as secrets (whole top-level values). */
export function rewrap(props: Props, keys: Iterable<string>): Props {
  const result: Props = { ...props };
  for (const key of keys) if (result[key] !== undefined) result[key] = secret(result[key]);
  return result;
}

/**
 * A protobuf Struct from provider values, as their JSON would give (`JSON.parse(JSON.stringify(props))`) without the
 * round trip: `undefined` properties dropped, `undefined` and non-finite numbers in arrays or as numbers `null`,
 * `toJSON` honoured (dates).
 */
export function toStruct(props: Props): Struct {
  return structOf(props);
}

function structOf(object: object): Struct {
  const struct = new Struct();
  const fields = struct.getFieldsMap();
  for (const [key, item] of Object.entries(object)) {
    const value = valueOf(item);
    if (value !== undefined) fields.set(key, value);
  }
  return struct;
}

/** A Value for one JSON-able value; `undefined` where JSON.stringify leaves a property out. */
function valueOf(item: unknown): Value | undefined {
  const json =
    typeof item === "object" && item !== null && typeof (item as { toJSON?: unknown }).toJSON === "function"
      ? (item as { toJSON: () => unknown }).toJSON()
      : item;
  const value = new Value();
  switch (typeof json) {
    case "string":
      value.setStringValue(json);
      return value;
    case "number":
      if (Number.isFinite(json)) value.setNumberValue(json);
      else value.setNullValue(NullValue.NULL_VALUE);
      return value;
    case "boolean":
      value.setBoolValue(json);
      return value;
    case "object": {
      if (json === null) value.setNullValue(NullValue.NULL_VALUE);
      else if (Array.isArray(json)) {
        const list = new ListValue();
        for (const element of json) {
          const converted = valueOf(element);
          if (converted !== undefined) list.addValues(converted);
          else {
            const nothing = new Value();
            nothing.setNullValue(NullValue.NULL_VALUE);
            list.addValues(nothing);
          }
        }
        value.setListValue(list);
      } else value.setStructValue(structOf(json));
      return value;
    }
    default:
      // undefined, functions and symbols: left out of objects (and null in arrays), as JSON does.
      return undefined;
  }
}

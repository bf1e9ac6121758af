/**
 * The responses that carry resource properties (Check's `inputs`, Create's and Update's `properties`) written straight
 * to their bytes: the property bag from plain values, without the Struct, jspb.Map and Value objects `toStruct` would
 * build, by google-protobuf's own `BinaryWriter`, in the same bytes as the generated `serializeBinary` of the Struct.
 * Field numbers: `@pulumi/pulumi/proto/provider_pb.js` and `google-protobuf/google/protobuf/struct_pb.js`. Reading the
 * requests is `wire.ts`'s.
 */
import { BinaryWriter } from "google-protobuf";
import type { Props } from "./values.js";

/** The field of each response that carries a property bag (`inputs` of Check, `properties` of Create and Update). */
export const RESPONSE_PROPS_FIELDS = { check: 1, create: 2, update: 1 } as const;

/**
 * A response of Check, Create or Update: the generated message without its property bag, and the bag as plain
 * values, written by `encodeProps` in the same bytes (the bag's field first, then the message's other fields).
 */
export class PropsResponse<M extends { serializeBinary(): Uint8Array }> {
  constructor(
    readonly message: M,
    readonly field: number,
    readonly props: Props,
  ) {}
}

// `null` is written through this marker: BinaryWriter.writeMessage leaves out a null or undefined value.
const NULL_VALUE = Symbol("null");
let pendingKey = "";

/** A value as JSON.stringify sees it (`toJSON` honoured); undefined where JSON leaves a property out. */
function jsonOf(item: unknown): unknown {
  const json =
    typeof item === "object" && item !== null && typeof (item as { toJSON?: unknown }).toJSON === "function"
      ? (item as { toJSON: () => unknown }).toJSON()
      : item;
  switch (typeof json) {
    case "string":
    case "number":
    case "boolean":
      return json;
    case "object":
      return json === null ? NULL_VALUE : json;
    default:
      return undefined;
  }
}

function writeValue(json: unknown, writer: BinaryWriter): void {
  switch (typeof json) {
    case "string":
      writer.writeString(3, json);
      return;
    case "number":
      if (Number.isFinite(json)) writer.writeDouble(2, json);
      else writer.writeEnum(1, 0);
      return;
    case "boolean":
      writer.writeBool(4, json);
      return;
    default:
      if (json === NULL_VALUE) writer.writeEnum(1, 0);
      else if (Array.isArray(json)) writer.writeMessage(6, json, writeList);
      else writer.writeMessage(5, json, writeStruct);
  }
}

function writeList(items: unknown[], writer: BinaryWriter): void {
  // Holes and values JSON leaves out are null in an array, as JSON writes them.
  for (let i = 0; i < items.length; i++) writer.writeMessage(1, jsonOf(items[i]) ?? NULL_VALUE, writeValue);
}

function writeEntry(json: unknown, writer: BinaryWriter): void {
  writer.writeString(1, pendingKey);
  writer.writeMessage(2, json, writeValue);
}

/** The entries of a Struct, keys sorted as jspb.Map writes them; values JSON leaves out are left out. */
function writeStruct(object: object, writer: BinaryWriter): void {
  const keys = Object.keys(object).sort();
  for (const key of keys) {
    const json = jsonOf((object as Props)[key]);
    if (json === undefined) continue;
    pendingKey = key;
    writer.writeMessage(1, json, writeEntry);
  }
}

/**
 * The bytes of `toStruct(props)` serialized, written straight from the values (no Struct, jspb.Map or Value objects):
 * JSON's rules (`undefined` left out, `null` in arrays, non-finite numbers null, `toJSON` honoured), keys sorted.
 */
export function encodeProps(props: Props): Uint8Array {
  const writer = new BinaryWriter();
  writeStruct(props, writer);
  return writer.getResultBuffer();
}

/** A PropsResponse's bytes: the property bag as field `field`, then the message's own fields. */
export function encodeResponse(response: PropsResponse<{ serializeBinary(): Uint8Array }>): Buffer {
  const writer = new BinaryWriter();
  writer.writeMessage(response.field, response.props, writeStruct);
  return Buffer.concat([writer.getResultBuffer(), response.message.serializeBinary()]);
}

/**
 * The requests that carry resource properties (Check, Diff, Update, Create, Delete) read straight from their bytes:
 * each `google.protobuf.Struct` becomes plain values with the secrets unwrapped in the same pass, without
 * google-protobuf's message objects (a Struct, a jspb.Map and a Value per value) that `unwrapProps` then walks again.
 * The wire is read by google-protobuf's own `BinaryReader`, so strings, numbers and field skipping are decoded by the
 * same code as the generated `deserializeBinary`; what is built is what `unwrapProps(Struct.deserializeBinary(bytes))`
 * gives, down to the wire's corner cases (map keys in jspb.Map's sorted order, the last of duplicate keys, the last
 * `kind` of a Value, a Value entry sent twice merged into one, a Value without a kind refused with the same message
 * when the handler reads it). Fields a handler does not read are skipped. Field numbers:
 * `@pulumi/pulumi/proto/provider_pb.js` (the generated `deserializeBinaryFromReader` of each request) and
 * `google-protobuf/google/protobuf/struct_pb.js`.
 */
import { BinaryReader } from "google-protobuf";
import { SECRET_SIG, SECRET_SIG_KEY, type Props, type Unwrapped } from "./values.js";
import { encodeResponse, PropsResponse, RESPONSE_PROPS_FIELDS } from "./wireResponses.js";

export { encodeProps, encodeResponse, PropsResponse, RESPONSE_PROPS_FIELDS } from "./wireResponses.js";

/** What Check, Diff, Update, Create and Delete read of their request; a field the request leaves out stays empty. */
export interface PropsRequest {
  id: string;
  urn: string;
  name: string;
  type: string;
  preview: boolean;
  olds: Unwrapped;
  news: Unwrapped;
  properties: Unwrapped;
  /** Set when a property value had no kind: what `unwrapProps` throws for it, thrown when the handler reads. */
  failure: string | undefined;
}

type Slot = "id" | "urn" | "name" | "type" | "preview" | "olds" | "news" | "properties";

/** Field number → slot, per request message (the fields the native handlers read). */
export const REQUEST_LAYOUTS = {
  check: { 1: "urn", 2: "olds", 3: "news", 6: "name", 7: "type" },
  diff: { 1: "id", 2: "urn", 3: "olds", 4: "news", 7: "name", 8: "type" },
  update: { 1: "id", 2: "urn", 3: "olds", 4: "news", 7: "preview", 9: "name", 10: "type" },
  create: { 1: "urn", 2: "properties", 4: "preview", 5: "name", 6: "type" },
  delete: { 1: "id", 2: "urn", 3: "properties", 6: "name", 7: "type" },
} as const satisfies Record<string, Record<number, Slot>>;

export type RequestLayout = Readonly<Record<number, Slot>>;

const NO_KIND = "Unexpected struct type";
const VARINT = 0;
const FIXED64 = 1;
const DELIMITED = 2;

// The state of the Value being read, shared down one synchronous decode (each reader keeps its own in locals across
// the nested reads and writes it back when it ends): the kind that stands (its field number, 0 for none), its plain
// value, and whether a secret or a Value without a kind was met inside it.
let kind = 0;
let result: unknown;
let secret = false;
let bad = false;
let entryKey = "";

/** Reads (merges) the fields of one Value message into the shared state; a later kind replaces an earlier one. */
function readValue(_: unknown, reader: BinaryReader): void {
  let k = kind;
  let r = result;
  let s = secret;
  let b = bad;
  while (reader.nextField()) {
    if (reader.isEndGroup()) break;
    const field = reader.getFieldNumber();
    const wire = reader.getWireType() as number;
    if (field === 1 && wire === VARINT) {
      reader.readEnum();
      k = 1;
      r = null;
      s = b = false;
    } else if (field === 2 && wire === FIXED64) {
      r = reader.readDouble();
      k = 2;
      s = b = false;
    } else if (field === 3 && wire === DELIMITED) {
      r = reader.readString();
      k = 3;
      s = b = false;
    } else if (field === 4 && wire === VARINT) {
      r = reader.readBool();
      k = 4;
      s = b = false;
    } else if ((field === 5 || field === 6) && wire === DELIMITED) {
      reader.readMessage(undefined, field === 5 ? readStruct : readList);
      k = field;
      r = result;
      s = secret;
      b = bad;
    } else reader.skipField();
  }
  kind = k;
  result = r;
  secret = s;
  bad = b;
}

/** Starts a Value; after `readValue` (once or more), `endValue` gives it its plain value. */
function startValue(): void {
  kind = 0;
  result = undefined;
  secret = false;
  bad = false;
}

function endValue(): void {
  if (kind === 0) {
    result = null;
    bad = true;
  }
}

/** One map entry of a Struct: key (field 1, default "") and Value (field 2, default an empty Value). */
function readEntry(_: unknown, reader: BinaryReader): void {
  let key = "";
  startValue();
  while (reader.nextField()) {
    if (reader.isEndGroup()) break;
    const field = reader.getFieldNumber();
    const wire = reader.getWireType() as number;
    if (field === 1 && wire === DELIMITED) key = reader.readString();
    else if (field === 2 && wire === DELIMITED) reader.readMessage(undefined, readValue);
    else reader.skipField();
  }
  endValue();
  entryKey = key;
}

const SECRET_FLAG = 1;
const BAD_FLAG = 2;

/** The entries of one Struct message: keys, plain values and flags, in wire order. */
interface Entries {
  keys: string[];
  values: unknown[];
  flags: number[];
}

function readEntries(reader: BinaryReader): Entries {
  const keys: string[] = [];
  const values: unknown[] = [];
  const flags: number[] = [];
  while (reader.nextField()) {
    if (reader.isEndGroup()) break;
    if (reader.getFieldNumber() === 1 && (reader.getWireType() as number) === DELIMITED) {
      reader.readMessage(undefined, readEntry);
      keys.push(entryKey);
      values.push(result);
      flags.push((secret ? SECRET_FLAG : 0) | (bad ? BAD_FLAG : 0));
    } else reader.skipField();
  }
  return { keys, values, flags };
}

/**
 * The indexes of the entries that stand, in jspb.Map's order: keys sorted as strings, and of a key sent more than
 * once, the last; undefined when that is every entry in wire order (keys sent sorted, none twice).
 */
function standing(keys: string[]): number[] | undefined {
  const count = keys.length;
  let ordered = true;
  for (let i = 1; i < count && ordered; i++) ordered = (keys[i - 1] as string) < (keys[i] as string);
  if (ordered) return undefined;
  const order = Array.from({ length: count }, (_, i) => i).sort((a, b) => {
    const x = keys[a] as string;
    const y = keys[b] as string;
    return x < y ? -1 : x > y ? 1 : a - b;
  });
  return order.filter((index, at) => at === count - 1 || keys[order[at + 1] as number] !== keys[index]);
}

function readStruct(_: unknown, reader: BinaryReader): void {
  const { keys, values, flags } = readEntries(reader);
  const object: Props = {};
  let s = false;
  let b = false;
  const order = standing(keys);
  for (let at = 0; at < (order ?? keys).length; at++) {
    const index = order === undefined ? at : (order[at] as number);
    object[keys[index] as string] = values[index];
    const flag = flags[index] as number;
    if (flag & SECRET_FLAG) s = true;
    if (flag & BAD_FLAG) b = true;
  }
  if (object[SECRET_SIG_KEY] === SECRET_SIG) {
    result = object.value;
    s = true;
  } else result = object;
  secret = s;
  bad = b;
}

function readList(_: unknown, reader: BinaryReader): void {
  const items: unknown[] = [];
  let s = false;
  let b = false;
  while (reader.nextField()) {
    if (reader.isEndGroup()) break;
    if (reader.getFieldNumber() === 1 && (reader.getWireType() as number) === DELIMITED) {
      startValue();
      reader.readMessage(undefined, readValue);
      endValue();
      items.push(result);
      if (secret) s = true;
      if (bad) b = true;
    } else reader.skipField();
  }
  result = items;
  secret = s;
  bad = b;
}

/** A top-level property bag: what `unwrapProps` gives for the same Struct, and whether a Value had no kind. */
function readProps(_: unknown, reader: BinaryReader): void {
  const { keys, values, flags } = readEntries(reader);
  const props: Props = {};
  const secretKeys = new Set<string>();
  let b = false;
  const order = standing(keys);
  for (let at = 0; at < (order ?? keys).length; at++) {
    const index = order === undefined ? at : (order[at] as number);
    const key = keys[index] as string;
    props[key] = values[index];
    const flag = flags[index] as number;
    if (flag & SECRET_FLAG) secretKeys.add(key);
    if (flag & BAD_FLAG) b = true;
  }
  result = { props, secretKeys } satisfies Unwrapped;
  bad = b;
}

const SLOT_BITS = { olds: 1, news: 2, properties: 4 } as const;

const empty = (): Unwrapped => ({ props: {}, secretKeys: new Set() });

/** A property bag straight from the bytes of a `google.protobuf.Struct` (what `unwrapProps` gives for it). */
export function decodeProps(bytes: Uint8Array): Unwrapped {
  const reader = BinaryReader.alloc(bytes);
  try {
    bad = false;
    readProps(undefined, reader);
    if (bad) throw new Error(NO_KIND);
    return result as Unwrapped;
  } finally {
    reader.free();
  }
}

/** A request from its bytes, by the layout of its message; unknown fields and fields not in the layout are skipped. */
export function decodeRequest(bytes: Uint8Array, layout: RequestLayout): PropsRequest {
  const request: PropsRequest = {
    id: "",
    urn: "",
    name: "",
    type: "",
    preview: false,
    olds: empty(),
    news: empty(),
    properties: empty(),
    failure: undefined,
  };
  // A property bag sent twice: the last one stands (the generated reader replaces), with its own verdict.
  let badSlots = 0;
  const reader = BinaryReader.alloc(bytes);
  try {
    while (reader.nextField()) {
      if (reader.isEndGroup()) break;
      const slot = layout[reader.getFieldNumber()];
      const wire = reader.getWireType() as number;
      if (slot === "preview" && wire === VARINT) request.preview = reader.readBool();
      else if ((slot === "olds" || slot === "news" || slot === "properties") && wire === DELIMITED) {
        bad = false;
        reader.readMessage(undefined, readProps);
        request[slot] = result as Unwrapped;
        const bit = SLOT_BITS[slot];
        badSlots = bad ? badSlots | bit : badSlots & ~bit;
      } else if ((slot === "id" || slot === "urn" || slot === "name" || slot === "type") && wire === DELIMITED) {
        request[slot] = reader.readString();
      } else reader.skipField();
    }
  } finally {
    reader.free();
  }
  if (badSlots !== 0) request.failure = NO_KIND;
  return request;
}

/**
 * The service definition with the requests of `REQUEST_LAYOUTS` decoded by `decodeRequest` (a `PropsRequest` reaches
 * their handlers), and the responses of `RESPONSE_PROPS_FIELDS` written by `encodeResponse` when the handler answers
 * a `PropsResponse`; every other method as the generated definition has it.
 */
export function withDecodedRequests<S extends object>(service: S): S {
  const copy: Record<string, unknown> = { ...(service as Record<string, unknown>) };
  for (const [name, layout] of Object.entries(REQUEST_LAYOUTS) as [string, RequestLayout][]) {
    const method = copy[name] as object | undefined;
    if (method === undefined) throw new Error(`the ResourceProvider service has no method "${name}"`);
    copy[name] = { ...method, requestDeserialize: (bytes: Buffer) => decodeRequest(bytes, layout) };
  }
  for (const name of Object.keys(RESPONSE_PROPS_FIELDS)) {
    const method = copy[name] as { responseSerialize: (value: unknown) => Buffer };
    const generated = method.responseSerialize;
    copy[name] = {
      ...method,
      responseSerialize: (value: unknown) =>
        value instanceof PropsResponse ? encodeResponse(value) : generated(value),
    };
  }
  return copy as S;
}

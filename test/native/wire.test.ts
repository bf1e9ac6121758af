// Issue 19, round 2: the requests of the update step read straight from their bytes (provider/native/wire.ts) give
// what google-protobuf's generated deserializeBinary followed by unwrapProps gives — the values, the key order, the
// secret keys and the refusal of a Value without a kind — on generated values and on hand-made wire corner cases.
// Needs `npm run build`.
import { createRequire } from "node:module";
import { BinaryWriter } from "google-protobuf";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { describe, expect, it } from "vitest";
import type * as ValuesModule from "../../provider/native/values.js";
import type * as WireModule from "../../provider/native/wire.js";

const load = createRequire(__filename);
const { toStruct, unwrapProps, SECRET_SIG, SECRET_SIG_KEY } = load(
  "../../dist/provider/native/values.js",
) as typeof ValuesModule;
const { decodeProps, decodeRequest, encodeProps, encodeResponse, PropsResponse, REQUEST_LAYOUTS } = load(
  "../../dist/provider/native/wire.js",
) as typeof WireModule;

/** google-protobuf's reading of the bytes: the generated decoder, then unwrapProps; or the message it throws. */
function reference(bytes: Uint8Array) {
  try {
    const { props, secretKeys } = unwrapProps(Struct.deserializeBinary(bytes));
    return { props, keys: keyOrder(props), secretKeys: [...secretKeys].sort() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

function fast(bytes: Uint8Array) {
  try {
    const { props, secretKeys } = decodeProps(bytes);
    return { props, keys: keyOrder(props), secretKeys: [...secretKeys].sort() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Every object's keys in order, depth first, so that a difference in key order fails the comparison. */
function keyOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(keyOrder);
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).map(([key, item]) => [key, keyOrder(item)]);
  }
  return value;
}

/** A small deterministic generator (mulberry32). */
function random(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  return { next, int, pick };
}

const KEYS = ["a", "b", "B", "z", "", "10", "2", "value", "name", "é", "𝒳", "toString", SECRET_SIG_KEY];
const STRINGS = ["", "x", "hello world", "ünïcødé 🚀", SECRET_SIG, "04da6b54-80e4-46f7-96ec-b56ff0331ba9", "0"];
const NUMBERS = [0, -0, 1, -1.5, 3e300, 5e-324, Number.MAX_SAFE_INTEGER, NaN, Infinity, -Infinity];

type Rng = ReturnType<typeof random>;

/**
 * Writes the fields of one Value: usually one kind, sometimes none (a Value google-protobuf's reading refuses),
 * sometimes two (the last stands), sometimes an unknown field.
 */
function writeValueFields(rng: Rng, writer: BinaryWriter, depth: number): void {
  const kinds = rng.next() < 0.04 ? 0 : rng.next() < 0.08 ? 2 : 1;
  for (let i = 0; i < kinds; i++) {
    const kind = depth > 3 ? rng.int(4) + 1 : rng.int(6) + 1;
    if (kind === 1) writer.writeEnum(1, 0);
    else if (kind === 2) writer.writeDouble(2, rng.pick(NUMBERS));
    else if (kind === 3) writer.writeString(3, rng.pick(STRINGS));
    else if (kind === 4) writer.writeBool(4, rng.next() < 0.5);
    else if (kind === 5) writer.writeMessage(5, depth, (d: number, w: BinaryWriter) => writeStruct(rng, w, d + 1));
    else {
      writer.writeMessage(6, depth, (d: number, w: BinaryWriter) => {
        const count = rng.int(4);
        for (let j = 0; j < count; j++)
          w.writeMessage(1, d, (dd: number, ww: BinaryWriter) => writeValueFields(rng, ww, dd + 1));
      });
    }
  }
  if (rng.next() < 0.05) writer.writeString(9, "unknown");
}

/**
 * Writes the entries of one Struct: keys in any order, sometimes twice, sometimes missing (""), a secret's shape
 * sometimes; an entry's Value sometimes missing or sent in two parts (merged by the generated reader).
 */
function writeStruct(rng: Rng, writer: BinaryWriter, depth: number): void {
  if (rng.next() < 0.2) {
    writer.writeMessage(1, 0, (_: number, w: BinaryWriter) => {
      w.writeString(1, SECRET_SIG_KEY);
      w.writeMessage(2, 0, (__: number, ww: BinaryWriter) => ww.writeString(3, SECRET_SIG));
    });
  }
  const count = depth > 3 ? rng.int(2) : rng.int(5);
  for (let i = 0; i < count; i++) {
    writer.writeMessage(1, depth, (d: number, w: BinaryWriter) => {
      const parts = rng.next() < 0.03 ? 0 : rng.next() < 0.06 ? 2 : 1;
      const keyFirst = rng.next() < 0.9;
      if (keyFirst && rng.next() < 0.97) w.writeString(1, rng.pick(KEYS));
      for (let p = 0; p < parts; p++)
        w.writeMessage(2, d, (dd: number, ww: BinaryWriter) => writeValueFields(rng, ww, dd));
      if (!keyFirst) w.writeString(1, rng.pick(KEYS));
      if (rng.next() < 0.03) w.writeBool(7, true);
    });
  }
  if (rng.next() < 0.03) writer.writeString(4, "unknown");
}

function bytesOf(write: (writer: BinaryWriter) => void): Uint8Array {
  const writer = new BinaryWriter();
  write(writer);
  return writer.getResultBuffer();
}

const secret = (value: unknown) => ({ [SECRET_SIG_KEY]: SECRET_SIG, value });

describe("decodeProps", () => {
  it("reads Structs made by Struct.fromJavaScript as unwrapProps does: every kind, secrets at any depth", () => {
    const values = [
      {},
      { name: "v", count: 3, on: true, off: false, none: null, big: 1e21, neg: -0, frac: 0.1 },
      { token: secret("s3cret"), tags: { plain: "x", deep: secret({ inner: secret("y") }) } },
      { list: [1, "two", secret(3), { a: [secret(null)] }, [], [[]], {}], empty: {}, "": "" },
      { z: 1, a: 2, "10": 3, "2": 4, B: 5, b: { y: [{ d: 1, c: 2 }], x: null } },
      { onlySig: { [SECRET_SIG_KEY]: SECRET_SIG }, wrongSig: { [SECRET_SIG_KEY]: "no", value: 1 } },
      { text: "ünïcødé 🚀 \u0000 \ud7ff", long: "x".repeat(70_000) },
    ];
    for (const value of values) {
      const bytes = Struct.fromJavaScript(value as never).serializeBinary();
      const expected = reference(bytes);
      expect(expected).not.toHaveProperty("error");
      expect(fast(bytes)).toEqual(expected);
    }
  });

  it("agrees with google-protobuf on 3,000 generated wire Structs (corner cases of the wire included)", () => {
    const rng = random(19);
    let refused = 0;
    let secrets = 0;
    for (let i = 0; i < 3000; i++) {
      const bytes = bytesOf((w) => writeStruct(rng, w, 0));
      const expected = reference(bytes);
      if ("error" in expected) refused++;
      else if (expected.secretKeys.length > 0) secrets++;
      expect(fast(bytes), `case ${i}`).toEqual(expected);
    }
    // The generator reached both outcomes often enough for the comparison to mean something.
    expect(refused).toBeGreaterThan(100);
    expect(secrets).toBeGreaterThan(100);
  });

  it("keeps the last of a key sent twice, with that entry's secrecy, in sorted key order", () => {
    const bytes = bytesOf((w) => {
      w.writeMessage(1, 0, (_: number, e: BinaryWriter) => {
        e.writeString(1, "b");
        e.writeMessage(2, 0, (__: number, v: BinaryWriter) =>
          v.writeMessage(5, 0, (___: number, s: BinaryWriter) => {
            s.writeMessage(1, 0, (____: number, se: BinaryWriter) => {
              se.writeString(1, SECRET_SIG_KEY);
              se.writeMessage(2, 0, (_____: number, sv: BinaryWriter) => sv.writeString(3, SECRET_SIG));
            });
          }),
        );
      });
      w.writeMessage(1, 0, (_: number, e: BinaryWriter) => {
        e.writeString(1, "a");
        e.writeMessage(2, 0, (__: number, v: BinaryWriter) => v.writeBool(4, true));
      });
      w.writeMessage(1, 0, (_: number, e: BinaryWriter) => {
        e.writeString(1, "b");
        e.writeMessage(2, 0, (__: number, v: BinaryWriter) => v.writeString(3, "plain"));
      });
    });
    const got = fast(bytes);
    expect(got).toEqual(reference(bytes));
    expect(got).toEqual({
      props: { a: true, b: "plain" },
      keys: [
        ["a", true],
        ["b", "plain"],
      ],
      secretKeys: [],
    });
  });

  it("refuses a Value without a kind with unwrapProps's message", () => {
    const bytes = bytesOf((w) =>
      w.writeMessage(1, 0, (_: number, e: BinaryWriter) => {
        e.writeString(1, "a");
        e.writeMessage(2, 0, (__: number, v: BinaryWriter) =>
          v.writeMessage(6, 0, (___: number, l: BinaryWriter) => l.writeMessage(1, 0, () => undefined)),
        );
      }),
    );
    expect(reference(bytes)).toEqual({ error: "Unexpected struct type" });
    expect(fast(bytes)).toEqual({ error: "Unexpected struct type" });
  });
});

describe("decodeRequest", () => {
  const olds = Struct.fromJavaScript({ name: "v", token: secret("s") } as never);
  const news = Struct.fromJavaScript({ name: "w", tags: { t: secret("u") }, n: 2 } as never);
  const unwrapped = (struct: Struct) => {
    const { props, secretKeys } = unwrapProps(struct);
    return { props, secretKeys };
  };

  it("reads Check, Diff, Update, Create and Delete requests as their generated getters and unwrapProps read them", () => {
    const check = new provproto.CheckRequest();
    check.setUrn("urn:pulumi:s::p::cpln-native:index:VolumeSet::v");
    check.setOlds(olds);
    check.setNews(news);
    check.setRandomseed(new Uint8Array([1, 2, 3]));
    check.setName("v");
    check.setType("cpln-native:index:VolumeSet");
    expect(decodeRequest(check.serializeBinary(), REQUEST_LAYOUTS.check)).toEqual({
      id: "",
      urn: check.getUrn(),
      name: "v",
      type: check.getType(),
      preview: false,
      olds: unwrapped(olds),
      news: unwrapped(news),
      properties: { props: {}, secretKeys: new Set() },
      failure: undefined,
    });

    const diff = new provproto.DiffRequest();
    diff.setId("/org/o/gvc/g/volumeset/v");
    diff.setUrn(check.getUrn());
    diff.setOlds(olds);
    diff.setNews(news);
    diff.setIgnorechangesList(["tags"]);
    diff.setOldInputs(news);
    diff.setName("v");
    diff.setType(check.getType());
    expect(decodeRequest(diff.serializeBinary(), REQUEST_LAYOUTS.diff)).toMatchObject({
      id: diff.getId(),
      urn: diff.getUrn(),
      name: "v",
      type: diff.getType(),
      olds: unwrapped(olds),
      news: unwrapped(news),
      failure: undefined,
    });

    const update = new provproto.UpdateRequest();
    update.setId(diff.getId());
    update.setUrn(check.getUrn());
    update.setOlds(olds);
    update.setNews(news);
    update.setTimeout(12.5);
    update.setIgnorechangesList(["x"]);
    update.setPreview(true);
    update.setOldInputs(olds);
    update.setName("v");
    update.setType(check.getType());
    update.setResourceStatusAddress("127.0.0.1:1");
    update.setResourceStatusToken("t");
    expect(decodeRequest(update.serializeBinary(), REQUEST_LAYOUTS.update)).toMatchObject({
      id: update.getId(),
      urn: update.getUrn(),
      name: "v",
      type: update.getType(),
      preview: true,
      olds: unwrapped(olds),
      news: unwrapped(news),
      failure: undefined,
    });

    const create = new provproto.CreateRequest();
    create.setUrn(check.getUrn());
    create.setProperties(news);
    create.setTimeout(3);
    create.setPreview(false);
    create.setName("v");
    create.setType(check.getType());
    expect(decodeRequest(create.serializeBinary(), REQUEST_LAYOUTS.create)).toMatchObject({
      urn: create.getUrn(),
      name: "v",
      type: create.getType(),
      preview: false,
      properties: unwrapped(news),
      failure: undefined,
    });

    const remove = new provproto.DeleteRequest();
    remove.setId(diff.getId());
    remove.setUrn(check.getUrn());
    remove.setProperties(olds);
    remove.setTimeout(4);
    remove.setOldInputs(news);
    remove.setName("v");
    remove.setType(check.getType());
    expect(decodeRequest(remove.serializeBinary(), REQUEST_LAYOUTS.delete)).toMatchObject({
      id: remove.getId(),
      urn: remove.getUrn(),
      name: "v",
      type: remove.getType(),
      properties: unwrapped(olds),
      olds: { props: {}, secretKeys: new Set() },
      failure: undefined,
    });
  });

  it("keeps the last of a property bag sent twice, and flags a kindless Value only where the handler reads", () => {
    const broken = bytesOf((w) =>
      w.writeMessage(1, 0, (_: number, e: BinaryWriter) => {
        e.writeString(1, "a");
        e.writeMessage(2, 0, () => undefined);
      }),
    );
    const news2 = Struct.fromJavaScript({ name: "second" } as never).serializeBinary();
    const message = bytesOf((w) => {
      w.writeString(2, "urn:first");
      w.writeBytes(4, broken);
      w.writeBytes(4, news2);
      w.writeBytes(6, broken); // old_inputs: not read by Diff
      w.writeString(2, "urn:second");
    });
    const diff = provproto.DiffRequest.deserializeBinary(message);
    const decoded = decodeRequest(message, REQUEST_LAYOUTS.diff);
    expect(decoded.urn).toBe(diff.getUrn());
    expect(decoded.urn).toBe("urn:second");
    expect(decoded.news).toEqual(unwrapped(diff.getNews()!));
    expect(decoded.failure).toBeUndefined();

    const refused = bytesOf((w) => w.writeBytes(3, broken));
    expect(() => unwrapProps(provproto.DiffRequest.deserializeBinary(refused).getOlds())).toThrow(
      "Unexpected struct type",
    );
    expect(decodeRequest(refused, REQUEST_LAYOUTS.diff).failure).toBe("Unexpected struct type");
  });
});

/** A random provider value: every JSON kind, secrets, and what JSON leaves out or rewrites (undefined, NaN, dates). */
function plainValue(rng: Rng, depth: number): unknown {
  const kind = rng.int(depth > 3 ? 7 : 10);
  if (kind === 0) return null;
  if (kind === 1) return rng.pick(NUMBERS);
  if (kind === 2) return rng.pick(STRINGS);
  if (kind === 3) return rng.next() < 0.5;
  if (kind === 4) return undefined;
  if (kind === 5) return new Date(Date.UTC(2026, 10, 25, rng.int(24)));
  if (kind === 6) return () => 1;
  if (kind === 7) return Array.from({ length: rng.int(4) }, () => plainValue(rng, depth + 1));
  if (kind === 8) return secret(plainValue(rng, depth + 1));
  return plainObject(rng, depth + 1);
}

function plainObject(rng: Rng, depth: number): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  const count = rng.int(5);
  for (let i = 0; i < count; i++) object[rng.pick(KEYS)] = plainValue(rng, depth);
  return object;
}

describe("encodeProps", () => {
  it("writes the same bytes as toStruct(props).serializeBinary() on 3,000 generated property bags", () => {
    const rng = random(25);
    for (let i = 0; i < 3000; i++) {
      const props = plainObject(rng, 0);
      if (i % 7 === 0) props.sparse = [1, , 3]; // eslint-disable-line no-sparse-arrays
      expect(Buffer.from(encodeProps(props)).toString("hex"), `case ${i}`).toBe(
        Buffer.from(toStruct(props).serializeBinary()).toString("hex"),
      );
    }
  });

  it("answers a Check, Create or Update whose bytes decode to the generated message with the bag set", () => {
    const props = { name: "v", token: secret("s"), list: [1, null, { a: "b" }], when: new Date(0) };
    const check = new provproto.CheckResponse();
    const failure = new provproto.CheckFailure();
    failure.setProperty("name");
    failure.setReason("too long");
    check.addFailures(failure);
    const decoded = provproto.CheckResponse.deserializeBinary(encodeResponse(new PropsResponse(check, 1, props)));
    const expected = check.cloneMessage() as provproto.CheckResponse;
    expected.setInputs(toStruct(props));
    expect(decoded.toObject()).toEqual(expected.toObject());

    const create = new provproto.CreateResponse();
    create.setId("/org/o/gvc/g/volumeset/v");
    const created = provproto.CreateResponse.deserializeBinary(encodeResponse(new PropsResponse(create, 2, props)));
    expect(created.getId()).toBe(create.getId());
    expect(created.getProperties()?.toJavaScript()).toEqual(toStruct(props).toJavaScript());

    const update = provproto.UpdateResponse.deserializeBinary(
      encodeResponse(new PropsResponse(new provproto.UpdateResponse(), 1, props)),
    );
    expect(update.getProperties()?.toJavaScript()).toEqual(toStruct(props).toJavaScript());
  });
});

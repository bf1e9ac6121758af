// Issue 19: the native plugin's Struct ↔ value conversion in one walk each way (provider/native/values.ts) gives what
// google-protobuf's toJavaScript + unwrapping, and JSON + Struct.fromJavaScript, gave. Needs `npm run build`.
import { createRequire } from "node:module";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { describe, expect, it } from "vitest";
import type * as ValuesModule from "../../provider/native/values.js";

const load = createRequire(__filename);
const { toStruct, unwrapProps, SECRET_SIG, SECRET_SIG_KEY } = load(
  "../../dist/provider/native/values.js",
) as typeof ValuesModule;
const secret = (value: unknown) => ({ [SECRET_SIG_KEY]: SECRET_SIG, value });

describe("unwrapProps", () => {
  it("reads every kind of value, unwraps secrets at any depth and names the top-level keys that held one", () => {
    const wire = {
      name: "v",
      count: 3,
      on: true,
      none: null,
      token: secret("s3cret"),
      tags: { plain: "x", deep: secret({ inner: secret("y") }) },
      list: [1, "two", secret(3), { a: [secret(null)] }],
      empty: {},
    };
    const struct = Struct.fromJavaScript(wire as never);
    const { props, secretKeys } = unwrapProps(struct);
    expect(props).toEqual({
      name: "v",
      count: 3,
      on: true,
      none: null,
      token: "s3cret",
      tags: { plain: "x", deep: { inner: "y" } },
      list: [1, "two", 3, { a: [null] }],
      empty: {},
    });
    expect([...secretKeys].sort()).toEqual(["list", "tags", "token"]);
  });

  it("an absent Struct is an empty bag with no secret keys", () => {
    expect(unwrapProps(undefined)).toEqual({ props: {}, secretKeys: new Set() });
  });
});

describe("toStruct", () => {
  it("gives the Struct of the values' JSON: undefined left out of objects and null in arrays, dates as strings", () => {
    const values = {
      name: "v",
      gone: undefined,
      count: 1.5,
      inf: Number.POSITIVE_INFINITY,
      on: false,
      none: null,
      at: new Date("2026-11-25T08:00:00.000Z"),
      nested: { a: [1, undefined, { b: undefined, c: "c" }], fn: () => 1 },
      wrapped: secret("s"),
    };
    const expected = Struct.fromJavaScript(JSON.parse(JSON.stringify(values)) as never);
    const actual = toStruct(values);
    expect(actual.toJavaScript()).toEqual(expected.toJavaScript());
    expect(Buffer.from(actual.serializeBinary())).toEqual(Buffer.from(expected.serializeBinary()));
  });
});

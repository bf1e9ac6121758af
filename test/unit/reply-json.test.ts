import { describe, expect, it } from "vitest";
import { PageMemo } from "../../server/domain/paging.js";
import {
  freezeWithJson,
  isPlainJson,
  jsonOf,
  plainJsonOf,
  rememberJson,
  replyPayload,
  reusedReply,
  serializeReply,
} from "../../server/json.js";

describe("serializeReply", () => {
  it("answers a stored record with its remembered text, and any other object with JSON.stringify", () => {
    const doc = Object.freeze({ kind: "volumeset", name: "vs", tags: Object.freeze({ a: "1" }) });
    // A text that differs from JSON.stringify's (spacing) shows which one was used.
    const text = '{"kind": "volumeset", "name": "vs", "tags": {"a": "1"}}';
    rememberJson(doc, text);
    expect(serializeReply(doc)).toBe(text);
    expect(jsonOf(doc)).toBe(text);
    const copy = { ...doc };
    expect(serializeReply(copy)).toBe(JSON.stringify(copy));
    expect(jsonOf(copy)).toBe(JSON.stringify(copy));
  });

  it("never remembers a text for an object that is not frozen", () => {
    const doc = { name: "vs" };
    rememberJson(doc, '{"name": "other"}');
    expect(serializeReply(doc)).toBe('{"name":"vs"}');
  });

  it("answers a list with the envelope, then each item's remembered text (or its JSON) in order", () => {
    // Remembered texts with spacing JSON.stringify would not write, and characters of 2, 3 and 4 UTF-8 bytes.
    const first = Object.freeze({ name: "é", description: "€ 🚀" });
    rememberJson(first, '{"name": "é", "description": "€ 🚀"}');
    const second = Object.freeze({ name: "b" });
    rememberJson(second, '{"name":  "b"}');
    const unknown = { name: "c", description: "ü" };
    const answer = serializeReply({ kind: "list", items: [first, unknown, second], links: [{ rel: "self" }] });
    expect(answer).toBe(
      '{"kind":"list","links":[{"rel":"self"}],"items":[{"name": "é", "description": "€ 🚀"},' +
        '{"name":"c","description":"ü"},{"name":  "b"}]}',
    );
    // An empty envelope has no stray comma.
    expect(serializeReply({ items: [second] })).toBe('{"items":[{"name":  "b"}]}');
  });

  it("answers a list of items none of which is stored with JSON.stringify", () => {
    const payload = { kind: "list", items: [{ name: "a" }, 1, null] };
    expect(serializeReply(payload)).toBe(JSON.stringify(payload));
  });
});

describe("replyPayload", () => {
  it("sends a reused reply as the same UTF-8 bytes every time: its JSON with the items' remembered texts", () => {
    const item = Object.freeze({ name: "é", description: "🚀" });
    rememberJson(item, '{"name": "é", "description": "🚀"}');
    const links = [{ rel: "self", href: "/org/acme/policy" }];
    const page = reusedReply({ kind: "list", items: [item], links });
    expect(Object.isFrozen(page)).toBe(true);
    expect(Object.isFrozen(links)).toBe(true);
    expect(Object.isFrozen(links[0])).toBe(true);
    const bytes = replyPayload(page);
    expect(Buffer.isBuffer(bytes)).toBe(true);
    const text =
      '{"kind":"list","links":[{"rel":"self","href":"/org/acme/policy"}],"items":[{"name": "é", "description": "🚀"}]}';
    expect((bytes as Buffer).toString("utf8")).toBe(text);
    expect(replyPayload(page)).toBe(bytes);
    expect(serializeReply(page)).toBe(text);
  });

  it("sends any other answer as serializeReply's text", () => {
    const answer = { kind: "list", items: [{ name: "a" }] };
    expect(replyPayload(answer)).toBe(JSON.stringify(answer));
    expect(Object.isFrozen(answer)).toBe(false);
  });
});

describe("PageMemo", () => {
  it("keeps pages within its bound on bytes: a page over an eighth of it is not kept; past the bound it starts over", () => {
    const memo = new PageMemo<string>(800);
    memo.remember("a", "page a", 100);
    memo.remember("big", "page big", 101);
    expect(memo.get("a")).toBe("page a");
    expect(memo.get("big")).toBeUndefined();
    for (const key of ["b", "c", "d", "e", "f", "g", "h"]) memo.remember(key, `page ${key}`, 100);
    expect(["a", "b", "h"].map((key) => memo.get(key))).toEqual(["page a", "page b", "page h"]);
    // A key kept again gives back the bytes of what it held: still 800 held, nothing dropped.
    memo.remember("a", "page a2", 100);
    expect(["a", "b", "h"].map((key) => memo.get(key))).toEqual(["page a2", "page b", "page h"]);
    // The ninth page of 100 bytes goes past 800: the memo starts over with it alone.
    memo.remember("i", "page i", 100);
    expect(["a", "b", "h", "i"].map((key) => memo.get(key))).toEqual([undefined, undefined, undefined, "page i"]);
    // A page no longer kept (too large now) leaves no older one behind under its key.
    memo.remember("i", "page i2", 500);
    expect(memo.get("i")).toBeUndefined();
  });
});

describe("freezeWithJson", () => {
  it("freezes a plain JSON document all the way down and registers its text as plain", () => {
    const doc = { name: "vs", spec: { sizes: [1, { gb: 2 }] }, tags: {}, on: true, none: null };
    const text = JSON.stringify(doc);
    freezeWithJson(doc, text);
    expect(plainJsonOf(doc)).toBe(text);
    expect(jsonOf(doc)).toBe(text);
    for (const part of [doc, doc.spec, doc.spec.sizes, doc.spec.sizes[1], doc.tags])
      expect(Object.isFrozen(part)).toBe(true);
  });

  it("a document JSON would change (undefined, a Date, NaN) is frozen whole and its text kept, but not as plain", () => {
    for (const odd of [undefined, new Date(0), Number.NaN]) {
      // The odd value sits before other parts: the walk stops at it, and everything after it is frozen all the same.
      const doc = { first: { a: 1 }, odd, later: { deep: { b: [2] } } };
      const text = JSON.stringify(doc);
      freezeWithJson(doc, text);
      expect(plainJsonOf(doc)).toBeUndefined();
      expect(jsonOf(doc)).toBe(text);
      for (const part of [doc, doc.first, doc.later, doc.later.deep, doc.later.deep.b]) {
        expect(Object.isFrozen(part)).toBe(true);
      }
    }
  });

  it("with a base it found plain, takes the fields shared with it as walked and still walks every other one", () => {
    const base = { name: "vs", spec: { sizes: [1, { gb: 2 }] }, status: { parentId: "p" } };
    freezeWithJson(base, JSON.stringify(base));
    // A patched record: spec and status shared with the stored one, description new and unfrozen.
    const next = { ...base, description: { text: "new" }, version: 2 };
    freezeWithJson(next, JSON.stringify(next), base);
    expect(plainJsonOf(next)).toBe(JSON.stringify(next));
    expect(Object.isFrozen(next)).toBe(true);
    expect(Object.isFrozen(next.description)).toBe(true);
    // A field that is not base's own value is walked: an odd value in it still makes the document not plain.
    const odd = { ...base, spec: { sizes: [Number.NaN] } };
    freezeWithJson(odd, JSON.stringify(odd), base);
    expect(plainJsonOf(odd)).toBeUndefined();
    // A base never found plain lends nothing: the shared field's odd value is found.
    const unchecked = Object.freeze({ name: "u", spec: Object.freeze({ at: new Date(0) }) });
    const derived = { ...unchecked, version: 3 };
    freezeWithJson(derived, JSON.stringify(derived), unchecked);
    expect(plainJsonOf(derived)).toBeUndefined();
  });

  it("isPlainJson tells values equal to their JSON round trip from others, and changes nothing", () => {
    const plain = { a: [1, "x", null, { b: false }] };
    expect(isPlainJson(plain)).toBe(true);
    expect(Object.isFrozen(plain)).toBe(false);
    expect(isPlainJson({ a: undefined })).toBe(false);
    expect(isPlainJson([Number.POSITIVE_INFINITY])).toBe(false);
    expect(isPlainJson(new Map())).toBe(false);
    expect(isPlainJson(Object.create({ inherited: 1 }))).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { jsonOf, rememberJson, serializeReply } from "../../server/json.js";

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

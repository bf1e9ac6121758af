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
});

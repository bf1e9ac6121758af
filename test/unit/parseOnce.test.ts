// Issue 19: a record the client validated is not parsed again by the resource's fromApi (api/parseOnce.ts).
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { parseOnce, safeParseOnce } from "../../api/parseOnce.js";

const record = () => z.object({ name: z.string(), tags: z.record(z.string(), z.string()).optional() });

describe("parseOnce", () => {
  it("returns what the schema produced as it is, without parsing it again", () => {
    const schema = record();
    const first = safeParseOnce(schema, { name: "a", extra: 1 });
    expect(first.success).toBe(true);
    const produced = first.data as { name: string };
    const parse = vi.spyOn(schema, "parse");
    expect(parseOnce(schema, produced)).toBe(produced);
    expect(parse).not.toHaveBeenCalled();
  });

  it("parses a value the schema did not produce, and throws zod's error for an invalid one", () => {
    const schema = record();
    const input = { name: "a", extra: 1 };
    const parsed = parseOnce(schema, input);
    expect(parsed).not.toBe(input);
    expect(parsed).toEqual({ name: "a" });
    expect(() => parseOnce(schema, { name: 1 })).toThrow(z.ZodError);
    expect(safeParseOnce(schema, { name: 1 }).success).toBe(false);
  });

  it("a value another schema produced is parsed by this one (and can fail it)", () => {
    const loose = z.looseObject({ name: z.string() });
    const strict = z.strictObject({ name: z.string() });
    const produced = parseOnce(loose, { name: "a", extra: 1 });
    expect(() => parseOnce(strict, produced)).toThrow(/extra/);
  });
});

/**
 * Enum values that are symbols get a `name` in schema.json: Pulumi's Python and Go SDK generators derive member names
 * from the values and refuse a lone symbol ("enum name = is not a valid identifier", pkg/codegen/python/utilities.go
 * makeSafeEnumName), so without names no SDK could be generated from schema.json (test/engine/languages.test.ts
 * generates them).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { enumValueName } from "../../tools/schema/convert.js";

const schema = JSON.parse(fs.readFileSync(path.resolve(__dirname, "..", "..", "schema.json"), "utf8")) as {
  types: Record<string, { enum?: { name?: string; value: unknown }[] }>;
};

describe("enum value names", () => {
  it("spells out the symbols of the query operators and leaves words alone", () => {
    const ops = ["=", "!=", ">", ">=", "<", "<=", "~", "=~", "contains", "exists", "!exists"];
    expect(ops.map(enumValueName)).toEqual([
      "Equal",
      "NotEqual",
      "Greater",
      "GreaterEqual",
      "Less",
      "LessEqual",
      "Tilde",
      "EqualTilde",
      undefined,
      undefined,
      "NotExists",
    ]);
    expect(enumValueName("general-purpose-ssd")).toBeUndefined();
    expect(enumValueName(3)).toBeUndefined();
  });

  it("refuses a value it cannot name, naming the value", () => {
    expect(() => enumValueName("#")).toThrow('enum value "#" has no name an SDK can use');
  });

  it("every symbol value in schema.json has a name, and the names of one enum are distinct", () => {
    for (const [token, type] of Object.entries(schema.types)) {
      if (!type.enum) continue;
      for (const item of type.enum) {
        if (typeof item.value === "string" && !/^[A-Za-z][A-Za-z0-9_-]*$/.test(item.value)) {
          expect(item.name, `${token} ${item.value}`).toMatch(/^[A-Z][A-Za-z0-9]*$/);
        }
      }
      const names = type.enum.map((item) => item.name ?? String(item.value));
      expect(new Set(names).size, token).toBe(names.length);
    }
    expect(schema.types["cpln-native:index:SpecTermOp"]?.enum?.find((item) => item.value === "=")?.name).toBe("Equal");
  });
});

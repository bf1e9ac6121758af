/**
 * An output that is a string or an object lists the object first in schema.json: the Python SDK reads a two-member
 * `Union[T, Mapping[str, Any]]` as its own `InputType[T]` (pulumi sdk/python/lib/pulumi/_types.py `unwrap_type`), so
 * with the string first a secret's dictionary `data` was typed `str` and the program failed on every up ("expected a
 * value of type <class 'str'> but got a value of type <class 'dict'> ... property `data`";
 * test/engine/app-python.test.ts runs the app example's Python program).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { convertType, TypeCollector } from "../../tools/schema/convert.js";

interface Spec {
  type?: string;
  oneOf?: Spec[];
  properties?: Record<string, Spec>;
}
const schema = JSON.parse(fs.readFileSync(path.resolve(__dirname, "..", "..", "schema.json"), "utf8")) as {
  resources: Record<string, { properties: Record<string, Spec> }>;
  functions: Record<string, { outputs: { properties: Record<string, Spec> } }>;
};

describe("output unions in schema.json", () => {
  it("convertType puts an output's object member first and leaves an input's order", () => {
    const stringOrMap = { oneOf: [{ type: "string" }, { type: "object", additionalProperties: {} }] };
    const convert = (suffix: string) =>
      convertType(stringOrMap, ["X"], { collector: new TypeCollector("test"), root: {}, suffix });
    expect(convert("Output").oneOf!.map((member) => member.type)).toEqual(["object", "string"]);
    expect(convert("Args").oneOf!.map((member) => member.type)).toEqual(["string", "object"]);
  });

  it("every resource output and function result that may be an object lists the object first", () => {
    const outputs = [
      ...Object.entries(schema.resources).map(([token, r]) => [token, r.properties] as const),
      ...Object.entries(schema.functions).map(([token, f]) => [token, f.outputs.properties] as const),
    ];
    const unions: string[] = [];
    for (const [token, properties] of outputs) {
      for (const [name, spec] of Object.entries(properties)) {
        const members = spec.oneOf?.map((member) => member.type);
        if (!members?.includes("object")) continue;
        unions.push(`${token}.${name}`);
        expect(members[0], `${token}.${name}`).toBe("object");
      }
    }
    // The two that exist today, so the loop above cannot pass by finding none.
    expect(unions.sort()).toEqual(["cpln-native:index:Secret.data", "cpln-native:index:getSecret.data"]);
  });
});

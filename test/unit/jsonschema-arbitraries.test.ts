/**
 * The JSON Schema → fast-check converter used by the document-driven fuzzer (test/reliability/openapi-fuzz.test.ts):
 * every generated "valid" value satisfies the schema and every "invalid" one breaks it, as ajv (2020-12) judges, for
 * each keyword the converter claims; and every rule of a schema is reached by the invalid generator.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  invalidValues,
  validValues,
  type GenOptions,
  type Schema,
  type Violation,
} from "../reliability/jsonschema-arbitraries.js";

const SEED = 4242;
const RUNS = 300;

function validator(schema: Schema, defs: Record<string, Schema> = {}) {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats(ajv);
  return ajv.compile(typeof schema === "boolean" ? schema : { ...schema, $defs: defs });
}

function resolver(defs: Record<string, Schema>): GenOptions["resolve"] {
  return (ref) => {
    const name = ref.replace(/^#\/\$defs\//, "");
    const found = defs[name];
    if (found === undefined) throw new Error(`unknown ${ref}`);
    return found;
  };
}

/** Asserts both directions for one schema and returns the rules the invalid generator reached. */
function roundTrip(schema: Schema, defs: Record<string, Schema> = {}): Set<string> {
  const check = validator(schema, defs);
  const options = { resolve: resolver(defs) };
  fc.assert(
    fc.property(validValues(schema, options), (value) => {
      if (!check(value)) throw new Error(`generated ${JSON.stringify(value)}: ${JSON.stringify(check.errors)}`);
    }),
    { seed: SEED, numRuns: RUNS },
  );
  const bad = invalidValues(schema, options);
  expect(bad).toBeDefined();
  const rules = new Set<string>();
  fc.assert(
    fc.property(bad as fc.Arbitrary<Violation>, (violation) => {
      rules.add(violation.rule);
      if (check(violation.value)) throw new Error(`accepted ${JSON.stringify(violation)}`);
    }),
    { seed: SEED, numRuns: RUNS },
  );
  return rules;
}

describe("validValues / invalidValues", () => {
  it("strings: minLength, maxLength (in code points), pattern, format, enum, const", () => {
    expect(
      roundTrip({
        type: "object",
        properties: {
          name: { type: "string", pattern: "^[a-z][-a-z0-9]*[a-z0-9]$", maxLength: 12 },
          text: { type: "string", minLength: 2, maxLength: 5 },
          id: { type: "string", format: "uuid" },
          at: { type: "string", format: "date-time" },
          mode: { type: "string", enum: ["a", "b"] },
          kind: { type: "string", const: "gvc" },
        },
        required: ["name", "text", "id", "at", "mode", "kind"],
        additionalProperties: false,
      }),
    ).toEqual(
      new Set([
        "type object",
        "required name",
        "required text",
        "required id",
        "required at",
        "required mode",
        "required kind",
        "additionalProperties false",
        "type string",
        "maxLength 12",
        "pattern ^[a-z][-a-z0-9]*[a-z0-9]$",
        "minLength 2",
        "maxLength 5",
        "format uuid",
        "format date-time",
        "enum",
        'const "gvc"',
      ]),
    );
  });

  it("numbers: integer, minimum, maximum, exclusive bounds, multipleOf, and integers beyond 32 bits", () => {
    const all = roundTrip({
      type: "object",
      properties: {
        count: { type: "integer", minimum: 10, maximum: 65536 },
        factor: { type: "number", minimum: 1.1 },
        ratio: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
        step: { type: "integer", multipleOf: 5, minimum: 0, maximum: 100 },
        version: { type: "integer", minimum: 0, maximum: 9007199254740991 },
      },
      required: ["count", "factor", "ratio", "step", "version"],
    });
    expect([...all].sort()).toEqual(
      [
        "exclusiveMaximum 1",
        "exclusiveMinimum 0",
        "maximum 100",
        "maximum 65536",
        "minimum 0",
        "minimum 1.1",
        "minimum 10",
        "multipleOf 5",
        "required count",
        "required factor",
        "required ratio",
        "required step",
        "required version",
        "type integer",
        "type number",
        "type object",
      ].sort(),
    );
    const rules = roundTrip({ type: "integer", minimum: 10, maximum: 20 });
    expect([...rules].sort()).toEqual(["maximum 20", "minimum 10", "type integer"]);
  });

  it("arrays: items, minItems, maxItems, uniqueItems, prefixItems", () => {
    const rules = roundTrip({
      type: "array",
      items: { type: "string", enum: ["x", "y", "z"] },
      minItems: 1,
      maxItems: 2,
      uniqueItems: true,
    });
    expect([...rules].sort()).toEqual(["enum", "maxItems 2", "minItems 1", "type array", "type string", "uniqueItems"]);
    roundTrip({ type: "array", prefixItems: [{ type: "integer" }, { type: "boolean" }], items: false, minItems: 2 });
  });

  it("objects: free-form maps with propertyNames and typed values, maxProperties, nullable unions", () => {
    const rules = roundTrip({
      type: "object",
      propertyNames: { type: "string", pattern: "^aws-[a-z0-9-]+$" },
      additionalProperties: { type: ["string", "number", "boolean", "null"] },
      maxProperties: 3,
    });
    expect(rules).toEqual(
      new Set([
        "type object",
        "propertyNames pattern ^aws-[a-z0-9-]+$",
        "maxProperties 3",
        "type string|number|boolean|null",
      ]),
    );
  });

  it("anyOf / oneOf with discriminating consts", () => {
    const rules = roundTrip({
      oneOf: [
        {
          type: "object",
          properties: { aws: { type: "object", additionalProperties: false } },
          required: ["aws"],
          additionalProperties: false,
        },
        { type: "object", properties: { gcp: { type: "string" } }, required: ["gcp"], additionalProperties: false },
      ],
    });
    expect(rules).toContain("required aws");
    expect(rules).toContain("required gcp");
    roundTrip({ anyOf: [{ type: "string", maxLength: 3 }, { type: "null" }] });
  });

  it("if/then/else and allOf (a cross-field rule): the then-branch is exact, the else-branch best-effort", () => {
    const schema: Schema = {
      type: "object",
      properties: {
        fileSystemType: { type: "string", enum: ["ext4", "shared"] },
        performanceClass: { type: "string", enum: ["ssd", "shared"] },
      },
      additionalProperties: false,
      allOf: [
        {
          if: { properties: { fileSystemType: { const: "shared" } }, required: ["fileSystemType"] },
          then: { properties: { performanceClass: { const: "shared" } } },
          else: { required: ["performanceClass"] },
        },
      ],
    };
    const check = validator(schema);
    const values = fc.sample(validValues(schema), { seed: SEED, numRuns: RUNS });
    const accepted = values.filter((v) => check(v));
    // The else-branch cannot negate `if` constructively: the fuzzer filters with ajv; most values must still pass.
    expect(accepted.length).toBeGreaterThan(RUNS * 0.6);
    expect(accepted.some((v) => (v as Record<string, unknown>)["fileSystemType"] === "shared")).toBe(true);
    expect(accepted.some((v) => (v as Record<string, unknown>)["fileSystemType"] !== "shared")).toBe(true);
    const violations = fc.sample(invalidValues(schema) as fc.Arbitrary<Violation>, { seed: SEED, numRuns: RUNS });
    expect(violations.filter((v) => check(v.value))).toEqual([]);
    expect(violations.map((v) => v.rule)).toContain('if/then const "shared"');
  });

  it("$ref, including a recursive one, resolved through the caller's resolver", () => {
    const defs: Record<string, Schema> = {
      Node: {
        type: "object",
        properties: {
          value: { type: "integer", minimum: 0 },
          children: { type: "array", items: { $ref: "#/$defs/Node" } },
        },
        required: ["value"],
        additionalProperties: false,
      },
    };
    const rules = roundTrip({ $ref: "#/$defs/Node" }, defs);
    expect(rules).toContain("minimum 0");
    expect(rules).toContain("required value");
  });

  it("keeps special keys as data: a generated __proto__ key is an own property, not a prototype", () => {
    const bad = invalidValues({ type: "object", properties: { a: { type: "integer" } }, additionalProperties: false });
    const samples = fc.sample(bad as fc.Arbitrary<Violation>, { seed: SEED, numRuns: 500 });
    const proto = samples.find((s) => s.path === "__proto__");
    expect(proto).toBeDefined();
    expect(Object.keys(proto!.value as object)).toContain("__proto__");
    expect(JSON.stringify(proto!.value)).toContain('"__proto__"');
  });

  it("refuses an unsatisfiable schema instead of generating nonsense", () => {
    expect(() => validValues(false)).toThrow("no value satisfies the schema false");
    expect(() => validValues({ enum: [] })).toThrow("empty enum");
    expect(invalidValues(true)).toBeUndefined();
  });
});

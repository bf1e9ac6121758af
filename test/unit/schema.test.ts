/**
 * schema.json is a valid Pulumi package schema, is exactly what `npm run gen` generates from the provider's
 * definitions (no drift), covers every registry resource and function, and the tables of docs/resources.md match it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import Ajv2020 from "ajv/dist/2020";
import { describe, expect, it } from "vitest";
import * as functionModules from "../../provider/functions/index.js";
import { declaredFunctionsByName, resources } from "../../provider/index.js";
import { functionToken, renderSchema, resourceToken, type PackageSchema } from "../../tools/schema/generate.js";
import { packageSchema, registryFunctions } from "../../tools/schema/package.js";
import { schemaPropertyIssues } from "../../tools/schema/lint.js";
import { extractApiTables, renderApiTables } from "../../tools/schema/readme.js";

const repoRoot = path.resolve(__dirname, "..", "..");
const committedText = fs.readFileSync(path.join(repoRoot, "schema.json"), "utf8");
const committed = JSON.parse(committedText) as PackageSchema;
const metaschema = JSON.parse(
  fs.readFileSync(path.join(repoRoot, "test", "fixtures", "pulumi-package-metaschema.json"), "utf8"),
) as Record<string, unknown>;

function validator() {
  // The metaschema uses the formats "regex" and "uri-reference"; their values are checked by the tests below instead.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  return ajv.compile(metaschema);
}

describe("schema.json", () => {
  it("validates against Pulumi's package metaschema (JSON Schema 2020-12)", () => {
    const validate = validator();
    const valid = validate(committed);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it("the metaschema rejects a schema with a malformed resource token (the validation is live)", () => {
    const validate = validator();
    const broken = { ...committed, resources: { "not a token": { inputProperties: {} } } };
    expect(validate(broken)).toBe(false);
  });

  it("is byte-for-byte what npm run gen generates now", () => {
    expect(committedText).toBe(renderSchema(packageSchema()));
  });

  it("lists every registry resource with its inputs, outputs and replace rules", () => {
    for (const definition of Object.values(resources)) {
      const spec = committed.resources[resourceToken(definition.typeName)];
      expect(spec, definition.typeName).toBeDefined();
      for (const [field, rule] of Object.entries(definition.fields as Record<string, { replace?: boolean }>)) {
        expect(spec!.inputProperties[field], `${definition.typeName}.${field}`).toBeDefined();
        expect(spec!.inputProperties[field]!.replaceOnChanges === true, `${definition.typeName}.${field}`).toBe(
          rule.replace === true,
        );
      }
    }
    expect(Object.keys(committed.resources).sort()).toEqual(
      Object.values(resources)
        .map((definition) => resourceToken(definition.typeName))
        .sort(),
    );
  });

  it("no resource declares the properties Pulumi reserves (id, urn): an API object's id is cplnId", () => {
    // A key, a binding and a route are parts of an API object (a service account, a policy, a domain), with no self
    // link or id of their own.
    const parts = ["ServiceAccountKey", "PolicyBinding", "DomainRoute"].map(resourceToken);
    for (const [token, spec] of Object.entries(committed.resources)) {
      for (const reserved of ["id", "urn"]) {
        expect(spec.inputProperties[reserved], `${token}.${reserved}`).toBeUndefined();
        expect(spec.properties[reserved], `${token}.${reserved}`).toBeUndefined();
      }
      if (parts.includes(token)) expect(spec.properties.selfLink, token).toBeUndefined();
      else expect(spec.properties.cplnId, token).toBeDefined();
    }
  });

  it("lists every data-source function the provider exports, with its arguments", () => {
    const exported = [
      ...Object.keys(functionModules).filter(
        (name) =>
          /^(get|query)[A-Z]\w*$/.test(name) &&
          !name.endsWith("Args") &&
          typeof functionModules[name as keyof typeof functionModules] === "function",
      ),
      ...Object.keys(declaredFunctionsByName),
    ].sort();
    expect(exported.length).toBeGreaterThan(0);
    expect(Object.keys(committed.functions).sort()).toEqual(exported.map(functionToken));
    for (const definition of registryFunctions()) {
      const spec = committed.functions[functionToken(definition.name)]!;
      const argNames = Object.keys((definition.args() as unknown as { shape: Record<string, unknown> }).shape).sort();
      expect(Object.keys(spec.inputs.properties).sort(), definition.name).toEqual(argNames);
    }
  });

  it("declares the config variables with their environment fallbacks, the token as a secret", () => {
    const variables = committed.config.variables;
    expect(Object.keys(variables).sort()).toEqual(["endpoint", "org", "timeoutSeconds", "token"]);
    expect(variables.timeoutSeconds).toMatchObject({
      type: "number",
      default: 60,
      defaultInfo: { environment: ["CPLN_TIMEOUT"] },
    });
    expect(variables.org!.defaultInfo).toEqual({ environment: ["CPLN_ORG"] });
    expect(variables.endpoint!.defaultInfo).toEqual({ environment: ["CPLN_ENDPOINT"] });
    expect(variables.token!.defaultInfo).toEqual({ environment: ["CPLN_TOKEN"] });
    expect(variables.token!.secret).toBe(true);
  });

  it("names the plugin's config keys (cpln-native:org), never the dynamic provider's (cpln:org)", () => {
    expect(committedText).not.toMatch(/\bcpln:(org|endpoint|token)\b/);
    expect(committed.functions[functionToken("getQuota")]!.inputs!.properties.org!.description).toContain(
      "cpln-native:org",
    );
  });

  it("marks the join script secret", () => {
    expect(committed.functions[functionToken("getMk8sJoinScript")]!.outputs.properties.script!.secret).toBe(true);
  });

  it("marks the service account key secret, and no type takes a resource's token", () => {
    expect(committed.resources[resourceToken("ServiceAccountKey")]!.properties.key!.secret).toBe(true);
    for (const token of Object.keys(committed.resources)) expect(committed.types, token).not.toHaveProperty(token);
  });

  it("no property has a const or a default an SDK would send unasked; only the provider's endpoint and timeout default", () => {
    expect(schemaPropertyIssues(committed)).toEqual([]);
    expect(committed.config.variables.endpoint!.default).toBe("https://api.cpln.io");
    const target = committed.resources[resourceToken("Policy")]!.inputProperties.target!;
    expect(target).toEqual({
      $ref: "#/types/cpln-native:index:PolicyTarget",
      description: "'all': the policy applies to every object of targetKind.",
      type: "string",
    });
    expect(committed.types["cpln-native:index:PolicyTarget"]).toMatchObject({
      type: "string",
      enum: [{ value: "all" }],
    });
    expect(committed.resources[resourceToken("Policy")]!.requiredInputs).not.toContain("target");
  });

  it("the property lint is live: it names a const input and a defaulted one, and spares the provider's endpoint", () => {
    const policy = committed.resources[resourceToken("Policy")]!;
    const widened = {
      ...committed,
      resources: {
        [resourceToken("Policy")]: {
          ...policy,
          inputProperties: {
            ...policy.inputProperties,
            target: { type: "string", const: "all" },
            description: { type: "string", default: "x" },
          },
        },
      },
    };
    expect(schemaPropertyIssues(widened)).toEqual([
      `resources.${resourceToken("Policy")}.inputProperties.description: default "x"`,
      `resources.${resourceToken("Policy")}.inputProperties.target: const "all"`,
    ]);
  });

  it("every $ref points at a type the schema defines", () => {
    const refs = [...committedText.matchAll(/"\$ref": "([^"]+)"/g)].map((match) => match[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      if (ref === "pulumi.json#/Any") continue;
      expect(ref).toMatch(/^#\/types\//);
      expect(committed.types[ref.slice("#/types/".length)], ref).toBeDefined();
    }
  });

  it("the resource and function tables of docs/resources.md are the ones generated from schema.json", () => {
    const readme = fs.readFileSync(path.join(repoRoot, "docs", "resources.md"), "utf8");
    expect(extractApiTables(readme)).toBe(renderApiTables(committed));
  });
});

/**
 * Builds the Pulumi package schema (`schema.json`) from the provider's resource and function definitions: their zod
 * schemas (via `z.toJSONSchema`) give the properties, types and `.describe()` texts; the field rules give
 * `replaceOnChanges`; the config variables mirror `provider/config.ts`. The output is deterministic (sorted keys).
 */
import { z } from "zod";
import {
  TypeCollector,
  convertObject,
  sortKeys,
  type JsonSchema,
  type ObjectTypeSpec,
  type PropertySpec,
} from "./convert.js";

import { NATIVE_PACKAGE, withNativeConfigKeys } from "../../provider/native/identity.js";

/** The package of the native plugin (`pulumi-resource-cpln-native`); see provider/native/identity.ts for the name. */
export const PACKAGE_NAME = NATIVE_PACKAGE;

/** What the generator needs of a resource definition (`provider/resources/types.ts` satisfies it). */
export interface SchemaResource {
  typeName: string;
  description: string;
  inputs(): z.ZodType;
  outputs(): z.ZodType;
  fields: Readonly<Record<string, { replace?: boolean }>>;
  /** Outputs that are secrets (the SDK class lists them in `additionalSecretOutputs`). */
  secretOutputs?: readonly string[];
}

/** What the generator needs of a data-source function. */
export interface SchemaFunction {
  /** `getQuotas`, `queryCloudAccounts`, ... */
  name: string;
  description: string;
  args(): z.ZodType;
  result(): z.ZodType;
  /** Result fields that are secrets (the Output form wraps them with `pulumi.secret`). */
  secretResultFields?: readonly string[];
}

/** The package's own facts (tools/schema/package.ts): who publishes it, where, and how each SDK is named. */
export interface PackageMetadata {
  displayName: string;
  description: string;
  version: string;
  keywords: string[];
  license: string;
  publisher: string;
  repository: string;
  homepage: string;
  logoUrl: string;
  /** Where `pulumi plugin install` and the SDKs fetch the plugin's release archives (`${VERSION}` interpolated). */
  pluginDownloadURL: string;
  language: {
    nodejs: {
      packageName: string;
      packageDescription: string;
      dependencies: Record<string, string>;
      respectSchemaVersion: boolean;
    };
    python: { packageName: string; pyproject: { enabled: boolean }; respectSchemaVersion: boolean };
    go: { importBasePath: string; respectSchemaVersion: boolean };
    csharp: { rootNamespace: string; packageReferences?: Record<string, string>; respectSchemaVersion: boolean };
    java: {
      basePackage: string;
      buildFiles: string;
      gradleNexusPublishPluginVersion: string;
      dependencies: Record<string, string>;
    };
  };
}

export interface PackageSchema extends PackageMetadata {
  name: string;
  config: { variables: Record<string, PropertySpec>; defaults: string[] };
  types: Record<string, unknown>;
  resources: Record<string, ResourceSpec>;
  functions: Record<string, FunctionSpec>;
}

export interface ResourceSpec extends ObjectTypeSpec {
  inputProperties: Record<string, PropertySpec>;
  requiredInputs: string[];
}

export interface FunctionSpec {
  description: string;
  inputs: ObjectTypeSpec;
  outputs: ObjectTypeSpec;
}

export function resourceToken(typeName: string): string {
  return `${PACKAGE_NAME}:index:${typeName}`;
}

export function functionToken(name: string): string {
  return `${PACKAGE_NAME}:index:${name}`;
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  return z.toJSONSchema(schema, { io, unrepresentable: "any", reused: "inline" }) as JsonSchema;
}

/** Provider config of the package (`cpln-native:<key>`); precedence and texts as in `provider/config.ts`. */
function configVariables(): Record<string, PropertySpec> {
  return {
    org: {
      type: "string",
      description:
        "Control Plane org the resources and functions work in, unless a resource sets `org`. Falls back to CPLN_ORG.",
      defaultInfo: { environment: ["CPLN_ORG"] },
    },
    endpoint: {
      type: "string",
      description:
        "Base URL of the Control Plane API (or of a cpln-local server). Falls back to CPLN_ENDPOINT, then https://api.cpln.io.",
      default: "https://api.cpln.io",
      defaultInfo: { environment: ["CPLN_ENDPOINT"] },
    },
    token: {
      type: "string",
      description: `Service-account key or access token. Set it with \`pulumi config set --secret ${PACKAGE_NAME}:token\`; falls back to CPLN_TOKEN. Never stored in state.`,
      secret: true,
      defaultInfo: { environment: ["CPLN_TOKEN"] },
    },
    timeoutSeconds: {
      type: "number",
      description:
        "Limit in seconds for one API call, retries of a busy server (429, 503) included; default 60. Falls back to CPLN_TIMEOUT. An unreachable endpoint (connection refused, unknown host) fails after about 2 s regardless.",
      default: 60,
      defaultInfo: { environment: ["CPLN_TIMEOUT"] },
    },
  };
}

function resourceSpec(definition: SchemaResource, collector: TypeCollector): ResourceSpec {
  const inputRoot = jsonSchema(definition.inputs(), "input");
  const outputRoot = jsonSchema(definition.outputs(), "output");
  const inputs = convertObject(inputRoot, [definition.typeName], { collector, root: inputRoot, suffix: "Args" });
  const outputs = convertObject(outputRoot, [definition.typeName], { collector, root: outputRoot, suffix: "Output" });
  const replaced = Object.entries(definition.fields)
    .filter(([, rule]) => rule.replace === true)
    .map(([name]) => name);
  for (const name of replaced) {
    for (const properties of [inputs.properties, outputs.properties]) {
      const property = properties[name];
      if (property) property.replaceOnChanges = true;
    }
  }
  for (const name of definition.secretOutputs ?? []) {
    const property = outputs.properties[name];
    if (!property) throw new Error(`gen-schema: ${definition.typeName} marks unknown output ${name} secret`);
    property.secret = true;
  }
  return {
    type: "object",
    description: definition.description,
    inputProperties: inputs.properties,
    requiredInputs: inputs.required ?? [],
    properties: outputs.properties,
    required: outputs.required ?? [],
  };
}

function functionSpec(definition: SchemaFunction, collector: TypeCollector): FunctionSpec {
  const base = definition.name[0]!.toUpperCase() + definition.name.slice(1);
  const argsRoot = jsonSchema(definition.args(), "input");
  const resultRoot = jsonSchema(definition.result(), "output");
  const inputs = convertObject(argsRoot, [`${base}Args`], { collector, root: argsRoot, suffix: "Args" });
  const outputs = convertObject(resultRoot, [`${base}Result`], { collector, root: resultRoot, suffix: "Output" });
  for (const name of definition.secretResultFields ?? []) {
    const property = outputs.properties[name];
    if (!property) throw new Error(`gen-schema: ${definition.name} marks unknown result field ${name} secret`);
    property.secret = true;
  }
  return { description: definition.description, inputs, outputs };
}

export function generateSchema(
  resources: readonly SchemaResource[],
  functions: readonly SchemaFunction[],
  metadata: PackageMetadata,
): PackageSchema {
  const collector = new TypeCollector(
    PACKAGE_NAME,
    resources.map((definition) => definition.typeName),
  );
  const resourceSpecs: Record<string, ResourceSpec> = {};
  for (const definition of resources)
    resourceSpecs[resourceToken(definition.typeName)] = resourceSpec(definition, collector);
  const functionSpecs: Record<string, FunctionSpec> = {};
  for (const definition of functions)
    functionSpecs[functionToken(definition.name)] = functionSpec(definition, collector);
  const schema: PackageSchema = {
    ...metadata,
    name: PACKAGE_NAME,
    config: { variables: configVariables(), defaults: ["endpoint", "org", "token"] },
    types: {},
    resources: resourceSpecs,
    functions: functionSpecs,
  };
  const { document, types } = collector.finalize(schema);
  document.types = types;
  return sortKeys(document) as PackageSchema;
}

/** The exact text of `schema.json` (two-space JSON, trailing newline). */
export function renderSchema(schema: PackageSchema): string {
  // The descriptions are the dynamic provider's: schema.json is the plugin's, whose config keys are cpln-native:*.
  return withNativeConfigKeys(`${JSON.stringify(schema, null, 2)}\n`);
}

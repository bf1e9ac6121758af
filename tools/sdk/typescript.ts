/**
 * TypeScript declarations from the package schema (schema.json), as Pulumi's Node.js generator writes them: an args
 * interface per resource whose every property is a `pulumi.Input` (arrays and maps of inputs too), an interface of
 * the outputs, and one interface per object type the resource reaches (`<Name>Args` for inputs, `<Name>` for
 * outputs); enums become unions of their values. Descriptions become doc comments. The schema is the only source, so
 * the dynamic classes, the native classes and every other language's SDK say the same thing.
 */

export interface SchemaTypeRef {
  type?: string;
  $ref?: string;
  items?: SchemaTypeRef;
  additionalProperties?: SchemaTypeRef;
  oneOf?: SchemaTypeRef[];
}
export interface SchemaProperty extends SchemaTypeRef {
  description?: string;
  secret?: boolean;
}
export interface SchemaObjectType {
  type: string;
  description?: string;
  properties?: Record<string, SchemaProperty>;
  required?: string[];
  enum?: { value: string | number | boolean }[];
}
export interface SchemaResourceSpec {
  description?: string;
  properties: Record<string, SchemaProperty>;
  required?: string[];
  inputProperties: Record<string, SchemaProperty>;
  requiredInputs?: string[];
}
export interface SchemaFunctionSpec {
  description?: string;
  inputs: { properties: Record<string, SchemaProperty>; required?: string[] };
  outputs: { properties: Record<string, SchemaProperty>; required?: string[] };
}
export interface PackageSchemaTypes {
  types: Record<string, SchemaObjectType>;
  resources: Record<string, SchemaResourceSpec>;
  functions: Record<string, SchemaFunctionSpec>;
}

type Mode = "input" | "output";

const TYPE_PREFIX = "#/types/";

/** A schema type token's short name: `cpln-native:index:GvcLoadBalancer` → `GvcLoadBalancer`. */
export function shortName(token: string): string {
  return token.slice(token.lastIndexOf(":") + 1);
}

function docComment(text: string | undefined, indent: string): string {
  if (text === undefined || text.trim() === "") return "";
  const lines = text.replace(/\*\//g, "*\\/").split("\n");
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} *${line === "" ? "" : ` ${line}`}`).join("\n")}\n${indent} */\n`;
}

function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

export class DeclarationWriter {
  /** Object and enum types reached, in the order first reached, per mode. */
  private readonly reached = { input: new Set<string>(), output: new Set<string>() };

  constructor(private readonly schema: PackageSchemaTypes) {}

  /** The TypeScript name of a schema type in a mode. */
  typeName(token: string, mode: Mode): string {
    const type = this.schema.types[token];
    const base = shortName(token);
    return mode === "input" && type?.enum === undefined ? `${base}Args` : base;
  }

  /** The TypeScript type of a property type; inputs wrap every level in `pulumi.Input`. */
  typeOf(ref: SchemaTypeRef, mode: Mode): string {
    const wrap = (text: string) => (mode === "input" ? `pulumi.Input<${text}>` : text);
    if (ref.$ref !== undefined) {
      if (!ref.$ref.startsWith(TYPE_PREFIX)) return wrap("unknown");
      const token = ref.$ref.slice(TYPE_PREFIX.length);
      if (this.schema.types[token] === undefined) throw new Error(`schema type ${token} is referenced but not defined`);
      this.reached[mode].add(token);
      return wrap(this.typeName(token, mode));
    }
    if (ref.oneOf !== undefined) {
      const inner = ref.oneOf.map((member) => this.typeOf(member, "output"));
      return wrap([...new Set(inner)].join(" | "));
    }
    switch (ref.type) {
      case "string":
        return wrap("string");
      case "number":
      case "integer":
        return wrap("number");
      case "boolean":
        return wrap("boolean");
      case "array": {
        const item = ref.items === undefined ? wrap("unknown") : this.typeOf(ref.items, mode);
        return wrap(`${item}[]`);
      }
      case "object": {
        const value =
          ref.additionalProperties === undefined ? wrap("unknown") : this.typeOf(ref.additionalProperties, mode);
        return wrap(`Record<string, ${value}>`);
      }
      default:
        return wrap("unknown");
    }
  }

  /** An interface's members from schema properties. */
  members(properties: Record<string, SchemaProperty>, required: readonly string[], mode: Mode, indent = "  "): string {
    return Object.entries(properties)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, property]) => {
        const optional = required.includes(name) ? "" : "?";
        const readonly = mode === "output" ? "readonly " : "";
        return `${docComment(property.description, indent)}${indent}${readonly}${propertyKey(name)}${optional}: ${this.typeOf(property, mode)};\n`;
      })
      .join("");
  }

  /** `export interface` (or union type) of every object type reached so far, and of those they reach. */
  reachedTypes(): string {
    const out: [string, string][] = [];
    const written = { input: new Set<string>(), output: new Set<string>() };
    for (let progress = true; progress;) {
      progress = false;
      for (const mode of ["input", "output"] as const) {
        for (const token of [...this.reached[mode]]) {
          if (written[mode].has(token)) continue;
          written[mode].add(token);
          progress = true;
          const text = this.typeDeclaration(token, mode);
          if (text !== "") out.push([this.typeName(token, mode), text]);
        }
      }
    }
    return out
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([, text]) => text)
      .join("\n");
  }

  private typeDeclaration(token: string, mode: Mode): string {
    const type = this.schema.types[token] as SchemaObjectType;
    const name = this.typeName(token, mode);
    if (type.enum !== undefined) {
      // Enums are the same in both modes: written once, under the output mode.
      if (mode === "input") {
        this.reached.output.add(token);
        return "";
      }
      const values = type.enum.map((member) => JSON.stringify(member.value)).join(" | ");
      return `${docComment(type.description, "")}export type ${name} = ${values};\n`;
    }
    const body = this.members(type.properties ?? {}, type.required ?? [], mode);
    return `${docComment(type.description, "")}export interface ${name} {\n${body}}\n`;
  }
}

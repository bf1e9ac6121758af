/**
 * The README's resource and function tables, rendered from `schema.json` and kept between marker comments, so the
 * documentation cannot drift from the schema (the schema test compares them).
 */
import type { PackageSchema } from "./generate.js";
import type { ObjectTypeSpec, PropertySpec, TypeSpec } from "./convert.js";

export const BEGIN_MARKER = "<!-- BEGIN GENERATED: api tables (npm run gen) -->";
export const END_MARKER = "<!-- END GENERATED: api tables -->";

function typeLabel(spec: TypeSpec): string {
  if (spec.$ref) return spec.$ref === "pulumi.json#/Any" ? "any" : spec.$ref.replace(/^#\/types\/[^:]+:[^:]*:/, "");
  if (spec.oneOf) return spec.oneOf.map(typeLabel).join(" \\| ");
  if (spec.type === "array") return `${spec.items ? typeLabel(spec.items) : "any"}[]`;
  if (spec.type === "object") return `map<${spec.additionalProperties ? typeLabel(spec.additionalProperties) : "any"}>`;
  return spec.type ?? "any";
}

function argument(name: string, spec: PropertySpec, required: readonly string[]): string {
  const label = `\`${name}\`: ${typeLabel(spec)}`;
  const marks = `${spec.replaceOnChanges ? " ⟳" : ""}${spec.secret ? " 🔒" : ""}`;
  return `${required.includes(name) ? `**${label}**` : label}${marks}`;
}

function argumentList(properties: Record<string, PropertySpec>, required: readonly string[]): string {
  const names = Object.keys(properties).sort();
  return names.length === 0 ? "—" : names.map((name) => argument(name, properties[name]!, required)).join(", ");
}

function firstSentence(text: string | undefined): string {
  if (!text) return "";
  const match = /^(.+?[.!?])(\s|$)/s.exec(text.trim());
  return (match ? match[1]! : text.trim()).replace(/\s+/g, " ").replace(/\|/g, "\\|");
}

function shortName(token: string): string {
  return token.slice(token.lastIndexOf(":") + 1);
}

function outputsOnly(resource: {
  inputProperties: Record<string, PropertySpec>;
  properties: Record<string, PropertySpec>;
}) {
  const extra: Record<string, PropertySpec> = {};
  for (const [name, spec] of Object.entries(resource.properties))
    if (!(name in resource.inputProperties)) extra[name] = spec;
  return extra;
}

function resultList(outputs: ObjectTypeSpec): string {
  return argumentList(outputs.properties, []);
}

/** The markdown between the markers (markers included). */
export function renderApiTables(schema: PackageSchema): string {
  const lines: string[] = [BEGIN_MARKER, ""];
  lines.push(
    "**Bold** arguments are required; ⟳ marks arguments whose change replaces the object; 🔒 marks secrets.",
    "",
  );
  lines.push("| Resource | What it manages | Arguments | Outputs besides the arguments |", "|---|---|---|---|");
  for (const [token, resource] of Object.entries(schema.resources)) {
    const name = shortName(token);
    lines.push(
      `| \`cpln.${name}\` | ${firstSentence(resource.description)} | ${argumentList(resource.inputProperties, resource.requiredInputs)} | ${argumentList(outputsOnly(resource), [])} |`,
    );
  }
  lines.push(
    "",
    "| Function (`getX` → Promise, `getXOutput` → Output) | What it returns | Arguments | Result |",
    "|---|---|---|---|",
  );
  for (const [token, fn] of Object.entries(schema.functions)) {
    const name = shortName(token);
    lines.push(
      `| \`cpln.${name}\` / \`${name}Output\` | ${firstSentence(fn.description)} | ${argumentList(fn.inputs.properties, fn.inputs.required ?? [])} | ${resultList(fn.outputs)} |`,
    );
  }
  lines.push(
    "",
    "Nested types (`VolumeSetAutoscaling`, ...) are listed under `types` in [`schema.json`](schema.json).",
    "",
    END_MARKER,
  );
  return lines.join("\n");
}

/** `readme` with the text between the markers replaced by `tables`; throws when the markers are missing. */
export function spliceApiTables(readme: string, tables: string): string {
  const begin = readme.indexOf(BEGIN_MARKER);
  const end = readme.indexOf(END_MARKER);
  if (begin < 0 || end < begin) throw new Error(`README.md lacks the markers ${BEGIN_MARKER} … ${END_MARKER}`);
  return readme.slice(0, begin) + tables + readme.slice(end + END_MARKER.length);
}

/** The current text between the markers (markers included), or undefined. */
export function extractApiTables(readme: string): string | undefined {
  const begin = readme.indexOf(BEGIN_MARKER);
  const end = readme.indexOf(END_MARKER);
  return begin < 0 || end < begin ? undefined : readme.slice(begin, end + END_MARKER.length);
}

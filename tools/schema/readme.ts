/**
 * The resource and function tables of docs/resources.md, rendered from `schema.json` and kept between marker comments, so the
 * documentation cannot drift from the schema (the schema test compares them).
 */
import type { PackageSchema } from "./generate.js";
import type { PropertySpec, TypeSpec } from "./convert.js";

export const BEGIN_MARKER = "<!-- BEGIN GENERATED: api tables (npm run gen) -->";
export const END_MARKER = "<!-- END GENERATED: api tables -->";

type Types = PackageSchema["types"];

/** `string`, `VolumeSetAutoscaling`, `"ext4" \| "xfs"` (enums spelled out), `string[]`, `map<string>`. */
function typeLabel(spec: TypeSpec, types: Types): string {
  if (spec.$ref === "pulumi.json#/Any") return "any";
  if (spec.$ref) {
    const token = spec.$ref.slice("#/types/".length);
    const target = types[token] as { enum?: { value: unknown }[] } | undefined;
    if (target?.enum) return target.enum.map((item) => JSON.stringify(item.value)).join(" \\| ");
    return token.slice(token.lastIndexOf(":") + 1);
  }
  if (spec.oneOf) return spec.oneOf.map((item) => typeLabel(item, types)).join(" \\| ");
  if (spec.type === "array") return `${spec.items ? typeLabel(spec.items, types) : "any"}[]`;
  if (spec.type === "object") {
    return `map<${spec.additionalProperties ? typeLabel(spec.additionalProperties, types) : "any"}>`;
  }
  return spec.type ?? "any";
}

function argument(name: string, spec: PropertySpec, required: readonly string[], types: Types): string {
  const label = `\`${name}\`: ${typeLabel(spec, types)}`;
  const marks = `${spec.replaceOnChanges ? " ⟳" : ""}${spec.secret ? " 🔒" : ""}`;
  return `${required.includes(name) ? `**${label}**` : label}${marks}`;
}

function argumentList(properties: Record<string, PropertySpec>, required: readonly string[], types: Types): string {
  const names = Object.keys(properties).sort();
  return names.length === 0 ? "—" : names.map((name) => argument(name, properties[name]!, required, types)).join(", ");
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

/** The markdown between the markers (markers included). */
export function renderApiTables(schema: PackageSchema): string {
  // Prettier would re-pad the table columns; the generated text is kept exactly as rendered.
  // (Each comment in a paragraph of its own: consecutive comment lines would form one HTML block prettier ignores.)
  const lines: string[] = [BEGIN_MARKER, "", "<!-- prettier-ignore-start -->", ""];
  lines.push(
    "**Bold** arguments are required; ⟳ marks arguments whose change replaces the object; 🔒 marks secrets.",
    "",
  );
  lines.push("| Resource | What it manages | Arguments | Outputs besides the arguments |", "|---|---|---|---|");
  for (const [token, resource] of Object.entries(schema.resources)) {
    const name = shortName(token);
    lines.push(
      `| \`cpln.${name}\` | ${firstSentence(resource.description)} | ${argumentList(resource.inputProperties, resource.requiredInputs, schema.types)} | ${argumentList(outputsOnly(resource), [], schema.types)} |`,
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
      `| \`cpln.${name}\` / \`${name}Output\` | ${firstSentence(fn.description)} | ${argumentList(fn.inputs.properties, fn.inputs.required ?? [], schema.types)} | ${argumentList(fn.outputs.properties, [], schema.types)} |`,
    );
  }
  lines.push(
    "",
    "Nested types (`VolumeSetAutoscaling`, ...) are listed under `types` in [`schema.json`](schema.json).",
    "",
    "<!-- prettier-ignore-end -->",
    "",
    END_MARKER,
  );
  return lines.join("\n");
}

/** `readme` with the text between the markers replaced by `tables`; throws when the markers are missing. */
export function spliceApiTables(readme: string, tables: string): string {
  const begin = readme.indexOf(BEGIN_MARKER);
  const end = readme.indexOf(END_MARKER);
  if (begin < 0 || end < begin) throw new Error(`docs/resources.md lacks the markers ${BEGIN_MARKER} … ${END_MARKER}`);
  return readme.slice(0, begin) + tables + readme.slice(end + END_MARKER.length);
}

/** The current text between the markers (markers included), or undefined. */
export function extractApiTables(readme: string): string | undefined {
  const begin = readme.indexOf(BEGIN_MARKER);
  const end = readme.indexOf(END_MARKER);
  return begin < 0 || end < begin ? undefined : readme.slice(begin, end + END_MARKER.length);
}

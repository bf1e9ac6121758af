/**
 * The migration guide from `@pulumiverse/cpln` (docs/migrating-from-pulumiverse.md), generated from pulumiverse's
 * schema facts (pulumiverse.json, recorded with their source), the Terraform provider's facts (terraform.json), this
 * package's schema.json and the judgement in mapping.ts. `classify` is where the two schemas meet: it fails on any
 * pulumiverse property it cannot place and on any mapping entry the schemas contradict or make unnecessary.
 */
import { flattenResource, type FlatProperty, type FlatResource, type PackageSchemaLike } from "./flatten.js";
import type { PulumiverseFacts } from "./extract-pulumiverse.js";
import {
  compatibleTypes,
  configMap,
  functionMap,
  propertyMap,
  propertyMoves,
  resourceMap,
  uncoveredReason,
  unmappedFunctionReason,
  unmappedReason,
  type PropertyMapping,
  type PropertyMove,
  type Status,
} from "./mapping.js";

export const NATIVE_PREFIX = "cpln-native:index:";

export interface TerraformFacts {
  source: { repository: string; commit: string; tag: string; note: string };
  importIds: Record<string, { form: string; path: string }>;
  links: Record<string, { fact: string; path: string }>;
}

export interface GuideInputs {
  pulumiverse: PulumiverseFacts;
  terraform: TerraformFacts;
  /** This package's schema.json. */
  schema: PackageSchemaLike & { functions?: Record<string, unknown> };
}

export interface PropertyRow {
  path: string;
  theirs: FlatProperty;
  status: Status;
  to?: string;
  why: string;
}

function sameType(theirs: FlatProperty, ours: FlatProperty): { same: boolean; note?: string } {
  // An output there may be an argument here (more, not less); an argument there must be one here.
  if (theirs.input && !ours.input) return { same: false };
  if (theirs.type === ours.type) return { same: true };
  const compatible = compatibleTypes.find((pair) => pair.from === theirs.type && pair.to === ours.type);
  return compatible ? { same: true, note: compatible.note } : { same: false };
}

/** The move (longest `from`) whose subtree holds `path`, and where `path` lands under it. */
function movedTo(path: string, moves: PropertyMove[]): { move: PropertyMove; to: string } | undefined {
  const covering = moves.filter(
    (m) => path === m.from || [".", "[]", "{}"].some((joint) => path.startsWith(`${m.from}${joint}`)),
  );
  const move = covering.sort((a, b) => b.from.length - a.from.length)[0];
  if (move === undefined) return undefined;
  const rest = path.slice(move.from.length);
  // `to: ""` is the resource itself: `spec.ports` lands on `ports`.
  return { move, to: move.to === "" ? rest.replace(/^\./, "") : `${move.to ?? ""}${rest}` };
}

/**
 * Every pulumiverse property of one resource placed against this package's resource; throws on any gap. A property
 * with neither a counterpart of the same path nor an entry of its own is placed by the move covering it (`moves`): it
 * must land on a property here of a compatible type, or anywhere inside a free-form object for a `freeForm` move.
 */
export function classify(
  resource: string,
  theirs: FlatResource,
  ours: FlatResource,
  mapping: Record<string, PropertyMapping>,
  moves: PropertyMove[] = [],
): PropertyRow[] {
  const problems: string[] = [];
  const rows: PropertyRow[] = [];
  const usedMoves = new Set<PropertyMove>();
  for (const move of moves) {
    if (move.missing === true || move.to === "") continue;
    const target = move.to === undefined ? undefined : ours[move.to];
    const freeForm = target !== undefined && /(^|\|)(any|map<any>)(\[\])?(\||$)/.test(target.type);
    if (move.freeForm ? !freeForm : target === undefined) {
      problems.push(`${resource}: move ${move.from} → ${move.to ?? ""}, which this package does not have as such`);
    }
  }
  for (const [path, property] of Object.entries(theirs)) {
    const counterpart = ours[path];
    const match = counterpart === undefined ? { same: false } : sameType(property, counterpart);
    const entry = mapping[path];
    if (match.same) {
      if (entry !== undefined) problems.push(`${resource}.${path}: the schemas agree; drop its mapping entry`);
      const why = match.note ?? (property.input || !counterpart?.input ? "" : "also an argument here.");
      rows.push({ path, theirs: property, status: "same", to: path, why });
      continue;
    }
    if (entry === undefined) {
      const moved = movedTo(path, moves);
      if (moved !== undefined) usedMoves.add(moved.move);
      const landing = moved === undefined ? undefined : ours[moved.to];
      if (moved?.move.missing === true) {
        rows.push({ path, theirs: property, status: "missing", why: moved.move.why });
        continue;
      }
      if (moved?.move.freeForm === true) {
        rows.push({ path, theirs: property, status: "reshaped", to: moved.to, why: moved.move.why });
        continue;
      }
      if (moved !== undefined && landing !== undefined && sameType(property, landing).same) {
        const status = moved.move.status ?? "renamed";
        rows.push({ path, theirs: property, status, to: moved.to, why: moved.move.why });
        continue;
      }
      const here = counterpart === undefined ? "absent here" : `here ${counterpart.type}`;
      const via = moved === undefined ? "" : `, moved to ${moved.to} (${landing?.type ?? "absent"})`;
      problems.push(`${resource}.${path} (${property.type}, ${here}${via}) has no mapping entry`);
      continue;
    }
    if (entry.status === "same") problems.push(`${resource}.${path}: mapped "same" but the schemas differ`);
    if (entry.status === "renamed" && (entry.to === undefined || ours[entry.to] === undefined)) {
      problems.push(`${resource}.${path}: renamed to "${entry.to ?? ""}", which this package does not have`);
    }
    rows.push({ path, theirs: property, ...entry });
  }
  for (const path of Object.keys(mapping)) {
    if (theirs[path] === undefined) problems.push(`${resource}.${path}: mapped, but pulumiverse has no such property`);
  }
  for (const move of moves) {
    if (!usedMoves.has(move)) problems.push(`${resource}: move ${move.from} → ${move.to} places no property`);
  }
  if (problems.length > 0)
    throw new Error(`The migration mapping does not fit the schemas:\n- ${problems.join("\n- ")}`);
  return rows;
}

// ---- rendering ------------------------------------------------------------------------------------------------------

const cell = (text: string) => text.replace(/\|/g, "\\|");
const code = (text: string) => `\`${cell(text)}\``;

function propertyKind(property: FlatProperty): string {
  return property.input ? (property.required ? "argument (required)" : "argument") : "output";
}

function renderResource(name: string, inputs: GuideInputs): string[] {
  const target = resourceMap[name];
  if (target?.to === undefined) throw new Error(`no counterpart for covered resource ${name}`);
  const ourToken = `${NATIVE_PREFIX}${target.to}`;
  const theirs = inputs.pulumiverse.properties[name];
  if (theirs === undefined) throw new Error(`pulumiverse.json has no properties for ${name}`);
  const ours = flattenResource(inputs.schema, ourToken);
  const rows = classify(name, theirs, ours, propertyMap[name] ?? {}, propertyMoves[name]);
  const importId = inputs.terraform.importIds[name];
  const lines = [
    `### ${name} → ${target.to}`,
    "",
    `\`${inputs.pulumiverse.resources[name]}\` → \`${ourToken}\` (dynamic SDK: \`cpln-pulumi\` \`${target.to}\`).` +
      (target.why ? ` ${target.why}` : ""),
    "",
  ];
  if (importId !== undefined) {
    lines.push(
      `Import id: \`${importId.form}\`, as for pulumiverse (Terraform docs \`${importId.path}\`); the self link works ` +
        `too: \`pulumi import ${ourToken} <name> ${importId.form}\`.`,
      "",
    );
  }
  lines.push("| pulumiverse property | kind | type | status | here | why |", "| --- | --- | --- | --- | --- | --- |");
  for (const row of rows) {
    const here = row.to === undefined ? "—" : row.status === "missing" ? cell(row.to) : code(row.to);
    lines.push(
      `| ${code(row.path)} | ${propertyKind(row.theirs)} | ${code(row.theirs.type)} | ${row.status} | ${here} | ` +
        `${cell(row.why)} |`,
    );
  }
  const placed = new Set(rows.flatMap((row) => (row.to === undefined ? [] : [row.to])));
  const onlyHere = Object.entries(ours)
    .filter(([path, property]) => property.input && !path.includes(".") && theirs[path] === undefined)
    .filter(([path]) => !placed.has(path))
    .map(([path]) => code(path));
  if (onlyHere.length > 0) lines.push("", `Arguments only in this package: ${onlyHere.join(", ")}.`);
  lines.push("");
  return lines;
}

function counts(rows: PropertyRow[]): Record<Status, number> {
  const result: Record<Status, number> = { same: 0, renamed: 0, reshaped: 0, missing: 0 };
  for (const row of rows) result[row.status] += 1;
  return result;
}

/** The guide's Markdown text. */
export function renderGuide(inputs: GuideInputs): string {
  const { pulumiverse, terraform } = inputs;
  const covered = Object.keys(pulumiverse.properties);
  const allRows = covered.flatMap((name) => {
    const to = resourceMap[name]?.to;
    if (to === undefined) return [];
    const ours = flattenResource(inputs.schema, `${NATIVE_PREFIX}${to}`);
    return classify(name, pulumiverse.properties[name] ?? {}, ours, propertyMap[name] ?? {}, propertyMoves[name]);
  });
  const total = counts(allRows);
  const src = pulumiverse.source;
  const tf = terraform.source;
  const lines: string[] = [
    "<!-- Generated by tools/migration-guide.ts (npm run gen:migration) from tools/migration/*; do not edit. -->",
    "",
    "# Migrating from `@pulumiverse/cpln`",
    "",
    "`@pulumiverse/cpln` is the Pulumi provider bridged from Control Plane's Terraform provider. This page maps each " +
      "of its resources, properties, functions and config keys onto this package, for the kinds this package " +
      "manages: **same** (write it as before), **renamed**, **reshaped** (same information, another shape) or " +
      "**missing** (with the reason).",
    "",
    `Sources: pulumiverse's schema, ${src.repository} \`${src.path}\` at \`${src.commit}\` ` +
      `(bridging ${src.terraformProvider}); the Terraform provider's import ids and link rules, ` +
      `${tf.repository} ${tf.tag} (\`${tf.commit}\`); this package's \`schema.json\`. ` +
      "Regenerate with `npm run gen:migration`; a test fails when this page and the generator disagree.",
    "",
    `Properties of the covered resources: ${allRows.length} — ${total.same} same, ${total.renamed} renamed, ` +
      `${total.reshaped} reshaped, ${total.missing} missing.`,
    "",
    "## What a migrating program may keep writing",
    "",
    "- Principal links in the short form: `group/NAME`, `user/EMAIL`, `serviceaccount/NAME`, " +
      "`gvc/GVC/identity/NAME` in `Policy.bindings[].principalLinks` and `Group.memberLinks` (normalised to " +
      `\`/org/<org>/...\`; ${terraform.links.principalLinks?.path ?? ""}).`,
    "- `Policy.gvc` with bare names in `targetLinks`: a name becomes `/org/<org>/<targetKind>/<name>`, or " +
      "`/org/<org>/gvc/<gvc>/<targetKind>/<name>` for a kind that lives in a gvc " +
      `(${terraform.links.targetLinks?.path ?? ""}). Outputs hold the full links.`,
    "- `Group.identityMatcher` as before.",
    "- The same import ids: `NAME`, `GVC_NAME:NAME` for volume sets, workloads and identities, " +
      "`SERVICE_ACCOUNT_NAME:KEY_NAME` for keys, `DOMAIN_LINK:DOMAIN_PORT:PREFIX` (or `:REGEX`) for domain routes, " +
      "resolved in the configured org (`cpln-native:org` or `CPLN_ORG`).",
    "",
    "Taking over objects a pulumiverse stack created: see docs/import-file.md (`pulumi import --file`), or set " +
      "`adopt: true` on the resource.",
    "",
    "## Provider configuration",
    "",
    "| pulumiverse | secret | status | here | why |",
    "| --- | --- | --- | --- | --- |",
  ];
  for (const [key, spec] of Object.entries(pulumiverse.config)) {
    const entry = configMap[key];
    if (entry === undefined) throw new Error(`config key cpln:${key} has no mapping entry`);
    const here = entry.to === undefined ? "—" : `\`cpln-native:${entry.to}\` (dynamic SDK: \`cpln:${entry.to}\`)`;
    lines.push(`| \`cpln:${key}\` | ${spec.secret ? "yes" : "no"} | ${entry.status} | ${here} | ${cell(entry.why)} |`);
  }
  lines.push("", "## Resources", "", "| pulumiverse | here | properties (same/renamed/reshaped/missing) |");
  lines.push("| --- | --- | --- |");
  const ourResources = Object.keys(inputs.schema.resources).map((token) => token.slice(NATIVE_PREFIX.length));
  for (const [name, token] of Object.entries(pulumiverse.resources)) {
    const target = resourceMap[name];
    const namesake = sameName(name, ourResources);
    if (target?.to === undefined && namesake !== undefined) {
      lines.push(`| \`${token}\` | \`${NATIVE_PREFIX}${namesake}\` | ${cell(unmappedReason)} |`);
      continue;
    }
    if (target?.to === undefined || !covered.includes(name)) {
      lines.push(`| \`${token}\` | — | ${cell(target?.why ?? uncoveredReason)} |`);
      continue;
    }
    const ours = flattenResource(inputs.schema, `${NATIVE_PREFIX}${target.to}`);
    const c = counts(
      classify(name, pulumiverse.properties[name] ?? {}, ours, propertyMap[name] ?? {}, propertyMoves[name]),
    );
    lines.push(
      `| \`${token}\` | [\`${NATIVE_PREFIX}${target.to}\`](#${anchor(name, target.to)}) | ` +
        `${c.same}/${c.renamed}/${c.reshaped}/${c.missing} |`,
    );
  }
  const extra = Object.keys(inputs.schema.resources)
    .map((token) => token.slice(NATIVE_PREFIX.length))
    .filter((name) => !Object.values(resourceMap).some((target) => target.to === name))
    .filter((name) => sameName(name, Object.keys(pulumiverse.resources)) === undefined);
  if (extra.length > 0) {
    lines.push("", `Only in this package: ${extra.map((name) => `\`${NATIVE_PREFIX}${name}\``).join(", ")}.`);
  }
  lines.push("", "## Properties, resource by resource", "");
  for (const name of covered) lines.push(...renderResource(name, inputs));
  lines.push("## Functions", "", "| pulumiverse | status | here | why |", "| --- | --- | --- | --- |");
  const ourFunctions = Object.keys(inputs.schema.functions ?? {});
  const ourFunctionNames = ourFunctions.map((token) => token.slice(NATIVE_PREFIX.length));
  for (const [name, token] of Object.entries(pulumiverse.functions)) {
    const entry = functionMap[name];
    const namesake = sameName(name, ourFunctionNames);
    // A function a kind's declaration gave this package, unless mapping.ts says more (a namesake that differs).
    if (entry === undefined && namesake !== undefined) {
      lines.push(`| \`${token}\` | unmapped | \`${NATIVE_PREFIX}${namesake}\` | ${cell(unmappedFunctionReason)} |`);
      continue;
    }
    if (entry === undefined) throw new Error(`function ${name} has no mapping entry`);
    if (entry.to !== undefined && !ourFunctions.includes(`${NATIVE_PREFIX}${entry.to}`)) {
      throw new Error(`function ${name} maps to ${entry.to}, which this package does not have`);
    }
    const here = entry.to === undefined ? "—" : `\`${NATIVE_PREFIX}${entry.to}\``;
    lines.push(`| \`${token}\` | ${entry.status} | ${here} | ${cell(entry.why)} |`);
  }
  lines.push("");
  return lines.join("\n");
}

/**
 * This package's name for a pulumiverse resource or function of the same name, case aside: a kind's type name may
 * differ from the bridged provider's only in case (`IpSet`, `Ipset`), and one object must not be both "no resource
 * here" and "only in this package".
 */
function sameName(name: string, ours: readonly string[]): string | undefined {
  return ours.find((candidate) => candidate.toLowerCase() === name.toLowerCase());
}

/** GitHub's heading anchor for `### <name> → <to>`. */
function anchor(name: string, to: string): string {
  return `${name} → ${to}`
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, "")
    .replace(/ /g, "-");
}

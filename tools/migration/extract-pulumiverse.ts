/**
 * Records the facts the migration guide needs from pulumiverse's package schema (the Terraform-bridged
 * `@pulumiverse/cpln`): the resource and function tokens, and for the resources of the kinds this package covers, every
 * property path with its type, whether it is an argument, required or secret. Names and types only: no descriptions,
 * no code. Run on a local copy of their schema:
 *
 *   node dist/tools/migration/extract-pulumiverse.js --schema <schema.json> --commit <sha> [--version <tf provider>]
 *
 * Writes tools/migration/pulumiverse.json (checked in; the guide is generated from it and this package's schema.json).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { flattenResource, type FlatResource, type PackageSchemaLike } from "./flatten.js";

export const PULUMIVERSE_REPOSITORY = "pulumiverse/pulumi-cpln";
export const PULUMIVERSE_SCHEMA_PATH = "provider/cmd/pulumi-resource-cpln/schema.json";

/** The pulumiverse resources whose kinds this package manages (their detail is recorded). */
export const COVERED_RESOURCES = [
  "AuditContext",
  "CloudAccount",
  "CustomLocation",
  "Domain",
  "DomainRoute",
  "Group",
  "Gvc",
  "Identity",
  "Location",
  "Org",
  "Policy",
  "Secret",
  "ServiceAccount",
  "ServiceAccountKey",
  "VolumeSet",
  "Workload",
] as const;

export interface PulumiverseFacts {
  source: { repository: string; path: string; commit: string; terraformProvider: string };
  /** Every resource token, by its short name (`Policy` → `cpln:index/policy:Policy`). */
  resources: Record<string, string>;
  functions: Record<string, string>;
  /** Provider config keys (`cpln:<key>`), with whether the schema marks them secret. */
  config: Record<string, { secret: boolean }>;
  /** The covered resources' properties. */
  properties: Record<string, FlatResource>;
}

function shortName(token: string): string {
  return token.slice(token.lastIndexOf(":") + 1);
}

export function extractFacts(
  schema: PackageSchemaLike & {
    functions?: Record<string, unknown>;
    config?: { variables?: Record<string, { secret?: boolean }> };
  },
  source: PulumiverseFacts["source"],
): PulumiverseFacts {
  const resources: Record<string, string> = {};
  for (const token of Object.keys(schema.resources).sort()) resources[shortName(token)] = token;
  const functions: Record<string, string> = {};
  for (const token of Object.keys(schema.functions ?? {}).sort()) {
    if (token.startsWith("cpln:index/")) functions[shortName(token)] = token;
  }
  const config: Record<string, { secret: boolean }> = {};
  for (const [key, spec] of Object.entries(schema.config?.variables ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    config[key] = { secret: spec.secret === true };
  }
  const properties: Record<string, FlatResource> = {};
  for (const name of COVERED_RESOURCES) {
    const token = resources[name];
    if (token === undefined) throw new Error(`pulumiverse's schema has no resource ${name}`);
    properties[name] = flattenResource(schema, token);
  }
  return { source, resources, functions, config, properties };
}

function argument(flag: string): string | undefined {
  const at = process.argv.indexOf(flag);
  return at < 0 ? undefined : process.argv[at + 1];
}

function main(): void {
  const schemaFile = argument("--schema");
  const commit = argument("--commit");
  if (schemaFile === undefined || commit === undefined || !/^[0-9a-f]{40}$/.test(commit)) {
    console.error("usage: extract-pulumiverse --schema <schema.json> --commit <40-hex sha> [--version <v>]");
    process.exit(2);
  }
  const schema = JSON.parse(fs.readFileSync(schemaFile, "utf8")) as PackageSchemaLike;
  const facts = extractFacts(schema, {
    repository: PULUMIVERSE_REPOSITORY,
    path: PULUMIVERSE_SCHEMA_PATH,
    commit,
    terraformProvider: argument("--version") ?? "unknown",
  });
  const out = path.resolve(__dirname, "..", "..", "..", "tools", "migration", "pulumiverse.json");
  fs.writeFileSync(out, `${JSON.stringify(facts, null, 2)}\n`);
  console.log(`Wrote ${out}: ${Object.keys(facts.resources).length} resources, ${COVERED_RESOURCES.length} detailed.`);
}

if (require.main === module) main();

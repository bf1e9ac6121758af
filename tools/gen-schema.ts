/**
 * `npm run gen`: writes schema.json (the Pulumi package schema) and the resource/function tables of
 * docs/resources.md, both generated from the provider's zod definitions. `--check` writes nothing and exits 1 when either is stale. Both refuse a schema with a property `const` or
 * `default` (tools/schema/lint.ts).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { renderSchema } from "./schema/generate.js";
import { schemaPropertyIssues } from "./schema/lint.js";
import { packageSchema } from "./schema/package.js";
import { renderApiTables, spliceApiTables } from "./schema/readme.js";

const repoRoot = path.resolve(__dirname, "..", "..");
const schemaFile = path.join(repoRoot, "schema.json");
const readmeFile = path.join(repoRoot, "docs", "resources.md");

function main(): void {
  const check = process.argv.includes("--check");
  const schema = packageSchema();
  const issues = schemaPropertyIssues(schema);
  if (issues.length > 0) {
    console.error(`schema.json would tell SDKs to send values the program did not write:\n  ${issues.join("\n  ")}`);
    process.exit(1);
  }
  const schemaText = renderSchema(schema);
  const readme = fs.readFileSync(readmeFile, "utf8");
  const readmeText = spliceApiTables(readme, renderApiTables(schema));
  const stale = [
    ...(fs.existsSync(schemaFile) && fs.readFileSync(schemaFile, "utf8") === schemaText ? [] : ["schema.json"]),
    ...(readme === readmeText ? [] : ["docs/resources.md"]),
  ];
  if (check) {
    if (stale.length > 0) {
      console.error(`Out of date: ${stale.join(", ")}. Run npm run gen.`);
      process.exit(1);
    }
    console.log("schema.json and the docs/resources.md tables are up to date.");
    return;
  }
  fs.writeFileSync(schemaFile, schemaText);
  fs.writeFileSync(readmeFile, readmeText);
  const counts = `${Object.keys(schema.resources).length} resources, ${Object.keys(schema.functions).length} functions, ${Object.keys(schema.types).length} types`;
  console.log(
    `Wrote schema.json (${counts}) and the docs/resources.md tables${stale.length === 0 ? " (unchanged)" : ""}.`,
  );
}

main();

/**
 * `npm run gen` (after gen-schema): the TypeScript SDK of the kinds that declare a resource, from schema.json —
 * `provider/resources/declaredNames.ts` (their type names), `sdk/declared.ts` (args and output interfaces, the
 * dynamic classes) and `sdk/native/declared.ts` (the native classes). A new declared kind needs no SDK code by hand.
 * `--check` writes nothing and exits 1 when a file is stale.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { PackageSchemaTypes } from "./sdk/typescript.js";
import { renderDeclaredSdk } from "./sdk/render.js";

const repoRoot = path.resolve(__dirname, "..", "..");

async function main(): Promise<void> {
  const check = process.argv.includes("--check");
  const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, "schema.json"), "utf8")) as PackageSchemaTypes;
  const files = await renderDeclaredSdk(repoRoot, schema);
  const stale = files.filter(([file, text]) => {
    const full = path.join(repoRoot, file);
    return !fs.existsSync(full) || fs.readFileSync(full, "utf8") !== text;
  });
  if (check) {
    if (stale.length > 0) {
      console.error(`Out of date: ${stale.map(([file]) => file).join(", ")}. Run npm run gen.`);
      process.exit(1);
    }
    console.log("The declared resources' SDK files are up to date.");
    return;
  }
  for (const [file, text] of stale) fs.writeFileSync(path.join(repoRoot, file), text);
  console.log(`Wrote the SDK files of the declared resources (${stale.length} of ${files.length} changed).`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

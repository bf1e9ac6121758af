/**
 * `npm run gen:migration`: writes docs/migrating-from-pulumiverse.md from tools/migration/ (pulumiverse's and the
 * Terraform provider's recorded facts, the mapping) and schema.json. `--check` writes nothing and exits 1 when the
 * committed page is stale.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { renderGuide, type GuideInputs } from "./migration/guide.js";

const repoRoot = path.resolve(__dirname, "..", "..");
export const guideFile = path.join(repoRoot, "docs", "migrating-from-pulumiverse.md");

/** The generator's inputs, read from a repository checkout. */
export function readGuideInputs(root: string): GuideInputs {
  const read = (file: string) => JSON.parse(fs.readFileSync(path.join(root, file), "utf8")) as unknown;
  return {
    pulumiverse: read("tools/migration/pulumiverse.json") as GuideInputs["pulumiverse"],
    terraform: read("tools/migration/terraform.json") as GuideInputs["terraform"],
    schema: read("schema.json") as GuideInputs["schema"],
  };
}

/** The page as committed: the generator's Markdown, formatted by prettier with the project's config. */
export async function guideText(root: string): Promise<string> {
  const file = path.join(root, "docs", "migrating-from-pulumiverse.md");
  const prettier = (await import("prettier")) as typeof import("prettier");
  const config = (await prettier.resolveConfig(file)) ?? {};
  return prettier.format(renderGuide(readGuideInputs(root)), { ...config, filepath: file });
}

async function main(): Promise<void> {
  const text = await guideText(repoRoot);
  const current = fs.existsSync(guideFile) ? fs.readFileSync(guideFile, "utf8") : undefined;
  if (process.argv.includes("--check")) {
    if (current !== text) {
      console.error("Out of date: docs/migrating-from-pulumiverse.md. Run npm run gen:migration.");
      process.exit(1);
    }
    console.log("docs/migrating-from-pulumiverse.md is up to date.");
    return;
  }
  fs.writeFileSync(guideFile, text);
  console.log(`Wrote docs/migrating-from-pulumiverse.md${current === text ? " (unchanged)" : ""}.`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}

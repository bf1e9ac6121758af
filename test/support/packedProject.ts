/**
 * A user's project outside the repository tree, built from the packed package: `npm pack` of the build (no `prepare`:
 * building again would rewrite dist/ while the test files running beside this one load it), then a fresh project
 * (test/fixtures/user-program, Pulumi's commonjs template tsconfig) that installs the tarball, `@pulumi/pulumi` and the
 * TypeScript 5 that Pulumi's template pins, from the npm cache when it has them, else the registry (once per tarball:
 * `installedFor`).
 */
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { linkCopy, locked } from "./cacheLock.js";

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
  const installed = await installedFor(tarball, [
    `@pulumi/pulumi@${versionOf("@pulumi/pulumi")}`,
    `typescript@${versionOf("typescript-5")}`,
    "@types/node@20",
  ]);
  for (const file of ["package.json", "package-lock.json"]) {
    fs.copyFileSync(path.join(installed, file), path.join(project, file));
  }
  linkCopy(path.join(installed, "node_modules"), path.join(project, "node_modules"));
  return { tarball, packed, project, installLog: fs.readFileSync(path.join(installed, "install.log"), "utf8") };
}

/**
 * The project's install of `tarball` and `dependencies` (`npm install`, from the npm cache when it has them), made once
 * per tarball (its bytes: npm pack's output is the same for the same files) and reused: .tmp/packed-project/<digest>
 * holds the installed package.json, package-lock.json, node_modules and npm's output. Earlier tarballs' go.
 */
async function installedFor(tarball: string, dependencies: string[]): Promise<string> {
  const root = path.join(repoRoot, ".tmp", "packed-project");
  const key = createHash("sha256").update(fs.readFileSync(tarball)).update(dependencies.join(" ")).digest("hex");
  const dir = path.join(root, key.slice(0, 16));
  return locked(root, async () => {
    if (fs.existsSync(path.join(dir, "done"))) return dir;
    for (const old of fs.readdirSync(root).filter((name) => name !== ".lock")) {
      fs.rmSync(path.join(root, old), { recursive: true, force: true });
    }
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "package.json"), '{ "name": "user-infra", "main": "index.ts" }\n');
    const install = await run(
      "npm",
      ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball, ...dependencies],
      { cwd: dir },
    );
    const installLog = install.stdout + install.stderr;
    if (install.code !== 0) throw new Error(`npm install failed:\n${installLog}`);
    fs.writeFileSync(path.join(dir, "install.log"), installLog);
    fs.writeFileSync(path.join(dir, "done"), "");
    return dir;
  });
}

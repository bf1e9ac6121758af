/**
 * The SDK's public types compile in a user's project with Pulumi's template tsconfig (strict, no esModuleInterop, no
 * skipLibCheck): no `.d.ts` under dist/sdk reaches zod (or any module but @pulumi/pulumi), sdk/types.ts is what
 * `npm run gen` generates, and a user program compiles against dist/ with both template generations.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const repoRoot = path.resolve(__dirname, "..", "..");
const load = createRequire(__filename);
const distSdk = path.join(repoRoot, "dist", "sdk");
const allowedPackages = ["@pulumi/pulumi"];

/** Module specifiers a declaration file imports, exports from, or references with `import("...")`. */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const re of [
    /\bfrom\s+["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
    /^import\s+["']([^"']+)["']/gm,
  ]) {
    for (const match of text.matchAll(re)) found.push(match[1] as string);
  }
  for (const match of text.matchAll(/\/\/\/\s*<reference\s+(?:types|path)=["']([^"']+)["']/g)) {
    found.push(match[1] as string);
  }
  return found;
}

/** Every non-relative module the declaration files reachable from `entry` need, with the chain that reaches it. */
export function externalReach(entries: string[]): Map<string, string[]> {
  const reach = new Map<string, string[]>();
  const seen = new Set<string>();
  const queue: { file: string; chain: string[] }[] = entries.map((file) => ({ file, chain: [file] }));
  while (queue.length > 0) {
    const { file, chain } = queue.shift() as { file: string; chain: string[] };
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of specifiers(fs.readFileSync(file, "utf8"))) {
      if (!spec.startsWith(".")) {
        const pkg = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : (spec.split("/")[0] as string);
        if (!reach.has(pkg))
          reach.set(
            pkg,
            [...chain, spec].map((f) => path.relative(repoRoot, f) || f),
          );
        continue;
      }
      const base = path.resolve(path.dirname(file), spec).replace(/\.js$/, "");
      const candidates = [`${base}.d.ts`, path.join(base, "index.d.ts")];
      const next = candidates.find((c) => fs.existsSync(c));
      if (!next) throw new Error(`${path.relative(repoRoot, file)}: cannot resolve ${spec}`);
      queue.push({ file: next, chain: [...chain, next] });
    }
  }
  return reach;
}

function sdkDeclarations(): string[] {
  return fs
    .readdirSync(distSdk, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".d.ts"))
    .map((f) => path.join(distSdk, f));
}

describe("the SDK's declaration files", () => {
  it("reach no package but @pulumi/pulumi, transitively (zod never)", () => {
    const files = sdkDeclarations();
    expect(files.map((f) => path.basename(f))).toContain("index.d.ts");
    const reach = externalReach(files);
    const offending = [...reach].filter(([pkg]) => !allowedPackages.includes(pkg));
    expect(offending.map(([pkg, chain]) => `${pkg} via ${chain.join(" → ")}`)).toEqual([]);
    expect([...reach.keys()]).toContain("@pulumi/pulumi");
  });

  it("the reach check itself sees zod through a re-export chain (it can fail)", () => {
    const reach = externalReach([path.join(repoRoot, "dist", "provider", "client", "index.d.ts")]);
    expect(reach.get("zod")?.[0]).toBe("dist/provider/client/index.d.ts");
  });

  it("sdk/types.ts is exactly what `npm run gen` generates from the provider's types", async () => {
    const gen = load(path.join(repoRoot, "dist", "tools", "gen-types.js")) as {
      renderFormattedTypes(): Promise<string>;
    };
    const committed = fs.readFileSync(path.join(repoRoot, "sdk", "types.ts"), "utf8");
    expect(await gen.renderFormattedTypes()).toBe(committed);
  });
});

describe("a user program against dist/ with Pulumi's template tsconfig, verbatim", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A project folder outside the repository: the template's tsconfig, the program, and linked dependencies. */
  function project(template: "commonjs" | "nodenext", program: string): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cpln-user-${template}-`));
    dirs.push(dir);
    fs.copyFileSync(
      path.join(repoRoot, "test", "fixtures", "pulumi-template", template, "tsconfig.json"),
      path.join(dir, "tsconfig.json"),
    );
    fs.writeFileSync(path.join(dir, "index.ts"), program);
    const modules = path.join(dir, "node_modules");
    fs.mkdirSync(path.join(modules, "@types"), { recursive: true });
    fs.symlinkSync(repoRoot, path.join(modules, "cpln-pulumi"));
    fs.symlinkSync(path.join(repoRoot, "node_modules", "@pulumi"), path.join(modules, "@pulumi"));
    fs.symlinkSync(path.join(repoRoot, "node_modules", "@types", "node"), path.join(modules, "@types", "node"));
    return dir;
  }

  function tsc(typescriptPackage: string, dir: string): { code: number; output: string } {
    const bin = path.join(repoRoot, "node_modules", typescriptPackage, "bin", "tsc");
    try {
      const output = execFileSync(process.execPath, [bin, "-p", dir, "--noEmit", "--pretty", "false"], {
        encoding: "utf8",
      });
      return { code: 0, output };
    } catch (error) {
      const e = error as { status: number; stdout: string };
      return { code: e.status, output: e.stdout };
    }
  }

  const program = fs.readFileSync(path.join(repoRoot, "test", "fixtures", "user-program", "index.ts"), "utf8");

  it("compiles with the commonjs/node template and the TypeScript 5 it pins", () => {
    const result = tsc("typescript-5", project("commonjs", program));
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  });

  it("compiles with the current nodenext template and TypeScript 6", () => {
    const result = tsc("typescript", project("nodenext", program));
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  });

  it("reports a type error in the user's program (the compile is live)", () => {
    const broken = program.replace("initialCapacity: capacity", 'initialCapacity: "twenty"');
    const result = tsc("typescript-5", project("commonjs", broken));
    expect(result.code).toBe(2);
    expect(result.output).toMatch(/index\.ts\(\d+,\d+\): error TS2322: Type 'string' is not assignable/);
  });
});

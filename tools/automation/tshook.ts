// A require hook that runs `.ts` files through the TypeScript compiler (`transpileModule`, CommonJS), which is what
// ts-node does when `pulumi up` runs a TypeScript program. Type errors are not reported (transpile only).
//
// Which TypeScript: the program's own (its `typescript` dependency, as `pulumi up` uses), else the one
// `@pulumi/pulumi` ships (`typescript-shim`: a hoisted `typescript`, else its vendored copy), else this package's.
// `typescript` is only a dev dependency here, so a user's project with nothing but this package and
// `@pulumi/pulumi` installed still runs.
import * as fs from "node:fs";
import Module, { createRequire } from "node:module";
import * as path from "node:path";
import type * as TypeScript from "typescript";

type Ts = typeof TypeScript;

/** The TypeScript compiler the program would be run with (see the header). */
export function loadTypeScript(programDir: string): Ts {
  const attempts: [NodeJS.Require, string][] = [
    [createRequire(path.join(path.resolve(programDir), "package.json")), "typescript"],
    [createRequire(path.join(path.resolve(programDir), "package.json")), "@pulumi/pulumi/typescript-shim"],
    [createRequire(__filename), "@pulumi/pulumi/typescript-shim"],
    [createRequire(__filename), "typescript"],
  ];
  for (const [req, id] of attempts) {
    try {
      return req(id) as Ts;
    } catch {
      // Try the next one.
    }
  }
  throw new Error("no TypeScript compiler found (install typescript, or @pulumi/pulumi)");
}

type Loader = (module: Module, filename: string) => void;
type ResolveFilename = (request: string, parent: Module | undefined, isMain: boolean, options?: unknown) => string;

interface ModuleInternals {
  _extensions: Record<string, Loader>;
  _resolveFilename: ResolveFilename;
}

interface CompilableModule {
  _compile(code: string, filename: string): void;
}

const internals = Module as unknown as ModuleInternals;
let registered: { ts: Ts; options: TypeScript.CompilerOptions } | undefined;

/** Compiler options as ts-node would use them for a program: its tsconfig.json, forced to emit CommonJS. */
export function compilerOptionsFor(
  programDir: string,
  ts: Ts = loadTypeScript(programDir),
): TypeScript.CompilerOptions {
  // An older compiler (the vendored 3.8) lacks newer targets: take the newest it has.
  const target = ts.ScriptTarget.ES2022 ?? ts.ScriptTarget.ES2020 ?? ts.ScriptTarget.ES2019;
  const base: TypeScript.CompilerOptions = { target, esModuleInterop: true };
  const configFile = path.join(programDir, "tsconfig.json");
  if (fs.existsSync(configFile)) {
    const read = ts.readConfigFile(configFile, (f) => fs.readFileSync(f, "utf8"));
    if (read.error) {
      throw new Error(`${configFile}: ${ts.flattenDiagnosticMessageText(read.error.messageText, "\n")}`);
    }
    // Follows `extends`; the file list is not needed, so directories are not scanned.
    const host: TypeScript.ParseConfigHost = { ...ts.sys, readDirectory: () => [] };
    const parsed = ts.parseJsonConfigFileContent(read.config, host, programDir, undefined, configFile);
    Object.assign(base, parsed.options);
  }
  return {
    ...base,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: undefined,
    verbatimModuleSyntax: undefined,
    declaration: false,
    sourceMap: false,
    noEmit: false,
  };
}

/**
 * Registers the hook once per process. Also lets TypeScript sources import siblings as `./x.js` (nodenext style)
 * when only `./x.ts` exists.
 */
export function registerTypeScript(options?: TypeScript.CompilerOptions, ts: Ts = loadTypeScript(process.cwd())): void {
  if (registered) return;
  const active = { ts, options: options ?? compilerOptionsFor(process.cwd(), ts) };
  registered = active;
  internals._extensions[".ts"] = (module, filename) => {
    const source = fs.readFileSync(filename, "utf8");
    const { outputText } = active.ts.transpileModule(source, { compilerOptions: active.options, fileName: filename });
    (module as unknown as CompilableModule)._compile(outputText, filename);
  };
  const resolve = internals._resolveFilename;
  internals._resolveFilename = function (request, parent, isMain, opts) {
    try {
      return resolve.call(this, request, parent, isMain, opts);
    } catch (error) {
      const fromTs = parent?.filename?.endsWith(".ts") ?? false;
      if (fromTs && /^\.\.?\//.test(request) && request.endsWith(".js")) {
        return resolve.call(this, `${request.slice(0, -3)}.ts`, parent, isMain, opts);
      }
      throw error;
    }
  };
}

/** Requires a TypeScript (or JavaScript) file through the hook. */
export function requireTypeScript(file: string): unknown {
  registerTypeScript();
  const absolute = path.resolve(file);
  return createRequire(absolute)(absolute);
}

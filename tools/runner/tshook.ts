// A require hook that runs `.ts` files through the TypeScript compiler (`transpileModule`, CommonJS), which is what
// ts-node does when `pulumi up` runs a TypeScript program. Type errors are not reported (transpile only).
import * as fs from "node:fs";
import Module, { createRequire } from "node:module";
import * as path from "node:path";
import * as ts from "typescript";

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
let registered: ts.CompilerOptions | undefined;

/** Compiler options as ts-node would use them for a program: its tsconfig.json, forced to emit CommonJS. */
export function compilerOptionsFor(programDir: string): ts.CompilerOptions {
  const base: ts.CompilerOptions = { target: ts.ScriptTarget.ES2022, esModuleInterop: true };
  const configFile = path.join(programDir, "tsconfig.json");
  if (fs.existsSync(configFile)) {
    const read = ts.readConfigFile(configFile, (f) => fs.readFileSync(f, "utf8"));
    if (read.error) {
      throw new Error(`${configFile}: ${ts.flattenDiagnosticMessageText(read.error.messageText, "\n")}`);
    }
    // Follows `extends`; the file list is not needed, so directories are not scanned.
    const host: ts.ParseConfigHost = { ...ts.sys, readDirectory: () => [] };
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
export function registerTypeScript(options: ts.CompilerOptions = compilerOptionsFor(process.cwd())): void {
  if (registered) return;
  registered = options;
  internals._extensions[".ts"] = (module, filename) => {
    const source = fs.readFileSync(filename, "utf8");
    const { outputText } = ts.transpileModule(source, { compilerOptions: registered, fileName: filename });
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

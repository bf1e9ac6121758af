/**
 * `npm run gen` (second half): writes `sdk/types.ts`, the SDK's public types as plain TypeScript, expanded by the
 * TypeScript checker from the provider's zod-inferred types and the client's class. The SDK's `.d.ts` then reference
 * only `@pulumi/pulumi` and this file, never zod, so a user's program compiles with Pulumi's template tsconfig (no
 * `esModuleInterop`, no `skipLibCheck`). `--check` writes nothing and exits 1 when the file is stale.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";

const repoRoot = path.resolve(__dirname, "..", "..");
export const typesFile = path.join(repoRoot, "sdk", "types.ts");

/** The exported names to expand, per source module. A name referenced by another one must be listed too. */
const sources: { module: string; names: string[] }[] = [
  { module: "provider/resources/volumeSet.ts", names: ["VolumeSetOutputs"] },
  { module: "provider/resources/policy.ts", names: ["PolicyInputs", "PolicyOutputs"] },
  { module: "provider/resources/location.ts", names: ["LocationOutputs"] },
  {
    module: "provider/functions/index.ts",
    names: [
      "GetCloudAccountPermissionsArgs",
      "GetCloudAccountPermissionsResult",
      "GetGroupAccessReportArgs",
      "GetGroupAccessReportResult",
      "GetGroupsArgs",
      "GetGroupsResult",
      "GetLocationArgs",
      "GetLocationResult",
      "GetMk8sJoinScriptArgs",
      "GetMk8sJoinScriptResult",
      "GetPolicyArgs",
      "GetPolicyResult",
      "GetQuotaArgs",
      "GetQuotaResult",
      "GetQuotasArgs",
      "GetQuotasResult",
      "GetServiceAccountsArgs",
      "GetServiceAccountsResult",
      "QueryCloudAccountsArgs",
      "QueryCloudAccountsResult",
    ],
  },
  { module: "api/kinds/index.ts", names: ["Kind"] },
  {
    module: "provider/client/index.ts",
    names: [
      "CplnClientOptions",
      "RetryOptions",
      "CallOptions",
      "KindCallOptions",
      "VolumeSetCreateBody",
      "VolumeSetPatchBody",
      "LocationPatchBody",
      "PolicyCreateBody",
      "PolicyPatchBody",
      "QueryDocumentBody",
      "JoinOptions",
      "AccessReport",
      "CloudAccount",
      "Group",
      "Location",
      "PermissionSchema",
      "Policy",
      "Quota",
      "ServiceAccount",
      "VolumeSet",
      "Mk8sJoinResponse",
      "ServiceAccountKey",
      "ApiRecord",
      "QueryResult",
      "About",
    ],
  },
];

/**
 * Data-source results that are the record the client returns, by another name: written as an alias of it, after a
 * check that both expand to the same type (so the alias can never hide a difference).
 */
const sameAs: Record<string, string> = {
  GetGroupAccessReportResult: "AccessReport",
  GetCloudAccountPermissionsResult: "PermissionSchema",
  GetLocationResult: "Location",
  GetPolicyResult: "Policy",
  GetQuotaResult: "Quota",
};

/** Classes whose public instance members become an interface named `<Class>Api`. */
const classes: { module: string; name: string }[] = [{ module: "provider/client/index.ts", name: "CplnClient" }];

/** Global (lib) types the expanded text may name. Anything else must be one of the listed names. */
const globals = new Set(["Promise", "Record", "Array", "Partial", "Required", "Readonly", "Date", "Error"]);

const flags =
  ts.NodeBuilderFlags.NoTruncation |
  ts.NodeBuilderFlags.InTypeAlias |
  ts.NodeBuilderFlags.IgnoreErrors |
  ts.NodeBuilderFlags.MultilineObjectLiterals;

export function renderTypes(): string {
  const roots = [...new Set([...sources.map((s) => s.module), ...classes.map((c) => c.module)])];
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
  };
  const program = ts.createProgram(
    roots.map((r) => path.join(repoRoot, r)),
    options,
  );
  const checker = program.getTypeChecker();
  const printer = ts.createPrinter({ removeComments: true });
  const listed = new Set(sources.flatMap((s) => s.names));
  const problems: string[] = [];
  const blocks: string[] = [];
  /** Each listed name's expanded type, and where its block is, for the aliases of `sameAs`. */
  const expanded = new Map<string, { body: string; block: number; doc: string }>();

  const exportsOf = (module: string): ts.Symbol[] => {
    const file = program.getSourceFile(path.join(repoRoot, module));
    const symbol = file && checker.getSymbolAtLocation(file);
    if (!symbol) throw new Error(`gen-types: cannot load ${module}`);
    return checker.getExportsOfModule(symbol);
  };
  const resolve = (module: string, name: string): ts.Symbol => {
    const found = exportsOf(module).find((s) => s.name === name);
    if (!found) throw new Error(`gen-types: ${module} exports no ${name}`);
    return found.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(found) : found;
  };
  const print = (input: ts.Node, context: string): string => {
    const node = stripOptionalUndefined(input);
    const visit = (n: ts.Node): void => {
      if (ts.isTypeReferenceNode(n)) {
        const name = ts.isIdentifier(n.typeName) ? n.typeName.text : n.typeName.getText();
        if (!globals.has(name) && !listed.has(name) && !typeParams.has(name)) {
          problems.push(`${context} names ${name}, which is neither listed nor a known global`);
        }
      }
      if (ts.isImportTypeNode(n)) problems.push(`${context} needs an import type (${printed(n)})`);
      ts.forEachChild(n, visit);
    };
    visit(node);
    return printed(node);
  };
  let typeParams = new Set<string>();
  const printed = (node: ts.Node): string =>
    printer.printNode(ts.EmitHint.Unspecified, node, ts.createSourceFile("x.ts", "", ts.ScriptTarget.ES2022));
  const docOf = (symbol: ts.Symbol): string => {
    const text = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
    return text ? `/** ${text.replace(/\*\//g, "*\\/").replace(/\n/g, "\n * ")} */\n` : "";
  };

  for (const { module, names } of sources) {
    for (const name of names) {
      const symbol = resolve(module, name);
      const declaration = symbol.declarations?.[0];
      const params =
        declaration && (ts.isInterfaceDeclaration(declaration) || ts.isTypeAliasDeclaration(declaration))
          ? (declaration.typeParameters ?? [])
          : [];
      typeParams = new Set(params.map((p) => p.name.text));
      const paramText = params.length > 0 ? `<${params.map((p) => p.getText()).join(", ")}>` : "";
      const type = checker.getDeclaredTypeOfSymbol(symbol);
      let body: string;
      if (declaration && ts.isInterfaceDeclaration(declaration)) {
        // Interfaces print by name: expand their members one by one.
        const members = checker.getPropertiesOfType(type).map((prop) => {
          const propType = checker.getTypeOfSymbol(prop);
          const optional = prop.flags & ts.SymbolFlags.Optional ? "?" : "";
          const node = checker.typeToTypeNode(propType, declaration, flags);
          if (!node) throw new Error(`gen-types: cannot print ${name}.${prop.name}`);
          const text = optional ? print(node, `${name}.${prop.name}`).replace(/ \| undefined$/, "") : print(node, name);
          return `${docOf(prop)}${JSON.stringify(prop.name)}${optional}: ${text};`;
        });
        const index = checker.getIndexInfosOfType(type).map((info) => {
          const node = checker.typeToTypeNode(info.type, declaration, flags);
          return `[key: ${checker.typeToString(info.keyType)}]: ${node ? print(node, name) : "unknown"};`;
        });
        body = `{\n${[...members, ...index].join("\n")}\n}`;
      } else {
        const node = checker.typeToTypeNode(type, declaration, flags);
        if (!node) throw new Error(`gen-types: cannot print ${name}`);
        body = print(node, name);
      }
      expanded.set(name, { body: paramText + body, block: blocks.length, doc: docOf(symbol) });
      blocks.push(`${docOf(symbol)}export type ${name}${paramText} = ${body};`);
    }
  }
  for (const [alias, target] of Object.entries(sameAs)) {
    const [mine, theirs] = [expanded.get(alias), expanded.get(target)];
    if (!mine || !theirs) problems.push(`sameAs: ${alias} or ${target} is not listed`);
    else if (mine.body !== theirs.body)
      problems.push(`sameAs: ${alias} no longer expands to the same type as ${target}`);
    else blocks[mine.block] = `${mine.doc}export type ${alias} = ${target};`;
  }

  typeParams = new Set();
  for (const { module, name } of classes) {
    const symbol = resolve(module, name);
    const declaration = symbol.valueDeclaration;
    const instance = checker.getDeclaredTypeOfSymbol(symbol);
    const members: string[] = [];
    for (const prop of checker.getPropertiesOfType(instance)) {
      const decl = prop.valueDeclaration;
      if (!decl || !ts.canHaveModifiers(decl)) continue;
      const modifiers = ts.getModifiers(decl) ?? [];
      const hidden = modifiers.some(
        (m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword,
      );
      if (hidden || prop.name.startsWith("#") || prop.name.startsWith("__")) continue;
      const propType = checker.getTypeOfSymbol(prop);
      const signatures = propType.getCallSignatures();
      if (signatures.length > 0 && ts.isMethodDeclaration(decl)) {
        for (const signature of signatures) {
          const node = checker.signatureToSignatureDeclaration(
            signature,
            ts.SyntaxKind.MethodSignature,
            declaration,
            flags,
          );
          if (!node || !ts.isMethodSignature(node)) throw new Error(`gen-types: cannot print ${name}.${prop.name}`);
          const named = ts.factory.updateMethodSignature(
            node,
            node.modifiers,
            ts.factory.createIdentifier(prop.name),
            node.questionToken,
            node.typeParameters,
            node.parameters,
            node.type,
          );
          const local = new Set((node.typeParameters ?? []).map((p) => p.name.getText()));
          const saved = typeParams;
          typeParams = local;
          members.push(`${docOf(prop)}${print(named, `${name}.${prop.name}`)}`);
          typeParams = saved;
        }
      } else {
        const node = checker.typeToTypeNode(propType, declaration, flags);
        if (!node) throw new Error(`gen-types: cannot print ${name}.${prop.name}`);
        members.push(`${docOf(prop)}readonly ${prop.name}: ${print(node, `${name}.${prop.name}`)};`);
      }
    }
    blocks.push(`${docOf(symbol)}export interface ${name}Api {\n${members.join("\n")}\n}`);
  }

  if (problems.length > 0) throw new Error(`gen-types:\n  ${[...new Set(problems)].join("\n  ")}`);
  const header =
    "// Generated by `npm run gen` (tools/gen-types.ts) from the provider's zod-inferred types and the client class.\n" +
    "// Do not edit. Plain TypeScript on purpose: the SDK's .d.ts must not reach zod (see the README).\n";
  return `${header}\n${blocks.join("\n\n")}\n`;
}

/** `x?: T | undefined` → `x?: T`: the same type without exactOptionalPropertyTypes, and it fits an index signature. */
function stripOptionalUndefined(node: ts.Node): ts.Node {
  const transformer: ts.TransformerFactory<ts.Node> = (context) => {
    const visit = (n: ts.Node): ts.Node => {
      const visited = ts.visitEachChild(n, visit, context);
      if (
        ts.isPropertySignature(visited) &&
        visited.questionToken &&
        visited.type &&
        ts.isUnionTypeNode(visited.type)
      ) {
        const kept = visited.type.types.filter((t) => t.kind !== ts.SyntaxKind.UndefinedKeyword);
        if (kept.length < visited.type.types.length && kept.length > 0) {
          const type = kept.length === 1 ? (kept[0] as ts.TypeNode) : ts.factory.createUnionTypeNode(kept);
          return ts.factory.updatePropertySignature(
            visited,
            visited.modifiers,
            visited.name,
            visited.questionToken,
            type,
          );
        }
      }
      if (ts.isTypeLiteralNode(visited) && visited.members.some((m) => ts.isPropertySignature(m) && m.questionToken)) {
        // zod types a catchall as an intersection; one literal needs `| undefined` on the index for optional members.
        const members = visited.members.map((m) => {
          if (!ts.isIndexSignatureDeclaration(m) || isOpen(m.type)) return m;
          const parts = ts.isUnionTypeNode(m.type) ? [...m.type.types] : [m.type];
          const type = ts.factory.createUnionTypeNode([
            ...parts,
            ts.factory.createKeywordTypeNode(ts.SyntaxKind.UndefinedKeyword),
          ]);
          return ts.factory.updateIndexSignature(m, m.modifiers, m.parameters, type);
        });
        return ts.factory.updateTypeLiteralNode(visited, ts.factory.createNodeArray(members));
      }
      return visited;
    };
    return (root) => visit(root);
  };
  const result = ts.transform(node, [transformer]);
  const [out] = result.transformed;
  result.dispose();
  return out ?? node;
}

function isOpen(type: ts.TypeNode): boolean {
  if (type.kind === ts.SyntaxKind.UnknownKeyword || type.kind === ts.SyntaxKind.AnyKeyword) return true;
  return ts.isUnionTypeNode(type) && type.types.some((t) => t.kind === ts.SyntaxKind.UndefinedKeyword);
}

async function format(text: string): Promise<string> {
  const prettier = (await import("prettier")) as typeof import("prettier");
  const config = (await prettier.resolveConfig(typesFile)) ?? {};
  return prettier.format(text, { ...config, filepath: typesFile });
}

export async function renderFormattedTypes(): Promise<string> {
  return format(renderTypes());
}

async function main(): Promise<void> {
  const text = await renderFormattedTypes();
  const current = fs.existsSync(typesFile) ? fs.readFileSync(typesFile, "utf8") : "";
  if (process.argv.includes("--check")) {
    if (current !== text) {
      console.error("Out of date: sdk/types.ts. Run npm run gen.");
      process.exit(1);
    }
    console.log("sdk/types.ts is up to date.");
    return;
  }
  fs.writeFileSync(typesFile, text);
  console.log(`Wrote sdk/types.ts${current === text ? " (unchanged)" : ""}.`);
}

if (require.main === module) void main();

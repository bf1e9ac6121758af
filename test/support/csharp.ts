/**
 * C# parsed by tree-sitter's C# grammar (tree-sitter-c-sharp's WebAssembly build, run by web-tree-sitter): what the
 * .NET SDK's checks need without a .NET SDK on the machine — the syntax errors of a file, the classes it declares and
 * the string literals it holds. A parse never throws on bad input; the grammar marks what it could not read with
 * ERROR nodes and what it had to assume with MISSING ones, both reported here with their position.
 */
import * as path from "node:path";
import { Language, Parser, type Node } from "web-tree-sitter";

const grammar = path.resolve(__dirname, "..", "..", "node_modules", "tree-sitter-c-sharp", "tree-sitter-c_sharp.wasm");

let parser: Promise<Parser> | undefined;

function csharpParser(): Promise<Parser> {
  parser ??= (async () => {
    await Parser.init();
    const created = new Parser();
    created.setLanguage(await Language.load(grammar));
    return created;
  })();
  return parser;
}

export interface CSharpFile {
  /** `line:column ERROR|MISSING <text>` for each place the grammar could not read (1-based line and column). */
  errors: string[];
  /** The name of every class declared, at any depth. */
  classes: string[];
  /** The content of every string literal. */
  strings: string[];
  /** The attributes on each class, by class name: `Name("argument")` as written. */
  classAttributes: Map<string, string[]>;
  /** The base types of each class, by class name, as written. */
  classBases: Map<string, string[]>;
}

function syntaxErrors(node: Node, found: string[]): void {
  if (!node.hasError && !node.isMissing) return;
  if (node.isError || node.isMissing) {
    const at = `${node.startPosition.row + 1}:${node.startPosition.column + 1}`;
    found.push(
      `${at} ${node.isMissing ? `MISSING ${node.type}` : `ERROR ${node.text.replace(/\s+/g, " ").slice(0, 60)}`}`,
    );
    if (node.isMissing) return;
  }
  for (const child of node.children) if (child) syntaxErrors(child, found);
}

export async function parseCSharp(source: string): Promise<CSharpFile> {
  const tree = (await csharpParser()).parse(source);
  if (!tree) throw new Error("tree-sitter returned no tree");
  try {
    const root = tree.rootNode;
    const errors: string[] = [];
    syntaxErrors(root, errors);
    const classAttributes = new Map<string, string[]>();
    const classBases = new Map<string, string[]>();
    const classes: string[] = [];
    for (const declaration of root.descendantsOfType("class_declaration")) {
      const name = declaration?.childForFieldName("name")?.text;
      if (!declaration || name === undefined) continue;
      classes.push(name);
      classAttributes.set(
        name,
        declaration.children
          .filter((child) => child?.type === "attribute_list")
          .flatMap((list) => list!.descendantsOfType("attribute").map((attribute) => attribute!.text)),
      );
      const bases = declaration.children.find((child) => child?.type === "base_list");
      classBases.set(name, bases ? bases.namedChildren.map((base) => base!.text) : []);
    }
    const strings = root.descendantsOfType("string_literal").map((literal) =>
      literal!
        .descendantsOfType("string_literal_content")
        .map((part) => part!.text)
        .join(""),
    );
    return { errors, classes, strings, classAttributes, classBases };
  } finally {
    tree.delete();
  }
}

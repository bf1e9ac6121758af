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
  /** The properties each class declares, by class name. */
  classProperties: Map<string, string[]>;
  /**
   * Each `new T(...)`: its type as written, the variable it initializes (`var v = new T(...)`), and the members
   * assigned by the object initializers among its arguments (`new() { A = ..., B = { ... } }`).
   */
  creations: { type: string; variable?: string; assigned: string[] }[];
  /** Each `object.Member` whose object is a plain name. */
  memberAccesses: { object: string; member: string }[];
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
    const classProperties = new Map<string, string[]>();
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
      const body = declaration.childForFieldName("body");
      classProperties.set(
        name,
        (body?.namedChildren ?? [])
          .filter((member) => member?.type === "property_declaration")
          .map((member) => member!.childForFieldName("name")!.text),
      );
    }
    const creations = root.descendantsOfType("object_creation_expression").map((creation) => {
      const declarator = creation!.parent?.type === "variable_declarator" ? creation!.parent : undefined;
      const initializers = (creation!.childForFieldName("arguments")?.namedChildren ?? []).flatMap(
        (argument) => argument?.descendantsOfType("initializer_expression").slice(0, 1) ?? [],
      );
      return {
        type: creation!.childForFieldName("type")!.text,
        variable: declarator?.childForFieldName("name")?.text,
        assigned: initializers.flatMap((initializer) =>
          initializer!.namedChildren
            .filter((child) => child?.type === "assignment_expression")
            .map((assignment) => assignment!.childForFieldName("left")!.text),
        ),
      };
    });
    const memberAccesses = root
      .descendantsOfType("member_access_expression")
      .filter((access) => access!.childForFieldName("expression")?.type === "identifier")
      .map((access) => ({
        object: access!.childForFieldName("expression")!.text,
        member: access!.childForFieldName("name")!.text,
      }));
    const strings = root.descendantsOfType("string_literal").map((literal) =>
      literal!
        .descendantsOfType("string_literal_content")
        .map((part) => part!.text)
        .join(""),
    );
    return { errors, classes, strings, classAttributes, classBases, classProperties, creations, memberAccesses };
  } finally {
    tree.delete();
  }
}

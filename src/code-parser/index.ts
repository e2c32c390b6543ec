/**
 * `agent-compact/code-parser`: the working set's outlines parsed by tree-sitter (TypeScript,
 * TSX, JavaScript, Python, Go, Rust, Java, C, C++, C#, Ruby, PHP, Kotlin, Swift), from the prebuilt WASM grammars of the optional peer
 * dependencies `web-tree-sitter` and `tree-sitter-wasms`. Without it the core outlines code with
 * its own lexer.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Language, Node, Parser } from 'web-tree-sitter';
import { CompactError } from '../core/model/errors.js';
import type { CodeDefinition, CodeLanguage, CodeParser } from '../core/working-set/code-outline.js';
import { signatureOf } from '../core/working-set/lexer-outline.js';
import { definitionNodes, functionValues, grammarFiles } from './definition-nodes.js';

export type { CodeDefinition, CodeLanguage, CodeParser } from '../core/working-set/code-outline.js';

/** The one line that tells a user how to get the parser. */
export const CODE_PARSER_INSTALL_COMMAND = 'npm install web-tree-sitter tree-sitter-wasms';
/** A declaration's signature is read over at most this many lines before its body. */
const SIGNATURE_LINES = 6;
/**
 * A text with a line longer than this goes to the lexer: tree-sitter's error recovery is
 * superlinear on one long unbalanced line (a 300,000-character line of `(` took 54 s in the
 * TypeScript grammar, 240 s in Python's), and such a line is data or generated, not code to outline.
 */
const MAX_PARSED_LINE_CHARS = 1000;
/** A parse still running after this long is cancelled and the text left to the lexer (a guard; code parses in milliseconds). */
const DEFAULT_PARSE_BUDGET_MS = 10_000;

/** Options of {@link createTreeSitterCodeParser}. */
export interface TreeSitterCodeParserOptions {
  /** The languages to load. @default all fourteen */
  languages?: readonly CodeLanguage[];
  /** The folder holding the `tree-sitter-<language>.wasm` grammars. @default the `tree-sitter-wasms` package's `out/` */
  grammarDirectory?: string;
  /** How long one parse may run before it is cancelled and the lexer outlines the text, in milliseconds. @default 10000 */
  parseBudgetMs?: number;
  /** Tree-sitter's own runtime, `tree-sitter.wasm`. @default the `web-tree-sitter` package's */
  runtimeFile?: string;
}

/** A parser with the languages whose grammar loaded; the others are the lexer's. */
export interface TreeSitterCodeParser extends CodeParser {
  /** The languages parsed by tree-sitter (a grammar that failed to load is not among them). */
  readonly languages: readonly CodeLanguage[];
}

/**
 * Loads tree-sitter and the grammars, and returns a {@link CodeParser} for the compactor's
 * `codeParser` option. A grammar that fails to load leaves its language to the lexer, and a runtime
 * (`tree-sitter.wasm`) that fails to load leaves them all to it; a text that fails to parse is
 * outlined by the lexer too. Throws `MISSING_DEPENDENCY` without the peers.
 *
 * @example
 * const compactor = createCompactor({ codeParser: await createTreeSitterCodeParser() });
 */
export async function createTreeSitterCodeParser(
  options: TreeSitterCodeParserOptions = {},
): Promise<TreeSitterCodeParser> {
  const treeSitter = await loadTreeSitter();
  const directory = options.grammarDirectory ?? grammarDirectory();
  const parsers = new Map<CodeLanguage, Parser>();
  const started = await startRuntime(treeSitter, options.runtimeFile ?? runtimeFile());
  for (const language of started
    ? (options.languages ?? (Object.keys(grammarFiles) as CodeLanguage[]))
    : []) {
    let grammar: Language;
    try {
      grammar = await treeSitter.Language.load(join(directory, grammarFiles[language]));
    } catch {
      continue;
    }
    const parser = new treeSitter.Parser();
    parser.setLanguage(grammar);
    parsers.set(language, parser);
  }
  return {
    specificationVersion: 'v1',
    languages: [...parsers.keys()],
    outline(language, text) {
      const parser = parsers.get(language);
      if (!parser || hasLongLine(text)) return undefined;
      // PHP's grammar reads what precedes `<?php` as page text: a part of a file read from its
      // middle would outline to nothing, so the lexer takes it.
      if (language === 'php' && !text.includes('<?php')) return undefined;
      try {
        return outlineTree(parser, language, text, options.parseBudgetMs ?? DEFAULT_PARSE_BUDGET_MS);
      } catch {
        // A WebAssembly trap (out of memory, a grammar's bug) in the parse, in the reset after a
        // failed one or in the walk: the lexer outlines the text, as the contract says.
        return undefined;
      }
    },
  };
}

async function loadTreeSitter(): Promise<typeof import('web-tree-sitter')> {
  try {
    return await import('web-tree-sitter');
  } catch (error) {
    throw new CompactError(
      `agent-compact/code-parser: the optional peer dependency "web-tree-sitter" is not installed; install it with: ${CODE_PARSER_INSTALL_COMMAND}`,
      { code: 'MISSING_DEPENDENCY', cause: error },
    );
  }
}

/**
 * Starts tree-sitter's runtime from `file`, compiled here first. Handed a file that does not
 * compile, `Parser.init` rejects and its Emscripten module also rejects a promise nobody holds: an
 * unhandled rejection that ends the process, whatever the caller catches. Compiled and linked here
 * (the `instantiateWasm` hook), a corrupt or mismatched runtime is a false: the lexer outlines all.
 */
async function startRuntime(treeSitter: typeof import('web-tree-sitter'), file: string): Promise<boolean> {
  // The project's libs declare no WebAssembly (no DOM); Node has it.
  const { WebAssembly: wasm } = globalThis as unknown as { WebAssembly: WebAssemblyApi };
  let compiled: object;
  try {
    compiled = await wasm.compile(await readFile(file));
  } catch {
    return false;
  }
  const moduleOptions = {
    instantiateWasm(imports: object, receive: (instance: object, module: object) => void) {
      // Synchronous, so a LinkError rejects `init` itself rather than a promise of Emscripten's own.
      receive(new wasm.Instance(compiled, imports), compiled);
      return {};
    },
  };
  try {
    await treeSitter.Parser.init(moduleOptions as Parameters<typeof treeSitter.Parser.init>[0]);
    return true;
  } catch {
    return false;
  }
}

/** What {@link startRuntime} uses of the `WebAssembly` global. */
interface WebAssemblyApi {
  compile(bytes: Uint8Array): Promise<object>;
  Instance: new (module: object, imports: object) => object;
}

function runtimeFile(): string {
  try {
    return createRequire(import.meta.url).resolve('web-tree-sitter/tree-sitter.wasm');
  } catch (error) {
    throw new CompactError(
      `agent-compact/code-parser: the optional peer dependency "web-tree-sitter" is not installed; install it with: ${CODE_PARSER_INSTALL_COMMAND}`,
      { code: 'MISSING_DEPENDENCY', cause: error },
    );
  }
}

function grammarDirectory(): string {
  try {
    return join(dirname(createRequire(import.meta.url).resolve('tree-sitter-wasms/package.json')), 'out');
  } catch (error) {
    throw new CompactError(
      `agent-compact/code-parser: the optional peer dependency "tree-sitter-wasms" is not installed; install it with: ${CODE_PARSER_INSTALL_COMMAND}`,
      { code: 'MISSING_DEPENDENCY', cause: error },
    );
  }
}

function hasLongLine(text: string): boolean {
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    if (end - start > MAX_PARSED_LINE_CHARS) return true;
    start = end + 1;
  }
  return false;
}

/**
 * The definitions of one text; undefined when it does not parse cleanly, takes longer than
 * `budgetMs` or the parser fails (the lexer takes over).
 */
function outlineTree(
  parser: Parser,
  language: CodeLanguage,
  text: string,
  budgetMs: number,
): CodeDefinition[] | undefined {
  const deadline = performance.now() + budgetMs;
  let tree: ReturnType<Parser['parse']>;
  try {
    // The callback's `true` cancels the parse (its declared type says void).
    const progressCallback = (() => performance.now() > deadline) as () => void;
    tree = parser.parse(text, null, { progressCallback });
  } catch {
    // A parse that was cancelled or failed leaves the parser to be reset before its next text.
    parser.reset();
    return undefined;
  }
  if (!tree) {
    parser.reset();
    return undefined;
  }
  try {
    // A text with syntax errors (a fragment, a file mid-edit) parses into guesses: the lexer's
    // line-by-line outline is the better reading of it.
    if (tree.rootNode.hasError) return undefined;
    const kinds = definitionNodes[language];
    const lines = text.split('\n');
    const around = enclosing(tree.rootNode);
    const definitions: CodeDefinition[] = [];
    for (const node of tree.rootNode.descendantsOfType(Object.keys(kinds))) {
      const definition = node ? definitionOf(node, kinds[node.type]!, lines, around) : undefined;
      if (definition) definitions.push(definition);
    }
    return definitions;
  } finally {
    tree.delete();
  }
}

/**
 * What a definition's parent tells, found from the top down: the declaration holding a
 * `const f = () => …` (its head starts there) and the functions that are a Python class's methods.
 * `node.parent` walks down from the root on every call: asked of each definition, it made a file
 * of nested definitions quadratic (8,000 nested arrow functions, 170 KB, took 28 s).
 */
interface Enclosing {
  declarations: Map<number, Node>;
  methods: Set<number>;
}

function enclosing(root: Node): Enclosing {
  const around: Enclosing = { declarations: new Map(), methods: new Set() };
  for (const holder of root.descendantsOfType([
    'lexical_declaration',
    'variable_declaration',
    'class_definition',
  ])) {
    if (!holder) continue;
    if (holder.type !== 'class_definition') {
      for (const child of holder.namedChildren)
        if (child?.type === 'variable_declarator') around.declarations.set(child.id, holder);
      continue;
    }
    for (const child of holder.childForFieldName('body')?.namedChildren ?? [])
      if (child?.type === 'function_definition') around.methods.add(child.id);
  }
  return around;
}

function definitionOf(
  node: Node,
  kind: string,
  lines: readonly string[],
  around: Enclosing,
): CodeDefinition | undefined {
  if (node.type === 'variable_declarator' && !functionValues.has(node.childForFieldName('value')?.type ?? ''))
    return undefined;
  if (bodyless.has(node.type) && !node.childForFieldName('body')) return undefined;
  const name = nameOf(node);
  if (!name) return undefined;
  const startRow = headStart(
    node.type === 'variable_declarator' ? (around.declarations.get(node.id) ?? node.parent ?? node) : node,
  );
  const value = node.childForFieldName('value');
  const body = node.childForFieldName('body') ?? value?.childForFieldName('body');
  // A head on one line is that line as written (what an edit of it must match); one over several
  // lines ends where the body starts (its column on that row), its lines joined.
  const bodyAt = body && body.startPosition.row < startRow + SIGNATURE_LINES ? body.startPosition : undefined;
  const head =
    bodyAt && bodyAt.row > startRow
      ? [...lines.slice(startRow, bodyAt.row), (lines[bodyAt.row] ?? '').slice(0, bodyAt.column)]
          .join(' ')
          .replace(/\s+/g, ' ')
      : (lines[startRow] ?? '');
  const method =
    kind === 'function' && around.methods.has(node.id)
      ? 'method'
      : (node.childForFieldName('declaration_kind')?.text ?? kind);
  return {
    name,
    kind: method,
    signature: signatureOf(head),
    line: startRow + 1,
    // A node that takes its line break (`#define`) ends on the line before the next one starts.
    endLine: Math.max(startRow + 1, node.endPosition.row + (node.endPosition.column === 0 ? 0 : 1)),
  };
}

/** Kinds that only declare a name without their body (`struct buffer *b`, `enum color c`). */
const bodyless = new Set(['struct_specifier', 'union_specifier', 'enum_specifier', 'class_specifier']);
/** The nodes a C or C++ declarator ends in: the name it declares. */
const declaredNames = new Set([
  'identifier',
  'field_identifier',
  'type_identifier',
  'destructor_name',
  'operator_name',
]);

/**
 * A definition's name: its `name` field in most grammars; in C and C++ the identifier at the end
 * of its declarator (`*buffer_text(…)`, `Session::save`); in Kotlin its first identifier; a Swift
 * `init` is called that.
 */
function nameOf(node: Node): string | undefined {
  const named = node.childForFieldName('name');
  if (named) return named.text;
  if (node.type === 'init_declaration') return 'init';
  let declarator = node.childForFieldName('declarator');
  while (declarator && !declaredNames.has(declarator.type)) {
    // A C++ reference declarator (`Pipe &Loop::create()`) holds its declarator without a field name.
    declarator =
      declarator.type === 'qualified_identifier'
        ? declarator.childForFieldName('name')
        : (declarator.childForFieldName('declarator') ?? declarator.namedChildren.at(-1) ?? null);
  }
  // Rust's `impl Type` names its type.
  const name = declarator ?? node.childForFieldName('type');
  if (name) return name.text;
  return node.namedChildren.find(
    (child) => child?.type === 'simple_identifier' || child?.type === 'type_identifier',
  )?.text;
}

/** Attributes written above a declaration (C# `[Guid("…")]`): the signature starts after them. */
const attributeTypes = new Set(['attribute_list', 'attribute', 'decorator']);

/** The row the declaration's head starts on, past the attributes above it. */
function headStart(node: Node): number {
  const first = node.children.find((child) => child !== null && !attributeTypes.has(child.type));
  return (first ?? node).startPosition.row;
}

/**
 * What the working set knows of a file's code: its definitions, found by a parser (the
 * `agent-compact/code-parser` subpath, tree-sitter) or by the core's own lexer.
 */

import { fileName } from '../_internal/text.js';

/** A language the outline knows; `undefined` for any other file. */
export type CodeLanguage =
  | 'typescript'
  | 'tsx'
  | 'javascript'
  | 'python'
  | 'go'
  | 'rust'
  | 'java'
  | 'c'
  | 'cpp'
  | 'csharp'
  | 'ruby'
  | 'php'
  | 'kotlin'
  | 'swift';

/** One definition in a file: a function, method, type, class. */
export interface CodeDefinition {
  /** Its name (`CalculateTokenUsage`, `Parser.parse`). */
  name: string;
  /** `function`, `method`, `class`, `type`, `interface`, … as the language calls it. */
  kind: string;
  /** The declaration up to its body, on one line (`func CalculateTokenUsage(t []Line) (*Usage, error)`). */
  signature: string;
  /** Its first line, from 1. */
  line: number;
  /** Its last line, from 1. */
  endLine: number;
}

/**
 * Finds the definitions in a file's text. Implemented by `createTreeSitterCodeParser` from
 * `agent-compact/code-parser`; the core falls back to its lexer for any language the parser
 * does not take (answer `undefined`) or when it throws.
 */
export interface CodeParser {
  readonly specificationVersion: 'v1';
  /** The definitions of `text`, written in `language`, in file order; `undefined` when it cannot tell. */
  outline(language: CodeLanguage, text: string): CodeDefinition[] | undefined;
}

/**
 * The definitions with functions, types and classes before constants and variables, each group in
 * its order: the names the agent calls and edits next come first where only some fit.
 */
export function functionsFirst<T extends Pick<CodeDefinition, 'kind'>>(definitions: readonly T[]): T[] {
  const isValue = (definition: T) => definition.kind === 'constant' || definition.kind === 'variable';
  return [...definitions.filter((definition) => !isValue(definition)), ...definitions.filter(isValue)];
}

const extensions: Record<string, CodeLanguage> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  py: 'python',
  pyi: 'python',
  go: 'go',
  rs: 'rust',
  java: 'java',
  // A `.h` may be C or C++: the C grammar takes it, and the lexer what it cannot parse.
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  'c++': 'cpp',
  hh: 'cpp',
  hpp: 'cpp',
  hxx: 'cpp',
  cs: 'csharp',
  rb: 'ruby',
  rake: 'ruby',
  php: 'php',
  kt: 'kotlin',
  kts: 'kotlin',
  swift: 'swift',
};

/** The language of a file by its extension, or `undefined` for one the outline does not know. */
export function languageOf(path: string): CodeLanguage | undefined {
  const name = fileName(path);
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return undefined;
  return extensions[name.slice(dot + 1).toLowerCase()];
}

/**
 * The shape the house style asks for, checked: no function over 80 lines in `src/core` and
 * `src/proxy`, no file over 500 lines in `src/`, no import cycle between modules (type imports,
 * `import('…')` types and dynamic imports count: a type cycle ties modules as tightly as a
 * runtime one), `core/model/` a leaf that imports nothing outside itself, no wire format
 * importing a sibling format, and no format name outside a `wire/` folder (typed by the checker).
 * There is no allowlist: a new exception is a change to this file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { formatLiteralLines, projectProgram, readsFormatLiterals } from './format-literals.test-utils.js';

const MAX_FUNCTION_LINES = 80;
const MAX_FILE_LINES = 500;
const SOURCE = resolve(import.meta.dirname, '.');
const FUNCTION_ROOTS = ['core', 'proxy'];

/** The leaf every format and entry point builds on: the message model, errors, problems, formats. */
const MODEL = 'core/model/';
/** One folder per wire format; `_internal/` is what they share. */
const WIRE = 'core/wire/';

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

const files = sourceFiles(SOURCE);
const relativeName = (path: string) => relative(SOURCE, path).split('\\').join('/');
const parsed = new Map(
  files.map((path) => [
    path,
    ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true),
  ]),
);

/** Every function-like node's name and line count. */
function functionLengths(file: ts.SourceFile): { name: string; lines: number }[] {
  const found: { name: string; lines: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const end = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ name: functionName(node, file), lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function functionName(node: ts.Node, file: ts.SourceFile): string {
  const named = node as { name?: ts.Node };
  if (named.name) return named.name.getText(file);
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText(file);
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(file);
  return `<anonymous@${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}>`;
}

/** Every module specifier a file names, type-only imports and `import('…')` types included. */
function moduleSpecifiers(file: ts.SourceFile): string[] {
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    const specifier = moduleSpecifierOf(node);
    if (specifier !== undefined) specifiers.push(specifier);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return specifiers;
}

/** The project files a file imports (relative specifiers resolved; packages left out). */
function projectImports(path: string, file: ts.SourceFile): string[] {
  return moduleSpecifiers(file).flatMap((specifier) => {
    if (!specifier.startsWith('.')) return [];
    const target = resolve(dirname(path), specifier.replace(/\.js$/, '.ts'));
    if (parsed.has(target)) return [target];
    return parsed.has(join(target, 'index.ts')) ? [join(target, 'index.ts')] : [];
  });
}

/** The string an import, re-export, `import('…')` type or dynamic `import()` names. */
function moduleSpecifierOf(node: ts.Node): string | undefined {
  if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
    return ts.isStringLiteral(node.moduleSpecifier) ? node.moduleSpecifier.text : undefined;
  if (ts.isImportTypeNode(node)) {
    const argument = node.argument;
    return ts.isLiteralTypeNode(argument) && ts.isStringLiteral(argument.literal)
      ? argument.literal.text
      : undefined;
  }
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
    const [argument] = node.arguments;
    return argument && ts.isStringLiteral(argument) ? argument.text : undefined;
  }
  return undefined;
}

/** Strongly connected components of more than one file (or a file importing itself): Tarjan. */
function importCycles(): string[][] {
  const graph = new Map([...parsed].map(([path, file]) => [path, projectImports(path, file)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;
  const connect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.includes(node)) cycles.push(component);
  };
  for (const node of graph.keys()) if (!index.has(node)) connect(node);
  return cycles;
}

describe('source structure', () => {
  it(`has no function over ${MAX_FUNCTION_LINES} lines in src/core and src/proxy`, () => {
    const long: string[] = [];
    for (const [path, file] of parsed) {
      const name = relativeName(path);
      // A test's describe callback is a list of cases, not a function to read in one go.
      if (!FUNCTION_ROOTS.some((root) => name.startsWith(`${root}/`)) || name.endsWith('.test.ts')) continue;
      for (const entry of functionLengths(file)) {
        const key = `${name}:${entry.name}`;
        if (entry.lines > MAX_FUNCTION_LINES) long.push(`${key} (${entry.lines} lines)`);
      }
    }
    expect(long).toEqual([]);
  });

  it(`has no file over ${MAX_FILE_LINES} lines in src/`, () => {
    const long = [...parsed]
      .filter(([, file]) => {
        const lines = file.getLineAndCharacterOfPosition(file.getEnd()).line + 1;
        return lines > MAX_FILE_LINES;
      })
      .map(
        ([path, file]) =>
          `${relativeName(path)} (${file.getLineAndCharacterOfPosition(file.getEnd()).line + 1} lines)`,
      );
    expect(long).toEqual([]);
  });

  it('has no import cycle', () => {
    const cycles = importCycles().map((component) => component.map(relativeName).sort().join(' '));
    expect(cycles).toEqual([]);
  });

  it(`keeps ${MODEL} a leaf: it imports nothing outside itself`, () => {
    const outside = [...parsed]
      .filter(([path]) => relativeName(path).startsWith(MODEL) && !path.endsWith('.test.ts'))
      .flatMap(([path, file]) =>
        moduleSpecifiers(file)
          .filter((specifier) => {
            if (!specifier.startsWith('.')) return true;
            return !relativeName(resolve(dirname(path), specifier)).startsWith(MODEL);
          })
          .map((specifier) => `${relativeName(path)} -> ${specifier}`),
      );
    expect(outside).toEqual([]);
  });

  it('has no wire format importing a sibling format', () => {
    const formatOf = (name: string): string | undefined => {
      if (!name.startsWith(WIRE)) return undefined;
      const folder = name.slice(WIRE.length).split('/');
      return folder.length > 1 && folder[0] !== '_internal' ? folder[0] : undefined;
    };
    const crossings = [...parsed].flatMap(([path, file]) => {
      const own = formatOf(relativeName(path));
      if (own === undefined) return [];
      return projectImports(path, file)
        .map(relativeName)
        .filter((target) => formatOf(target) !== undefined && formatOf(target) !== own)
        .map((target) => `${relativeName(path)} -> ${target}`);
    });
    expect(crossings).toEqual([]);
  });

  describe('format literals', () => {
    // The checker types each literal; one program over the project's tsconfig serves every check.
    const program = projectProgram(resolve(SOURCE, '../tsconfig.json'));
    const checker = program.getTypeChecker();
    const literalsIn = (path: string) => {
      const file = program.getSourceFile(path);
      if (file === undefined) throw new Error(`${relativeName(path)} is not in tsconfig.json's program`);
      return formatLiteralLines(file, checker);
    };

    it('writes no format name outside a wire/ folder (callers look the format up in a registry)', () => {
      const found = files
        .filter((path) => readsFormatLiterals(relativeName(path)))
        .flatMap((path) => literalsIn(path).map((line) => `${relativeName(path)}:${line}`));
      expect(found).toEqual([]);
      // A scanner that sees no literal would pass on any code: the format list itself has four.
      expect(literalsIn(resolve(SOURCE, 'core/model/wire-format.ts')).length).toBeGreaterThanOrEqual(4);
    });

    it('counts a name typed as a format, not the same word in another role', () => {
      const lines = [
        "type WireFormat = 'anthropic' | 'openai' | 'responses' | 'gemini';", // 1: the list again
        "type Agent = 'claude' | 'gemini';",
        'declare const format: WireFormat;',
        'declare const agent: Agent;',
        'declare function validate(options: { format?: WireFormat; provider: string }): void;',
        "if (format === 'gemini') validate({ provider: 'openai' });", // 6: compared with a format
        "if (agent === 'gemini') validate({ format: 'responses', provider: 'x' });", // 7: passed as one
        "switch (format) { case 'openai': break; }", // 8: a case of one
        "const id = 'anthropic';",
        "const spec = { api: 'gemini' as WireFormat };", // 10: asserted to be one
      ];
      const file = inMemoryProgram(lines.join('\n'));
      expect(formatLiteralLines(file.source, file.checker)).toEqual([1, 1, 1, 1, 6, 7, 8, 10]);
    });
  });

  it('sees the functions, files and imports it checks', () => {
    // A scanner that finds nothing would pass the checks above on any code.
    expect(files.length).toBeGreaterThan(100);
    const pipeline = [...parsed].find(([path]) => relativeName(path) === 'core/pipeline.ts');
    expect(pipeline && functionLengths(pipeline[1]).length).toBeGreaterThan(5);
    expect(pipeline && projectImports(...pipeline).length).toBeGreaterThan(3);
    expect([...parsed].filter(([path]) => relativeName(path).startsWith(MODEL)).length).toBeGreaterThan(3);
  });

  it('counts every form of import: type-only, inline type, import() types, re-exports, dynamic', () => {
    const text = [
      "import type { A } from './a.js';",
      "import { type B } from './b.js';",
      "type C = import('./c.js').C;",
      "export type { D } from './d.js';",
      "const e = await import('./e.js');",
      "import f from 'f';",
    ].join('\n');
    const file = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
    expect(moduleSpecifiers(file)).toEqual(['./a.js', './b.js', './c.js', './d.js', './e.js', 'f']);
  });
});

/** A program of one file, `x.ts`, typed with no library: enough for string-literal types. */
function inMemoryProgram(text: string): { source: ts.SourceFile; checker: ts.TypeChecker } {
  const options: ts.CompilerOptions = { noLib: true, strict: true, noEmit: true };
  const host = ts.createCompilerHost(options);
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  host.getSourceFile = (name) => (name === 'x.ts' ? source : undefined);
  host.fileExists = (name) => name === 'x.ts';
  host.readFile = (name) => (name === 'x.ts' ? text : undefined);
  const program = ts.createProgram(['x.ts'], options, host);
  return { source, checker: program.getTypeChecker() };
}

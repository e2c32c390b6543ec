/**
 * The shape the house style asks for, checked: no function over 80 lines in `src/core` and
 * `src/proxy`, no file over 500 lines in `src/`, no import cycle between modules (type-only
 * imports excluded: they vanish at runtime). What already broke a rule when this test arrived is
 * listed below by name; shrinking those lists is future work, and a new entry needs a reason.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  FORMAT_LITERALS_ALLOWED,
  formatLiteralLines,
  readsFormatLiterals,
} from './format-literals.test-utils.js';

const MAX_FUNCTION_LINES = 80;
const MAX_FILE_LINES = 500;
const SOURCE = resolve(import.meta.dirname, '.');
const FUNCTION_ROOTS = ['core', 'proxy'];

/** Functions allowed over the limit (`file:name`): none since the dialects and the proxy's split. */
const LONG_FUNCTIONS_ALLOWED = new Set<string>([]);
/** Files allowed over the limit: none since replay.ts, the scripted model server, repair and their tests were split. */
const LONG_FILES_ALLOWED = new Set<string>([]);
/** Import cycles present when this test was written, each as its sorted member list joined by ` `. */
const CYCLES_ALLOWED = new Set<string>([]);

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

/** The project files a file imports at runtime (relative specifiers only). */
function runtimeImports(path: string, file: ts.SourceFile): string[] {
  const targets: string[] = [];
  for (const statement of file.statements) {
    const isImport = ts.isImportDeclaration(statement);
    const isExport = ts.isExportDeclaration(statement);
    if (!isImport && !isExport) continue;
    if (isImport && isTypeOnlyImport(statement)) continue;
    if (isExport && statement.isTypeOnly) continue;
    const specifier = statement.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
    const target = resolve(dirname(path), specifier.text.replace(/\.js$/, '.ts'));
    if (parsed.has(target)) targets.push(target);
    else if (parsed.has(join(target, 'index.ts'))) targets.push(join(target, 'index.ts'));
  }
  return targets;
}

function isTypeOnlyImport(statement: ts.ImportDeclaration): boolean {
  const clause = statement.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return (
    clause.name === undefined &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

/** Strongly connected components of more than one file (or a file importing itself): Tarjan. */
function importCycles(): string[][] {
  const graph = new Map([...parsed].map(([path, file]) => [path, runtimeImports(path, file)]));
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
        if (entry.lines > MAX_FUNCTION_LINES && !LONG_FUNCTIONS_ALLOWED.has(key))
          long.push(`${key} (${entry.lines} lines)`);
      }
    }
    expect(long).toEqual([]);
  });

  it(`has no file over ${MAX_FILE_LINES} lines in src/`, () => {
    const long = [...parsed]
      .filter(([path, file]) => {
        const lines = file.getLineAndCharacterOfPosition(file.getEnd()).line + 1;
        return lines > MAX_FILE_LINES && !LONG_FILES_ALLOWED.has(relativeName(path));
      })
      .map(
        ([path, file]) =>
          `${relativeName(path)} (${file.getLineAndCharacterOfPosition(file.getEnd()).line + 1} lines)`,
      );
    expect(long).toEqual([]);
  });

  it('has no import cycle', () => {
    const cycles = importCycles()
      .map((component) => component.map(relativeName).sort().join(' '))
      .filter((cycle) => !CYCLES_ALLOWED.has(cycle));
    expect(cycles).toEqual([]);
  });

  it('writes no format name outside src/core/wire (callers look the format up in a registry)', () => {
    const found = new Map<string, number>();
    for (const [path, file] of parsed) {
      const name = relativeName(path);
      const count = readsFormatLiterals(name) ? formatLiteralLines(file).length : 0;
      // A count below its allowance is a file cleaned up: lower the allowance with it.
      if (count !== (FORMAT_LITERALS_ALLOWED.get(name) ?? 0)) found.set(name, count);
    }
    expect(Object.fromEntries(found)).toEqual({});
    for (const name of FORMAT_LITERALS_ALLOWED.keys()) expect(files.map(relativeName)).toContain(name);
    // A scanner that sees no literal would pass on any code: the format list itself has four.
    const list = [...parsed].find(([path]) => relativeName(path) === 'core/wire/wire-format.ts');
    expect(list && formatLiteralLines(list[1]).length).toBeGreaterThanOrEqual(4);
  });

  it('sees the functions, files and imports it checks', () => {
    // A scanner that finds nothing would pass the checks above on any code.
    expect(files.length).toBeGreaterThan(100);
    const pipeline = [...parsed].find(([path]) => relativeName(path) === 'core/pipeline.ts');
    expect(pipeline && functionLengths(pipeline[1]).length).toBeGreaterThan(5);
    expect(pipeline && runtimeImports(...pipeline).length).toBeGreaterThan(3);
  });
});

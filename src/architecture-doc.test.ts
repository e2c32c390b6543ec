import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/architecture.md is the map a newcomer follows in an editor, so it must be the code's: every
// path it names exists under src/, every backticked name is defined in the source, a name written
// after a path is defined in that file, a table row's first function is in one of its files, and
// where it draws `caller` → `callee` the caller's file really refers to the callee. A name or path
// marked ` (new)` (what a fifth format would add) is not checked.
const root = resolve(import.meta.dirname, '..');
const source = join(root, 'src');
const map = readFileSync(join(root, 'docs/architecture.md'), 'utf8');

/** A module's text less its imports and re-exports: naming a function there does not define it. */
function withoutImports(text: string): string {
  return text.replace(/^(import|export)\b[^;]*?\bfrom\s+['"][^'"]+['"];?/gms, '');
}

/** Every non-test source file under src/ (imports left out), by its path relative to src/. */
function sourceFiles(directory = source, prefix = ''): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(directory)) {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) {
      if (entry !== '__fixtures__')
        for (const [name, text] of sourceFiles(path, `${prefix}${entry}/`)) files.set(name, text);
    } else if (entry.endsWith('.ts') && !entry.endsWith('.test.ts')) {
      files.set(`${prefix}${entry}`, withoutImports(readFileSync(path, 'utf8')));
    }
  }
  return files;
}
const files = sourceFiles();

type Token =
  | { kind: 'path' | 'name'; value: string; gap: string }
  | { kind: 'arrow' | 'open' | 'close' | 'boundary'; gap: string };

const PATH = /^[\w.-]+(\/[\w.-]+)*(\.ts|\/)$/; // relative to src/, which may be written
const NAME = /^[A-Za-z_$][\w$]*(\[\w+\])?(\.[A-Za-z_$][\w$]*)*$/;
const NEW_MARK = ' (new)';
const SYMBOLS = { '→': 'arrow', '(': 'open', ')': 'close', '|': 'boundary', '\n\n': 'boundary' } as const;

/** The map read as its backticked paths and names, the arrows and brackets between them, and the
 * text each follows (`gap`). Table cells and paragraphs are separated by a boundary. */
function tokensOf(text: string): Token[] {
  const tokens: Token[] = [];
  let end = 0;
  for (const match of text.matchAll(/`([^`]+)`|→|\(|\)|\||\n\n/g)) {
    const gap = text.slice(end, match.index);
    end = match.index + match[0].length;
    // What the map proposes (the fifth format's files) is marked `name` (new): not yet the code's.
    if (text.startsWith(NEW_MARK, end)) {
      end += NEW_MARK.length;
      continue;
    }
    const symbol = SYMBOLS[match[0] as keyof typeof SYMBOLS];
    if (symbol) tokens.push({ kind: symbol, gap });
    else if (PATH.test(match[1]!)) tokens.push({ kind: 'path', value: match[1]!.replace(/^src\//, ''), gap });
    else if (NAME.test(match[1]!)) tokens.push({ kind: 'name', value: match[1]!, gap });
    else tokens.push({ kind: 'boundary', gap });
  }
  return tokens;
}

/** The name an arrow starts from: the last name before it, skipping bracketed asides, in its cell. */
function callerBefore(tokens: Token[], index: number): Token | undefined {
  let depth = 0;
  for (let at = index - 1; at >= 0; at--) {
    const token = tokens[at]!;
    if (token.kind === 'boundary' || token.kind === 'arrow') return depth === 0 ? undefined : token;
    if (token.kind === 'close') depth++;
    else if (token.kind === 'open') {
      if (depth === 0) return undefined;
      depth--;
    } else if (token.kind === 'name' && depth === 0) return token;
  }
  return undefined;
}

/** The identifiers a backticked name is made of: `dialects[api].usageOf` → dialects, usageOf. */
function segments(name: string): string[] {
  return name.replace(/\[\w+\]/g, '').split('.');
}

/** Where `name` is defined: a function, variable, class, type, method, property or string code. */
function definesName(text: string, name: string): boolean {
  const word = name.replace(/\$/g, '\\$');
  const definitions = [
    `\\bfunction\\*?\\s+${word}\\b`,
    `\\b(const|let|var|class|interface|type|enum)\\s+${word}\\b`,
    `^\\s*(export\\s+)?(readonly\\s+|async\\s+|static\\s+|get\\s+)*${word}\\??\\s*[(<:=]`,
    `[{,]\\s*${word}\\s*[,}]`,
    `\\bas\\s+${word}\\b`,
    `['"]${word}['"]`,
  ];
  return definitions.some((pattern) => new RegExp(pattern, 'm').test(text));
}

/** The files defining a name's last part (`tokens.observe`: where `observe` is defined). */
function definedIn(name: string): string[] {
  const last = segments(name).at(-1)!;
  return [...files].filter(([, text]) => definesName(text, last)).map(([path]) => path);
}

/** True when every part of a name is defined somewhere (`ids.storedId`: `ids` and `storedId`). */
function isDefined(name: string): boolean {
  return segments(name).every((part) => [...files.values()].some((text) => definesName(text, part)));
}

function mentions(text: string, name: string): boolean {
  return new RegExp(`\\b${segments(name).at(-1)!.replace(/\$/g, '\\$')}\\b`).test(text);
}

const tokens = tokensOf(map);
const paths = [...new Set(tokens.flatMap((token) => (token.kind === 'path' ? [token.value] : [])))];
const names = [...new Set(tokens.flatMap((token) => (token.kind === 'name' ? [token.value] : [])))];

/** Table rows as their cells, for the rows of the path tables (`| # | Step | File | Function |`). */
function pathRows(): { files: Token[]; functions: Token[]; line: string }[] {
  return map
    .split('\n')
    .filter((line) => /^\| \d+[a-z]? \|/.test(line))
    .map((line) => {
      const cells = line.split(' | ');
      return { files: tokensOf(cells[2]!), functions: tokensOf(cells.slice(3).join(' | ')), line };
    });
}

describe('docs/architecture.md is the code', () => {
  it('names paths and functions', () => {
    expect(paths.length).toBeGreaterThan(40);
    expect(names.length).toBeGreaterThan(80);
  });

  it('names only paths that exist under src/', () => {
    expect(paths.filter((path) => !existsSync(join(source, path)))).toEqual([]);
  });

  it('names only functions and fields defined in the source', () => {
    expect(names.filter((name) => !isDefined(name))).toEqual([]);
  });

  it('a name written right after a path is defined in that file', () => {
    const misplaced: string[] = [];
    tokens.forEach((token, index) => {
      const next = tokens[index + 1];
      if (
        token.kind !== 'path' ||
        !token.value.endsWith('.ts') ||
        next?.kind !== 'name' ||
        next.gap.trim() !== ''
      )
        return;
      const text = files.get(token.value);
      if (text && !segments(next.value).every((part) => definesName(text, part))) {
        misplaced.push(`${next.value} is not in ${token.value}`);
      }
    });
    expect(misplaced).toEqual([]);
  });

  it("a path table row's first function is defined in one of the row's files", () => {
    const rows = pathRows();
    expect(rows.length).toBeGreaterThan(20);
    const wrong = rows.filter(({ files: rowFiles, functions }) => {
      const first = functions.find((token) => token.kind === 'name');
      if (first?.kind !== 'name') return false;
      return !rowFiles.some((file) => {
        const text = file.kind === 'path' ? files.get(file.value) : undefined;
        return text !== undefined && segments(first.value).every((part) => definesName(text, part));
      });
    });
    expect(wrong.map((row) => row.line)).toEqual([]);
  });

  it('every `caller` → `callee` it draws is a reference in the caller’s file', () => {
    const wrong: string[] = [];
    tokens.forEach((token, index) => {
      if (token.kind !== 'arrow') return;
      const caller = callerBefore(tokens, index);
      const callee = tokens
        .slice(index + 1)
        .find((after) => after.kind === 'name' || after.kind === 'boundary');
      if (caller?.kind !== 'name' || callee?.kind !== 'name') return;
      const callerFiles = definedIn(caller.value);
      if (!callerFiles.some((path) => mentions(files.get(path)!, callee.value))) {
        wrong.push(`${caller.value} → ${callee.value}`);
      }
    });
    expect(wrong).toEqual([]);
  });
});

import type { CodeDefinition, CodeLanguage } from './code-outline.js';
import { constantPatterns, definitionPatterns, definitionStarts, statementWords } from './lexer-patterns.js';

/** A signature is cut to this many characters: the name and parameters, rarely more. */
export const SIGNATURE_CHARS = 160;
/** How far a definition's end is looked for, in lines (a longer body ends where the search stops). */
const MAX_BODY_LINES = 4000;

/** Go's `const (` or `var (` opening a group of declarations, one per line until `)`. */
const goGroupOpen = /^(?<keyword>const|var)\s*\(\s*$/;
const goGroupEntry = /^\t(?<name>[A-Za-z_]\w*)\b(?!\s*[(.])/;
/** A constant's value is looked at over at most this many lines for where its brackets close. */
const MAX_VALUE_LINES = 200;

/**
 * The definitions of `text` found line by line: the core's fallback outline, for any of the
 * languages it knows, without a parser. Bodies end at the matching brace (Python: the next line
 * indented no deeper; Ruby: the `end` at the definition's indentation).
 */
export function lexerOutline(language: CodeLanguage, text: string): CodeDefinition[] {
  const lines = text.split('\n');
  const definitions: CodeDefinition[] = [];
  let group: string | undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (group !== undefined) {
      group = line.startsWith(')') ? undefined : group;
      const name = group && goGroupEntry.exec(line)?.groups?.name;
      if (name) definitions.push(constantAt(lines, index, name, group === 'const' ? 'constant' : 'variable'));
      continue;
    }
    if (language === 'go') group = goGroupOpen.exec(line)?.groups?.keyword;
    const definition = group ? undefined : definitionAt(language, lines, index);
    if (definition) definitions.push(definition);
  }
  return definitions;
}

/** The definition that starts on line `index`: a function, type or class, else a constant. */
function definitionAt(
  language: CodeLanguage,
  lines: readonly string[],
  index: number,
): CodeDefinition | undefined {
  const line = lines[index]!;
  if (!definitionStarts[language].test(line)) return undefined;
  for (const { kind, pattern, needsBody: bodyNeeded } of definitionPatterns[language]) {
    const groups = pattern.exec(line)?.groups;
    const name = groups?.name;
    const needsBody = bodyNeeded ?? kind === 'method';
    if (name === undefined || (needsBody && statementWords.has(name))) continue;
    if (needsBody && (isParameterLine(line) || !opensBody(lines, index))) break;
    return {
      name,
      // A pattern for several keywords names the kind by the keyword (`interface`, `enum`, `struct`).
      kind: groups?.keyword ?? kind,
      signature: signatureOf(line),
      line: index + 1,
      endLine: bodyEnd(language, lines, index),
    };
  }
  for (const { kind, pattern } of constantPatterns[language]) {
    const name = pattern.exec(line)?.groups?.name;
    if (name !== undefined) return constantAt(lines, index, name, kind);
  }
  return undefined;
}

/**
 * A parameter inside a signature written over several lines (`    const Flag (&table)[n],`): it
 * ends in `,` with its own parentheses closed. A signature's first line leaves its list open.
 */
function isParameterLine(line: string): boolean {
  if (!/,\s*$/.test(line)) return false;
  let depth = 0;
  for (const character of line) {
    if (character === '(') depth++;
    else if (character === ')') depth--;
  }
  return depth === 0;
}

/** A constant whose value ends where the brackets opened on its first line close. */
function constantAt(lines: readonly string[], index: number, name: string, kind: string): CodeDefinition {
  let depth = 0;
  let end = index;
  const last = Math.min(lines.length, index + MAX_VALUE_LINES);
  for (; end < last; end++) {
    for (const character of lines[end]!) {
      if (character === '{' || character === '[' || character === '(') depth++;
      else if (character === '}' || character === ']' || character === ')') depth--;
    }
    if (depth <= 0) break;
  }
  return {
    name,
    kind,
    signature: signatureOf(lines[index]!),
    line: index + 1,
    endLine: Math.min(end, last - 1) + 1,
  };
}

/** A method-shaped line is a definition when its body opens on it or on the next lines. */
function opensBody(lines: readonly string[], index: number): boolean {
  for (let next = index; next < Math.min(lines.length, index + 4); next++) {
    const line = lines[next]!;
    if (
      /\{\s*$/.test(line) ||
      /\)\s*(?::[^=]+)?\s*\{/.test(line) ||
      /\bthrows\b[^;]*\{/.test(line) ||
      /\)\s*(?:(?:const|noexcept|override|final)\s*)+\{/.test(line)
    )
      return true;
    if (/;\s*$/.test(line)) return false;
  }
  return false;
}

/**
 * The line a declaration starts on, as written (indentation aside): the agent's next edit of it
 * must match it exactly, its `{` or `:` and spacing included.
 */
export function signatureOf(line: string): string {
  const head = line.trim();
  return head.length <= SIGNATURE_CHARS ? head : `${head.slice(0, SIGNATURE_CHARS - 1)}…`;
}

/** The last line (from 1) of the definition that starts on line `start`. */
function bodyEnd(language: CodeLanguage, lines: readonly string[], start: number): number {
  switch (language) {
    case 'python':
      return indentEnd(lines, start);
    case 'ruby':
      return endKeywordEnd(lines, start);
    case 'kotlin':
    case 'swift':
      return braceEnd(lines, start, true);
    default:
      return braceEnd(lines, start, false);
  }
}

/**
 * The line (from 1) where the braces opened on or after `start` close again. In a language whose
 * statements end with the line (`lineEnds`: Kotlin, Swift), a declaration without braces
 * (`fun f() = x`, `interface I`) ends on the first line that closes its parentheses and goes on no
 * further.
 */
function braceEnd(lines: readonly string[], start: number, lineEnds: boolean): number {
  let depth = 0;
  let parentheses = 0;
  let opened = false;
  const last = Math.min(lines.length, start + MAX_BODY_LINES);
  for (let index = start; index < last; index++) {
    const line = lines[index]!;
    for (const character of line) {
      if (character === '{') {
        depth++;
        opened = true;
      } else if (character === '}') depth--;
      else if (character === '(') parentheses++;
      else if (character === ')') parentheses--;
    }
    if (opened && depth <= 0) return index + 1;
    // A declaration without a body (`type X = Y;`) ends on its first line that ends a statement.
    if (!opened && /;\s*$/.test(line)) return index + 1;
    if (!opened && lineEnds && parentheses <= 0 && endsStatement(line, lines[index + 1])) return index + 1;
  }
  return last;
}

/** A line that neither continues (`=`, `,`, `->`, an open bracket) nor is continued by the next (`{`, `:`, `.`). */
function endsStatement(line: string, next: string | undefined): boolean {
  return !/(?:[=,(:{]|->)\s*$/.test(line) && !/^\s*[{:.]/.test(next ?? '');
}

/** A Ruby block: its indented body and the `end` that closes it at its own indentation. */
function endKeywordEnd(lines: readonly string[], start: number): number {
  const end = indentEnd(lines, start);
  const indent = indentOf(lines[start]!);
  for (let index = end; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.trim() === '') continue;
    return indentOf(line) === indent && /^\s*end\b/.test(line) ? index + 1 : end;
  }
  return end;
}

/** The last line of a Python block: before the next non-blank line indented no deeper. */
function indentEnd(lines: readonly string[], start: number): number {
  const indent = indentOf(lines[start]!);
  let end = start;
  const last = Math.min(lines.length, start + MAX_BODY_LINES);
  for (let index = start + 1; index < last; index++) {
    const line = lines[index]!;
    if (line.trim() === '') continue;
    if (indentOf(line) <= indent) break;
    end = index;
  }
  return end + 1;
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}
